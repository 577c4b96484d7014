// Stage 19: use the library.
// The same reduction as stages 13 and 14, written with the building blocks CUDA ships:
// CUB's warp and block reductions, cooperative groups' cg::reduce, and the whole-array
// calls thrust::reduce and cub::DeviceReduce::Sum. Versions 1 to 3 keep stage 13's shape
// (a resident grid with a grid-stride loop, then one block over the block sums) and swap
// only the block reduction; versions 4 and 5 hand the whole array to the library.
//
// Run it:   scripts/run.sh 19         (answer)     scripts/run.sh --todo 19  (your template)
//           build/bin/stage19_todo --version 1 --n 1000 --block 64
// Test it:  scripts/test.sh --todo 19
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>

#include "common/device_buffer.h"
#include "common/launch.h"

namespace cg = cooperative_groups;

constexpr unsigned int kWarpSize = 32;
constexpr unsigned int kMaxWarps = 1024 / kWarpSize;

// Stage 13's grid-stride loop with four loads in flight: this thread's share of the input.
__device__ float thread_sum(const float* in, unsigned int n) {
  constexpr unsigned int kLoadsInFlight = 4;
  const unsigned int grid_threads = blockDim.x * gridDim.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  while (i + (kLoadsInFlight - 1) * grid_threads < n) {
    float loaded[kLoadsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kLoadsInFlight; ++k) loaded[k] = in[i + k * grid_threads];
#pragma unroll
    for (unsigned int k = 0; k < kLoadsInFlight; ++k) sum += loaded[k];
    i += kLoadsInFlight * grid_threads;
  }
  for (; i < n; i += grid_threads) sum += in[i];
  return sum;
}

// Version 1: stage 12's two-level tree, each level one cub::WarpReduce.
__global__ void reduce_warp_reduce(const float* in, float* block_sums, unsigned int n) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage storage[kMaxWarps];
  __shared__ float warp_sums[kMaxWarps];
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned int warp = threadIdx.x / kWarpSize;
  const float sum = thread_sum(in, n);

  // ====================== TODO 1 of 5: BEGIN ======================
  // - The warp's sum from a cub::WarpReduce built on this warp's own TempStorage: it
  //   arrives in lane 0 only (the other lanes get undefined values), and lane 0 stores it
  //   in the warp's slot of warp_sums.
  // - A block barrier, then the first warp reduces the warp sums the same way, each lane
  //   contributing the slot of its own number if the block has a warp of that number,
  //   else 0 (the identity). It may reuse the first warp's TempStorage: the barrier
  //   separates the two uses.
  // - Thread 0 writes the block's sum to the block's slot of block_sums.
  // ====================== TODO 1 of 5: END ========================
}

// Version 2: one cub::BlockReduce. CUB wants the block size at compile time, so the kernel
// is a template on it (Harris's kernel 6 again) and the launch picks an instance.
template <unsigned int kBlock>
__global__ void reduce_block_reduce(const float* in, float* block_sums, unsigned int n) {
  using BlockReduce = cub::BlockReduce<float, kBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  const float sum = thread_sum(in, n);

  // ====================== TODO 2 of 5: BEGIN ======================
  // Every thread of the block calls the Sum of a cub::BlockReduce built on the one
  // TempStorage above; the block's sum arrives in thread 0 only, which stores it in the
  // block's slot of block_sums.
  // ====================== TODO 2 of 5: END ========================
}

// Version 3: cooperative groups. The same two levels as version 1, with the warp as a
// tiled_partition<32> of the block and cg::reduce for each level.
__global__ void reduce_cooperative(const float* in, float* block_sums, unsigned int n) {
  __shared__ float warp_sums[kMaxWarps];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<kWarpSize> warp = cg::tiled_partition<kWarpSize>(block);
  const float sum = thread_sum(in, n);

  // ====================== TODO 3 of 5: BEGIN ======================
  // - cg::reduce over the warp tile, with cg::plus<float> as the operation, gives the
  //   warp's sum to EVERY lane of the tile; the tile's first thread (its thread_rank) stores
  //   it in the tile's slot of warp_sums (the tile's number in the block: meta_group_rank).
  // - block.sync(), then the first tile reduces warp_sums the same way (0 for lanes past
  //   the number of tiles, meta_group_size), and the block's first thread writes the
  //   block's slot of block_sums.
  // ====================== TODO 3 of 5: END ========================
}

namespace {

using PassKernel = void (*)(const float*, float*, unsigned int);

// Stage 13's geometry: as many blocks as the GPU holds at once, then one block over the
// block sums, with the same kernel.
reduce::DeviceValues launch_two_passes(PassKernel kernel, const char* name,
                                       const reduce::Launch& run) {
  int blocks_per_sm = 1;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel,
                                                           static_cast<int>(run.block), 0));
  const auto grid = static_cast<unsigned int>(
      reduce::resident_grid(run.n, run.block, run.sm_count, blocks_per_sm));
  kernel<<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                             static_cast<unsigned int>(run.n));
  reduce::check_launch(name, __FILE__, __LINE__);
  kernel<<<1, run.block, 0, run.stream>>>(run.partials, run.partials_alt, grid);
  reduce::check_launch(name, __FILE__, __LINE__);
  return {run.partials_alt, 1};
}

reduce::DeviceValues launch_warp_reduce(const reduce::Launch& run) {
  return launch_two_passes(reduce_warp_reduce, "reduce_warp_reduce", run);
}

// One instance of reduce_block_reduce per block size the harness allows.
PassKernel block_reduce_for(unsigned int block) {
  switch (block) {
    case 32: return reduce_block_reduce<32>;
    case 64: return reduce_block_reduce<64>;
    case 128: return reduce_block_reduce<128>;
    case 256: return reduce_block_reduce<256>;
    case 512: return reduce_block_reduce<512>;
    default: return reduce_block_reduce<1024>;  // the harness passes only 32 to 1024
  }
}

reduce::DeviceValues launch_block_reduce(const reduce::Launch& run) {
  return launch_two_passes(block_reduce_for(run.block), "reduce_block_reduce", run);
}

reduce::DeviceValues launch_cooperative(const reduce::Launch& run) {
  return launch_two_passes(reduce_cooperative, "reduce_cooperative", run);
}

// Version 4: thrust::reduce returns the sum to the host, so it waits for the GPU; the
// harness wants the result in device memory, so it goes back with one small copy.
reduce::DeviceValues launch_thrust(const reduce::Launch& run) {
  float total = 0.0f;
  // ====================== TODO 4 of 5: BEGIN ======================
  // total is thrust::reduce over the run.n floats at run.in, from a float zero: the start
  // value is also the sum's type (an integer zero would sum in integers). Its execution
  // policy, thrust::cuda::par bound to run.stream, puts Thrust's kernels on the harness's
  // stream, so the events time them.
  // ====================== TODO 4 of 5: END ========================
  CUDA_CHECK(cudaMemcpyAsync(run.partials_alt, &total, sizeof(float), cudaMemcpyHostToDevice,
                             run.stream));
  return {run.partials_alt, 1};
}

// Version 5: cub::DeviceReduce::Sum, the call CUB's own benchmarks time. Its scratch
// space outlives a run, so only the first (untimed) run allocates it.
reduce::DeviceValues launch_device_reduce(const reduce::Launch& run) {
  static reduce::DeviceBuffer<unsigned char> scratch;
  const int n = static_cast<int>(run.n);
  // ====================== TODO 5 of 5: BEGIN ======================
  // Two calls, both wrapped in CUDA_CHECK:
  // - with a null scratch pointer, cub::DeviceReduce::Sum only writes the scratch size it
  //   needs into `bytes` (no GPU work);
  // - if scratch holds fewer bytes than that, replace it with a DeviceBuffer<unsigned char>
  //   of that size; then call again with scratch's memory, which sums run.in[0 .. n) into
  //   run.partials_alt[0] on run.stream.
  // ====================== TODO 5 of 5: END ========================
  return {run.partials_alt, 1};
}

constexpr reduce::StageVersion kVersions[] = {
    {"cub::WarpReduce, two passes", launch_warp_reduce},
    {"cub::BlockReduce, two passes", launch_block_reduce},
    {"cooperative groups cg::reduce, two passes", launch_cooperative},
    {"thrust::reduce", launch_thrust},
    {"cub::DeviceReduce::Sum", launch_device_reduce},
};

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 19,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
