// The host side of the row versions that hold a row on chip (stages 16 and 17): how many
// values each thread holds, which compiled kernel that picks, and how a row too long for
// one block is split over several. The stages' kernels stay in their own files.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "common/cuda_check.h"
#include "common/rows/cluster_barrier.h"
#include "common/rows/held_row.h"
#include "common/rows/staged_part.h"
#include "common/stage.h"

namespace reduce {

constexpr std::size_t kMostHeld = 32;  // values a thread holds at most

// Whether a row version may move 16 bytes at a time: every row of in and out starts
// 16-byte aligned, cols is a multiple of 4, and so for gamma and beta where the stage has
// them.
inline bool rows_take_vectors(const RowLaunch& run) {
  return rows_take_vectors(run.in, run.out, run.cols) &&
         (run.gamma == nullptr || rows_take_vectors(run.gamma, run.beta, run.cols));
}

// The values a thread must hold for `cols` columns over `threads` threads: a power of two
// from `least` up (4 where it moves float4s), one compiled kernel each.
inline std::size_t needed_per_thread(std::size_t cols, std::size_t threads, int least) {
  std::size_t held = least;
  while (held * threads < cols) held *= 2;
  return held;
}

// Calls launch.operator()<kVec, kHeld>() for 16-byte accesses (vec) or single floats and
// `held` values a thread; false where held is past kMostHeld (the row does not fit).
template <typename Launch>
bool launch_held(bool vec, std::size_t held, Launch&& launch) {
  if (vec) {
    switch (held) {
      case 4: launch.template operator()<4, 4>(); return true;
      case 8: launch.template operator()<4, 8>(); return true;
      case 16: launch.template operator()<4, 16>(); return true;
      case 32: launch.template operator()<4, 32>(); return true;
      default: return false;
    }
  }
  switch (held) {
    case 1: launch.template operator()<1, 1>(); return true;
    case 2: launch.template operator()<1, 2>(); return true;
    case 4: launch.template operator()<1, 4>(); return true;
    case 8: launch.template operator()<1, 8>(); return true;
    case 16: launch.template operator()<1, 16>(); return true;
    case 32: launch.template operator()<1, 32>(); return true;
    default: return false;
  }
}

// How a kernel that holds its rows is launched: 16-byte accesses or single floats (vec),
// values a thread (held, for launch_held), blocks and their threads.
struct HeldLaunch {
  bool vec;
  std::size_t held;
  unsigned int grid;
  unsigned int threads;
};

constexpr unsigned int kLanes = 32;  // a warp's threads

// A warp per row: blocks of run.block threads, but at most 512, so that 32 values a lane
// and the rest of a lane's work stay in registers; rows up to 32 x kMostHeld columns.
inline HeldLaunch warp_per_row(const RowLaunch& run) {
  const bool vec = rows_take_vectors(run);
  const unsigned int threads = std::min(run.block, 512u);
  const std::size_t rows_per_block = threads / kLanes;
  return {vec, needed_per_thread(run.cols, kLanes, vec ? 4 : 1),
          static_cast<unsigned int>((run.rows + rows_per_block - 1) / rows_per_block), threads};
}

// A block per row: from `threads`, doubled (to 1024 at most) until each thread holds at
// most 8 values, so rows up to 1024 x kMostHeld columns fit.
inline HeldLaunch block_per_row(const RowLaunch& run, unsigned int threads) {
  const bool vec = rows_take_vectors(run);
  const int least = vec ? 4 : 1;
  while (threads < 1024 && needed_per_thread(run.cols, threads, least) > 8) threads *= 2;
  return {vec, needed_per_thread(run.cols, threads, least), static_cast<unsigned int>(run.rows),
          threads};
}

// A row split through memory (any GPU): parts of at least kSplitChunk columns, so that
// row_work_floats (room for 4 floats per 256 columns) holds every part's result; a row of
// fewer columns is one part. At most kMostSplitParts: every block of a row merges all of
// the row's parts, so a row of 2^30 columns in 8192-column parts would have each of its
// 131072 blocks read 131072 pairs.
constexpr std::size_t kSplitChunk = 8192;
constexpr std::size_t kMostSplitParts = 1024;
inline std::size_t split_parts(std::size_t cols) {
  return std::clamp<std::size_t>(cols / kSplitChunk, 1, kMostSplitParts);
}

// The grid of a row split through memory: run.rows x parts blocks, each taking `chunk`
// columns of its row (parts 1: the row is not split).
struct SplitLaunch {
  unsigned int parts;
  unsigned int chunk;
  unsigned int grid;
  unsigned int cols;
};

inline SplitLaunch split_launch(const RowLaunch& run) {
  const std::size_t parts = split_parts(run.cols);
  return {static_cast<unsigned int>(parts),
          static_cast<unsigned int>((run.cols + parts - 1) / parts),
          static_cast<unsigned int>(run.rows * parts), static_cast<unsigned int>(run.cols)};
}

inline bool has_clusters() {
  int device = 0;
  int clusters = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  return clusters != 0;
}

// A row split over a thread-block cluster of `parts` blocks, each staging `chunk` columns
// in shared memory (common/rows/staged_part.h); parts 0 where the row does not fit.
struct ClusterShape {
  unsigned int parts = 0;
  unsigned int chunk = 0;
};

// The shared memory a block stages its part in at most. Parts of up to kStagedBytes let
// three blocks share an SM (an H100's SM has 228 KiB), so one block's reads overlap
// another's reductions and writes. Measured on an H200 at 32768 and 131072 columns, parts
// of 64 KiB beat parts of 32 KiB: half as many blocks merge the row, and each SM still has
// 192 KiB in flight.
constexpr std::size_t kStagedBytes = 64 * 1024;

// The fewest parts (2 to kMostParts: the row is split even where one block could take it,
// so a short row still has parts to merge and parts with no columns) whose part fits
// kStagedBytes. Where vec, every part starts 16-byte aligned (chunk a multiple of 4).
// 16 parts need the non-portable cluster size launch_clusters opts into (every sm_90 GPU
// takes 8).
constexpr unsigned int kMostParts = 16;
inline ClusterShape cluster_shape(std::size_t cols, bool vec) {
  const std::size_t least = vec ? 4 : 1;
  for (unsigned int parts = 2; parts <= kMostParts; parts *= 2) {
    const std::size_t chunk = ((cols + parts - 1) / parts + least - 1) / least * least;
    if (chunk * sizeof(float) <= kStagedBytes) return {parts, static_cast<unsigned int>(chunk)};
  }
  return {};
}

// Launches Kernel over `rows` rows, one cluster of shape.parts blocks of `threads` each,
// every block with its part's shared memory. Kernel may use up to kStagedBytes, allowed
// once per kernel: a query inside a timed run would be timed with it.
template <auto Kernel, typename... Args>
void launch_clusters(std::size_t rows, const ClusterShape& shape, unsigned int threads,
                     cudaStream_t stream, Args... args) {
  static const bool allowed = [] {
    CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(kStagedBytes)));
    CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    return true;
  }();
  (void)allowed;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(rows * shape.parts));
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = std::size_t{shape.chunk} * sizeof(float);
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = shape.parts;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, Kernel, args...));
}

// Whether `kernel` was built for sm_90 or later. A build whose newest code is PTX for an
// older GPU (the corpus builds compute_75 only) compiles a cluster kernel's body away, and
// the driver would run that empty kernel on an H100. Asked once per kernel: the answer
// depends on the build, and a query inside a timed run would be timed with it.
template <auto Kernel>
bool built_for_clusters() {
  static const bool built = [] {
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, Kernel));
    return attributes.ptxVersion >= 90;
  }();
  return built;
}

// Whether a cluster launch of `shape` over `rows` rows can run here: a row that fits, a
// grid of at most 2^31 - 1 blocks, a GPU with clusters and Kernel built for them.
template <auto Kernel>
bool clusters_take(const ClusterShape& shape, std::size_t rows) {
  return shape.parts != 0 && rows * shape.parts <= 0x7fffffffu && has_clusters() &&
         built_for_clusters<Kernel>();
}

// A row stage's staged-cluster version: Vec (16-byte accesses, where vec) or Scalar over
// run.rows rows, blocks of `threads`, each kernel called with args and then the part's
// length (chunk). False, launching nothing, where clusters cannot take the row
// (clusters_take): the stage then splits it through memory.
template <auto Vec, auto Scalar, typename... Args>
bool launch_staged(const RowLaunch& run, bool vec, unsigned int threads, Args... args) {
  const ClusterShape shape = cluster_shape(run.cols, vec);
  if (!clusters_take<Vec>(shape, run.rows)) return false;
  if (vec) {
    launch_clusters<Vec>(run.rows, shape, threads, run.stream, args..., shape.chunk);
  } else {
    launch_clusters<Scalar>(run.rows, shape, threads, run.stream, args..., shape.chunk);
  }
  return true;
}

// Calls launch.operator()<kThreads>() for a block size of 128 to 1024 threads (a power of
// two), so a kernel over staged parts can be compiled for its block size (StagedPart's
// kThreads); false, calling nothing, for any other.
template <typename Launch>
bool with_staged_threads(unsigned int threads, Launch&& launch) {
  switch (threads) {
    case 128: return launch.template operator()<128>();
    case 256: return launch.template operator()<256>();
    case 512: return launch.template operator()<512>();
    case 1024: return launch.template operator()<1024>();
    default: return false;
  }
}

// The threads a block of a staged part gets where the caller does not choose: 32 values a
// thread, 128 to 1024 threads (on an H100, 256 threads were fastest for parts of 8192
// columns and 512 for parts of 16384, at 32768 to 131072 columns).
inline unsigned int threads_for_part(std::size_t chunk) {
  unsigned int threads = 128;
  while (threads < 1024 && threads * std::size_t{32} < chunk) threads *= 2;
  return threads;
}

// The default row version of stages 16 and 17, from what an H100 measured
// (scripts/bench.sh --operations times every version at every block): a warp per row up to
// 512 columns (at 128, a block per row wastes most of its threads); a block per row up to
// 8192 columns, grown from one warp to the fewest threads that hold 8 values each (at 1024
// columns, 128 threads beat a warp per row and bigger blocks); longer rows over a cluster of
// blocks that stage their parts in shared memory (on an H100 at 16384 columns, 6% faster
// than a block per row for softmax and 8% for layer norm; at 8192, 11% and 7% slower). A
// GPU without clusters keeps the block per row as far as it holds the row (1024 x kMostHeld
// columns). Each stage passes its own launchers.
constexpr std::size_t kWarpRowsOnChipUpTo = 512;
constexpr std::size_t kBlockRowsOnChipUpTo = 8192;
template <typename Warp, typename Block, typename Cluster>
void held_by_row_length(const RowLaunch& run, Warp&& warp, Block&& block, Cluster&& cluster) {
  if (run.cols <= kWarpRowsOnChipUpTo) {
    warp(run);
  } else if (run.cols <= kBlockRowsOnChipUpTo ||
             (run.cols <= 1024 * kMostHeld && !has_clusters())) {
    block(run, kLanes);
  } else {
    cluster(run, threads_for_part(cluster_shape(run.cols, false).chunk));
  }
}

}  // namespace reduce
