// Stage 20's side of the harness: the stage writes the host code (allocate, copy, launch,
// time, copy back, free); the harness calls it, adds the block sums it returned and checks
// that the device memory it took came back.
#pragma once

#include <cstddef>
#include <vector>

#include "common/stage.h"

namespace reduce {

struct HostOutcome {
  float sum = 0.0f;        // the returned block sums added in double, rounded to float
  std::size_t blocks = 0;  // how many block sums came back
  bool unwritten = false;  // some block sum is still NaN: it was never copied back
  float kernel_ms = -1.0f;
};

// One call of the stage's host code.
HostOutcome run_host_code(const StagePlan& plan, const std::vector<float>& input, unsigned block);

// Free device memory now (cudaMemGetInfo), to see whether a stage returned what it took.
std::size_t free_device_bytes();

// Bytes of device memory stage 20 needs for n floats at the smallest block: the input and
// one block sum per 64 floats, plus the harness's L2 flusher.
std::size_t host_code_bytes_needed(std::size_t n);

// A drop in free device memory across calls of the host code larger than this is a leak:
// one leaked input of 2^20 floats is 4 MiB, and the driver's own bookkeeping moves free
// memory by less than a 2 MiB page.
inline constexpr std::size_t kLeakBytes = std::size_t{4} << 20;

}  // namespace reduce
