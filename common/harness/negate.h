// The input's sign flipped in place between timed runs (runner.cu, multi_gpu_runner.cu):
// rounding to nearest is symmetric, so a right sum of -x is exactly minus the sum of x, and
// a run that replays a remembered result or skips reading its input disagrees.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace reduce {

// Enqueues data[i] = -data[i] for i < n on `stream` of the current device; checks the launch.
void negate_on_device(float* data, std::size_t n, cudaStream_t stream = nullptr);

}  // namespace reduce
