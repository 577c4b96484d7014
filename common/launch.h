// Launch patterns that several stages share, so each stage file names its pattern
// instead of repeating the host code.
#pragma once

#include "common/stage.h"

namespace reduce {

// Kernels that reduce blockDim.x consecutive inputs per block, with one float of
// dynamic shared memory per thread, and write one sum per block (stages 07, 08).
using BlockSumKernel = void (*)(const float* in, float* block_sums);

// Number of blocks when each block covers `per_block` elements: ceil(n / per_block).
constexpr std::size_t blocks_for(std::size_t n, std::size_t per_block) {
  return (n + per_block - 1) / per_block;
}

// One launch of n / run.block blocks (n is a multiple of run.block). The block sums
// land in run.partials; the harness adds them on the host.
DeviceValues launch_block_sums(BlockSumKernel kernel, const char* kernel_name,
                               const Launch& run);

}  // namespace reduce
