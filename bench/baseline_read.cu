// bench_read: the memory's read ceiling, half of the benchmark's floor. A streaming read
// of the n floats with stage 14's loads (float4s, 16 KB per block per trip, the grid the
// multiprocessors hold at once) and nothing after them that costs time: no ticket, no
// combine. Each block stores its sum and the harness adds those on the host, so every
// byte is read and the result is verified like a stage's.
#include <cstdint>

#include "common/block_reduce.cuh"
#include "common/geometry.h"
#include "common/stage.h"

namespace {

constexpr unsigned int kFloatsPerVector = 4;
constexpr unsigned int kVectorsInFlight = 4;

// Floats before the first 16-byte boundary and after the last whole float4 are read one
// at a time by the grid's first threads; the rest as float4s, chunk by chunk.
__global__ void read_stream(const float* in, float* block_sums, unsigned int n) {
  const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const auto misaligned = static_cast<unsigned int>(
      (reinterpret_cast<std::uintptr_t>(in) / sizeof(float)) % kFloatsPerVector);
  const unsigned int head = min(n, (kFloatsPerVector - misaligned) % kFloatsPerVector);
  const unsigned int vector_count = (n - head) / kFloatsPerVector;
  const unsigned int tail = head + vector_count * kFloatsPerVector;
  float sum = 0.0f;
  if (thread < head) sum += in[thread];
  if (tail + thread < n) sum += in[tail + thread];

  const unsigned int chunk = kVectorsInFlight * blockDim.x;
  const float4* vectors = reinterpret_cast<const float4*>(in + head);
  for (unsigned int first = blockIdx.x * chunk; first < vector_count; first += gridDim.x * chunk) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      const unsigned int index = first + k * blockDim.x + threadIdx.x;
      loaded[k] = index < vector_count ? vectors[index] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      sum += (loaded[k].x + loaded[k].y) + (loaded[k].z + loaded[k].w);
    }
  }
  sum = reduce::block_reduce_sum(sum);
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

constexpr reduce::StageVersion kVersions[] = {
    {"streaming read (the floor's read ceiling)", launch_read}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{
      .number = 0, .finish = Finish::kOnHost, .versions = kVersions, .title = "read"};
  return plan;
}
