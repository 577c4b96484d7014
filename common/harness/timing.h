// Timing device work the same way everywhere: CUDA events around the work, the L2 put
// into a known state before each run, the median of the runs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "common/harness/cache_state.h"
#include "common/device_buffer.h"

namespace reduce {

class L2Flusher {
 public:
  explicit L2Flusher(CacheState state = CacheState::kClean);  // sized from the device's L2
  void set_state(CacheState state) { state_ = state; }
  void flush(int pass);
  static std::size_t bytes();  // device memory a flusher holds

 private:
  static std::size_t sweep_bytes();
  CacheState state_;
  DeviceBuffer<unsigned char> written_;
  DeviceBuffer<unsigned char> read_;
  DeviceBuffer<float> sink_;
  int sm_count_ = 0;
};

// A runner's flusher, made on its first timed run: its two buffers of twice the L2 each
// (2 x 100 MB on an H100) cost about 0.1 s to allocate and free, which a test that never
// times would pay for every runner it makes.
inline L2Flusher& flusher_for(std::optional<L2Flusher>& slot, CacheState state) {
  if (!slot) slot.emplace(state);
  slot->set_state(state);
  return *slot;
}

double median(std::vector<double> values);

// Runs `repeat` times: prepare() (untimed), the L2 put into its state, enqueue() between
// two events on the default stream, then check() (untimed, after the work is done), which
// looks at that run's result. Returns the median elapsed milliseconds.
template <typename Prepare, typename Enqueue, typename Check>
double median_event_ms(int repeat, L2Flusher& l2, Prepare prepare, Enqueue enqueue,
                       Check check) {
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
    check();
  }
  return median(ms);
}

template <typename Prepare, typename Enqueue>
double median_event_ms(int repeat, L2Flusher& l2, Prepare prepare, Enqueue enqueue) {
  return median_event_ms(repeat, l2, prepare, enqueue, [] {});
}

}  // namespace reduce
