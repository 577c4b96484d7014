// Timing device work the same way everywhere: CUDA events around the work, the L2
// flushed before each run, the median of the runs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/device_buffer.h"

namespace reduce {

// Writing twice the L2's size evicts every line a previous run left there, so each
// timed run reads its input from device memory, as a first touch would.
class L2Flusher {
 public:
  L2Flusher();  // sized from the current device's L2
  void flush(int pass);
  static std::size_t bytes();

 private:
  DeviceBuffer<unsigned char> buffer_;
};

double median(std::vector<double> values);

// Runs `repeat` times: prepare() (untimed), an L2 flush, then enqueue() between two
// events on the default stream. Returns the median elapsed milliseconds.
template <typename Prepare, typename Enqueue>
double median_event_ms(int repeat, L2Flusher& l2, Prepare prepare, Enqueue enqueue) {
  CudaEvent start, stop;
  std::vector<double> ms;
  for (int pass = 0; pass < repeat; ++pass) {
    prepare();
    l2.flush(pass);  // last, so not even what prepare() wrote is left in the L2
    CUDA_CHECK(cudaEventRecord(start.get(), 0));
    enqueue();
    CUDA_CHECK(cudaEventRecord(stop.get(), 0));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float elapsed = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    ms.push_back(elapsed);
  }
  return median(ms);
}

}  // namespace reduce
