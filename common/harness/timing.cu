#include "common/harness/timing.h"

#include "common/harness/device.h"

namespace reduce {
namespace {

// Reads `count` float4s and keeps nothing: the sum is written only if it equals a value
// a buffer of zeros cannot sum to, which keeps the compiler from dropping the loads.
__global__ void read_sweep(const float4* data, std::size_t count, float* sink) {
  float sum = 0.0f;
  const std::size_t stride = std::size_t{blockDim.x} * gridDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count; i += stride) {
    const float4 v = data[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  if (sum == -1.0f) *sink = sum;
}

constexpr unsigned kSweepBlock = 256;
constexpr int kSweepBlocksPerSm = 8;

}  // namespace

std::size_t L2Flusher::sweep_bytes() {
  int device = 0;
  int l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return std::max<std::size_t>(2 * static_cast<std::size_t>(l2_bytes), std::size_t{1} << 20);
}

std::size_t L2Flusher::bytes() { return 2 * sweep_bytes() + sizeof(float); }

L2Flusher::L2Flusher(CacheState state)
    : state_(state), written_(sweep_bytes()), read_(sweep_bytes()), sink_(1) {
  sm_count_ = current_sm_count();
  CUDA_CHECK(cudaMemset(read_.get(), 0, read_.bytes()));
}

void L2Flusher::flush(int pass) {
  CUDA_CHECK(cudaMemsetAsync(written_.get(), pass & 0xFF, written_.bytes(), 0));
  if (state_ == CacheState::kDirty) return;
  read_sweep<<<static_cast<unsigned>(sm_count_ * kSweepBlocksPerSm), kSweepBlock, 0, 0>>>(
      reinterpret_cast<const float4*>(read_.get()), read_.bytes() / sizeof(float4), sink_.get());
  CUDA_CHECK_LAUNCH("read_sweep");
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace reduce
