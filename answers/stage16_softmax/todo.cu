// Stage 16: softmax over the rows of a matrix, built from the reductions of stages 12
// and 15. Each row x becomes y = exp(x - max(x)) / sum(exp(x - max(x))): subtracting the
// row's max first keeps every exp at or below 1, so logits of +-1000 do not overflow.
// One row goes to a warp (short rows) or to a whole block (long rows); the row's max and
// sum are reductions over the threads that share it. Versions 1 and 2 read the row three
// times (max, sum, write); versions 3 and 4 find max and sum in one pass (online softmax)
// and read it twice; version 5 picks version 2 or 3 by row length. Versions 6 and 7 keep
// the row in registers, so they read it once; versions 8 and 9 split a long row over
// several blocks (9: a cluster that keeps it on chip); version 10 picks 6, 7 or 9 by length.
//
// Run it:   scripts/run.sh --todo 16                            (your template; version 10, the default)
//           build/bin/stage16_todo --version 1 --rows 8 --cols 131072
// Test it:  scripts/test.sh --todo 16           (every version, short rows and long ones)
#include <algorithm>

#include <cooperative_groups.h>

#include "common/cuda_check.h"
#include "common/launch.h"
#include "common/max_of.h"
#include "common/rows/held_row.h"
#include "common/rows/split_row.h"

using reduce::kLowest;
using reduce::max_of;

constexpr unsigned int kWarpSize = 32;
static_assert(kWarpSize == 32, "the shuffle steps assume 32-lane warps");

struct Max {
  __device__ float operator()(float a, float b) const { return max_of(a, b); }
  static constexpr float kIdentity = kLowest;
};

struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
  static constexpr float kIdentity = 0.0f;
};

// ---------------------------------------------------------------- reductions every thread sees
// Unlike stages 12 and 15, every thread needs the row's max and sum, not only thread 0.

// Returns op over the warp's 32 values, in every lane.
template <typename Op>
__device__ float warp_all(float value, Op op) {
  // ====================== TODO 1 of 8: BEGIN ======================
  // A butterfly: for offsets 16, 8, 4, 2, 1, value = op(value, __shfl_xor_sync(0xffffffff,
  // value, offset)). Lane i swaps with lane i ^ offset, so after the five steps every
  // lane holds the whole warp's result (__shfl_down_sync would leave it in lane 0 only).
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  // ====================== TODO 1 of 8: END ========================
  return value;
}

// Returns op over the block's values, in every thread. Every thread must call it.
template <typename Op>
__device__ float block_all(float value, Op op) {
  value = warp_all(value, op);
  // ====================== TODO 2 of 8: BEGIN ======================
  // - declare __shared__ float warp_results[kWarpSize] (a block has at most 32 warps);
  //   lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  // - __syncthreads() first: a kernel that calls block_all twice with the same Op (both
  //   calls share one warp_results) must not overwrite it while the first call reads;
  // - lane 0 of each warp stores its result in warp_results[warp]; then a barrier;
  // - every warp (not only the first: all threads need the answer) loads
  //   warp_results[lane] for lanes below blockDim.x / kWarpSize, Op::kIdentity for the
  //   rest, and returns warp_all of that.
  __shared__ float warp_results[kWarpSize];
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned int warp = threadIdx.x / kWarpSize;
  __syncthreads();
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  value = (lane < blockDim.x / kWarpSize) ? warp_results[lane] : Op::kIdentity;
  value = warp_all(value, op);
  // ====================== TODO 2 of 8: END ========================
  return value;
}

// A row is shared by a warp or by a block; the row code below is written once for both.
struct WarpRow {
  __device__ static unsigned int thread() { return threadIdx.x % kWarpSize; }
  __device__ static unsigned int threads() { return kWarpSize; }
  template <typename Op>
  __device__ static float all(float value, Op op) { return warp_all(value, op); }
};

struct BlockRow {
  __device__ static unsigned int thread() { return threadIdx.x; }
  __device__ static unsigned int threads() { return blockDim.x; }
  template <typename Op>
  __device__ static float all(float value, Op op) { return block_all(value, op); }
};

// ---------------------------------------------------------------- versions 1 and 2
// Three passes over the row x (cols values) into y: its max, the sum of exp(x - max),
// then y = exp(x - max) / sum. Thread t of the row's group takes columns t, t + threads,
// t + 2 * threads, ... so neighbouring threads read neighbouring values.
template <typename Row>
__device__ void softmax_three_pass(const float* x, float* y, unsigned int cols) {
  const unsigned int first = Row::thread();
  const unsigned int step = Row::threads();
  // ====================== TODO 3 of 8: BEGIN ======================
  // - top: this thread's max over its columns (start from kLowest, combine with
  //   max_of so a NaN is kept), then Row::all(top, Max{}) for the row's;
  // - total: this thread's sum of expf(x[c] - top), then Row::all(total, Sum{});
  // - y[c] = expf(x[c] - top) / total for this thread's columns.
  float top = kLowest;
  for (unsigned int c = first; c < cols; c += step) top = max_of(top, x[c]);
  top = Row::all(top, Max{});
  float total = 0.0f;
  for (unsigned int c = first; c < cols; c += step) total += expf(x[c] - top);
  total = Row::all(total, Sum{});
  for (unsigned int c = first; c < cols; c += step) y[c] = expf(x[c] - top) / total;
  // ====================== TODO 3 of 8: END ========================
}

// ---------------------------------------------------------------- versions 3 and 4
// Online softmax (Milakov and Gimelshein, 2018): one pass keeps a running max m and the
// sum s of exp(x - m) so far. When a larger value arrives, the sum so far is rescaled:
// s * exp(m_old - m_new). Two running pairs merge the same way, so threads and warps can
// combine theirs in any order.
struct Running {
  float top;    // m: the largest value seen (kLowest before any)
  float total;  // s: the sum of exp(x - m) over the values seen
};

// exp(from - to) for a sum kept relative to `from`, moved to the larger `to`. A pair that
// has seen nothing (kLowest) has nothing to rescale: -inf - -inf would be NaN.
__device__ float rescale(float from, float to) {
  return from == kLowest ? 0.0f : expf(from - to);
}

__device__ Running merge(Running a, Running b) {
  Running out{};
  // ====================== TODO 4 of 8: BEGIN ======================
  // out.top = max_of(a.top, b.top); each total is moved to out.top with rescale before
  // they are added.
  out.top = max_of(a.top, b.top);
  out.total = a.total * rescale(a.top, out.top) + b.total * rescale(b.top, out.top);
  // ====================== TODO 4 of 8: END ========================
  return out;
}

// The row's running pair, in every thread: warp_all's butterfly on pairs, and for a
// block, block_all's shared-memory step on pairs.
__device__ Running warp_merge(Running mine) {
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    const Running other{__shfl_xor_sync(0xffffffffu, mine.top, offset),
                        __shfl_xor_sync(0xffffffffu, mine.total, offset)};
    mine = merge(mine, other);
  }
  return mine;
}

__device__ Running block_merge(Running mine) {
  mine = warp_merge(mine);
  // ====================== TODO 5 of 8: BEGIN ======================
  // As in block_all, with __shared__ Running warp_pairs[kWarpSize]: a barrier, lane 0 of
  // each warp stores its pair in warp_pairs[warp], a barrier, then every warp loads
  // warp_pairs[lane] (Running{kLowest, 0} past the last warp) and returns warp_merge of
  // that.
  __shared__ Running warp_pairs[kWarpSize];
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned int warp = threadIdx.x / kWarpSize;
  __syncthreads();
  if (lane == 0) warp_pairs[warp] = mine;
  __syncthreads();
  mine = (lane < blockDim.x / kWarpSize) ? warp_pairs[lane] : Running{kLowest, 0.0f};
  mine = warp_merge(mine);
  // ====================== TODO 5 of 8: END ========================
  return mine;
}

struct WarpMerge {
  __device__ static Running all(Running mine) { return warp_merge(mine); }
};
struct BlockMerge {
  __device__ static Running all(Running mine) { return block_merge(mine); }
};

template <typename Row, typename Merge>
__device__ void softmax_online(const float* x, float* y, unsigned int cols) {
  const unsigned int first = Row::thread();
  const unsigned int step = Row::threads();
  // ====================== TODO 6 of 8: BEGIN ======================
  // - mine = Running{kLowest, 0}; for each of this thread's columns,
  //   mine = merge(mine, Running{x[c], 1}) (one value is its own max, and exp(0) = 1);
  // - mine = Merge::all(mine) for the row's pair;
  // - y[c] = expf(x[c] - mine.top) / mine.total for this thread's columns.
  Running mine{kLowest, 0.0f};
  for (unsigned int c = first; c < cols; c += step) mine = merge(mine, Running{x[c], 1.0f});
  mine = Merge::all(mine);
  for (unsigned int c = first; c < cols; c += step) y[c] = expf(x[c] - mine.top) / mine.total;
  // ====================== TODO 6 of 8: END ========================
}

// ---------------------------------------------------------------- the kernels
// One block per row: row blockIdx.x. One warp per row: blockDim.x / 32 rows per block.

__global__ void softmax_block_three_pass(const float* in, float* out, unsigned int cols) {
  const std::size_t row = blockIdx.x;
  softmax_three_pass<BlockRow>(in + row * cols, out + row * cols, cols);
}

__global__ void softmax_block_online(const float* in, float* out, unsigned int cols) {
  const std::size_t row = blockIdx.x;
  softmax_online<BlockRow, BlockMerge>(in + row * cols, out + row * cols, cols);
}

// A warp past the last row returns at once: the warp's lanes leave together, and no
// barrier waits for them (warp rows use no __syncthreads()).
__global__ void softmax_warp_three_pass(const float* in, float* out, unsigned int rows,
                                        unsigned int cols) {
  const std::size_t row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarpSize;
  if (row >= rows) return;
  softmax_three_pass<WarpRow>(in + row * cols, out + row * cols, cols);
}

__global__ void softmax_warp_online(const float* in, float* out, unsigned int rows,
                                    unsigned int cols) {
  const std::size_t row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarpSize;
  if (row >= rows) return;
  softmax_online<WarpRow, WarpMerge>(in + row * cols, out + row * cols, cols);
}

// ---------------------------------------------------------------- versions 6 and 7
// The row kept on chip: read once into registers (reduce::HeldRow, common/rows/held_row.h),
// its max and sum found there, written once. Versions 1 to 5 read the row two or three
// times, and once a row no longer fits in the cache the later reads come from DRAM again.
// A value past the row holds kLowest for the max and 0 for the sum.
template <typename Row, int kVec, int kHeld>
__device__ void softmax_on_chip(const float* x, float* y, unsigned int cols) {
  reduce::HeldRow<kVec, kHeld> row(Row::thread(), Row::threads(), cols);
  row.load(x, kLowest);
  // ====================== TODO 7 of 8: BEGIN ======================
  // The row is in row.v, kHeld values a thread; row.has(j) tells whether value j is one
  // of the row's columns (the others hold kLowest). Leave in row.v what y must hold:
  // - x is not read again: the row's max and its sum of exp(x - max) come from the held
  //   values, shared with every thread of the row by Row::all;
  // - a value that is not a column adds nothing to the sum;
  // - afterwards the values of the row add up to 1.
  float top = kLowest;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) top = max_of(top, row.v[j]);
  top = Row::all(top, Max{});
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    row.v[j] = row.has(j) ? expf(row.v[j] - top) : 0.0f;
    total += row.v[j];
  }
  const float scale = 1.0f / Row::all(total, Sum{});
#pragma unroll
  for (int j = 0; j < kHeld; ++j) row.v[j] *= scale;
  // ====================== TODO 7 of 8: END ========================
  row.store(y);
}

// At most 512 threads a block, so that 32 values a lane and the rest stay in registers.
template <int kVec, int kHeld>
__global__ void __launch_bounds__(512) softmax_warp_on_chip(const float* in, float* out,
                                                            unsigned int rows,
                                                            unsigned int cols) {
  const std::size_t row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarpSize;
  if (row >= rows) return;
  softmax_on_chip<WarpRow, kVec, kHeld>(in + row * cols, out + row * cols, cols);
}

// At most 64 registers a thread, so that 1024 threads fit on one multiprocessor.
template <int kVec, int kHeld>
__global__ void __launch_bounds__(1024) softmax_block_on_chip(const float* in, float* out,
                                                              unsigned int cols) {
  const std::size_t row = blockIdx.x;
  softmax_on_chip<BlockRow, kVec, kHeld>(in + row * cols, out + row * cols, cols);
}

// ---------------------------------------------------------------- versions 8 and 9
// A row longer than one block holds, split over `parts` blocks: block p takes the columns
// [p * chunk, (p + 1) * chunk) and finds their pair (max, sum of exp(x - max)); the row's
// pair is the merge of the parts' pairs (version 3's merge), and each block writes its
// columns with it.

// Version 8, any GPU: the parts' pairs meet in global memory (work, two floats a part)
// between two kernels, and the second reads the columns again.
__global__ void softmax_part_pairs(const float* in, float* work, unsigned int cols,
                                   unsigned int chunk, unsigned int parts) {
  const reduce::RowPart p = reduce::row_part(blockIdx.x % parts, parts, cols, chunk);
  const float* x = in + p.row * cols + p.begin;
  Running mine{kLowest, 0.0f};
  for (unsigned int c = threadIdx.x; c < p.count; c += blockDim.x) {
    mine = merge(mine, Running{x[c], 1.0f});
  }
  mine = block_merge(mine);
  if (threadIdx.x == 0) {
    work[2 * std::size_t{blockIdx.x}] = mine.top;
    work[2 * std::size_t{blockIdx.x} + 1] = mine.total;
  }
}

__global__ void softmax_parts_write(const float* in, float* out, const float* work,
                                    unsigned int cols, unsigned int chunk, unsigned int parts) {
  const reduce::RowPart p = reduce::row_part(blockIdx.x % parts, parts, cols, chunk);
  const float* pairs = work + 2 * p.row * parts;
  Running whole{kLowest, 0.0f};
  for (unsigned int q = threadIdx.x; q < parts; q += blockDim.x) {
    whole = merge(whole, Running{pairs[2 * q], pairs[2 * q + 1]});
  }
  whole = block_merge(whole);
  const float* x = in + p.row * cols + p.begin;
  float* y = out + p.row * cols + p.begin;
  for (unsigned int c = threadIdx.x; c < p.count; c += blockDim.x) {
    y[c] = expf(x[c] - whole.top) / whole.total;
  }
}

// Version 9, GPUs with thread-block clusters (sm_90 on): the parts are one cluster's
// blocks, each keeping its columns in its shared memory (reduce::StagedPart, so that
// several blocks share an SM). A block of a cluster can write another's shared memory
// (distributed shared memory): each block pushes its pair into a slot of every block, so
// after one cluster barrier every block holds all the pairs, merges them in the same order
// and writes from the values it still keeps. The row is read once.
template <int kVec>
__global__ void __launch_bounds__(1024) softmax_cluster_on_chip(const float* in, float* out,
                                                                unsigned int cols,
                                                                unsigned int chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  // "This block runs", said at once; the wait for the others' comes just before the first
  // write into their shared memory, by when they have long started, so no block idles here.
  auto started = cluster.barrier_arrive();
  const unsigned int parts = cluster.num_blocks();
  const reduce::RowPart p = reduce::row_part(cluster.block_rank(), parts, cols, chunk);
  extern __shared__ float4 staged[];  // float4: 16-byte aligned, as the 16-byte copies need
  reduce::StagedPart<kVec> columns(reinterpret_cast<float*>(staged), p.count);
  columns.load(in + p.row * cols + p.begin);
  float top = kLowest;
  columns.each([&](float v) { top = max_of(top, v); });
  top = block_all(top, Max{});
  float total = 0.0f;
  columns.update([&](float v) {
    // A part that holds only -inf (masked) has nothing to add, not -inf - -inf = NaN.
    // __expf (a multiply and the hardware's 2^x) instead of expf: with the row on chip this
    // loop is the part's only real arithmetic, and expf's range reduction showed in its time
    // (docs/measurements.md). Its error, 2 + 1.17 |x| ulp for x <= 0, shrinks with e^x
    // faster than it grows: against the row's largest value (the rule's scale) it stays
    // within 2 ulp.
    const float e = top != kLowest ? __expf(v - top) : 0.0f;
    total += e;
    return e;
  });
  total = block_all(total, Sum{});
  Running whole{kLowest, 0.0f};
  cluster.barrier_wait(std::move(started));  // every block runs: its shared memory is there
  // ====================== TODO 8 of 8: BEGIN ======================
  // (top, total) is this block's pair for its part. Every block of the cluster must end
  // with the whole row's pair in `whole`:
  // - each block has a __shared__ array of reduce::kMostParts pairs, slot q for block q's
  //   pair; this block's pair lands in its slot in every block of the cluster, its own
  //   included (cluster.map_shared_rank(&variable, rank) is block rank's copy of a shared
  //   variable, and a block may write it);
  // - no block reads its slots before every pair has landed in them; after that no block
  //   touches another's shared memory, so each may leave without waiting for the others
  //   (reading the others' pairs instead would need a second barrier for that);
  // - every block merges all `parts` slots in the same order, so that all of them write
  //   with the same pair; a part with no columns holds (kLowest, 0).
  __shared__ Running pairs[reduce::kMostParts];
  if (threadIdx.x < parts) {
    *cluster.map_shared_rank(&pairs[cluster.block_rank()], threadIdx.x) = Running{top, total};
  }
  cluster.sync();  // every block's pair has landed in every block's slots
  for (unsigned int q = 0; q < parts; ++q) whole = merge(whole, pairs[q]);
  // ====================== TODO 8 of 8: END ========================
  const float scale = rescale(top, whole.top) / whole.total;
  columns.store(out + p.row * cols + p.begin, [&](float e) { return e * scale; });
#endif
}
namespace {

using RowKernel = void (*)(const float*, float*, unsigned int, unsigned int);
using BlockRowKernel = void (*)(const float*, float*, unsigned int);

void launch_block_rows(BlockRowKernel kernel, const char* name, const reduce::RowLaunch& run) {
  kernel<<<static_cast<unsigned int>(run.rows), run.block, 0, run.stream>>>(
      run.in, run.out, static_cast<unsigned int>(run.cols));
  reduce::check_launch(name, __FILE__, __LINE__);
}

void launch_warp_rows(RowKernel kernel, const char* name, const reduce::RowLaunch& run) {
  const std::size_t rows_per_block = run.block / kWarpSize;
  const std::size_t grid = (run.rows + rows_per_block - 1) / rows_per_block;
  kernel<<<static_cast<unsigned int>(grid), run.block, 0, run.stream>>>(
      run.in, run.out, static_cast<unsigned int>(run.rows), static_cast<unsigned int>(run.cols));
  reduce::check_launch(name, __FILE__, __LINE__);
}

void block_three_pass(const reduce::RowLaunch& run) {
  launch_block_rows(softmax_block_three_pass, "softmax_block_three_pass", run);
}
void warp_three_pass(const reduce::RowLaunch& run) {
  launch_warp_rows(softmax_warp_three_pass, "softmax_warp_three_pass", run);
}
void block_online(const reduce::RowLaunch& run) {
  launch_block_rows(softmax_block_online, "softmax_block_online", run);
}
void warp_online(const reduce::RowLaunch& run) {
  launch_warp_rows(softmax_warp_online, "softmax_warp_online", run);
}

// Version 6: a warp per row, the row in its registers: rows up to 32 x 32 = 1024 columns,
// in blocks of at most 512 threads. A longer row goes to version 4.
void warp_on_chip(const reduce::RowLaunch& run) {
  const reduce::HeldLaunch at = reduce::warp_per_row(run);
  const bool launched = reduce::launch_held(at.vec, at.held, [&]<int kVec, int kHeld>() {
    softmax_warp_on_chip<kVec, kHeld><<<at.grid, at.threads, 0, run.stream>>>(
        run.in, run.out, static_cast<unsigned int>(run.rows), static_cast<unsigned int>(run.cols));
    reduce::check_launch("softmax_warp_on_chip", __FILE__, __LINE__);
  });
  if (!launched) warp_online(run);
}

// Version 7: a block per row, the row in its threads' registers. The block grows past
// run.block (up to 1024 threads) until each thread holds at most 8 values, so rows up to
// 1024 x 32 = 32768 columns fit; a longer row goes to version 3.
void block_on_chip_from(const reduce::RowLaunch& run, unsigned int threads) {
  const reduce::HeldLaunch at = reduce::block_per_row(run, threads);
  const bool launched = reduce::launch_held(at.vec, at.held, [&]<int kVec, int kHeld>() {
    softmax_block_on_chip<kVec, kHeld><<<at.grid, at.threads, 0, run.stream>>>(
        run.in, run.out, static_cast<unsigned int>(run.cols));
    reduce::check_launch("softmax_block_on_chip", __FILE__, __LINE__);
  });
  if (!launched) block_online(run);
}

void block_on_chip(const reduce::RowLaunch& run) { block_on_chip_from(run, run.block); }

// Version 8: parts of reduce::kSplitChunk columns or more, two kernels; a shorter row is
// one part, version 3.
void split_through_memory(const reduce::RowLaunch& run) {
  const reduce::SplitLaunch s = reduce::split_launch(run);
  if (s.parts == 1) return block_online(run);  // one part: a block per row, nothing to hand over
  softmax_part_pairs<<<s.grid, run.block, 0, run.stream>>>(run.in, run.work, s.cols, s.chunk,
                                                            s.parts);
  reduce::check_launch("softmax_part_pairs", __FILE__, __LINE__);
  softmax_parts_write<<<s.grid, run.block, 0, run.stream>>>(run.in, run.out, run.work, s.cols,
                                                             s.chunk, s.parts);
  reduce::check_launch("softmax_parts_write", __FILE__, __LINE__);
}

// Version 9 with blocks of `threads` (128 to 1024); version 8 where clusters cannot take
// the row (reduce::clusters_take).
void cluster_on_chip_with(const reduce::RowLaunch& run, unsigned int threads) {
  const bool vec = reduce::rows_take_vectors(run);
  if (!reduce::launch_staged<softmax_cluster_on_chip<4>, softmax_cluster_on_chip<1>>(
          run, vec, threads, run.in, run.out, static_cast<unsigned int>(run.cols))) {
    split_through_memory(run);
  }
}

// Version 9: blocks of run.block threads, at least 128 and at most 1024.
void cluster_on_chip(const reduce::RowLaunch& run) {
  cluster_on_chip_with(run, std::clamp(run.block, 128u, 1024u));
}

// Version 10: versions 6, 7 and 9 by row length (reduce::held_by_row_length says where
// each takes over and why).
void on_chip_by_row_length(const reduce::RowLaunch& run) {
  reduce::held_by_row_length(run, warp_on_chip, block_on_chip_from, cluster_on_chip_with);
}

// What the lesson measured on the H100: up to 1024 columns a warp per row with three
// passes is fastest (its second and third reads of a 4 KB row come from the cache, so one
// pass less saves little, and a warp per row wastes no threads on a short row); at 32768
// columns and more, a block per row with the online pass is, and a warp per row is five
// to twenty times slower.
constexpr std::size_t kWarpRowsUpTo = 1024;
void by_row_length(const reduce::RowLaunch& run) {
  if (run.cols <= kWarpRowsUpTo) {
    warp_three_pass(run);
  } else {
    block_online(run);
  }
}

constexpr reduce::StageVersion kVersions[] = {
    {"three passes, a block per row", nullptr, block_three_pass},
    {"three passes, a warp per row", nullptr, warp_three_pass},
    {"online, a block per row", nullptr, block_online},
    {"online, a warp per row", nullptr, warp_online},
    {"version 2 up to 1024 columns, else version 3", nullptr, by_row_length},
    {"the row in registers, a warp per row (up to 1024 columns)", nullptr, warp_on_chip},
    {"the row in registers, a block per row (up to 32768 columns)", nullptr, block_on_chip},
    {"the row split over blocks, their pairs merged through memory (reads it twice)", nullptr,
     split_through_memory},
    {"the row split over a cluster of blocks, held on chip (sm_90 on; else version 8)", nullptr,
     cluster_on_chip},
    {"version 6 up to 512 columns, version 7 up to 8192, else version 9", nullptr,
     on_chip_by_row_length},
};

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 16,
                              .kind = StageKind::kRows,
                              .op = Operation::kSoftmax,
                              .versions = kVersions};
  return plan;
}
