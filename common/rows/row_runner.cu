#include "common/rows/row_runner.h"

#include <stdexcept>
#include <string>

#include "common/harness/device.h"
#include "common/harness/shared_poison.h"

namespace reduce {

RowRunner::RowRunner(const StagePlan& plan, std::size_t rows, std::size_t cols,
                     std::size_t input_offset)
    : plan_(plan),
      rows_(rows),
      cols_(cols),
      input_offset_(input_offset),
      input_(rows * cols + input_offset),
      output_(rows * cols),
      gamma_(plan.op == Operation::kLayerNorm ? cols : 0),
      beta_(plan.op == Operation::kLayerNorm ? cols : 0),
      work_(row_work_floats(rows, cols)) {
  if (plan.version(0).row_launch == nullptr) {
    throw std::logic_error("stage " + std::to_string(plan.number) + " has no row launch");
  }
  sm_count_ = current_sm_count();
}

std::size_t RowRunner::bytes_needed(std::size_t n) {
  return (4 * n + n / 64) * sizeof(float) + L2Flusher::bytes();
}

void RowRunner::upload(const std::vector<float>& host) {
  if (host.size() != rows_ * cols_) throw std::invalid_argument("upload: input is not rows x cols");
  CUDA_CHECK(cudaMemcpy(input_.get() + input_offset_, host.data(), host.size() * sizeof(float),
                        cudaMemcpyHostToDevice));
}

void RowRunner::upload_params(const std::vector<float>& gamma, const std::vector<float>& beta) {
  if (gamma.size() != gamma_.count() || beta.size() != beta_.count()) {
    throw std::invalid_argument("upload_params: gamma and beta need cols floats each");
  }
  CUDA_CHECK(cudaMemcpy(gamma_.get(), gamma.data(), gamma_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(beta_.get(), beta.data(), beta_.bytes(), cudaMemcpyHostToDevice));
}

std::vector<float> RowRunner::download_input() const {
  std::vector<float> host(rows_ * cols_);
  CUDA_CHECK(cudaMemcpy(host.data(), input(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<float> RowRunner::download_output() const {
  std::vector<float> host(output_.count());
  CUDA_CHECK(cudaMemcpy(host.data(), output_.get(), output_.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

void RowRunner::prepare() {
  poison_shared_memory();
  // All bits set is a NaN pattern in IEEE 754 single precision.
  CUDA_CHECK(cudaMemsetAsync(output_.get(), 0xFF, output_.bytes(), 0));
  if (work_.count() > 0) CUDA_CHECK(cudaMemsetAsync(work_.get(), 0xFF, work_.bytes(), 0));
}

void RowRunner::launch(unsigned block) {
  plan_.version(0).row_launch({input(), output_.get(), rows_, cols_, block, sm_count_, 0, gamma_.get(),
                    beta_.get(), work_.get()});
}

std::vector<float> RowRunner::run(unsigned block) {
  prepare();
  launch(block);
  CUDA_CHECK(cudaDeviceSynchronize());
  return download_output();
}

RowTiming RowRunner::time(unsigned block, int repeat, CacheState cache) {
  RowTiming timing{};
  L2Flusher& l2 = flusher_for(l2_, cache);
  timing.warmup = run(block);  // loads the module and warms clocks outside the timing
  // Every timed run's matrix is checked against the warm-up's (which the caller verifies
  // against the CPU), not only the last: the output is NaN before each run, so a run that
  // skips a row shows. The comparison is by fingerprint on the GPU; a matrix comes back
  // only when one differed, the last run's, for the caller's report.
  const std::size_t n = rows_ * cols_;
  const std::uint64_t expected = fingerprint_.of(output_.get(), n);
  const auto check_run = [&] {
    if (fingerprint_.of(output_.get(), n) != expected) ++timing.disagreeing;
  };
  timing.median_ms = median_event_ms(
      repeat, l2, [&] { prepare(); }, [&] { launch(block); }, check_run);
  if (timing.disagreeing > 0) timing.last = download_output();
  return timing;
}

}  // namespace reduce
