// Stage 15: the maximum, in the course's six versions.
// The same trees as stages 07 to 13, with max_of in place of + and kLowest (-inf) in
// place of 0: interleaved addressing, sequential addressing, the unrolled last warp,
// warp shuffle, two elements per thread, and a grid-stride pass plus one block. Max is
// exact, so the result must equal the CPU's; a NaN anywhere in the input makes it NaN
// (common/max_of.h says why). Last, argmax: the index of the first maximum.
//
// Run it:   scripts/run.sh --todo 15               (your template; version 6, the default)
//           build/bin/stage15_todo --version 1     (one of your versions)
// Test it:  scripts/test.sh --todo 15              (every version at every block size)
#include "common/argmax_key.h"
#include "common/launch.h"
#include "common/max_of.h"

using reduce::kLowest;
using reduce::max_of;

constexpr unsigned int kWarpSize = 32;
static_assert(kWarpSize == 32, "the shuffle steps and warp_maxes assume 32-lane warps");

// ---------------------------------------------------------------- versions 1 to 3
// One element per thread into shared memory (kLowest past the end), then a tree.

__device__ float load_one(const float* in, unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  return (i < n) ? in[i] : kLowest;
}

// Version 1: stage 07's interleaved addressing.
__global__ void max_interleaved(const float* in, float* block_maxes, unsigned int n) {
  extern __shared__ float sdata[];
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_one(in, n);
  __syncthreads();
  // ====================== TODO 1 of 8: BEGIN ======================
  // stride = 1, 2, 4, ... while stride < blockDim.x: threads whose tid is a multiple of
  // 2 * stride keep max_of(sdata[tid], sdata[tid + stride]) in sdata[tid]; the whole
  // block waits after each step.
  for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) sdata[tid] = max_of(sdata[tid], sdata[tid + stride]);
    __syncthreads();
  }
  // ====================== TODO 1 of 8: END ========================
  if (tid == 0) block_maxes[blockIdx.x] = sdata[0];
}

// Version 2: stage 08's sequential addressing.
__global__ void max_sequential(const float* in, float* block_maxes, unsigned int n) {
  extern __shared__ float sdata[];
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_one(in, n);
  __syncthreads();
  // ====================== TODO 2 of 8: BEGIN ======================
  // stride = blockDim.x / 2, halving down to 1: threads tid < stride keep
  // max_of(sdata[tid], sdata[tid + stride]); the whole block waits after each step.
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) sdata[tid] = max_of(sdata[tid], sdata[tid + stride]);
    __syncthreads();
  }
  // ====================== TODO 2 of 8: END ========================
  if (tid == 0) block_maxes[blockIdx.x] = sdata[0];
}

// Version 3: stage 11's unrolled last warp. The block-wide steps stop at 64 values;
// the first warp folds those without __syncthreads().
__global__ void max_unrolled(const float* in, float* block_maxes, unsigned int n) {
  extern __shared__ float sdata[];
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_one(in, n);
  __syncthreads();
  float best = kLowest;
  // ====================== TODO 3 of 8: BEGIN ======================
  // - Version 2's loop, but only while stride > kWarpSize: it stops with the block's
  //   maximum spread over sdata[0 .. 63] (fewer for blocks of 32 or 64 threads).
  // - Then the first warp (tid < kWarpSize) starts from best = sdata[tid] and steps
  //   through offsets 32 (only when blockDim.x >= 64: a 32-thread block has no
  //   sdata[32..63]), 16, 8, 4, 2, 1. At each: lanes tid < offset take
  //   max_of(best, sdata[tid + offset]); __syncwarp() so every lane has read before any
  //   writes; sdata[tid] = best; __syncwarp() again so the next step sees the writes.
  for (unsigned int stride = blockDim.x / 2; stride > kWarpSize; stride >>= 1) {
    if (tid < stride) sdata[tid] = max_of(sdata[tid], sdata[tid + stride]);
    __syncthreads();
  }
  if (tid < kWarpSize) {
    best = sdata[tid];
    for (unsigned int offset = kWarpSize; offset > 0; offset >>= 1) {
      if (offset == kWarpSize && blockDim.x < 2 * kWarpSize) continue;
      if (tid < offset) best = max_of(best, sdata[tid + offset]);
      __syncwarp();
      sdata[tid] = best;
      __syncwarp();
    }
  }
  // ====================== TODO 3 of 8: END ========================
  if (tid == 0) block_maxes[blockIdx.x] = best;
}

// ---------------------------------------------------------------- versions 4 to 6
// Registers and shuffles: no shared-memory tree, one barrier per block.

// Returns, in lane 0, the max of `value` over the warp's 32 lanes.
__device__ float warp_max(float value) {
  // ====================== TODO 4 of 8: BEGIN ======================
  // Offsets 16, 8, 4, 2, 1: value = max_of(value, __shfl_down_sync(0xffffffff, value,
  // offset)). Every lane of the warp must call it (the mask says all 32 take part).
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    value = max_of(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  // ====================== TODO 4 of 8: END ========================
  return value;
}

// Returns, in thread 0, the max of `value` over the block. Every thread must call it.
__device__ float block_max(float value) {
  value = warp_max(value);
  // ====================== TODO 5 of 8: BEGIN ======================
  // Combine the warps' maxima through shared memory:
  // - declare __shared__ float warp_maxes[kWarpSize] (a block has at most 32 warps);
  // - lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  // - lane 0 of each warp stores its max in warp_maxes[warp]; then a barrier;
  // - the first warp loads warp_maxes[lane] for lanes below blockDim.x / kWarpSize
  //   (kLowest for the rest, never 0: the maxima may all be negative) and takes
  //   warp_max of those.
  __shared__ float warp_maxes[kWarpSize];
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned int warp = threadIdx.x / kWarpSize;
  if (lane == 0) warp_maxes[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = (lane < blockDim.x / kWarpSize) ? warp_maxes[lane] : kLowest;
    value = warp_max(value);
  }
  // ====================== TODO 5 of 8: END ========================
  return value;
}

// Version 4: stage 12's warp shuffle, one element per thread.
__global__ void max_shuffle(const float* in, float* block_maxes, unsigned int n) {
  const float best = block_max(load_one(in, n));
  if (threadIdx.x == 0) block_maxes[blockIdx.x] = best;
}

// Version 5: two elements per thread (stage 10's first step during the load), then
// version 4's block_max. Blocks cover 2 * blockDim.x elements.
__global__ void max_coarsened(const float* in, float* block_maxes, unsigned int n) {
  float best = kLowest;
  // ====================== TODO 6 of 8: BEGIN ======================
  // i = blockIdx.x * (2 * blockDim.x) + threadIdx.x: best is the max of in[i] and
  // in[i + blockDim.x], each only if it is below n.
  const unsigned int i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;
  if (i < n) best = in[i];
  if (i + blockDim.x < n) best = max_of(best, in[i + blockDim.x]);
  // ====================== TODO 6 of 8: END ========================
  best = block_max(best);
  if (threadIdx.x == 0) block_maxes[blockIdx.x] = best;
}

// Version 6: stage 13's grid-stride pass. A grid that just fills the device reads the
// whole input, four loads in flight per thread; a second launch of one block takes the
// max of the block maxes.
__global__ void max_grid_stride(const float* in, float* block_maxes, unsigned int n) {
  float best = kLowest;
  // ====================== TODO 7 of 8: BEGIN ======================
  // grid_threads = blockDim.x * gridDim.x. From i = this thread's global index, load
  // in[i], in[i + grid_threads], ... kLoadsInFlight at a time into separate registers
  // before combining any of them (so the loads overlap); finish the last few one by one.
  // kLoadsInFlight = 4.
  constexpr unsigned int kLoadsInFlight = 4;
  const unsigned int grid_threads = blockDim.x * gridDim.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (i + (kLoadsInFlight - 1) * grid_threads < n) {
    float loaded[kLoadsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kLoadsInFlight; ++k) loaded[k] = in[i + k * grid_threads];
#pragma unroll
    for (unsigned int k = 0; k < kLoadsInFlight; ++k) best = max_of(best, loaded[k]);
    i += kLoadsInFlight * grid_threads;
  }
  for (; i < n; i += grid_threads) best = max_of(best, in[i]);
  // ====================== TODO 7 of 8: END ========================
  best = block_max(best);
  if (threadIdx.x == 0) block_maxes[blockIdx.x] = best;
}

// ---------------------------------------------------------------- argmax
// The index of the first maximum, in one launch. reduce::argmax_key(value, index) packs
// an element into a 64-bit key whose larger values mean "larger element, or the same
// element value at a smaller index" (common/argmax_key.h), so the largest key over the
// whole input names the answer, and atomicMax can combine the blocks in any order.
__global__ void argmax_grid_stride(const float* in, unsigned int n,
                                   unsigned long long* best_key) {
  // ====================== TODO 8 of 8: BEGIN ======================
  // - best = reduce::kNoArgmax; a grid-stride loop over i keeps the larger of best and
  //   reduce::argmax_key(in[i], i);
  // - the warp's largest key: offsets 16, 8, 4, 2, 1 with __shfl_down_sync (it takes
  //   unsigned long long too), keeping the larger of the two keys each time;
  // - lane 0 of each warp: atomicMax(best_key, best).
  unsigned long long best = reduce::kNoArgmax;
  const unsigned int grid_threads = blockDim.x * gridDim.x;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += grid_threads) {
    const unsigned long long key = reduce::argmax_key(in[i], i);
    best = key > best ? key : best;
  }
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, best, offset);
    best = other > best ? other : best;
  }
  if (threadIdx.x % kWarpSize == 0) atomicMax(best_key, best);
  // ====================== TODO 8 of 8: END ========================
}

namespace {

// Versions 1 to 5 relaunch on their block maxes until one value is left.
reduce::DeviceValues launch_interleaved(const reduce::Launch& run) {
  return reduce::launch_until_one(max_interleaved, "max_interleaved", run.in, run,
                                  {1, sizeof(float)});
}

reduce::DeviceValues launch_sequential(const reduce::Launch& run) {
  return reduce::launch_until_one(max_sequential, "max_sequential", run.in, run,
                                  {1, sizeof(float)});
}

reduce::DeviceValues launch_unrolled(const reduce::Launch& run) {
  return reduce::launch_until_one(max_unrolled, "max_unrolled", run.in, run, {1, sizeof(float)});
}

reduce::DeviceValues launch_shuffle(const reduce::Launch& run) {
  return reduce::launch_until_one(max_shuffle, "max_shuffle", run.in, run, {1, 0});
}

reduce::DeviceValues launch_coarsened(const reduce::Launch& run) {
  return reduce::launch_until_one(max_coarsened, "max_coarsened", run.in, run, {2, 0});
}

// As many blocks of `kernel` as the device holds at once (never more than n needs).
template <typename Kernel>
unsigned int resident_grid_for(Kernel kernel, const reduce::Launch& run) {
  int blocks_per_sm = 1;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel,
                                                           static_cast<int>(run.block), 0));
  return static_cast<unsigned int>(
      reduce::resident_grid(run.n, run.block, run.sm_count, blocks_per_sm));
}

// Two launches whatever n is: the resident grid, then one block.
reduce::DeviceValues launch_grid_stride(const reduce::Launch& run) {
  const unsigned int grid = resident_grid_for(max_grid_stride, run);
  max_grid_stride<<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                                       static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("max_grid_stride");
  max_grid_stride<<<1, run.block, 0, run.stream>>>(run.partials, run.partials_alt, grid);
  CUDA_CHECK_LAUNCH("max_grid_stride (one block over the block maxes)");
  return {run.partials_alt, 1};
}

// One launch: the grid the device holds at once; the key lands in *run.best_key.
void launch_argmax(const reduce::Launch& run) {
  const unsigned int grid = resident_grid_for(argmax_grid_stride, run);
  argmax_grid_stride<<<grid, run.block, 0, run.stream>>>(run.in, static_cast<unsigned int>(run.n),
                                                          run.best_key);
  CUDA_CHECK_LAUNCH("argmax_grid_stride");
}

constexpr reduce::StageVersion kVersions[] = {
    {"interleaved addressing", launch_interleaved},
    {"sequential addressing", launch_sequential},
    {"unrolled last warp", launch_unrolled},
    {"warp shuffle", launch_shuffle},
    {"two elements per thread", launch_coarsened},
    {"grid-stride pass and one block", launch_grid_stride},
};

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 15,
                              .kind = StageKind::kVector,
                              .op = Operation::kMax,
                              .versions = kVersions,
                              .argmax = launch_argmax};
  return plan;
}
