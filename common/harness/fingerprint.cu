#include "common/harness/fingerprint.h"

#include "common/cuda_check.h"
#include "common/harness/device.h"

namespace reduce {
namespace {

// splitmix64's finaliser: a bijection on 64 bits in which every input bit reaches every
// output bit.
__device__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__global__ void fingerprint_sum(const float* data, std::size_t n, unsigned long long* sum) {
  unsigned long long mine = 0;
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) {
    // The place in the high half and the bits in the low: no two (place, bits) pairs meet
    // below 2^32 values, so one changed value always changes the sum.
    mine += mix((static_cast<std::uint64_t>(i) << 32) | __float_as_uint(data[i]));
  }
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, mine);
}

}  // namespace

DeviceFingerprint::DeviceFingerprint() : sum_(1) {
  blocks_ = static_cast<unsigned>(4 * current_sm_count());
}

std::uint64_t DeviceFingerprint::of(const float* data, std::size_t n) {
  CUDA_CHECK(cudaMemsetAsync(sum_.get(), 0, sum_.bytes(), 0));
  if (n > 0) {
    fingerprint_sum<<<blocks_, 256, 0, 0>>>(data, n, sum_.get());
    CUDA_CHECK_LAUNCH("fingerprint_sum");
  }
  unsigned long long sum = 0;
  CUDA_CHECK(cudaMemcpy(&sum, sum_.get(), sizeof sum, cudaMemcpyDeviceToHost));
  return sum;
}

}  // namespace reduce
