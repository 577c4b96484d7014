// Launch arithmetic: grid sizes and pass counts. Host-only, so it is tested without a GPU.
#pragma once

#include <cstddef>
#include <vector>

namespace reduce {

// Blocks needed when each block covers `per_block` elements: ceil(n / per_block).
constexpr std::size_t blocks_for(std::size_t n, std::size_t per_block) {
  return (n + per_block - 1) / per_block;
}

// The grid of every pass when each pass leaves one value per `per_block` elements and
// passes repeat on those values until one is left. Always at least one pass, so even
// n = 1 ends in the stage's output buffer. n = 16777216, per_block = 256: {65536, 256, 1}.
std::vector<std::size_t> pass_grids(std::size_t n, std::size_t per_block);

// The grid for a grid-stride loop: as many blocks as the device holds at once
// (sm_count * blocks_per_sm), but never more blocks than the data can keep busy.
std::size_t resident_grid(std::size_t n, unsigned block, int sm_count, int blocks_per_sm);

}  // namespace reduce
