// Stage 17: layer norm over the rows of a matrix. Each row x becomes
// y = (x - mean) / sqrt(variance + epsilon) * gamma + beta, with one gamma and one beta per
// column. The row's mean and variance are reductions over the threads that share the row,
// a warp or a block, as in stage 16. Version 1 takes the textbook shortcut, one pass for
// the sum of x and of x^2 and then E[x^2] - E[x]^2, and shows why it fails: on data like
// 10^4 + noise the two terms agree in every digit a float holds. Versions 2 and 3 make two
// passes (the mean first, then the squared distances from it); versions 4 and 5 use
// Welford's running (count, mean, M2) and merge those pairs across threads. Versions 7
// and 8 keep the row in registers and make the two passes there, reading it once; version
// 10 splits a long row over a cluster of blocks; version 11 picks 7, 8 or 10 by row length.
//
// Run it:   scripts/run.sh 17                                   (version 11, the default)
//           build/bin/stage17_todo --version 1 --offset 10000   (watch version 1 fail)
// Test it:  scripts/test.sh --todo 17
#include <cooperative_groups.h>

#include "common/cuda_check.h"
#include "common/launch.h"

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
  // ====================== TODO 1 of 5: BEGIN ======================
  // Write this thread's columns of y as the comment above says, with the division done as
  // one multiply: rstd, the reciprocal square root (rsqrtf) of the variance plus
  // kLayerNormEpsilon, computed once, not per column.
  // Thread t of the row's group takes columns t, t + Row::threads(), ... (it starts at
  // Row::thread() and steps by Row::threads()), so neighbouring threads read neighbours.
  // ====================== TODO 1 of 5: END ========================
}

// ---------------------------------------------------------------- version 1: one pass
template <typename Row>
__device__ void layer_norm_one_pass(const float* x, float* y, const float* gamma,
                                    const float* beta, unsigned int cols) {
  float total = 0.0f;
  float squares = 0.0f;
  // ====================== TODO 2 of 5: BEGIN ======================
  // This thread's sum of x and of x squared over its columns, in total and squares; then
  // the row's two sums, each shared by Row::all with Sum (0 is what a lane with no
  // columns contributes).
  // ====================== TODO 2 of 5: END ========================
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
  // ====================== TODO 3 of 5: BEGIN ======================
  // - mean: the row's sum of x (this thread's columns, then Row::all), divided by cols;
  // - variance: the row's sum of (x - mean)^2, divided by cols. The distances are small
  //   where x is large, so nothing cancels.
  // ====================== TODO 3 of 5: END ========================
  normalise<Row>(x, y, gamma, beta, cols, mean, variance);
}

// ---------------------------------------------------------------- versions 4 and 5: Welford
// Chan, Golub and LeVeque's merge of two running statistics: the counts add, the mean
// moves towards b's by its share of the count, and M2 gains the spread between the means.
struct Merge {
  __device__ Stats operator()(Stats a, Stats b) const {
    Stats out{a.count + b.count, 0.0f, 0.0f};
    // ====================== TODO 4 of 5: BEGIN ======================
    // Fill out.mean and out.m2 by the merge the comment above describes; its formula is in
    // the lesson's section on Chan, Golub and LeVeque's merge, with a worked example to
    // check against ({1, 2} and {3, 5} give (4, 2.75, 8.75)). Two empty Stats (count 0)
    // must give an empty one, not 0 / 0 = NaN.
    // ====================== TODO 4 of 5: END ========================
    return out;
  }
};

template <typename Row>
__device__ void layer_norm_welford(const float* x, float* y, const float* gamma,
                                   const float* beta, unsigned int cols) {
  Stats mine{0.0f, 0.0f, 0.0f};
  // ====================== TODO 5 of 5: BEGIN ======================
  // Each of this thread's values updates mine by Welford's step (the lesson's Welford
  // section: the count grows by one, the mean moves by its share of the distance, and M2
  // gains the distance from the old mean times the distance from the new one); then the
  // row's Stats, shared by Row::all with Merge (an empty Stats is what a lane with no
  // columns contributes).
  // ====================== TODO 5 of 5: END ========================
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
// The row kept on chip: read once into registers, its mean and the squared distances from
// it found there (the two passes of versions 2 and 3, over registers instead of memory),
// written once. Each thread holds kPerThread values, columns t, t + threads, ...; a column
// past the row holds 0 and adds nothing.
template <typename Row, int kPerThread>
__device__ void layer_norm_on_chip(const float* x, float* y, const float* gamma,
                                   const float* beta, unsigned int cols) {
  const unsigned int first = Row::thread();
  const unsigned int step = Row::threads();
  float held[kPerThread];
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    held[i] = c < cols ? x[c] : 0.0f;
    total += held[i];
  }
  const float mean = Row::all(total, Sum{}, 0.0f) / cols;
  float squares = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    const float distance = c < cols ? held[i] - mean : 0.0f;
    squares += distance * distance;
  }
  const float rstd = rsqrtf(Row::all(squares, Sum{}, 0.0f) / cols + kLayerNormEpsilon);
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    if (c < cols) y[c] = (held[i] - mean) * rstd * gamma[c] + beta[c];
  }
}

template <int kPerThread>
__global__ void layer_norm_warp_on_chip(const float* in, float* out, const float* gamma,
                                        const float* beta, unsigned int rows, unsigned int cols) {
  const std::size_t row = row_index<WarpRow>(rows);
  if (row >= rows) return;
  layer_norm_on_chip<WarpRow, kPerThread>(in + row * cols, out + row * cols, gamma, beta, cols);
}

// At most 64 registers a thread, so that 1024 threads fit on one multiprocessor.
template <int kPerThread>
__global__ void __launch_bounds__(1024) layer_norm_block_on_chip(
    const float* in, float* out, const float* gamma, const float* beta, unsigned int cols) {
  const std::size_t row = blockIdx.x;
  layer_norm_on_chip<BlockRow, kPerThread>(in + row * cols, out + row * cols, gamma, beta, cols);
}

// ---------------------------------------------------------------- version 10
// A row longer than one block holds, split over a cluster of `parts` blocks (sm_90 on):
// block p holds columns [p * chunk, (p + 1) * chunk) in registers and finds its part's
// (count, mean, M2) with two passes over them; the parts meet in the blocks' shared memory
// (distributed shared memory) and every block merges all of them, in the same order, with
// Chan's merge (versions 4 and 5). The row is read once.
template <int kPerThread>
__global__ void __launch_bounds__(1024) layer_norm_cluster_on_chip(
    const float* in, float* out, const float* gamma, const float* beta, unsigned int cols,
    unsigned int chunk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned int part = cluster.block_rank();
  const unsigned int parts = cluster.num_blocks();
  const std::size_t row = blockIdx.x / parts;
  const unsigned int begin = part * chunk;
  const unsigned int count = begin < cols ? min(chunk, cols - begin) : 0u;
  const float* x = in + row * cols + begin;
  float* y = out + row * cols + begin;
  float held[kPerThread];
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    held[i] = c < count ? x[c] : 0.0f;
    total += held[i];
  }
  const float part_mean = count > 0 ? block_all(total, Sum{}, 0.0f) / count : 0.0f;
  float squares = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    const float distance = c < count ? held[i] - part_mean : 0.0f;
    squares += distance * distance;
  }
  squares = block_all(squares, Sum{}, 0.0f);
  __shared__ Stats mine;
  if (threadIdx.x == 0) mine = Stats{static_cast<float>(count), part_mean, squares};
  cluster.sync();
  Stats whole{0.0f, 0.0f, 0.0f};
  for (unsigned int p = 0; p < parts; ++p) whole = Merge{}(whole, *cluster.map_shared_rank(&mine, p));
  cluster.sync();  // no block leaves while another still reads its part
  const float rstd = rsqrtf(whole.m2 / cols + kLayerNormEpsilon);
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    if (c < count) y[c] = (held[i] - whole.mean) * rstd * gamma[begin + c] + beta[begin + c];
  }
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

// The values a thread must hold for a row of `cols` over `threads` threads, a power of two
// (one compiled kernel each); past kMostPerThread the row does not fit.
constexpr std::size_t kMostPerThread = 32;
std::size_t needed_per_thread(std::size_t cols, std::size_t threads) {
  std::size_t held = 1;
  while (held * threads < cols) held *= 2;
  return held;
}

template <int kPerThread>
void launch_warp_on_chip(const reduce::RowLaunch& run) {
  const std::size_t rows_per_block = run.block / kWarpSize;
  const std::size_t grid = (run.rows + rows_per_block - 1) / rows_per_block;
  layer_norm_warp_on_chip<kPerThread><<<static_cast<unsigned int>(grid), run.block, 0,
                                        run.stream>>>(
      run.in, run.out, run.gamma, run.beta, static_cast<unsigned int>(run.rows),
      static_cast<unsigned int>(run.cols));
  reduce::check_launch("layer_norm_warp_on_chip", __FILE__, __LINE__);
}

template <int kPerThread>
void launch_block_on_chip(const reduce::RowLaunch& run, unsigned int threads) {
  layer_norm_block_on_chip<kPerThread><<<static_cast<unsigned int>(run.rows), threads, 0,
                                         run.stream>>>(run.in, run.out, run.gamma, run.beta,
                                                       static_cast<unsigned int>(run.cols));
  reduce::check_launch("layer_norm_block_on_chip", __FILE__, __LINE__);
}

// Version 7: a warp per row in its registers, rows up to 1024 columns; longer: version 5.
void warp_on_chip(const reduce::RowLaunch& run) {
  switch (needed_per_thread(run.cols, kWarpSize)) {
    case 1: return launch_warp_on_chip<1>(run);
    case 2: return launch_warp_on_chip<2>(run);
    case 4: return launch_warp_on_chip<4>(run);
    case 8: return launch_warp_on_chip<8>(run);
    case 16: return launch_warp_on_chip<16>(run);
    case 32: return launch_warp_on_chip<32>(run);
    default: return launch_rows<WarpRow, kWelford>(run);
  }
}

// Version 8: a block per row in its threads' registers; the block grows past run.block (to
// 1024 threads at most) until each thread holds at most 8 values, so rows up to 32768
// columns fit; longer: version 4.
void block_on_chip(const reduce::RowLaunch& run) {
  unsigned int threads = run.block;
  while (threads < 1024 && needed_per_thread(run.cols, threads) > 8) threads *= 2;
  switch (needed_per_thread(run.cols, threads)) {
    case 1: return launch_block_on_chip<1>(run, threads);
    case 2: return launch_block_on_chip<2>(run, threads);
    case 4: return launch_block_on_chip<4>(run, threads);
    case 8: return launch_block_on_chip<8>(run, threads);
    case 16: return launch_block_on_chip<16>(run, threads);
    case 32: return launch_block_on_chip<32>(run, threads);
    default: return launch_rows<BlockRow, kWelford>(run);
  }
}

bool has_clusters() {
  int device = 0;
  int clusters = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  return clusters != 0;
}

template <int kPerThread>
void launch_cluster_on_chip(const reduce::RowLaunch& run, unsigned int parts,
                            unsigned int chunk) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(run.rows) * parts);
  config.blockDim = dim3(1024);
  config.stream = run.stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = parts;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, layer_norm_cluster_on_chip<kPerThread>, run.in, run.out,
                                run.gamma, run.beta, static_cast<unsigned int>(run.cols), chunk));
}

// Version 10: rows up to 8 x 32768 columns over a cluster of up to 8 blocks of 1024 threads;
// on a GPU without clusters, or for longer rows, version 4.
constexpr std::size_t kMostParts = 8;  // the cluster size every sm_90 GPU supports
void cluster_on_chip(const reduce::RowLaunch& run) {
  std::size_t parts = 2;
  while (parts < kMostParts && needed_per_thread(run.cols, parts * 1024) > 16) parts *= 2;
  const auto chunk = static_cast<unsigned int>((run.cols + parts - 1) / parts);
  // A grid has at most 2^31 - 1 blocks in x.
  if (!has_clusters() || run.rows * parts > 0x7fffffffu) return launch_rows<BlockRow, kWelford>(run);
  const auto p = static_cast<unsigned int>(parts);
  switch (needed_per_thread(chunk, 1024)) {
    case 1: return launch_cluster_on_chip<1>(run, p, chunk);
    case 2: return launch_cluster_on_chip<2>(run, p, chunk);
    case 4: return launch_cluster_on_chip<4>(run, p, chunk);
    case 8: return launch_cluster_on_chip<8>(run, p, chunk);
    case 16: return launch_cluster_on_chip<16>(run, p, chunk);
    case 32: return launch_cluster_on_chip<32>(run, p, chunk);
    default: return launch_rows<BlockRow, kWelford>(run);
  }
}

// Version 11: version 7 up to 1024 columns, version 8 up to 32768, else version 10.
void on_chip_by_row_length(const reduce::RowLaunch& run) {
  if (run.cols <= kWarpSize * kMostPerThread) {
    warp_on_chip(run);
  } else if (run.cols <= 1024 * kMostPerThread) {
    block_on_chip(run);
  } else {
    cluster_on_chip(run);
  }
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
    {"the row split over a cluster of blocks (sm_90 on; else version 4)", nullptr,
     cluster_on_chip},
    {"version 7 up to 1024 columns, version 8 up to 32768, else version 10", nullptr,
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
