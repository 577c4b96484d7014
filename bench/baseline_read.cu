// bench_read: the memory's read ceiling, half of the benchmark's floor. A streaming read
// of the n floats with stage 14's loads (float4s, 16 KB per block per trip, the grid the
// multiprocessors hold at once) and nothing after them that costs time: no ticket, no
// combine. Each block stores its sum and the harness adds those on the host, so every
// byte is read and the result is verified like a stage's.
#include <cstdint>

#include "common/block_reduce.cuh"
#include "common/geometry.h"
#include "common/stage.h"

// The kernel, read_stream, and its constants: stage 14's solution, so it is not shipped to
// students; bench/CMakeLists.txt builds bench_read only where it exists.
#if __has_include("answers/shared/read_loop.cuh")
#include "answers/shared/read_loop.cuh"
#else
#error "bench_read needs the instructor edition (answers/shared/read_loop.cuh)"
#endif

namespace {

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
