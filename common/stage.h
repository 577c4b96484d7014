// The contract between the harness and a stage file.
//
// A stage file holds its kernel(s) and one launch function. The harness owns everything
// else: input, device buffers, poisoning, timing, finishing on the host, verification
// and the report. Each stage's todo.cu defines reduce::stage_plan() to hand that over.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <vector>

#include "common/cuda_check.h"
#include "common/stage_rules.h"

namespace reduce {

// What the harness hands the stage's launch function on every run.
struct Launch {
  const float* in;       // n floats on the device; a stage must leave them unchanged
  std::size_t n;         // 1 to 2^31 - 1, already checked against the stage's SizeRule
  unsigned block;        // threads per block: 32, 64, 128, 256, 512 or 1024
  float* partials;       // partial_capacity(n) floats of scratch, poisoned with NaN
  float* partials_alt;   // a second such buffer, for passes that read one and write the other
  float* work;           // a fresh copy of the input for stages that reduce in place
                         // (StagePlan::reduces_in_place); nullptr for the others
  int sm_count;          // multiprocessors on the device, for grids sized to fill it
  unsigned int* ticket;  // one counter, zero at the start; a stage that counts finished
                         // blocks in it must leave it zero again (the harness checks)
  cudaStream_t stream;   // every launch goes on this stream, so the harness can time it
  unsigned long long* best_key = nullptr;  // an argmax's answer (common/argmax_key.h),
                                           // zero at the start
};

// One float per block of a pass over n elements, for the smallest block we allow.
constexpr std::size_t partial_capacity(std::size_t n) {
  return (n + kMinBlock - 1) / kMinBlock;
}

// Where the launches left their result: `count` floats in device memory. A stage that
// finishes on the device leaves exactly one; the others leave one per block, and the
// harness adds those on the host in double precision.
struct DeviceValues {
  const float* data;
  std::size_t count;
};

using LaunchFunction = DeviceValues (*)(const Launch& run);

// What the harness hands a row stage (16 on): a rows x cols matrix in, one of the same
// shape out.
struct RowLaunch {
  const float* in;     // rows * cols floats, row after row; a stage must leave them unchanged
  float* out;          // rows * cols floats, poisoned with NaN before every run
  std::size_t rows;    // rows * cols <= 2^31 - 1
  std::size_t cols;
  unsigned block;      // threads per block: 32, 64, 128, 256, 512 or 1024
  int sm_count;
  cudaStream_t stream;
  const float* gamma = nullptr;  // layer norm's scale and shift, cols floats each;
  const float* beta = nullptr;   // nullptr for the other row stages
  // Scratch for a row split over several blocks that hand each other partial results
  // through memory: row_work_floats(rows, cols) floats, NaN before every run.
  float* work = nullptr;
};

// Room for 4 floats per 256 whole columns of every row (a part of a split row covers at
// least 256 columns and leaves at most 4 floats): n / 64 floats at most.
constexpr std::size_t row_work_floats(std::size_t rows, std::size_t cols) {
  return rows * (cols / 256) * 4;
}

// Enqueues the stage's kernels, no syncing; every out value must be written.
using RowLaunchFunction = void (*)(const RowLaunch& run);

// Stage 05: the student writes the host side. Given the input on the host and a block
// size, the stage allocates device memory, copies the input in, launches its kernel, times
// the launch with two CUDA events, copies the block sums back and frees what it allocated.
struct HostRun {
  std::vector<float> block_sums;  // one per block of the launch; the harness adds them
  float kernel_ms = -1.0f;        // the launch's time from the stage's own events
};
using HostRunFunction = HostRun (*)(const std::vector<float>& input, unsigned block);
// Stage 05's given kernel: in, block_sums (one per block), n. Its parameters are fixed, so
// the harness can read a launch's arguments (common/harness/launch_watch.h).
using GivenKernel = void (*)(const float* in, float* block_sums, unsigned int n);

// One way a stage computes its result (stage 15 has six). A vector stage fills `launch`,
// a row stage `row_launch`; a host-code or many-GPU stage names only its technique.
struct StageVersion {
  const char* technique;  // "warp shuffle"
  LaunchFunction launch = nullptr;
  RowLaunchFunction row_launch = nullptr;
};

struct MultiGpuPlan;  // common/multi_gpu.h

// Written with designated initialisers; what a field leaves out takes the default below.
struct StagePlan {
  int number;                          // 7 for stage07_interleaved; 0 for a baseline
  StageKind kind = StageKind::kVector;
  Operation op = Operation::kSum;
  SizeRule sizes = SizeRule::kAnyLength;
  Finish finish = Finish::kOnDevice;
  // --version V picks versions[V - 1]; without it the default version runs (below).
  std::span<const StageVersion> versions;
  bool reduces_in_place = false;  // wants Launch::work, refilled before every run, untimed
  const char* title = nullptr;    // the report's name when not "Stage N" (a baseline)
  // Stage 15's argmax: enqueue kernels that leave the first maximum's key in
  // *run.best_key (reduce::argmax_key), no syncing. Not timed; checked after the timing.
  void (*argmax)(const Launch& run) = nullptr;
  HostRunFunction host_run = nullptr;   // kHostCode: the whole host side
  // kHostCode: the kernel the stage gives; the harness checks that the block sums host_run
  // returns are the ones this kernel wrote on the device (host_code/host_runner.h).
  GivenKernel given_kernel = nullptr;
  const MultiGpuPlan* multi_gpu = nullptr;  // kMultiGpu: the stage's NCCL side

  // The version that runs without --version: the last, the lesson's final form.
  int default_version() const { return static_cast<int>(versions.size()); }
  const StageVersion& version(int v) const { return versions[(v > 0 ? v : default_version()) - 1]; }
  const char* technique() const { return version(0).technique; }
};

// The plan narrowed to version `version` (1-based), which becomes its default; 0 keeps
// the plan as it is.
inline StagePlan with_version(const StagePlan& plan, int version) {
  StagePlan picked = plan;
  if (version >= 1 && version <= plan.default_version()) {
    picked.versions = plan.versions.subspan(static_cast<std::size_t>(version - 1), 1);
  }
  return picked;
}

// Defined once in each stage's todo.cu (template and answer alike).
const StagePlan& stage_plan();

}  // namespace reduce
