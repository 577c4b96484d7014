// Stage 14 (capstone): one launch, 16-byte loads.
// Stage 13's resident grid, but each thread loads float4s (16 bytes) and keeps several
// in flight, and the whole sum finishes in the same launch: each block stores its sum,
// takes a ticket from an atomic counter, and the block that draws the last ticket adds
// all block sums in a fixed order. No float atomics, so the result is bit-reproducible.
//
// Run it:   scripts/run.sh 14         (answer)     scripts/run.sh --todo 14  (your template)
//           scripts/bench.sh          (against CUB and a device-to-device copy)
// Test it:  scripts/test.sh --todo 14
#include <cstdint>

#include "common/block_reduce.cuh"
#include "common/launch.h"

constexpr unsigned int kFloatsPerVector = 4;  // one float4: a 16-byte load

// This thread's share of in[0 .. n). A float4 load needs a 16-byte aligned address, so
// the up to 3 floats before the first 16-byte boundary (`head`) and the up to 3 after the
// last whole float4 are read one at a time, by the grid's first threads.
__device__ float thread_sum(const float* in, unsigned int n) {
  const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const auto misaligned = static_cast<unsigned int>(
      (reinterpret_cast<std::uintptr_t>(in) / sizeof(float)) % kFloatsPerVector);
  const unsigned int head = min(n, (kFloatsPerVector - misaligned) % kFloatsPerVector);
  const unsigned int vector_count = (n - head) / kFloatsPerVector;
  const unsigned int tail = head + vector_count * kFloatsPerVector;

  float sum = 0.0f;
  if (thread < head) sum += in[thread];
  if (tail + thread < n) sum += in[tail + thread];

  // ====================== TODO 1 of 3: BEGIN ======================
  // Stage 13's grid-stride loop, over float4s instead of floats:
  // - vectors = in + head, reinterpreted as const float4* (now 16-byte aligned), holds
  //   vector_count float4s; grid_threads = blockDim.x * gridDim.x;
  // - each trip loads kVectorsInFlight float4s (v, v + grid_threads, ...) into registers
  //   before adding any; an index at or past vector_count loads zeros instead. So the
  //   last trip's loads are in flight together too, where stage 13's remainder loop
  //   waited a full memory latency for each of its last elements;
  // - add the four components of a float4 as (x + y) + (z + w).
  // ====================== TODO 1 of 3: END ========================
  return sum;
}

__global__ void reduce_single_pass(const float* in, float* block_sums, unsigned int* ticket,
                                   float* result, unsigned int n) {
  __shared__ bool is_last_block;
  const float sum = reduce::block_reduce_sum(thread_sum(in, n));

  if (threadIdx.x == 0) {
    // ====================== TODO 2 of 3: BEGIN ======================
    // Publish this block's sum, then take a ticket:
    // - store sum in block_sums[blockIdx.x];
    // - __threadfence(), so the store is visible to every block before the ticket is;
    // - atomicAdd(ticket, 1u) returns how many blocks finished before this one; the
    //   block that gets gridDim.x - 1 is the last, and is_last_block tells its threads.
    // ====================== TODO 2 of 3: END ========================
  }
  __syncthreads();

  if (is_last_block) {
    // ====================== TODO 3 of 3: BEGIN ======================
    // Only the last block gets here, when every block sum is published:
    // - __threadfence(), then each thread adds block_sums[b] for b = threadIdx.x,
    //   threadIdx.x + blockDim.x, ... < gridDim.x, read with __ldcg (from L2, past this
    //   multiprocessor's L1, which may hold nothing newer but is not kept coherent);
    // - block_reduce_sum of those; thread 0 writes *result and resets *ticket to 0 for
    //   the next launch. The order of additions never depends on which block was last.
    // ====================== TODO 3 of 3: END ========================
  }
}

namespace {

// Blocks of this kernel one multiprocessor holds at once, asked once per block size:
// the query is host work, and here it would sit inside the timed region.
int blocks_per_sm(unsigned int block) {
  static unsigned int cached_block = 0;
  static int cached = 0;
  if (block != cached_block) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached, reduce_single_pass,
                                                             static_cast<int>(block), 0));
    cached_block = block;
  }
  return cached;
}

// One launch over a resident grid, never more blocks than there are float4s to share.
reduce::DeviceValues launch_single_pass(const reduce::Launch& run) {
  const auto grid = static_cast<unsigned int>(
      reduce::resident_grid(reduce::blocks_for(run.n, kFloatsPerVector), run.block,
                            run.sm_count, blocks_per_sm(run.block)));
  reduce_single_pass<<<grid, run.block, 0, run.stream>>>(
      run.in, run.partials, run.ticket, run.partials_alt, static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("reduce_single_pass");
  return {run.partials_alt, 1};
}

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{14, "one launch, 16-byte loads", SizeRule::kAnyLength,
                              Finish::kOnDevice, launch_single_pass};
  return plan;
}
