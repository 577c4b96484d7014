#include "common/harness/negate.h"

#include "common/cuda_check.h"
#include "common/harness/device.h"

namespace reduce {
namespace {

__global__ void negate(float* data, std::size_t n) {
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    data[i] = -data[i];
  }
}

}  // namespace

void negate_on_device(float* data, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  negate<<<static_cast<unsigned int>(4 * current_sm_count()), 256, 0, stream>>>(data, n);
  CUDA_CHECK_LAUNCH("negate");
}

}  // namespace reduce
