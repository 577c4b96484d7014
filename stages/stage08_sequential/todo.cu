// Stage 08: sequential addressing in shared memory.
// The same tree as stage 07, folded the other way: the stride starts at blockDim.x / 2
// and halves, and threads 0 .. stride-1 add the slot `stride` above their own. The
// working threads are always the lowest ones, so whole warps fall idle together and
// the 32 threads of a warp touch 32 consecutive words (no bank conflicts).
//
// Run it:   scripts/run.sh 8          (answer)     scripts/run.sh --todo 8   (your template)
//           build/bin/stage08_todo --n 1048576 --block 128
// Test it:  scripts/test.sh --todo 8
#include "common/launch.h"

__global__ void reduce_sequential(const float* in, float* block_sums) {
  extern __shared__ float sdata[];  // blockDim.x floats; the launch below sizes it

  // Loading is the same as in stage 07: one element per thread, then a barrier.
  const unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();

  // ====================== TODO 1 of 2: BEGIN ======================
  // Fold the block's values with sequential addressing.
  // - stride starts at blockDim.x / 2 and halves until it reaches 0.
  // - Thread tid works while tid < stride: it adds sdata[tid + stride] into sdata[tid].
  // - Every thread, working or not, waits at a barrier after each step.
  // ====================== TODO 1 of 2: END ========================

  // ====================== TODO 2 of 2: BEGIN ======================
  // Thread 0 writes the block's sum, sdata[0], to block_sums[blockIdx.x].
  // ====================== TODO 2 of 2: END ========================
}

namespace {

// One block per `block` elements; each block's sum stays in run.partials and the
// harness adds them on the host (it has checked that n is a multiple of the block).
reduce::DeviceValues launch_sequential(const reduce::Launch& run) {
  return reduce::launch_block_sums(reduce_sequential, "reduce_sequential", run);
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"sequential addressing", launch_sequential}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 8,
                              .kind = StageKind::kVector,
                              .sizes = SizeRule::kMultipleOfBlock,
                              .finish = Finish::kOnHost,
                              .versions = kVersions};
  return plan;
}
