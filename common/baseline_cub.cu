// bench_cub: the yardstick the benchmark measures the stages against, CUB's
// cub::DeviceReduce::Sum (shipped with the CUDA toolkit), run through the same harness
// as a stage: same input, timing, verification, report and options.
#include <cub/device/device_reduce.cuh>

#include "common/device_buffer.h"
#include "common/stage.h"

namespace {

reduce::DeviceValues launch_cub(const reduce::Launch& run) {
  // CUB's scratch space outlives a run: allocating it inside the timed region would
  // measure cudaMalloc. Asking for its size is host arithmetic, no GPU work.
  static reduce::DeviceBuffer<unsigned char> scratch;
  const int n = static_cast<int>(run.n);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, run.in, run.partials_alt, n, run.stream));
  if (bytes > scratch.bytes()) scratch = reduce::DeviceBuffer<unsigned char>(bytes);
  CUDA_CHECK(
      cub::DeviceReduce::Sum(scratch.get(), bytes, run.in, run.partials_alt, n, run.stream));
  return {run.partials_alt, 1};
}

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{0,     "cub::DeviceReduce::Sum", SizeRule::kAnyLength,
                              Finish::kOnDevice, launch_cub, /*reduces_in_place=*/false,
                              "CUB"};
  return plan;
}
