#include "common/runner.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace reduce {
namespace {

// Writing twice the L2's size evicts every line the previous run left there, so each
// timed run reads its input from device memory, as a first touch would.
std::size_t l2_flush_bytes() {
  int device = 0;
  int l2_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return std::max<std::size_t>(2 * static_cast<std::size_t>(l2_bytes), std::size_t{1} << 20);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

StageRunner::StageRunner(const StagePlan& plan, std::size_t n)
    : plan_(plan),
      n_(n),
      input_(n),
      partials_(partial_capacity(n)),
      partials_alt_(partial_capacity(n)),
      work_(plan.reduces_in_place ? n : 0),
      l2_flush_(l2_flush_bytes()) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
}

std::size_t StageRunner::bytes_needed(const StagePlan& plan, std::size_t n) {
  const std::size_t floats = n + 2 * partial_capacity(n) + (plan.reduces_in_place ? n : 0);
  return floats * sizeof(float) + l2_flush_bytes();
}

void StageRunner::upload(const std::vector<float>& host) {
  if (host.size() != n_) throw std::invalid_argument("upload: input size differs from n");
  CUDA_CHECK(cudaMemcpy(input_.get(), host.data(), input_.bytes(), cudaMemcpyHostToDevice));
}

std::vector<float> StageRunner::download_input() const {
  std::vector<float> host(n_);
  CUDA_CHECK(cudaMemcpy(host.data(), input_.get(), input_.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

void StageRunner::prepare() {
  // All bits set is a NaN pattern in IEEE 754 single precision.
  CUDA_CHECK(cudaMemsetAsync(partials_.get(), 0xFF, partials_.bytes(), 0));
  CUDA_CHECK(cudaMemsetAsync(partials_alt_.get(), 0xFF, partials_alt_.bytes(), 0));
  if (work_.count() > 0) {
    CUDA_CHECK(cudaMemcpyAsync(work_.get(), input_.get(), input_.bytes(),
                               cudaMemcpyDeviceToDevice, 0));
  }
}

DeviceValues StageRunner::launch(unsigned block) {
  const Launch run{input_.get(), n_,        block,         partials_.get(),
                   partials_alt_.get(), work_.get(), sm_count_, 0};
  return plan_.launch(run);
}

RunOutput StageRunner::finish(const DeviceValues& values) const {
  const bool one_value = values.count == 1;
  if (values.count == 0 || values.count > partials_.count() ||
      (plan_.finish == Finish::kOnDevice && !one_value)) {
    throw std::logic_error("stage " + std::to_string(plan_.number) + " left " +
                           std::to_string(values.count) +
                           " values on the device; check its launch function");
  }
  std::vector<float> host(values.count);
  CUDA_CHECK(cudaMemcpy(host.data(), values.data, host.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
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

void StageRunner::flush_l2(int pass) {
  CUDA_CHECK(cudaMemsetAsync(l2_flush_.get(), pass & 0xFF, l2_flush_.bytes(), 0));
}

Timing StageRunner::time(unsigned block, int repeat) {
  Timing timing{};
  timing.warmup = run(block);  // loads the module and warms clocks outside the timing
  CudaEvent start, stop;
  std::vector<double> ms;
  DeviceValues values{};
  for (int pass = 0; pass < repeat; ++pass) {
    prepare();
    flush_l2(pass);  // last, so not even the refilled scratch is left in the L2
    CUDA_CHECK(cudaEventRecord(start.get(), 0));
    values = launch(block);
    CUDA_CHECK(cudaEventRecord(stop.get(), 0));
    CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float elapsed = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    ms.push_back(elapsed);
  }
  timing.last = finish(values);
  timing.median_ms = median(ms);
  return timing;
}

}  // namespace reduce
