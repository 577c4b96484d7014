// bench_cub and bench_cub_max: the yardsticks the benchmark measures the stages against,
// CUB's cub::DeviceReduce::Sum and ::Max (shipped with the CUDA toolkit), run through the
// same harness as a stage: same input, timing, verification, report and options.
// CMake builds this file twice; REDUCE_CUB_MAX picks Max (stage 15's yardstick).
#include <cub/device/device_reduce.cuh>

#include "common/device_buffer.h"
#include "common/stage.h"

namespace {

#ifdef REDUCE_CUB_MAX
constexpr reduce::Operation kOp = reduce::Operation::kMax;
constexpr const char* kTechnique = "cub::DeviceReduce::Max";
constexpr const char* kTitle = "CUB max";
#else
constexpr reduce::Operation kOp = reduce::Operation::kSum;
constexpr const char* kTechnique = "cub::DeviceReduce::Sum";
constexpr const char* kTitle = "CUB";
#endif

cudaError_t cub_reduce(void* scratch, std::size_t& bytes, const reduce::Launch& run) {
  const int n = static_cast<int>(run.n);
  if constexpr (kOp == reduce::Operation::kMax) {
    return cub::DeviceReduce::Max(scratch, bytes, run.in, run.partials_alt, n, run.stream);
  } else {
    return cub::DeviceReduce::Sum(scratch, bytes, run.in, run.partials_alt, n, run.stream);
  }
}

reduce::DeviceValues launch_cub(const reduce::Launch& run) {
  // CUB's scratch space outlives a run: allocating it inside the timed region would
  // measure cudaMalloc. Asking for its size is host arithmetic, no GPU work.
  static reduce::DeviceBuffer<unsigned char> scratch;
  std::size_t bytes = 0;
  CUDA_CHECK(cub_reduce(nullptr, bytes, run));
  if (bytes > scratch.bytes()) scratch = reduce::DeviceBuffer<unsigned char>(bytes);
  CUDA_CHECK(cub_reduce(scratch.get(), bytes, run));
  return {run.partials_alt, 1};
}

}  // namespace

constexpr reduce::StageVersion kVersions[] = {{kTechnique, launch_cub}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 0, .op = kOp, .versions = kVersions, .title = kTitle};
  return plan;
}
