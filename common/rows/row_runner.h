// Runs one row stage (16 on) on the current device: poisons its output, launches it and
// times it. The row stage executables and their GPU tests go through this, as the vector
// stages go through StageRunner.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "common/device_buffer.h"
#include "common/harness/fingerprint.h"
#include "common/stage.h"
#include "common/harness/timing.h"

namespace reduce {

struct RowTiming {
  double median_ms;          // of the timed runs, each after the L2 was put into its state
  std::vector<float> warmup; // the untimed first run's matrix
  // The last timed run's matrix, brought back only when some timed run disagreed; empty
  // when every one matched the warm-up's bit for bit (last_matrix() is then the warm-up's).
  std::vector<float> last;
  int disagreeing = 0;       // timed runs whose matrix differed from the warm-up's, bit for bit

  const std::vector<float>& last_matrix() const { return last.empty() ? warmup : last; }
};

class RowRunner {
 public:
  // Allocates a rows x cols matrix in and one out. The input starts `input_offset` floats
  // past a 256-byte boundary (tests use 1 to 3 for a misaligned matrix).
  RowRunner(const StagePlan& plan, std::size_t rows, std::size_t cols,
            std::size_t input_offset = 0);

  // Device memory a rows x cols matrix needs (n = rows * cols), for checking it fits
  // (gamma and beta, at most 2 n floats, and the split rows' scratch, n / 64, included).
  static std::size_t bytes_needed(std::size_t n);

  void upload(const std::vector<float>& host);  // exactly rows * cols floats
  // Layer norm's gamma and beta, cols floats each (the other row stages take none).
  void upload_params(const std::vector<float>& gamma, const std::vector<float>& beta);
  std::vector<float> download_input() const;

  std::vector<float> run(unsigned block);
  RowTiming time(unsigned block, int repeat, CacheState cache = CacheState::kClean);

 private:
  // NaN into every output float and 2^100 into every multiprocessor's shared memory, so
  // a value the stage never wrote shows.
  void prepare();
  void launch(unsigned block);
  std::vector<float> download_output() const;
  const float* input() const { return input_.get() + input_offset_; }

  const StagePlan plan_;  // a copy: callers often pass a with_version() temporary
  std::size_t rows_;
  std::size_t cols_;
  std::size_t input_offset_;
  DeviceBuffer<float> input_;
  DeviceBuffer<float> output_;
  DeviceBuffer<float> gamma_;  // empty unless the stage is layer norm
  DeviceBuffer<float> beta_;
  DeviceBuffer<float> work_;   // row_work_floats(rows, cols): scratch for a split row
  int sm_count_ = 0;
  std::optional<L2Flusher> l2_;  // made by the first time()
  DeviceFingerprint fingerprint_;
};

}  // namespace reduce
