#include "common/host_code/host_runner.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/cuda_check.h"
#include "common/harness/timing.h"

namespace reduce {

HostOutcome run_host_code(const StagePlan& plan, const std::vector<float>& input,
                          unsigned block) {
  watch_launches(plan.given_kernel, most_block_sums(input.size()));
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
  outcome.block_sums = run.block_sums;
  return outcome;
}

namespace {

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

std::string launch_problem(const HostOutcome& out, std::size_t n, unsigned block) {
  const LaunchWatch& seen = out.watched;
  if (!seen.available) return "";
  if (seen.given_launches == 0) {
    return "reduce_blocks was never launched: the block sums must come from it on the GPU "
           "(TODO 3)";
  }
  const GivenLaunch& last = seen.last_given;
  if (last.n != n || last.block != block) {
    return "reduce_blocks was launched for n = " + std::to_string(last.n) + " with block " +
           std::to_string(last.block) + ", but the input has n = " + std::to_string(n) +
           " and the block is " + std::to_string(block) + " (TODO 3)";
  }
  if (last.grid != out.blocks || !same_bits(last.block_sums, out.block_sums)) {
    return "the block sums returned are not the ones reduce_blocks wrote on the GPU: copy "
           "them back from d_block_sums after the launch (TODO 4)";
  }
  if (out.kernel_ms > 0.0f && out.kernel_ms < 0.9 * seen.kernel_ms - 0.001) {
    return "kernel_ms is " + std::to_string(out.kernel_ms) + " but the launch took " +
           std::to_string(seen.kernel_ms) + " ms between the harness's own events: "
           "record start just before the launch and stop just after it (TODO 3)";
  }
  return "";
}

std::string kept_after_calls(const DeviceHoldings& kept, int calls) {
  if (kept.buffers == 0 && kept.events == 0) return "";
  const double mib = static_cast<double>(kept.bytes) / (1 << 20);
  char line[160];
  std::snprintf(line, sizeof line, "%zu buffer(s) (%.2f MiB) and %zu event(s) still held after %d calls",
                kept.buffers, mib, kept.events, calls);
  return line;
}

std::size_t most_block_sums(std::size_t n) { return n / 64 + 1; }

std::size_t host_code_bytes_needed(std::size_t n) {
  return (n + most_block_sums(n)) * sizeof(float) + L2Flusher::bytes();
}

}  // namespace reduce
