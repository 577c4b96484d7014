// Stage 17: layer norm over the rows of a matrix. Each row x becomes
// y = (x - mean) / sqrt(variance + epsilon) * gamma + beta, with one gamma and one beta per
// column. The row's mean and variance are reductions over the threads that share the row,
// a warp or a block, as in stage 16. Version 1 takes the textbook shortcut, one pass for
// the sum of x and of x^2 and then E[x^2] - E[x]^2, and shows why it fails: on data like
// 10^4 + noise the two terms agree in every digit a float holds. Versions 2 and 3 make two
// passes (the mean first, then the squared distances from it); versions 4 and 5 use
// Welford's running (count, mean, M2) and merge those pairs across threads. Versions 7
// and 8 keep the row in registers and make the two passes there, reading it once; versions
// 9 and 10 split a long row over several blocks (10: a cluster that keeps it on chip);
// version 11 picks 7, 8 or 10 by row length.
//
// Run it:   scripts/run.sh --todo 17                            (your template; version 11, the default)
//           build/bin/stage17_todo --version 1 --offset 10000   (watch version 1 fail)
// Test it:  scripts/test.sh --todo 17
#include <algorithm>

#include <cooperative_groups.h>

#include "common/cuda_check.h"
#include "common/launch.h"
#include "common/rows/held_row.h"
#include "common/rows/split_row.h"

using reduce::kLayerNormEpsilon;

constexpr unsigned int kWarpSize = 32;
static_assert(kWarpSize == 32, "the shuffle steps assume 32-lane warps");

// Welford's running statistics of the values seen so far.
struct Stats {
  float count;  // exact up to 2^24 values, far more than a row here holds per thread
  float mean;
  float m2;     // the sum of (x - mean)^2
};

// ---------------------------------------------------------------- given: stage 16's reductions
// The butterfly every lane ends with (stage 16's TODO 1 and 2), for a float or for Stats.

__device__ float shuffle_xor(float value, unsigned int offset) {
  return __shfl_xor_sync(0xffffffffu, value, offset);
}

__device__ Stats shuffle_xor(Stats s, unsigned int offset) {
  return {shuffle_xor(s.count, offset), shuffle_xor(s.mean, offset), shuffle_xor(s.m2, offset)};
}

template <typename T, typename Op>
__device__ T warp_all(T value, Op op) {
  for (unsigned int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    value = op(value, shuffle_xor(value, offset));
  }
  return value;
}

// `empty` is what a lane past the last warp contributes (0 for a sum, an empty Stats).
template <typename T, typename Op>
__device__ T block_all(T value, Op op, T empty) {
  __shared__ T warp_results[kWarpSize];
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned int warp = threadIdx.x / kWarpSize;
  value = warp_all(value, op);
  __syncthreads();  // the previous call may still be reading warp_results
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  value = (lane < blockDim.x / kWarpSize) ? warp_results[lane] : empty;
  return warp_all(value, op);
}

struct Sum {
  __device__ float operator()(float a, float b) const { return a + b; }
};

struct WarpRow {
  static constexpr bool kOneWarp = true;
  __device__ static unsigned int thread() { return threadIdx.x % kWarpSize; }
  __device__ static unsigned int threads() { return kWarpSize; }
  template <typename T, typename Op>
  __device__ static T all(T value, Op op, T) { return warp_all(value, op); }
};

struct BlockRow {
  static constexpr bool kOneWarp = false;
  __device__ static unsigned int thread() { return threadIdx.x; }
  __device__ static unsigned int threads() { return blockDim.x; }
  template <typename T, typename Op>
  __device__ static T all(T value, Op op, T empty) { return block_all(value, op, empty); }
};

// ---------------------------------------------------------------- the last pass, every version
// This thread's columns of y, by the formula at the top of this file: x less the mean,
// divided by sqrt(variance + epsilon), then scaled by the column's gamma and shifted by
// its beta.
template <typename Row>
__device__ void normalise(const float* x, float* y, const float* gamma, const float* beta,
                          unsigned int cols, float mean, float variance) {
  // ====================== TODO 1 of 7: BEGIN ======================
  // rstd = rsqrtf(variance + kLayerNormEpsilon); thread t of the row's group takes
  // columns t, t + Row::threads(), ... (first = Row::thread(), step = Row::threads()).
  const float rstd = rsqrtf(variance + kLayerNormEpsilon);
  for (unsigned int c = Row::thread(); c < cols; c += Row::threads()) {
    y[c] = (x[c] - mean) * rstd * gamma[c] + beta[c];
  }
  // ====================== TODO 1 of 7: END ========================
}

// ---------------------------------------------------------------- version 1: one pass
template <typename Row>
__device__ void layer_norm_one_pass(const float* x, float* y, const float* gamma,
                                    const float* beta, unsigned int cols) {
  float total = 0.0f;
  float squares = 0.0f;
  // ====================== TODO 2 of 7: BEGIN ======================
  // This thread's sum of x and of x * x over its columns; then the row's, with
  // Row::all(total, Sum{}, 0.0f) and the same for squares.
  for (unsigned int c = Row::thread(); c < cols; c += Row::threads()) {
    total += x[c];
    squares += x[c] * x[c];
  }
  total = Row::all(total, Sum{}, 0.0f);
  squares = Row::all(squares, Sum{}, 0.0f);
  // ====================== TODO 2 of 7: END ========================
  const float mean = total / cols;
  const float variance = squares / cols - mean * mean;  // E[x^2] - E[x]^2
  normalise<Row>(x, y, gamma, beta, cols, mean, variance);
}

// ---------------------------------------------------------------- versions 2 and 3: two passes
template <typename Row>
__device__ void layer_norm_two_pass(const float* x, float* y, const float* gamma,
                                    const float* beta, unsigned int cols) {
  float mean = 0.0f;
  float variance = 0.0f;
  // ====================== TODO 3 of 7: BEGIN ======================
  // - mean: the row's sum of x (this thread's columns, then Row::all), divided by cols;
  // - variance: the row's sum of (x - mean)^2, divided by cols. The distances are small
  //   where x is large, so nothing cancels.
  float total = 0.0f;
  for (unsigned int c = Row::thread(); c < cols; c += Row::threads()) total += x[c];
  mean = Row::all(total, Sum{}, 0.0f) / cols;
  float squares = 0.0f;
  for (unsigned int c = Row::thread(); c < cols; c += Row::threads()) {
    squares += (x[c] - mean) * (x[c] - mean);
  }
  variance = Row::all(squares, Sum{}, 0.0f) / cols;
  // ====================== TODO 3 of 7: END ========================
  normalise<Row>(x, y, gamma, beta, cols, mean, variance);
}

// ---------------------------------------------------------------- versions 4 and 5: Welford
// Chan, Golub and LeVeque's merge of two running statistics: the counts add, the mean
// moves towards b's by its share of the count, and M2 gains the spread between the means.
struct Merge {
  __device__ Stats operator()(Stats a, Stats b) const {
    Stats out{a.count + b.count, 0.0f, 0.0f};
    // ====================== TODO 4 of 7: BEGIN ======================
    // With delta = b.mean - a.mean and n = out.count:
    //   mean = a.mean + delta * (b.count / n)
    //   m2   = a.m2 + b.m2 + delta * delta * (a.count * b.count / n)
    // Two empty Stats (n = 0) must give an empty one, not 0 / 0 = NaN.
    if (out.count == 0.0f) return out;
    const float delta = b.mean - a.mean;
    out.mean = a.mean + delta * (b.count / out.count);
    out.m2 = a.m2 + b.m2 + delta * delta * (a.count * b.count / out.count);
    // ====================== TODO 4 of 7: END ========================
    return out;
  }
};

template <typename Row>
__device__ void layer_norm_welford(const float* x, float* y, const float* gamma,
                                   const float* beta, unsigned int cols) {
  Stats mine{0.0f, 0.0f, 0.0f};
  // ====================== TODO 5 of 7: BEGIN ======================
  // Each of this thread's values updates its Stats (count += 1; delta = x - mean;
  // mean += delta / count; m2 += delta * (x - new mean)); then the row's Stats with
  // Row::all(mine, Merge{}, Stats{0, 0, 0}).
  for (unsigned int c = Row::thread(); c < cols; c += Row::threads()) {
    mine.count += 1.0f;
    const float delta = x[c] - mine.mean;
    mine.mean += delta / mine.count;
    mine.m2 += delta * (x[c] - mine.mean);
  }
  mine = Row::all(mine, Merge{}, Stats{0.0f, 0.0f, 0.0f});
  // ====================== TODO 5 of 7: END ========================
  normalise<Row>(x, y, gamma, beta, cols, mine.mean, mine.m2 / mine.count);
}

// ---------------------------------------------------------------- the kernels
// One block per row (row blockIdx.x), or one warp per row (blockDim.x / 32 rows a block;
// a warp past the last row returns at once, which is safe: warp rows use no barrier).
template <typename Row>
__device__ std::size_t row_index(unsigned int rows) {
  if (!Row::kOneWarp) return blockIdx.x;
  const std::size_t row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarpSize;
  return row < rows ? row : rows;  // rows: no row for this warp
}

template <typename Row, int Method>
__global__ void layer_norm_rows(const float* in, float* out, const float* gamma,
                                const float* beta, unsigned int rows, unsigned int cols) {
  const std::size_t row = row_index<Row>(rows);
  if (row >= rows) return;
  const float* x = in + row * cols;
  float* y = out + row * cols;
  if (Method == 1) layer_norm_one_pass<Row>(x, y, gamma, beta, cols);
  if (Method == 2) layer_norm_two_pass<Row>(x, y, gamma, beta, cols);
  if (Method == 3) layer_norm_welford<Row>(x, y, gamma, beta, cols);
}

// ---------------------------------------------------------------- versions 7 and 8
// The row kept on chip: read once into registers (reduce::HeldRow, common/rows/held_row.h),
// its mean and the squared distances from it found there (the two passes of versions 2 and
// 3, over registers instead of memory), written once. A value past the row holds 0 and
// adds nothing.
template <typename Row, int kVec, int kHeld>
__device__ void layer_norm_on_chip(const float* x, float* y, const float* gamma,
                                   const float* beta, unsigned int cols) {
  reduce::HeldRow<kVec, kHeld> row(Row::thread(), Row::threads(), cols);
  row.load(x, 0.0f);
  // ====================== TODO 6 of 7: BEGIN ======================
  // The row is in row.v, kHeld values a thread; row.has(j) tells whether value j is one
  // of the row's columns (row.column(j) says which; the others hold 0). Leave in row.v
  // what y must hold, by the formula at the top of this file:
  // - x is not read again: the mean, then the variance as the mean squared distance from
  //   it (two passes, as in versions 2 and 3, but over the held values), each shared with
  //   every thread of the row by Row::all;
  // - a value that is not a column adds no distance;
  // - gamma and beta are read only at the row's columns, and as the row is: 16 bytes at a
  //   time where kVec is 4 (HeldRow's update does so: it hands a function each value with
  //   its column's entries of two more rows, and keeps what the function returns).
  float total = 0.0f;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) total += row.v[j];
  const float mean = Row::all(total, Sum{}, 0.0f) / cols;
  float squares = 0.0f;
#pragma unroll
  for (int j = 0; j < kHeld; ++j) {
    const float distance = row.has(j) ? row.v[j] - mean : 0.0f;
    squares += distance * distance;
  }
  const float rstd = rsqrtf(Row::all(squares, Sum{}, 0.0f) / cols + kLayerNormEpsilon);
  row.update(gamma, beta, [&](float v, float g, float b) { return (v - mean) * rstd * g + b; });
  // ====================== TODO 6 of 7: END ========================
  row.store(y);
}

// At most 512 threads a block, so that 32 values a lane and the rest stay in registers.
template <int kVec, int kHeld>
__global__ void __launch_bounds__(512) layer_norm_warp_on_chip(
    const float* in, float* out, const float* gamma, const float* beta, unsigned int rows,
    unsigned int cols) {
  const std::size_t row = row_index<WarpRow>(rows);
  if (row >= rows) return;
  layer_norm_on_chip<WarpRow, kVec, kHeld>(in + row * cols, out + row * cols, gamma, beta,
                                           cols);
}

// At most 64 registers a thread, so that 1024 threads fit on one multiprocessor.
template <int kVec, int kHeld>
__global__ void __launch_bounds__(1024) layer_norm_block_on_chip(
    const float* in, float* out, const float* gamma, const float* beta, unsigned int cols) {
  const std::size_t row = blockIdx.x;
  layer_norm_on_chip<BlockRow, kVec, kHeld>(in + row * cols, out + row * cols, gamma, beta,
                                            cols);
}

// ---------------------------------------------------------------- versions 9 and 10
// A row longer than one block holds, split over `parts` blocks: block p takes the columns
// [p * chunk, (p + 1) * chunk) and finds their (count, mean, M2); the row's are Chan's
// merge of the parts' (versions 4 and 5), and each block writes its columns with them.

// Version 9, any GPU: the parts' statistics meet in global memory (work, three floats a
// part) between two kernels, and the second reads the columns again.
__global__ void layer_norm_part_stats(const float* in, float* work, unsigned int cols,
                                      unsigned int chunk, unsigned int parts) {
  const reduce::RowPart p = reduce::row_part(blockIdx.x % parts, parts, cols, chunk);
  const float* x = in + p.row * cols + p.begin;
  Stats mine{0.0f, 0.0f, 0.0f};
  for (unsigned int c = threadIdx.x; c < p.count; c += blockDim.x) {
    mine = Merge{}(mine, Stats{1.0f, x[c], 0.0f});
  }
  mine = block_all(mine, Merge{}, Stats{0.0f, 0.0f, 0.0f});
  if (threadIdx.x == 0) {
    float* out = work + 3 * std::size_t{blockIdx.x};
    out[0] = mine.count;
    out[1] = mine.mean;
    out[2] = mine.m2;
  }
}

__global__ void layer_norm_parts_write(const float* in, float* out, const float* gamma,
                                       const float* beta, const float* work, unsigned int cols,
                                       unsigned int chunk, unsigned int parts) {
  const reduce::RowPart p = reduce::row_part(blockIdx.x % parts, parts, cols, chunk);
  const float* stats = work + 3 * p.row * parts;
  Stats whole{0.0f, 0.0f, 0.0f};
  for (unsigned int q = threadIdx.x; q < parts; q += blockDim.x) {
    whole = Merge{}(whole, Stats{stats[3 * q], stats[3 * q + 1], stats[3 * q + 2]});
  }
  whole = block_all(whole, Merge{}, Stats{0.0f, 0.0f, 0.0f});
  const float rstd = rsqrtf(whole.m2 / cols + kLayerNormEpsilon);
  const float* x = in + p.row * cols + p.begin;
  float* y = out + p.row * cols + p.begin;
  for (unsigned int c = threadIdx.x; c < p.count; c += blockDim.x) {
    y[c] = (x[c] - whole.mean) * rstd * gamma[p.begin + c] + beta[p.begin + c];
  }
}

// Version 10, GPUs with thread-block clusters (sm_90 on): the parts are one cluster's
// blocks, each keeping its columns in its shared memory (reduce::StagedPart, so that
// several blocks share an SM) and finding its part's statistics with two passes over them.
// A block of a cluster can write another's shared memory (distributed shared memory): each
// block pushes its statistics into a slot of every block, so after one cluster barrier
// every block holds all of them, merges them in the same order and writes from the values
// it still keeps. The row is read once. Compiled once per block size (kThreads), so that
// the part's loops step by a constant.
template <int kVec, unsigned int kThreads>
__global__ void __launch_bounds__(kThreads, reduce::staged_blocks_per_sm(kThreads))
    layer_norm_cluster_on_chip(
    const float* in, float* out, const float* gamma, const float* beta, unsigned int cols,
    unsigned int chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  // "This block runs", said at once; the wait for the others' comes just before the first
  // write into their shared memory, by when they have long started, so no block idles here.
  reduce::cluster_arrive_relaxed();
  const unsigned int parts = cluster.num_blocks();
  const reduce::RowPart p = reduce::row_part(cluster.block_rank(), parts, cols, chunk);
  extern __shared__ float4 staged[];  // float4: 16-byte aligned, as the 16-byte copies need
  reduce::StagedPart<kVec, kThreads> columns(reinterpret_cast<float*>(staged), p.count);
  columns.load(in + p.row * cols + p.begin);
  float total = 0.0f;
  columns.each([&](float v) { total += v; });
  total = block_all(total, Sum{}, 0.0f);
  const float part_mean = p.count > 0 ? total / p.count : 0.0f;
  float squares = 0.0f;
  columns.each([&](float v) { squares += (v - part_mean) * (v - part_mean); });
  squares = block_all(squares, Sum{}, 0.0f);
  const Stats part{static_cast<float>(p.count), part_mean, squares};
  Stats whole{0.0f, 0.0f, 0.0f};
  reduce::cluster_wait();  // every block runs: its shared memory is there
  // ====================== TODO 7 of 7: BEGIN ======================
  // `part` is this block's (count, mean, M2) for its columns. Every block of the cluster
  // must end with the whole row's in `whole`:
  // - each block has a __shared__ array of reduce::kMostParts Stats, slot q for block q's
  //   part; this block's `part` lands in its slot in every block of the cluster, its own
  //   included (cluster.map_shared_rank(&variable, rank) is block rank's copy of a shared
  //   variable, and a block may write it);
  // - no block reads its slots before every part has landed in them; after that no block
  //   touches another's shared memory, so each may leave without waiting for the others
  //   (reading the others' parts instead would need a second barrier for that);
  // - every block merges all `parts` slots in the same order with Chan's merge, so that
  //   all of them write with the same mean and variance; a part with no columns has
  //   count 0.
  __shared__ Stats slots[reduce::kMostParts];
  if (threadIdx.x < parts) *cluster.map_shared_rank(&slots[cluster.block_rank()], threadIdx.x) = part;
  cluster.sync();  // every block's part has landed in every block's slots
  for (unsigned int q = 0; q < parts; ++q) whole = Merge{}(whole, slots[q]);
  // ====================== TODO 7 of 7: END ========================
  const float rstd = rsqrtf(whole.m2 / cols + kLayerNormEpsilon);
  columns.store(out + p.row * cols + p.begin, gamma + p.begin, beta + p.begin,
                [&](float v, float g, float b) { return (v - whole.mean) * rstd * g + b; });
#endif
}
namespace {

constexpr int kOnePass = 1, kTwoPass = 2, kWelford = 3;

template <typename Row, int Method>
void launch_rows(const reduce::RowLaunch& run) {
  const std::size_t rows_per_block = Row::kOneWarp ? run.block / kWarpSize : 1;
  const std::size_t grid = (run.rows + rows_per_block - 1) / rows_per_block;
  layer_norm_rows<Row, Method><<<static_cast<unsigned int>(grid), run.block, 0, run.stream>>>(
      run.in, run.out, run.gamma, run.beta, static_cast<unsigned int>(run.rows),
      static_cast<unsigned int>(run.cols));
  reduce::check_launch("layer_norm_rows", __FILE__, __LINE__);
}

// What the lesson measured on the H100 (at 128, 1024, 32768 and 131072 columns): a warp
// per row is fastest for rows of 128; a block per row with two passes for rows of 1024,
// whose second read comes from the cache; for long rows, where it does not, Welford's
// single pass.
constexpr std::size_t kWarpRowsUpTo = 128;
constexpr std::size_t kTwoPassUpTo = 1024;
void by_row_length(const reduce::RowLaunch& run) {
  if (run.cols <= kWarpRowsUpTo) {
    launch_rows<WarpRow, kTwoPass>(run);
  } else if (run.cols <= kTwoPassUpTo) {
    launch_rows<BlockRow, kTwoPass>(run);
  } else {
    launch_rows<BlockRow, kWelford>(run);
  }
}

// Version 7: a warp per row in its registers, rows up to 32 x 32 = 1024 columns, in blocks
// of at most 512 threads; longer: version 5.
void warp_on_chip(const reduce::RowLaunch& run) {
  const reduce::HeldLaunch at = reduce::warp_per_row(run);
  const bool launched = reduce::launch_held(at.vec, at.held, [&]<int kVec, int kHeld>() {
    layer_norm_warp_on_chip<kVec, kHeld><<<at.grid, at.threads, 0, run.stream>>>(
        run.in, run.out, run.gamma, run.beta, static_cast<unsigned int>(run.rows),
        static_cast<unsigned int>(run.cols));
    reduce::check_launch("layer_norm_warp_on_chip", __FILE__, __LINE__);
  });
  if (!launched) launch_rows<WarpRow, kWelford>(run);
}

// Version 8: a block per row in its threads' registers; the block grows past run.block (to
// 1024 threads at most) until each thread holds at most 8 values, so rows up to 32768
// columns fit; longer: version 4.
void block_on_chip_from(const reduce::RowLaunch& run, unsigned int threads) {
  const reduce::HeldLaunch at = reduce::block_per_row(run, threads);
  const bool launched = reduce::launch_held(at.vec, at.held, [&]<int kVec, int kHeld>() {
    layer_norm_block_on_chip<kVec, kHeld><<<at.grid, at.threads, 0, run.stream>>>(
        run.in, run.out, run.gamma, run.beta, static_cast<unsigned int>(run.cols));
    reduce::check_launch("layer_norm_block_on_chip", __FILE__, __LINE__);
  });
  if (!launched) launch_rows<BlockRow, kWelford>(run);
}

void block_on_chip(const reduce::RowLaunch& run) { block_on_chip_from(run, run.block); }

// Version 9: parts of reduce::kSplitChunk columns or more, two kernels; a shorter row is
// one part, version 4.
void split_through_memory(const reduce::RowLaunch& run) {
  const reduce::SplitLaunch s = reduce::split_launch(run);
  if (s.parts == 1) return launch_rows<BlockRow, kWelford>(run);  // one part: a block per row, nothing to hand over
  layer_norm_part_stats<<<s.grid, run.block, 0, run.stream>>>(run.in, run.work, s.cols, s.chunk,
                                                               s.parts);
  reduce::check_launch("layer_norm_part_stats", __FILE__, __LINE__);
  layer_norm_parts_write<<<s.grid, run.block, 0, run.stream>>>(
      run.in, run.out, run.gamma, run.beta, run.work, s.cols, s.chunk, s.parts);
  reduce::check_launch("layer_norm_parts_write", __FILE__, __LINE__);
}

// Version 10 with blocks of `threads` (128 to 1024); version 9 where clusters cannot take
// the row (reduce::clusters_take).
void cluster_on_chip_with(const reduce::RowLaunch& run, unsigned int threads) {
  const bool vec = reduce::rows_take_vectors(run);
  const bool launched = reduce::with_staged_threads(threads, [&]<unsigned int kThreads>() {
    return reduce::launch_staged<layer_norm_cluster_on_chip<4, kThreads>,
                                 layer_norm_cluster_on_chip<1, kThreads>>(
        run, vec, threads, run.in, run.out, run.gamma, run.beta,
        static_cast<unsigned int>(run.cols));
  });
  if (!launched) split_through_memory(run);
}

// Version 10: blocks of run.block threads, at least 128 and at most 1024.
void cluster_on_chip(const reduce::RowLaunch& run) {
  cluster_on_chip_with(run, std::clamp(run.block, 128u, 1024u));
}

// Version 11: versions 7, 8 and 10 by row length (reduce::held_by_row_length says where
// each takes over and why).
void on_chip_by_row_length(const reduce::RowLaunch& run) {
  reduce::held_by_row_length(run, warp_on_chip, block_on_chip_from, cluster_on_chip_with);
}

constexpr reduce::StageVersion kVersions[] = {
    {"one pass, E[x^2] - E[x]^2, a block per row", nullptr, launch_rows<BlockRow, kOnePass>},
    {"two passes, a block per row", nullptr, launch_rows<BlockRow, kTwoPass>},
    {"two passes, a warp per row", nullptr, launch_rows<WarpRow, kTwoPass>},
    {"Welford, a block per row", nullptr, launch_rows<BlockRow, kWelford>},
    {"Welford, a warp per row", nullptr, launch_rows<WarpRow, kWelford>},
    {"version 3 up to 128 columns, 2 up to 1024, else 4", nullptr, by_row_length},
    {"the row in registers, a warp per row (up to 1024 columns)", nullptr, warp_on_chip},
    {"the row in registers, a block per row (up to 32768 columns)", nullptr, block_on_chip},
    {"the row split over blocks, their statistics merged through memory (reads it twice)",
     nullptr, split_through_memory},
    {"the row split over a cluster of blocks, held on chip (sm_90 on; else version 9)", nullptr,
     cluster_on_chip},
    {"version 7 up to 512 columns, version 8 up to 8192, else version 10", nullptr,
     on_chip_by_row_length},
};

}  // namespace

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 17,
                              .kind = StageKind::kRows,
                              .op = Operation::kLayerNorm,
                              .versions = kVersions};
  return plan;
}
