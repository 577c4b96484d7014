#include "common/timing.h"

namespace reduce {

std::size_t L2Flusher::bytes() {
  int device = 0;
  int l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return std::max<std::size_t>(2 * static_cast<std::size_t>(l2_bytes), std::size_t{1} << 20);
}

L2Flusher::L2Flusher() : buffer_(bytes()) {}

void L2Flusher::flush(int pass) {
  CUDA_CHECK(cudaMemsetAsync(buffer_.get(), pass & 0xFF, buffer_.bytes(), 0));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace reduce
