// Stage 14 (capstone): one launch, 16-byte loads, at the memory's floor.
// Stage 13's resident grid, but each thread loads float4s (16 bytes) and each block keeps
// 16 KB in flight per trip, and the whole sum finishes in the same launch: each block
// stores its sum, takes a ticket from an atomic counter, and the block that draws the
// last ticket adds all block sums in a fixed order. No float atomics, so the result is
// bit-reproducible. An input one block can read in two trips skips the ticket.
//
// Run it:   scripts/run.sh 14         (answer)     scripts/run.sh --todo 14  (your template)
//           scripts/bench.sh          (against CUB and the memory's floor)
// Test it:  scripts/test.sh --todo 14
#include <algorithm>
#include <cstdint>

#include <cuda/atomic>

#include "common/block_reduce.cuh"
#include "common/launch.h"

constexpr unsigned int kFloatsPerVector = 4;  // one float4: a 16-byte load
constexpr unsigned int kVectorsInFlight = 4;  // float4s each thread loads per trip: 64 bytes

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
  // A loop over chunks of the float4s. The body is the vector_count float4s that start at
  // in + head: 16-byte aligned there, so they may be read as float4s. A chunk is
  // kVectorsInFlight consecutive float4s per thread of the block (16 KB at 256 threads),
  // and block b reads chunks b, b + gridDim.x, b + 2 * gridDim.x, ... So each trip of a
  // block is one contiguous stretch of memory, and the grid sweeps the input front to back.
  // - In a trip, the k-th load of the block's threads covers the chunk's k-th run of
  //   blockDim.x float4s, one per thread in thread order (a warp's loads stay consecutive).
  // - All kVectorsInFlight loads of a trip go into registers before any is added; a float4
  //   at or past vector_count counts as zeros instead of being read, so the last trip's
  //   loads are in flight together too.
  // - The four components of a float4 are added as (x + y) + (z + w).
  // ====================== TODO 1 of 3: END ========================
  return sum;
}

__global__ void reduce_single_pass(const float* in, float* block_sums, unsigned int* ticket,
                                   float* result, unsigned int n) {
  __shared__ bool is_last_block;
  const float sum = reduce::block_reduce_sum(thread_sum(in, n));
  if (gridDim.x == 1) {  // the small-n launch: one block saw everything, nothing to combine
    if (threadIdx.x == 0) *result = sum;
    return;
  }

  if (threadIdx.x == 0) {
    // ====================== TODO 2 of 3: BEGIN ======================
    // Publish this block's sum, then take a ticket:
    // - this block's sum goes to its own slot of block_sums;
    // - the ticket is an acquire-release read-modify-write at device scope that adds one to
    //   *ticket (cuda::atomic_ref, from <cuda/atomic>). Release: the store above is visible
    //   to every block before the new count is; acquire: in the last block, the reads of
    //   TODO 3 see every store published before the earlier tickets;
    // - the count it returns, from before the add, is how many blocks finished before this
    //   one; the block that sees gridDim.x - 1 is the last, and is_last_block tells its
    //   threads.
    // ====================== TODO 2 of 3: END ========================
  }
  __syncthreads();

  if (is_last_block) {
    // ====================== TODO 3 of 3: BEGIN ======================
    // Only the last block gets here, when every block sum is published:
    // - each thread adds block_sums[b] for b = threadIdx.x, threadIdx.x + blockDim.x,
    //   ... < gridDim.x, read with __ldcg (from L2, past this multiprocessor's L1, which
    //   is not kept coherent). Issue kSumsInFlight of those loads before adding any, as
    //   in TODO 1: the last block's loads are the only work left on the whole GPU, and a
    //   loop that waits for each load in turn pays one L2 round trip per step;
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

// Bytes each multiprocessor keeps in flight: 4 blocks of 256 threads, 64 bytes each. More
// blocks per multiprocessor measured no faster on the H100 for large n and slower for
// n up to 2^25 (more blocks to launch and to combine); see the lesson.
constexpr unsigned int kBytesInFlightPerSm = 64 * 1024;

// Blocks per multiprocessor: enough for kBytesInFlightPerSm, never more than fit at once.
int blocks_per_sm_in_flight(unsigned int block) {
  const unsigned int bytes_per_block = block * kVectorsInFlight * sizeof(float4);
  const int wanted = static_cast<int>((kBytesInFlightPerSm + bytes_per_block - 1) / bytes_per_block);
  return std::min(wanted, blocks_per_sm(block));
}

// One launch. An input one block covers in two trips gets that one block (no ticket);
// a larger one gets a resident grid, never more blocks than there are chunks to share.
reduce::DeviceValues launch_single_pass(const reduce::Launch& run) {
  const std::size_t vectors = reduce::blocks_for(run.n, kFloatsPerVector);
  const unsigned int chunk = run.block * kVectorsInFlight;  // float4s one block loads per trip
  const auto grid = static_cast<unsigned int>(
      vectors <= 2 * chunk ? 1
                           : reduce::resident_grid(vectors, chunk, run.sm_count,
                                                   blocks_per_sm_in_flight(run.block)));
  reduce_single_pass<<<grid, run.block, 0, run.stream>>>(
      run.in, run.partials, run.ticket, run.partials_alt, static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("reduce_single_pass");
  return {run.partials_alt, 1};
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"one launch, 16-byte loads", launch_single_pass}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 14,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
