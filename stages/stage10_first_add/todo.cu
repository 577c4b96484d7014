// Stage 10: first add during load.
// Each thread loads two elements a block apart and adds them before the shared-memory
// tree, so a block covers 2 * blockDim.x elements and no thread is idle in the first
// step. The tree itself is stage 09's.
//
// Run it:   scripts/run.sh 10         (answer)     scripts/run.sh --todo 10  (your template)
//           build/bin/stage10_todo --n 1000 --block 128
// Test it:  scripts/test.sh --todo 10
#include "common/launch.h"

constexpr unsigned int kElementsPerThread = 2;

__global__ void reduce_first_add(const float* in, float* block_sums, unsigned int n) {
  extern __shared__ float sdata[];  // blockDim.x floats; the launch below sizes it
  const unsigned int tid = threadIdx.x;

  // ====================== TODO 1 of 2: BEGIN ======================
  // Load two elements and add them:
  // - each block now covers twice as many elements as it has threads, block b the b-th
  //   such span; thread tid takes the span's element tid and the one blockDim.x after it
  //   (so a warp still reads 32 consecutive floats each time);
  // - each read is guarded (index < n), with 0.0f for an element past the end;
  // - store the sum in sdata[tid], then a barrier.
  // ====================== TODO 1 of 2: END ========================

  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      sdata[tid] += sdata[tid + stride];
    }
    __syncthreads();
  }

  // ====================== TODO 2 of 2: BEGIN ======================
  // Thread 0 writes the block's sum to block_sums[blockIdx.x].
  // ====================== TODO 2 of 2: END ========================
}

namespace {

// Two elements per thread: grids of ceil(n / (2 * block)) blocks per pass, so
// 16777216 elements with 256 threads take grids of 32768, 64 and 1 blocks.
reduce::DeviceValues launch_first_add(const reduce::Launch& run) {
  return reduce::launch_until_one(reduce_first_add, "reduce_first_add", run.in, run,
                                  {kElementsPerThread, sizeof(float)});
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"first add during load", launch_first_add}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 10,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
