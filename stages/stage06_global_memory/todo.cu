// Stage 06: a tree reduction in global memory only, the baseline before shared memory.
// Each block folds its blockDim.x elements of a scratch copy of the input in place
// (stride 1, 2, 4, ...; only threads with tid % (2*stride) == 0 add), and thread 0 writes
// the block's sum. The kernel is launched again on those sums until one value is left.
//
// Run it:   scripts/run.sh 6          (answer)     scripts/run.sh --todo 6   (your template)
//           build/bin/stage06_todo --n 1000 --block 128
// Test it:  scripts/test.sh --todo 6
#include "common/launch.h"

__global__ void reduce_global(float* data, float* block_sums, unsigned int n) {
  // ====================== TODO 1 of 2: BEGIN ======================
  // The tree, directly in global memory:
  // - tid = threadIdx.x and i = blockIdx.x * blockDim.x + tid (this thread's element);
  // - stride = 1, 2, 4, ... while stride < blockDim.x;
  // - threads whose tid is a multiple of 2*stride add data[i + stride] into data[i],
  //   but only if i + stride < n: the last block may hang over the end of the data;
  // - after each step the whole block waits, because the next step reads what this
  //   step wrote.
  // ====================== TODO 1 of 2: END ========================

  // ====================== TODO 2 of 2: BEGIN ======================
  // Thread 0 (whose i is always inside the data) writes the block's sum, data[i], to
  // block_sums[blockIdx.x]. Not to data[blockIdx.x]: other blocks may still be reading it.
  // ====================== TODO 2 of 2: END ========================
}

namespace {

// The kernel overwrites its input, so the first pass runs on run.work, a copy of the
// input the harness refills before every run. launch_until_one (common/launch.h) then
// relaunches it on the block sums, one launch per level, until one value is left.
reduce::DeviceValues launch_global(const reduce::Launch& run) {
  return reduce::launch_until_one(reduce_global, "reduce_global", run.work, run, {1, 0});
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"global memory only", launch_global}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 6,
                              .kind = StageKind::kVector,
                              .versions = kVersions,
                              .reduces_in_place = true};
  return plan;
}
