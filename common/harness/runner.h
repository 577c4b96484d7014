// Runs one stage on the current device: poisons its scratch, launches it, finishes the
// sum and times it. Both the stage executables and the GPU tests go through this.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/device_buffer.h"
#include "common/stage.h"
#include "common/harness/timing.h"

namespace reduce {

struct RunOutput {
  float sum;                  // the stage's final result (host-finished where the stage says
                              // so): the sum, or for a max stage the max
  std::size_t device_values;  // how many values the launches left on the device
};

struct Timing {
  double median_ms;  // of the timed runs, each after the L2 was put into its state
  RunOutput warmup;  // the untimed first run
  RunOutput last;    // the last timed run
  // Timed runs whose result differed from the warm-up's (a sum's sign put back first: the
  // input's sign flips before every timed run), and the first such result.
  int disagreeing = 0;
  float first_disagreeing = 0.0f;
};

class StageRunner {
 public:
  // Allocates buffers for n elements on the current device. The input starts
  // `input_offset` floats past a 256-byte boundary (tests use 1 to 3 to check stages
  // that load 16 bytes at a time also handle a misaligned pointer).
  StageRunner(const StagePlan& plan, std::size_t n, std::size_t input_offset = 0);

  // Device memory the runner needs for n elements, for checking it fits beforehand.
  static std::size_t bytes_needed(const StagePlan& plan, std::size_t n);

  void upload(const std::vector<float>& host);  // exactly n floats
  std::vector<float> download_input() const;

  RunOutput run(unsigned block);

  // The stage's argmax (StagePlan::argmax) on the uploaded input: the index of the first
  // maximum, or kNoIndex when the launches left no key.
  static constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);
  std::size_t argmax(unsigned block);
  Timing time(unsigned block, int repeat, CacheState cache = CacheState::kClean);

 private:
  // NaN into every scratch float and 2^100 into every multiprocessor's shared memory, so
  // a value the stage never wrote shows, and a fresh copy of the input for stages that
  // reduce in place.
  void prepare();
  Launch launch_args(unsigned block) const;
  DeviceValues launch(unsigned block);
  RunOutput finish(const DeviceValues& values) const;
  void negate_input();  // in place, on the default stream
  const float* input() const { return input_.get() + input_offset_; }

  const StagePlan plan_;  // a copy: callers often pass a with_version() temporary
  std::size_t n_;
  std::size_t input_offset_;
  DeviceBuffer<float> input_;
  DeviceBuffer<float> partials_;
  DeviceBuffer<float> partials_alt_;
  DeviceBuffer<float> work_;  // empty unless the stage reduces in place
  DeviceBuffer<unsigned int> ticket_;
  DeviceBuffer<unsigned long long> best_key_;
  int sm_count_ = 0;
  std::optional<L2Flusher> l2_;  // made by the first time()
};

}  // namespace reduce
