// Stage 07: interleaved addressing in shared memory.
// Each block copies blockDim.x inputs into shared memory and folds them pairwise with a
// stride that doubles each step (1, 2, 4, ...); only threads with tid % (2*stride) == 0
// add. Thread 0 writes the block's sum, and the host adds the block sums.
//
// Run it:   scripts/run.sh 7          (answer)     scripts/run.sh --todo 7   (your template)
//           build/bin/stage07_todo --n 1048576 --block 128
// Test it:  scripts/test.sh --todo 7
#include "common/launch.h"

__global__ void reduce_interleaved(const float* in, float* block_sums) {
  extern __shared__ float sdata[];  // blockDim.x floats; the launch below sizes it

  // ====================== TODO 1 of 3: BEGIN ======================
  // Load this thread's element into shared memory.
  // - tid = threadIdx.x; the element is in[blockIdx.x * blockDim.x + tid].
  // - n is a whole number of blocks (the harness checks), so no bounds check is needed.
  // - Every value must be in sdata before any thread reads a neighbour's slot.
  const unsigned int tid = threadIdx.x;
  const unsigned int i = blockIdx.x * blockDim.x + tid;
  sdata[tid] = in[i];
  __syncthreads();
  // ====================== TODO 1 of 3: END ========================

  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    // ====================== TODO 2 of 3: BEGIN ======================
    // One step of the tree: threads whose tid is a multiple of 2*stride add the slot
    // `stride` to their right into their own. Then the whole block waits, because the
    // next step reads what this step wrote.
    if (tid % (2 * stride) == 0) {
      sdata[tid] += sdata[tid + stride];
    }
    __syncthreads();
    // ====================== TODO 2 of 3: END ========================
  }

  // ====================== TODO 3 of 3: BEGIN ======================
  // Thread 0 writes the block's sum, sdata[0], to block_sums[blockIdx.x].
  if (tid == 0) block_sums[blockIdx.x] = sdata[0];
  // ====================== TODO 3 of 3: END ========================
}

namespace {

// One block per `block` elements; each block's sum stays in run.partials and the
// harness adds them on the host (it has checked that n is a multiple of the block).
reduce::DeviceValues launch_interleaved(const reduce::Launch& run) {
  return reduce::launch_block_sums(reduce_interleaved, "reduce_interleaved", run);
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"interleaved addressing", launch_interleaved}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 7,
                              .kind = StageKind::kVector,
                              .sizes = SizeRule::kMultipleOfBlock,
                              .finish = Finish::kOnHost,
                              .versions = kVersions};
  return plan;
}
