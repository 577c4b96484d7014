#include "common/launch.h"

#include <stdexcept>
#include <string>

namespace reduce {
void check_launch(const char* kernel_name, const char* file, int line) {
  check_cuda(cudaGetLastError(), (std::string("launch of ") + kernel_name).c_str(), file, line);
}

DeviceValues launch_block_sums(BlockSumKernel kernel, const char* kernel_name,
                               const Launch& run) {
  if (run.n % run.block != 0) {
    throw std::invalid_argument(std::string(kernel_name) + " needs n to be a multiple of the block");
  }
  const unsigned grid = static_cast<unsigned>(blocks_for(run.n, run.block));
  const std::size_t shared_bytes = run.block * sizeof(float);
  kernel<<<grid, run.block, shared_bytes, run.stream>>>(run.in, run.partials);
  check_launch(kernel_name, __FILE__, __LINE__);
  return {run.partials, grid};
}

}  // namespace reduce
