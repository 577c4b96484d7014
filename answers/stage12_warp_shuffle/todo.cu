// Stage 12: warp shuffle.
// Inside a warp, lanes pass values register to register with __shfl_down_sync, so the
// tree needs neither shared memory nor barriers until the warps combine: each warp's
// lane 0 leaves its sum in one shared slot, and the first warp folds those slots.
// Loads are stage 10's (two elements per thread).
//
// Run it:   scripts/run.sh 12         (answer)     scripts/run.sh --todo 12  (your template)
//           build/bin/stage12_todo --n 1000 --block 1024
// Test it:  scripts/test.sh --todo 12
#include "common/launch.h"

constexpr unsigned int kElementsPerThread = 2;
constexpr unsigned int kWarpSize = 32;
static_assert(kWarpSize == 32, "the shuffle steps and warp_sums assume 32-lane warps");

// Returns, in lane 0, the sum of `value` over the warp's 32 lanes.
__device__ float warp_reduce_sum(float value) {
  // ====================== TODO 1 of 2: BEGIN ======================
  // Five steps, offset 16, 8, 4, 2, 1: each lane adds the value held by the lane
  // `offset` above it, fetched with __shfl_down_sync(mask, value, offset). The mask
  // names the lanes that take part; here all 32 do, so it is 0xffffffff.
  constexpr unsigned int kFullMask = 0xffffffffu;
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    value += __shfl_down_sync(kFullMask, value, offset);
  }
  // ====================== TODO 1 of 2: END ========================
  return value;
}

__global__ void reduce_shuffle(const float* in, float* block_sums, unsigned int n) {
  const unsigned int tid = threadIdx.x;
  const unsigned int i = blockIdx.x * (kElementsPerThread * blockDim.x) + tid;
  const float first = (i < n) ? in[i] : 0.0f;
  const float second = (i + blockDim.x < n) ? in[i + blockDim.x] : 0.0f;
  float sum = warp_reduce_sum(first + second);

  // ====================== TODO 2 of 2: BEGIN ======================
  // Combine the warps' sums through shared memory:
  // - declare __shared__ float warp_sums[kWarpSize] (a block has at most 1024 / 32 warps);
  // - lane = tid % kWarpSize, warp = tid / kWarpSize;
  // - lane 0 of each warp stores its sum in warp_sums[warp]; then a barrier;
  // - the first warp loads warp_sums[lane] for lanes below blockDim.x / kWarpSize (0.0f
  //   for the rest) and reduces those with warp_reduce_sum, leaving the total in sum.
  __shared__ float warp_sums[kWarpSize];
  const unsigned int lane = tid % kWarpSize;
  const unsigned int warp = tid / kWarpSize;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = (lane < blockDim.x / kWarpSize) ? warp_sums[lane] : 0.0f;
    sum = warp_reduce_sum(sum);
  }
  // ====================== TODO 2 of 2: END ========================

  if (tid == 0) block_sums[blockIdx.x] = sum;
}

namespace {

// Stage 10's geometry; the kernel's only shared memory is its static warp_sums.
reduce::DeviceValues launch_shuffle(const reduce::Launch& run) {
  return reduce::launch_until_one(reduce_shuffle, "reduce_shuffle", run.in, run,
                                  {kElementsPerThread, 0});
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"warp shuffle", launch_shuffle}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 12,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
