// What the row stages' GPU suites (16 softmax, 17 layer norm) share: the matrix shapes that
// break a row kernel (one column, rows shorter than a warp, a few values past a whole block,
// rows longer than a block covers in one step, more rows than one launch of warps covers),
// the seeded matrices, and a fixture over (version, block size) that names each case.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/harness/input.h"
#include "common/stage.h"
#include "tests/gpu/suite_fixture.h"

namespace reduce {

struct Shape {
  std::size_t rows;
  std::size_t cols;
};

inline const std::vector<Shape> kAwkwardShapes = {
    {1, 1},    {1, 2},    {3, 31},   {5, 32},     {7, 33},   {2, 255}, {3, 1000},
    {2, 1025}, {1, 4097}, {2, 32768}, {1, 131072}, {1000, 7}, {67, 128},
    {3, 100003}, {1000, 33}, {1, 262144}, {1, 262147}};

// Values from offset to offset + scale, from the seed's generator.
inline std::vector<float> matrix(Shape shape, std::uint32_t seed, double offset = 0.0,
                                 double scale = 1.0) {
  std::vector<float> values = generate_input(shape.rows * shape.cols, seed);
  shift_and_scale(values, offset, scale);
  return values;
}

class RowSuite : public VersionBlockSuite {
 protected:
  std::string where(Shape shape) const {
    return "version " + std::to_string(version()) + " (" + plan().technique() + "), " +
           std::to_string(shape.rows) + " rows x " + std::to_string(shape.cols) +
           " columns, block = " + std::to_string(block());
  }
};

// Every version of the stage, 1 to its default (the last).
inline std::vector<int> all_versions() {
  std::vector<int> versions;
  for (int v = 1; v <= stage_plan().default_version(); ++v) versions.push_back(v);
  return versions;
}

inline std::string row_case_name(const ::testing::TestParamInfo<std::tuple<int, unsigned>>& info) {
  return "block" + std::to_string(std::get<1>(info.param)) + "_version" +
         std::to_string(std::get<0>(info.param));
}

}  // namespace reduce
