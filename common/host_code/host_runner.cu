#include "common/host_code/host_runner.h"

#include <cmath>
#include <cstdio>

#include "common/cuda_check.h"
#include "common/harness/timing.h"

namespace reduce {

HostOutcome run_host_code(const StagePlan& plan, const std::vector<float>& input,
                          unsigned block) {
  watch_launches();
  const HostRun run = plan.host_run(input, block);
  HostOutcome outcome;
  outcome.watched = launches_watched();
  double total = 0.0;
  for (float value : run.block_sums) {
    if (std::isnan(value)) outcome.unwritten = true;
    total += value;
  }
  outcome.sum = static_cast<float>(total);
  outcome.blocks = run.block_sums.size();
  outcome.kernel_ms = run.kernel_ms;
  return outcome;
}

std::string kept_after_calls(const DeviceHoldings& kept, int calls) {
  if (kept.buffers == 0 && kept.events == 0) return "";
  const double mib = static_cast<double>(kept.bytes) / (1 << 20);
  char line[160];
  std::snprintf(line, sizeof line, "%zu buffer(s) (%.2f MiB) and %zu event(s) still held after %d calls",
                kept.buffers, mib, kept.events, calls);
  return line;
}

std::size_t host_code_bytes_needed(std::size_t n) {
  return (n + n / 64 + 1) * sizeof(float) + L2Flusher::bytes();
}

}  // namespace reduce
