// Stage 13: thread coarsening.
// Launch only as many blocks as the GPU holds at once and let each thread walk the
// input with a grid-stride loop, adding many elements in a register before the block
// reduction (stage 12's shuffle tree). A second launch of one block adds the few
// hundred block sums.
//
// Run it:   scripts/run.sh 13         (answer)     scripts/run.sh --todo 13  (your template)
//           build/bin/stage13_todo --n 1000 --block 512
// Test it:  scripts/test.sh --todo 13
#include "common/block_reduce.cuh"
#include "common/launch.h"


__global__ void reduce_coarsened(const float* in, float* block_sums, unsigned int n) {
  float sum = 0.0f;

  // ====================== TODO 1 of 2: BEGIN ======================
  // Grid-stride loop: start at this thread's global index i and step by grid_threads,
  // the number of threads in the whole grid, while i < n, adding each element into sum.
  // Consecutive threads read consecutive floats on every trip, so loads stay coalesced.
  // Take kLoadsInFlight = 4 elements per trip (i, i + grid_threads, ...) into separate
  // registers before adding any of them: the loads do not wait for each other, so each
  // thread keeps several requests in flight (one load at a time would leave it waiting
  // a full memory latency per element). Finish the last few with a plain loop.
  // ====================== TODO 1 of 2: END ========================

  sum = reduce::block_reduce_sum(sum);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

namespace {

// The grid comes from the device, not from n: as many blocks as fit on all the
// multiprocessors at once (never more than the data needs). Then one block adds the
// block sums.
reduce::DeviceValues launch_coarsened(const reduce::Launch& run) {
  int blocks_per_sm = 1;
  // ====================== TODO 2 of 2: BEGIN ======================
  // Ask the runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor, checked with
  // CUDA_CHECK) how many blocks of reduce_coarsened, at run.block threads and no dynamic
  // shared memory, one multiprocessor runs at once, into blocks_per_sm.
  // ====================== TODO 2 of 2: END ========================
  const auto grid = static_cast<unsigned int>(
      reduce::resident_grid(run.n, run.block, run.sm_count, blocks_per_sm));
  reduce_coarsened<<<grid, run.block, 0, run.stream>>>(run.in, run.partials,
                                                        static_cast<unsigned int>(run.n));
  CUDA_CHECK_LAUNCH("reduce_coarsened");
  reduce_coarsened<<<1, run.block, 0, run.stream>>>(run.partials, run.partials_alt, grid);
  CUDA_CHECK_LAUNCH("reduce_coarsened (one block over the block sums)");
  return {run.partials_alt, 1};
}

}  // namespace

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"thread coarsening", launch_coarsened}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 13,
                              .kind = StageKind::kVector,
                              .versions = kVersions};
  return plan;
}
