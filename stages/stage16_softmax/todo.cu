// Stage 16: softmax over the rows of a matrix, built from the reductions of stages 12
// and 15. Each row x becomes y = exp(x - max(x)) / sum(exp(x - max(x))): subtracting the
// row's max first keeps every exp at or below 1, so logits of +-1000 do not overflow.
// One row goes to a warp (short rows) or to a whole block (long rows); the row's max and
// sum are reductions over the threads that share it. Versions 1 and 2 read the row three
// times (max, sum, write); versions 3 and 4 find max and sum in one pass (online softmax)
// and read it twice; version 5 picks version 2 or 3 by row length. Versions 6 and 7 keep
// the row in registers, so they read it once; version 9 splits a long row over a cluster
// of blocks; version 10 picks 6, 7 or 9 by row length.
//
// Run it:   scripts/run.sh 16                                   (version 10, the default)
//           build/bin/stage16_todo --version 1 --rows 8 --cols 131072
// Test it:  scripts/test.sh --todo 16           (every version, short rows and long ones)
#include <cooperative_groups.h>

#include "common/cuda_check.h"
#include "common/launch.h"
#include "common/max_of.h"

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
  // ====================== TODO 1 of 6: BEGIN ======================
  // A butterfly over offsets 16, 8, 4, 2, 1: at each, every lane combines (op) its value
  // with the value of lane i ^ offset, fetched with __shfl_xor_sync over all 32 lanes.
  // Lanes swap in pairs, so after the five steps every lane holds the whole warp's result
  // (__shfl_down_sync would leave it in lane 0 only).
  // ====================== TODO 1 of 6: END ========================
  return value;
}

// Returns op over the block's values, in every thread. Every thread must call it.
template <typename Op>
__device__ float block_all(float value, Op op) {
  value = warp_all(value, op);
  // ====================== TODO 2 of 6: BEGIN ======================
  // - declare __shared__ float warp_results[kWarpSize] (a block has at most 32 warps);
  //   lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  // - __syncthreads() first: a kernel that calls block_all twice with the same Op (both
  //   calls share one warp_results) must not overwrite it while the first call reads;
  // - lane 0 of each warp stores its result in warp_results[warp]; then a barrier;
  // - every warp (not only the first: all threads need the answer) loads
  //   warp_results[lane] for lanes below blockDim.x / kWarpSize, Op::kIdentity for the
  //   rest, and returns warp_all of that.
  // ====================== TODO 2 of 6: END ========================
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
  // ====================== TODO 3 of 6: BEGIN ======================
  // - top: this thread's max over its columns (start from kLowest, combine with max_of so
  //   a NaN is kept), then the row's max, shared by Row::all with Max;
  // - total: this thread's sum of exp(x - top) over its columns (expf), then the row's sum,
  //   shared by Row::all with Sum;
  // - each of this thread's outputs is exp(x - top) divided by the row's total.
  // ====================== TODO 3 of 6: END ========================
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
  // ====================== TODO 4 of 6: BEGIN ======================
  // out.top is the larger (max_of) of the two maxima; out.total is the sum of the two
  // totals, each first moved to out.top with rescale (the rule above, and the lesson's
  // section on merging (m, s) pairs).
  // ====================== TODO 4 of 6: END ========================
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
  // ====================== TODO 5 of 6: BEGIN ======================
  // As in block_all, with __shared__ Running warp_pairs[kWarpSize]: a barrier, lane 0 of
  // each warp stores its pair in warp_pairs[warp], a barrier, then every warp loads
  // warp_pairs[lane] (Running{kLowest, 0} past the last warp) and returns warp_merge of
  // that.
  // ====================== TODO 5 of 6: END ========================
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
  // ====================== TODO 6 of 6: BEGIN ======================
  // - mine starts as the pair that has seen nothing (kLowest, 0); each of this thread's
  //   columns is merged into it as a pair of its own (one value is its own max, and
  //   exp(0) = 1);
  // - then the row's pair, shared by Merge::all;
  // - each of this thread's outputs is exp(x - the row's max) divided by the row's sum.
  // ====================== TODO 6 of 6: END ========================
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
// The row kept on chip: read once into registers, its max and sum found there, written
// once. Versions 1 to 5 read the row two or three times, and at rows of 1024 columns and
// more the later reads come from DRAM again. Each thread holds kPerThread values, columns
// t, t + threads, t + 2 * threads, ... (a warp's loads stay consecutive); a column past
// the row holds kLowest for the max and 0 for the sum. Row is WarpRow (kPerThread * 32
// columns at most) or BlockRow (kPerThread * blockDim.x).
template <typename Row, int kPerThread>
__device__ void softmax_on_chip(const float* x, float* y, unsigned int cols) {
  const unsigned int first = Row::thread();
  const unsigned int step = Row::threads();
  float held[kPerThread];
  float top = kLowest;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    held[i] = c < cols ? x[c] : kLowest;
    top = max_of(top, held[i]);
  }
  top = Row::all(top, Max{});
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    held[i] = c < cols ? expf(held[i] - top) : 0.0f;
    total += held[i];
  }
  total = Row::all(total, Sum{});
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = first + i * step;
    if (c < cols) y[c] = held[i] / total;
  }
}

template <int kPerThread>
__global__ void softmax_warp_on_chip(const float* in, float* out, unsigned int rows,
                                     unsigned int cols) {
  const std::size_t row = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarpSize;
  if (row >= rows) return;
  softmax_on_chip<WarpRow, kPerThread>(in + row * cols, out + row * cols, cols);
}

// At most 64 registers a thread, so that 1024 threads fit on one multiprocessor.
template <int kPerThread>
__global__ void __launch_bounds__(1024) softmax_block_on_chip(const float* in, float* out,
                                                              unsigned int cols) {
  const std::size_t row = blockIdx.x;
  softmax_on_chip<BlockRow, kPerThread>(in + row * cols, out + row * cols, cols);
}

// ---------------------------------------------------------------- version 9
// A row longer than one block holds, split over a cluster of `parts` blocks (GPUs with
// clusters, sm_90 on): block p of the cluster holds columns [p * chunk, (p + 1) * chunk) in
// registers and finds its own pair (max, sum of exp(x - max)); the pairs meet in the
// blocks' shared memory, which every block of a cluster can read (distributed shared
// memory), and each block merges all of them, in the same order, with version 3's merge.
// Then y = exp(x - max) / sum from the values still held: the row is read once.
template <int kPerThread>
__global__ void __launch_bounds__(1024) softmax_cluster_on_chip(const float* in, float* out,
                                                                unsigned int cols,
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
  float top = kLowest;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    held[i] = c < count ? x[c] : kLowest;
    top = max_of(top, held[i]);
  }
  top = block_all(top, Max{});
  float total = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    // A part that holds only -inf (masked) has nothing to add, not -inf - -inf = NaN.
    held[i] = (c < count && top != kLowest) ? expf(held[i] - top) : 0.0f;
    total += held[i];
  }
  total = block_all(total, Sum{});
  __shared__ Running mine;
  if (threadIdx.x == 0) mine = Running{top, total};
  cluster.sync();
  Running whole{kLowest, 0.0f};
  for (unsigned int p = 0; p < parts; ++p) whole = merge(whole, *cluster.map_shared_rank(&mine, p));
  cluster.sync();  // no block leaves while another still reads its pair
  const float scale = rescale(top, whole.top) / whole.total;
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned int c = threadIdx.x + i * blockDim.x;
    if (c < count) y[c] = held[i] * scale;
  }
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

// The values a thread must hold for a row of `cols` over `threads` threads, rounded up to
// a power of two (one compiled kernel each), or 0 past kMostPerThread.
constexpr int kMostPerThread = 32;
std::size_t needed_per_thread(std::size_t cols, std::size_t threads) {
  std::size_t held = 1;
  while (held * threads < cols) held *= 2;
  return held;
}
int per_thread(std::size_t cols, std::size_t threads) {
  const std::size_t held = needed_per_thread(cols, threads);
  return held <= kMostPerThread ? static_cast<int>(held) : 0;
}

template <int kPerThread>
void launch_warp_on_chip(const reduce::RowLaunch& run) {
  launch_warp_rows(softmax_warp_on_chip<kPerThread>, "softmax_warp_on_chip", run);
}

template <int kPerThread>
void launch_block_on_chip(const reduce::RowLaunch& run, unsigned int threads) {
  softmax_block_on_chip<kPerThread><<<static_cast<unsigned int>(run.rows), threads, 0,
                                      run.stream>>>(run.in, run.out,
                                                    static_cast<unsigned int>(run.cols));
  reduce::check_launch("softmax_block_on_chip", __FILE__, __LINE__);
}

// Version 6: a warp per row, the row in its registers: rows up to 32 * 32 = 1024 columns.
// A longer row does not fit; it goes to version 4.
void warp_on_chip(const reduce::RowLaunch& run) {
  switch (per_thread(run.cols, kWarpSize)) {
    case 1: return launch_warp_on_chip<1>(run);
    case 2: return launch_warp_on_chip<2>(run);
    case 4: return launch_warp_on_chip<4>(run);
    case 8: return launch_warp_on_chip<8>(run);
    case 16: return launch_warp_on_chip<16>(run);
    case 32: return launch_warp_on_chip<32>(run);
    default: return warp_online(run);
  }
}

// Version 7: a block per row, the row in its threads' registers. The block grows past
// run.block (up to 1024 threads) until each thread holds at most 32 values, so rows up to
// 32768 columns fit; a longer row goes to version 3.
void block_on_chip(const reduce::RowLaunch& run) {
  unsigned int threads = run.block;
  while (threads < 1024 && needed_per_thread(run.cols, threads) > 8) threads *= 2;
  switch (per_thread(run.cols, threads)) {
    case 1: return launch_block_on_chip<1>(run, threads);
    case 2: return launch_block_on_chip<2>(run, threads);
    case 4: return launch_block_on_chip<4>(run, threads);
    case 8: return launch_block_on_chip<8>(run, threads);
    case 16: return launch_block_on_chip<16>(run, threads);
    case 32: return launch_block_on_chip<32>(run, threads);
    default: return block_online(run);
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
  CUDA_CHECK(cudaLaunchKernelEx(&config, softmax_cluster_on_chip<kPerThread>, run.in, run.out,
                                static_cast<unsigned int>(run.cols), chunk));
}

// Version 9: rows up to 8 x 32768 columns over a cluster of up to 8 blocks of 1024 threads,
// each thread holding up to 32 values; on a GPU without clusters, or for longer rows,
// version 3.
constexpr unsigned int kMostParts = 8;  // the cluster size every sm_90 GPU supports
void cluster_on_chip(const reduce::RowLaunch& run) {
  unsigned int parts = 2;
  while (parts < kMostParts && needed_per_thread(run.cols, parts * 1024) > 16) parts *= 2;
  const auto chunk = static_cast<unsigned int>((run.cols + parts - 1) / parts);
  // A grid has at most 2^31 - 1 blocks in x.
  if (!has_clusters() || run.rows * parts > 0x7fffffffu) return block_online(run);
  switch (per_thread(chunk, 1024)) {
    case 1: return launch_cluster_on_chip<1>(run, parts, chunk);
    case 2: return launch_cluster_on_chip<2>(run, parts, chunk);
    case 4: return launch_cluster_on_chip<4>(run, parts, chunk);
    case 8: return launch_cluster_on_chip<8>(run, parts, chunk);
    case 16: return launch_cluster_on_chip<16>(run, parts, chunk);
    case 32: return launch_cluster_on_chip<32>(run, parts, chunk);
    default: return block_online(run);
  }
}

// Version 10: version 6 up to 1024 columns, version 7 up to 32768, else version 9.
void on_chip_by_row_length(const reduce::RowLaunch& run) {
  if (run.cols <= kWarpSize * kMostPerThread) {
    warp_on_chip(run);
  } else if (run.cols <= 1024 * kMostPerThread) {
    block_on_chip(run);
  } else {
    cluster_on_chip(run);
  }
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
    {"the row split over a cluster of blocks (sm_90 on; else version 3)", nullptr,
     cluster_on_chip},
    {"version 6 up to 1024 columns, version 7 up to 32768, else version 9", nullptr,
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
