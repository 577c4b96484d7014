// Stage 11: unroll the last warp.
// Stage 10's kernel, but the block-wide loop stops once 64 values are left; the first
// warp folds those in six written-out steps with no __syncthreads() and no loop. Since
// Volta the lanes of a warp are scheduled independently, so each step reads, waits at
// __syncwarp(), writes, and waits again: without that it is a data race.
//
// Run it:   scripts/run.sh 11         (answer)     scripts/run.sh --todo 11  (your template)
//           compute-sanitizer --tool racecheck build/bin/stage11_todo --n 65536 --repeat 1
// Test it:  scripts/test.sh --todo 11
#include "common/launch.h"

constexpr unsigned int kElementsPerThread = 2;
constexpr unsigned int kWarpSize = 32;

// One step of the last warp's fold: lane tid adds sdata[tid + offset] into its running
// sum and stores it in sdata[tid]. Called by all 32 lanes of the first warp.
__device__ float warp_step(float* sdata, unsigned int tid, float sum, unsigned int offset) {
  // ====================== TODO 1 of 3: BEGIN ======================
  // - Only lanes tid < offset need the value above them (and with a 32-thread block the
  //   others would read past the end of shared memory).
  // - __syncwarp() so every lane has read before any lane writes, then store sum in
  //   sdata[tid], then __syncwarp() again so the stores are seen by the next step.
  if (tid < offset) sum += sdata[tid + offset];
  __syncwarp();
  sdata[tid] = sum;
  __syncwarp();
  // ====================== TODO 1 of 3: END ========================
  return sum;
}

__global__ void reduce_unrolled(const float* in, float* block_sums, unsigned int n) {
  extern __shared__ float sdata[];  // blockDim.x floats; the launch below sizes it
  const unsigned int tid = threadIdx.x;

  const unsigned int i = blockIdx.x * (kElementsPerThread * blockDim.x) + tid;
  const float first = (i < n) ? in[i] : 0.0f;
  const float second = (i + blockDim.x < n) ? in[i + blockDim.x] : 0.0f;
  sdata[tid] = first + second;
  __syncthreads();

  // ====================== TODO 2 of 3: BEGIN ======================
  // Stage 10's loop, but it runs only while stride > kWarpSize: it stops with the
  // block's sum spread over sdata[0 .. 63] (or fewer, for blocks of 32 or 64 threads).
  for (unsigned int stride = blockDim.x / 2; stride > kWarpSize; stride >>= 1) {
    if (tid < stride) {
      sdata[tid] += sdata[tid + stride];
    }
    __syncthreads();
  }
  // ====================== TODO 2 of 3: END ========================

  if (tid < kWarpSize) {
    // ====================== TODO 3 of 3: BEGIN ======================
    // The first warp folds the rest in six steps: offsets 32, 16, 8, 4, 2, 1, each a
    // call of warp_step. A 32-thread block has no sdata[32 .. 63], so the offset-32
    // step runs only when blockDim.x >= 64. Then lane 0 writes its sum to
    // block_sums[blockIdx.x].
    float sum = sdata[tid];
    if (blockDim.x >= 2 * kWarpSize) sum = warp_step(sdata, tid, sum, 32);
    sum = warp_step(sdata, tid, sum, 16);
    sum = warp_step(sdata, tid, sum, 8);
    sum = warp_step(sdata, tid, sum, 4);
    sum = warp_step(sdata, tid, sum, 2);
    sum = warp_step(sdata, tid, sum, 1);
    if (tid == 0) block_sums[blockIdx.x] = sum;
    // ====================== TODO 3 of 3: END ========================
  }
}

namespace {

// The same geometry as stage 10: two elements per thread, relaunched until one is left.
reduce::DeviceValues launch_unrolled(const reduce::Launch& run) {
  return reduce::launch_until_one(reduce_unrolled, "reduce_unrolled", run.in, run,
                                  {kElementsPerThread, sizeof(float)});
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"unroll the last warp", launch_unrolled}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 11,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
