// The input's sign flipped in place between timed runs (runner.cu, multi_gpu_runner.cu,
// ranks_main.cu): rounding to nearest is symmetric, so a right sum of -x is exactly minus
// the sum of x, and a run that replays a remembered result or skips reading its input
// disagrees.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

namespace reduce {

// Enqueues data[i] = -data[i] for i < n on `stream` of the current device; checks the launch.
void negate_on_device(float* data, std::size_t n, cudaStream_t stream = nullptr);

// Whether a timed run's result (its sign put back) agrees with the warm-up's, bit for bit;
// two NaNs agree.
inline bool same_value(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace reduce
