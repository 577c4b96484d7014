// bench_read: the best read the benchmark measures, its floor at each n. Three streaming
// reads of the n floats, and nothing after them that costs time: no ticket, no combine.
// Each block stores its sum and the harness adds those on the host, so every byte is read
// and the result is verified like a stage's. The benchmark takes the fastest at each n:
// no one way of reading is the fastest at every size and on every card.
//   --version 1  one float4 per thread, a block per 256 float4s, as many blocks as that takes
//   --version 2  two float4s per thread per trip, grid-stride over the resident grid
//   --version 3  stage 14's loads: 16 KB per block per trip, the resident grid (the default)
#include <algorithm>
#include <cstdint>

#include "common/block_reduce.cuh"
#include "common/geometry.h"
#include "common/stage.h"

// Stage 14's per-thread read and its constants: stage 14's solution, so it is not shipped
// to students; bench/CMakeLists.txt builds bench_read only where it exists.
#if __has_include("answers/shared/read_loop.cuh")
#include "answers/shared/read_loop.cuh"
#else
#error "bench_read needs the instructor edition (answers/shared/read_loop.cuh)"
#endif

namespace {

// Stage 14's loads and nothing after them but each block's sum (--version 3).
__global__ void read_stream(const float* in, float* block_sums, unsigned int n) {
  const float sum = reduce::block_reduce_sum(stream_thread_sum(in, n));
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

// Every block the multiprocessors hold at once: the most bytes in flight this loop gets.
int blocks_per_sm(unsigned int block) {
  static unsigned int cached_block = 0;
  static int cached = 0;
  if (block != cached_block) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cached, read_stream,
                                                             static_cast<int>(block), 0));
    cached_block = block;
  }
  return cached;
}

// The floats before the first 16-byte boundary and after the last whole float4, read one
// at a time by the grid's first threads, as read_stream does.
struct Split {
  unsigned int head;
  unsigned int vector_count;
  unsigned int tail;
};

__device__ Split split_float4s(const float* in, unsigned int n) {
  const auto misaligned = static_cast<unsigned int>(
      (reinterpret_cast<std::uintptr_t>(in) / sizeof(float)) % kFloatsPerVector);
  const unsigned int head = min(n, (kFloatsPerVector - misaligned) % kFloatsPerVector);
  const unsigned int vector_count = (n - head) / kFloatsPerVector;
  return {head, vector_count, head + vector_count * kFloatsPerVector};
}

// kPerTrip float4s per thread per trip, block after block, grid-stride.
template <unsigned int kPerTrip>
__global__ void read_grid_stride(const float* __restrict__ in, float* block_sums, unsigned int n) {
  const Split split = split_float4s(in, n);
  const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  if (thread < split.head) sum += in[thread];
  if (split.tail + thread < n) sum += in[split.tail + thread];
  const float4* vectors = reinterpret_cast<const float4*>(in + split.head);
  const unsigned int trip = gridDim.x * blockDim.x * kPerTrip;
  for (unsigned int first = blockIdx.x * blockDim.x * kPerTrip + threadIdx.x;
       first < split.vector_count; first += trip) {
    float4 loaded[kPerTrip];
#pragma unroll
    for (unsigned int k = 0; k < kPerTrip; ++k) {
      const unsigned int index = first + k * blockDim.x;
      loaded[k] = index < split.vector_count ? vectors[index] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (unsigned int k = 0; k < kPerTrip; ++k) {
      sum += loaded[k].x + loaded[k].y + loaded[k].z + loaded[k].w;
    }
  }
  sum = reduce::block_reduce_sum(sum);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

reduce::DeviceValues launch_one_per_thread(const reduce::Launch& run) {
  // At least one block, so that a head or tail below one float4 is read too.
  const auto grid = static_cast<unsigned int>(
      std::max<std::size_t>(1, reduce::blocks_for(run.n / kFloatsPerVector, run.block)));
  read_grid_stride<1><<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                                          static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("read_grid_stride<1>");
  return {run.partials, grid};
}

reduce::DeviceValues launch_two_per_trip(const reduce::Launch& run) {
  static unsigned int cached_block = 0;
  static int resident = 0;
  if (run.block != cached_block) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, read_grid_stride<2>,
                                                             static_cast<int>(run.block), 0));
    cached_block = run.block;
  }
  const auto grid = static_cast<unsigned int>(
      reduce::resident_grid(reduce::blocks_for(run.n, kFloatsPerVector), run.block * 2,
                            run.sm_count, resident));
  read_grid_stride<2><<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                                          static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("read_grid_stride<2>");
  return {run.partials, grid};
}

reduce::DeviceValues launch_read(const reduce::Launch& run) {
  const auto grid = static_cast<unsigned int>(
      reduce::resident_grid(reduce::blocks_for(run.n, kFloatsPerVector),
                            run.block * kVectorsInFlight, run.sm_count, blocks_per_sm(run.block)));
  read_stream<<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                                  static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("read_stream");
  return {run.partials, grid};
}

}  // namespace

// The last is the default: `bench_read` alone is the read the benchmark always measured.
constexpr reduce::StageVersion kVersions[] = {
    {"read, one float4 per thread", launch_one_per_thread},
    {"read, two float4s per thread per trip over the resident grid", launch_two_per_trip},
    {"read with stage 14's loads (16 KB per block per trip)", launch_read}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{
      .number = 0, .finish = Finish::kOnHost, .versions = kVersions, .title = "read"};
  return plan;
}
