#include <gtest/gtest.h>

#include <vector>

#include "common/geometry.h"

namespace {

using reduce::blocks_for;
using reduce::pass_grids;
using reduce::resident_grid;
using Grids = std::vector<std::size_t>;

TEST(Geometry, BlocksRoundUp) {
  EXPECT_EQ(blocks_for(1, 256), 1u);
  EXPECT_EQ(blocks_for(256, 256), 1u);
  EXPECT_EQ(blocks_for(257, 256), 2u);
  EXPECT_EQ(blocks_for(16777216, 512), 32768u);
  EXPECT_EQ(blocks_for(16777217, 512), 32769u);
  EXPECT_EQ(blocks_for(2147483647, 32), 67108864u);
}

TEST(Geometry, OneElementPerThreadPasses) {  // stages 06 and 09
  EXPECT_EQ(pass_grids(16777216, 256), (Grids{65536, 256, 1}));
  EXPECT_EQ(pass_grids(16777217, 256), (Grids{65537, 257, 2, 1}));
  EXPECT_EQ(pass_grids(16777216, 1024), (Grids{16384, 16, 1}));
  EXPECT_EQ(pass_grids(65537, 32), (Grids{2049, 65, 3, 1}));
  EXPECT_EQ(pass_grids(2147483647, 32), (Grids{67108864, 2097152, 65536, 2048, 64, 2, 1}));
}

TEST(Geometry, TwoElementsPerThreadPasses) {  // stages 10 to 12: per_block = 2 * block
  EXPECT_EQ(pass_grids(16777216, 512), (Grids{32768, 64, 1}));
  EXPECT_EQ(pass_grids(16777217, 512), (Grids{32769, 65, 1}));
  EXPECT_EQ(pass_grids(1000, 64), (Grids{16, 1}));
  EXPECT_EQ(pass_grids(4097, 2048), (Grids{3, 1}));
}

TEST(Geometry, SmallInputsStillTakeOnePass) {
  EXPECT_EQ(pass_grids(1, 256), (Grids{1}));
  EXPECT_EQ(pass_grids(2, 64), (Grids{1}));
  EXPECT_EQ(pass_grids(256, 256), (Grids{1}));
  EXPECT_EQ(pass_grids(257, 256), (Grids{2, 1}));
}

TEST(Geometry, EveryPassShrinksAndEndsAtOne) {
  for (std::size_t n : {1u, 2u, 31u, 32u, 33u, 255u, 256u, 257u, 1000u, 4097u, 65537u,
                        1u << 20, 16777216u, 16777217u}) {
    for (std::size_t per_block : {32u, 64u, 128u, 256u, 512u, 1024u, 2048u}) {
      const Grids grids = pass_grids(n, per_block);
      ASSERT_FALSE(grids.empty());
      EXPECT_EQ(grids.back(), 1u) << n << " / " << per_block;
      EXPECT_EQ(grids.front(), blocks_for(n, per_block));
      for (std::size_t k = 1; k < grids.size(); ++k) {
        EXPECT_EQ(grids[k], blocks_for(grids[k - 1], per_block));
        EXPECT_LT(grids[k], grids[k - 1]);
      }
    }
  }
}

TEST(Geometry, ResidentGridFillsTheDeviceButNotMore) {  // stage 13
  EXPECT_EQ(resident_grid(16777216, 256, 132, 8), 1056u);  // H100: 132 SMs x 8 blocks
  EXPECT_EQ(resident_grid(16777216, 1024, 132, 2), 264u);
  EXPECT_EQ(resident_grid(1, 256, 132, 8), 1u);             // never more than the data needs
  EXPECT_EQ(resident_grid(1000, 256, 132, 8), 4u);
  EXPECT_EQ(resident_grid(270336, 256, 132, 8), 1056u);
  EXPECT_EQ(resident_grid(1000, 32, 0, 0), 1u);              // nonsense device data: one block
}

TEST(Geometry, SinglePassGridCountsFloat4s) {  // stage 14: a thread's first share is a float4
  EXPECT_EQ(resident_grid(blocks_for(16777216, 4), 256, 132, 8), 1056u);
  EXPECT_EQ(resident_grid(blocks_for(1000, 4), 256, 132, 8), 1u);
  EXPECT_EQ(resident_grid(blocks_for(1, 4), 1024, 132, 2), 1u);
  EXPECT_EQ(resident_grid(blocks_for(65537, 4), 32, 132, 32), 513u);
}

}  // namespace
