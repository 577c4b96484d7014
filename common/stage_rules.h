// What a stage accepts and where it finishes: plain data the host code can check.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>

namespace reduce {

enum class SizeRule {
  kMultipleOfBlock,  // n must be a whole number of blocks (stages 07 and 08)
  kAnyLength,        // every n >= 1 (stage 09 onwards)
};

// What the stage computes from its n floats.
enum class Operation {
  kSum,  // stages 06 to 14
  kMax,  // stage 15: the largest element; a NaN anywhere makes the result NaN
  kSoftmax,    // stage 16: each row of a matrix through a numerically stable softmax
  kLayerNorm,  // stage 17: each row scaled to mean 0 and variance 1, then gamma * . + beta
};

// The row stages (16 on) take a rows x cols matrix (--rows, --cols) instead of n values
// and write a matrix of the same shape.
inline bool works_on_rows(Operation op) {
  return op == Operation::kSoftmax || op == Operation::kLayerNorm;
}

// Layer norm's epsilon, added to the variance before the square root (PyTorch's default).
inline constexpr float kLayerNormEpsilon = 1e-5f;

inline constexpr std::size_t kDefaultRows = 16384;  // x kDefaultCols = 2^24, the default n
inline constexpr std::size_t kDefaultCols = 1024;

// What kind of work a stage hands the harness; each kind has one runner.
enum class StageKind {
  kVector,    // one vector in, one value out, through Launch (stages 06 to 15, 19)
  kRows,      // a matrix in, a matrix out, through RowLaunch (16, 17)
  kHostCode,  // the stage's own host code, through HostRunFunction (05)
  kMultiGpu,  // one sum over several GPUs, through a MultiGpuPlan (18, common/multi_gpu.h)
};

enum class Finish {
  kOnHost,    // the launches leave one sum per block; the harness adds them on the CPU
  kOnDevice,  // the launches leave the single final sum on the GPU
};

// Every block size a stage must handle, defined here once: the options, --describe, the
// GPU suites and the scripts (through --describe) all read this list.
inline constexpr unsigned kBlockSizes[] = {32, 64, 128, 256, 512, 1024};
inline constexpr unsigned kMinBlock = kBlockSizes[0];
inline constexpr unsigned kMaxBlock = kBlockSizes[std::size(kBlockSizes) - 1];
// The block size a stage runs with when --block is not given (its --describe says so).
inline constexpr unsigned kDefaultBlock = 256;
inline constexpr std::size_t kMaxN = 2147483647;  // 2^31 - 1: kernels index with 32 bits

bool is_valid_block(unsigned long long block);

// "32, 64, 128, 256, 512 or 1024", for messages and --help.
std::string block_sizes_text();

// Empty when stage `stage_number` can reduce n elements with this block size;
// otherwise a one-line message naming --n and a size that would work.
std::string check_size(SizeRule rule, int stage_number, std::size_t n, unsigned block);

// Empty when the options name the shape the stage works on: --n for the stages that
// reduce one vector, --rows/--cols for the row stages; otherwise a one-line message.
std::string check_shape(bool takes_rows, int stage_number, bool n_given, bool rows_given);

}  // namespace reduce
