#include "common/host_runner.h"

#include <cmath>

#include "common/cuda_check.h"
#include "common/timing.h"

namespace reduce {

HostOutcome run_host_code(const StagePlan& plan, const std::vector<float>& input,
                          unsigned block) {
  const HostRun run = plan.host_run(input, block);
  HostOutcome outcome;
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

std::size_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

std::size_t host_code_bytes_needed(std::size_t n) {
  return (n + n / 64 + 1) * sizeof(float) + L2Flusher::bytes();
}

}  // namespace reduce
