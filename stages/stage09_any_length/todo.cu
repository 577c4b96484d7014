// Stage 09: any length, finished on the GPU.
// Stage 08's sequential-addressing kernel with a bounds check: threads past the end of
// the data load 0, so any n from 1 up works. The kernel is launched again on the block
// sums until one value is left, so the host adds nothing.
//
// Run it:   scripts/run.sh 9          (answer)     scripts/run.sh --todo 9   (your template)
//           build/bin/stage09_todo --n 1000 --block 128
// Test it:  scripts/test.sh --todo 9
#include "common/launch.h"

__global__ void reduce_any_length(const float* in, float* block_sums, unsigned int n) {
  extern __shared__ float sdata[];  // blockDim.x floats; the launch below sizes it
  const unsigned int tid = threadIdx.x;

  // ====================== TODO 1 of 2: BEGIN ======================
  // Load with zero padding: this thread's element is i = blockIdx.x * blockDim.x + tid.
  // If i < n, store in[i] in sdata[tid]; past the end (the last block may hang over)
  // store 0.0f, which leaves the sum unchanged. Then a barrier.
  // ====================== TODO 1 of 2: END ========================

  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      sdata[tid] += sdata[tid + stride];
    }
    __syncthreads();
  }

  // ====================== TODO 2 of 2: BEGIN ======================
  // Thread 0 writes the block's sum to block_sums[blockIdx.x], as in stage 08.
  // ====================== TODO 2 of 2: END ========================
}

namespace {

// One thread per element, one float of shared memory per thread. launch_until_one
// (common/launch.h) relaunches the kernel on the block sums until one value is left:
// 16777216 elements with 256 threads take grids of 65536, 256 and 1 blocks.
reduce::DeviceValues launch_any_length(const reduce::Launch& run) {
  return reduce::launch_until_one(reduce_any_length, "reduce_any_length", run.in, run,
                                  {1, sizeof(float)});
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"any length, finished on the GPU", launch_any_length}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 9,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
