#include "common/multi_gpu/span_timer.h"

#include "common/cuda_check.h"

namespace reduce {

SpanTimer::SpanTimer(const std::vector<DeviceStream>& streams) : streams_(streams) {
  for (const DeviceStream& s : streams_) {
    CUDA_CHECK(cudaSetDevice(s.device));
    ends_.push_back(nullptr);
    CUDA_CHECK(cudaEventCreate(&ends_.back()));
  }
  CUDA_CHECK(cudaSetDevice(streams_.at(0).device));
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

SpanTimer::~SpanTimer() {
  for (std::size_t i = 0; i < ends_.size(); ++i) {
    cudaSetDevice(streams_[i].device);
    cudaEventDestroy(ends_[i]);
  }
  cudaSetDevice(streams_[0].device);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void SpanTimer::start() {
  CUDA_CHECK(cudaSetDevice(streams_[0].device));
  CUDA_CHECK(cudaEventRecord(start_, streams_[0].stream));
  for (const DeviceStream& s : streams_) {
    CUDA_CHECK(cudaSetDevice(s.device));
    CUDA_CHECK(cudaStreamWaitEvent(s.stream, start_, 0));
  }
}

double SpanTimer::stop_ms() {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    CUDA_CHECK(cudaSetDevice(streams_[i].device));
    CUDA_CHECK(cudaEventRecord(ends_[i], streams_[i].stream));
  }
  CUDA_CHECK(cudaSetDevice(streams_[0].device));
  for (cudaEvent_t end : ends_) CUDA_CHECK(cudaStreamWaitEvent(streams_[0].stream, end, 0));
  CUDA_CHECK(cudaEventRecord(stop_, streams_[0].stream));
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace reduce
