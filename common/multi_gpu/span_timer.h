// Timing work spread over several GPUs with CUDA events. cudaEventElapsedTime only
// compares two events of one device, so the span is brought onto the first GPU: its start
// event opens it and every other stream waits for that event; each stream then marks its
// end, the first GPU's stream waits for every mark, and the stop event closes the span.
// So the time runs from the first start to the last end, whichever GPU finishes last.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "common/device_buffer.h"

namespace reduce {

struct DeviceStream {
  int device;
  cudaStream_t stream;
};

class SpanTimer {
 public:
  explicit SpanTimer(const std::vector<DeviceStream>& streams);
  ~SpanTimer();
  SpanTimer(const SpanTimer&) = delete;
  SpanTimer& operator=(const SpanTimer&) = delete;

  void start();       // before any stream's work is enqueued
  double stop_ms();   // after all of it: waits for the span to end, returns its length

 private:
  std::vector<DeviceStream> streams_;
  std::vector<cudaEvent_t> ends_;  // one per stream, made on its device
  cudaEvent_t start_ = nullptr;    // on the first stream's device, as is stop_
  cudaEvent_t stop_ = nullptr;
};

}  // namespace reduce
