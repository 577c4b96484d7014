#include "common/harness/runner.h"

#include "common/argmax_key.h"
#include "common/harness/device.h"
#include "common/max_of.h"
#include "common/harness/negate.h"
#include "common/harness/report.h"
#include "common/harness/shared_poison.h"

#include <stdexcept>
#include <string>

namespace reduce {

StageRunner::StageRunner(const StagePlan& plan, std::size_t n, std::size_t input_offset)
    : plan_(plan),
      n_(n),
      input_offset_(input_offset),
      input_(n + input_offset),
      partials_(partial_capacity(n)),
      partials_alt_(partial_capacity(n)),
      work_(plan.reduces_in_place ? n : 0),
      ticket_(1),
      best_key_(plan.argmax != nullptr ? 1 : 0) {
  sm_count_ = current_sm_count();
  CUDA_CHECK(cudaMemset(ticket_.get(), 0, ticket_.bytes()));
}

std::size_t StageRunner::bytes_needed(const StagePlan& plan, std::size_t n) {
  const std::size_t floats = n + 2 * partial_capacity(n) + (plan.reduces_in_place ? n : 0);
  return floats * sizeof(float) + sizeof(unsigned long long) + L2Flusher::bytes();
}

void StageRunner::upload(const std::vector<float>& host) {
  if (host.size() != n_) throw std::invalid_argument("upload: input size differs from n");
  CUDA_CHECK(cudaMemcpy(input_.get() + input_offset_, host.data(), n_ * sizeof(float),
                        cudaMemcpyHostToDevice));
}

std::vector<float> StageRunner::download_input() const {
  std::vector<float> host(n_);
  CUDA_CHECK(cudaMemcpy(host.data(), input(), n_ * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void StageRunner::prepare() {
  poison_shared_memory();
  // All bits set is a NaN pattern in IEEE 754 single precision.
  CUDA_CHECK(cudaMemsetAsync(partials_.get(), 0xFF, partials_.bytes(), 0));
  CUDA_CHECK(cudaMemsetAsync(partials_alt_.get(), 0xFF, partials_alt_.bytes(), 0));
  if (work_.count() > 0) {
    CUDA_CHECK(cudaMemcpyAsync(work_.get(), input(), work_.bytes(), cudaMemcpyDeviceToDevice, 0));
  }
}

Launch StageRunner::launch_args(unsigned block) const {
  return {input(),     n_,        block,         partials_.get(), partials_alt_.get(),
          work_.get(), sm_count_, ticket_.get(), 0,               best_key_.get()};
}

DeviceValues StageRunner::launch(unsigned block) {
  return plan_.version(0).launch(launch_args(block));
}

std::size_t StageRunner::argmax(unsigned block) {
  if (plan_.argmax == nullptr) throw std::logic_error("this stage has no argmax");
  prepare();
  CUDA_CHECK(cudaMemset(best_key_.get(), 0, best_key_.bytes()));
  plan_.argmax(launch_args(block));
  CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long key = kNoArgmax;
  CUDA_CHECK(cudaMemcpy(&key, best_key_.get(), sizeof key, cudaMemcpyDeviceToHost));
  return key == kNoArgmax ? kNoIndex : argmax_index(key);
}

RunOutput StageRunner::finish(const DeviceValues& values) const {
  const bool one_value = values.count == 1;
  if (values.count == 0 || values.count > partials_.count() ||
      (plan_.finish == Finish::kOnDevice && !one_value)) {
    throw std::logic_error("stage " + std::to_string(plan_.number) + " left " +
                           std::to_string(values.count) +
                           " values on the device; check its launch function");
  }
  unsigned int ticket = 0;
  CUDA_CHECK(cudaMemcpy(&ticket, ticket_.get(), sizeof ticket, cudaMemcpyDeviceToHost));
  if (ticket != 0) {
    const std::string problem = "stage " + std::to_string(plan_.number) + " left its ticket at " +
                                std::to_string(ticket) + "; it must reset it to 0 for the next run";
    report_failure("tests.ticket", problem);
    throw std::logic_error(problem);
  }
  std::vector<float> host(values.count);
  CUDA_CHECK(cudaMemcpy(host.data(), values.data, host.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
  if (plan_.op == Operation::kMax) {
    float best = kLowest;
    for (float v : host) best = max_of(best, v);
    return {best, values.count};
  }
  // Adding the block sums in double keeps the host's share of the error to one final
  // rounding to float; the kernel's own tree is what the verification judges.
  double sum = 0.0;
  for (float v : host) sum += v;
  return {static_cast<float>(sum), values.count};
}

RunOutput StageRunner::run(unsigned block) {
  prepare();
  const DeviceValues values = launch(block);
  return finish(values);
}

void StageRunner::negate_input() {
  negate_on_device(input_.get() + input_offset_, n_);
}

// Every timed run's result is checked, not only the last: against the warm-up's, which the
// caller verifies against the CPU. For a sum the input's sign flips before each timed run
// (untimed): rounding to nearest is symmetric, so a right kernel returns exactly the
// warm-up's sum with its sign flipped, and one that returns a remembered result, or one
// that skips reading the input, is wrong on every other run. A max has no such exact
// relation (the max of -x is minus the min of x): its runs must simply agree.
Timing StageRunner::time(unsigned block, int repeat, CacheState cache) {
  Timing timing{};
  L2Flusher& l2 = flusher_for(l2_, cache);
  timing.warmup = run(block);  // loads the module and warms clocks outside the timing
  const bool flip = plan_.op == Operation::kSum;
  bool negated = false;
  DeviceValues values{};
  const auto prepare_run = [&] {
    if (flip) {
      negate_input();
      negated = !negated;
    }
    prepare();
  };
  const auto check_run = [&] {
    RunOutput out = finish(values);
    if (negated) out.sum = -out.sum;
    if (!same_value(out.sum, timing.warmup.sum) && timing.disagreeing++ == 0) {
      timing.first_disagreeing = out.sum;
    }
    timing.last = out;
  };
  timing.median_ms = median_event_ms(
      repeat, l2, prepare_run, [&] { values = launch(block); }, check_run);
  if (negated) negate_input();  // the input as uploaded, for whoever reads it next
  CUDA_CHECK(cudaDeviceSynchronize());
  return timing;
}

}  // namespace reduce
