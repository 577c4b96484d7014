// Launch patterns that several stages share, so each stage file names its pattern
// instead of repeating the host code.
#pragma once

#include "common/geometry.h"
#include "common/stage.h"

namespace reduce {

// Kernels that reduce blockDim.x consecutive inputs per block, with one float of
// dynamic shared memory per thread, and write one sum per block (stages 07, 08).
using BlockSumKernel = void (*)(const float* in, float* block_sums);

// One launch of n / run.block blocks (n is a multiple of run.block). The block sums
// land in run.partials; the harness adds them on the host.
DeviceValues launch_block_sums(BlockSumKernel kernel, const char* kernel_name,
                               const Launch& run);

// Kernels that reduce any n: each block folds blockDim.x * elements_per_thread inputs
// (missing ones count as zero) into out[blockIdx.x] (stages 06, 09 to 12). Stage 06
// reduces in place, so its kernel takes a writable input.
template <typename Input>
using PassKernel = void (*)(Input* in, float* out, unsigned int n);

struct PassShape {
  unsigned elements_per_thread;         // inputs each thread loads
  std::size_t shared_bytes_per_thread;  // dynamic shared memory the kernel expects
};

void check_launch(const char* kernel_name, const char* file, int line);

// Launches `kernel` on `first` (run.n values), then on its block sums, and so on until
// one value is left: blocks of one launch cannot wait for each other, so each level of
// the tree above the blocks is a new launch. Grids come from pass_grids; passes
// alternate between run.partials and run.partials_alt, so none reads what it writes.
template <typename Input>
DeviceValues launch_until_one(PassKernel<Input> kernel, const char* kernel_name, Input* first,
                              const Launch& run, PassShape shape) {
  const std::size_t shared_bytes = run.block * shape.shared_bytes_per_thread;
  const std::size_t per_block = std::size_t{run.block} * shape.elements_per_thread;
  Input* source = first;
  std::size_t count = run.n;
  float* target = run.partials;
  float* spare = run.partials_alt;
  for (std::size_t grid : pass_grids(run.n, per_block)) {
    kernel<<<static_cast<unsigned>(grid), run.block, shared_bytes, run.stream>>>(
        source, target, static_cast<unsigned>(count));
    check_launch(kernel_name, __FILE__, __LINE__);
    source = target;
    count = grid;
    float* const written = target;
    target = spare;
    spare = written;
  }
  return {source, 1};
}

}  // namespace reduce
