#include "common/geometry.h"

#include <algorithm>

namespace reduce {

std::vector<std::size_t> pass_grids(std::size_t n, std::size_t per_block) {
  std::vector<std::size_t> grids;
  do {
    n = blocks_for(n, per_block);
    grids.push_back(n);
  } while (n > 1);
  return grids;
}

std::size_t resident_grid(std::size_t n, unsigned block, int sm_count, int blocks_per_sm) {
  const std::size_t resident = static_cast<std::size_t>(std::max(sm_count, 1)) *
                               static_cast<std::size_t>(std::max(blocks_per_sm, 1));
  return std::min(resident, blocks_for(n, block));
}

}  // namespace reduce
