#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/row_reference.h"

namespace {

using reduce::reference_softmax;
using reduce::softmax_tolerance;
using reduce::verify_softmax;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

TEST(RowReference, SoftmaxOfKnownRows) {
  // exp(0) : exp(ln 3) = 1 : 3, and a masked value gives exactly 0.
  const std::vector<float> in = {0.0f, std::log(3.0f), -kInf, 5.0f, 5.0f, 5.0f};
  const std::vector<double> out = reference_softmax(in.data(), 2, 3);
  EXPECT_NEAR(out[0], 0.25, 1e-7);
  EXPECT_NEAR(out[1], 0.75, 1e-7);
  EXPECT_EQ(out[2], 0.0);
  for (int c = 3; c < 6; ++c) EXPECT_DOUBLE_EQ(out[c], 1.0 / 3.0);
}

TEST(RowReference, LogitsOfAThousandStayFinite) {
  const std::vector<float> in = {1000.0f, -1000.0f, 999.0f, -1000.0f, -999.0f, -1000.0f};
  const std::vector<double> out = reference_softmax(in.data(), 2, 3);
  EXPECT_NEAR(out[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-12);
  EXPECT_EQ(out[1], 0.0);
  EXPECT_NEAR(out[4], 1.0 / (1.0 + 2.0 * std::exp(-1.0)), 1e-12);  // every value near -1000
}

TEST(RowReference, NanSpoilsOnlyItsRow) {
  const std::vector<float> in = {1.0f, kNan, 2.0f, 3.0f};
  const std::vector<double> out = reference_softmax(in.data(), 2, 2);
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_FALSE(std::isnan(out[2]));
}

TEST(RowReference, ToleranceGrowsWithTheRootOfTheRow) {
  EXPECT_NEAR(softmax_tolerance(1024), 80.0 / 16777216.0, 1e-15);
  EXPECT_LT(softmax_tolerance(128), softmax_tolerance(131072));
  EXPECT_LT(softmax_tolerance(131072), 5e-5);
}

TEST(RowReference, VerifyCatchesAWrongOrMissingValue) {
  const std::size_t cols = 1024;
  std::vector<float> in(2 * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 97) / 97.0f;
  const std::vector<double> ref = reference_softmax(in.data(), 2, cols);
  std::vector<float> gpu(ref.begin(), ref.end());
  EXPECT_TRUE(verify_softmax(gpu.data(), ref, cols).match);

  std::vector<float> off = gpu;
  off[cols + 5] *= 1.0f + 1e-4f;  // one value 1e-4 too large
  const reduce::RowVerdict v = verify_softmax(off.data(), ref, cols);
  EXPECT_FALSE(v.match);
  EXPECT_EQ(v.worst, cols + 5);

  std::vector<float> unwritten = gpu;
  unwritten[7] = kNan;  // the harness's poison, never overwritten
  const reduce::RowVerdict u = verify_softmax(unwritten.data(), ref, cols);
  EXPECT_FALSE(u.match);
  EXPECT_EQ(u.worst, 7u);
  EXPECT_TRUE(std::isnan(u.error));
}

TEST(RowReference, NanMustBeWhereTheReferenceHasIt) {
  const std::vector<float> in = {1.0f, kNan, 2.0f, 3.0f};
  const std::vector<double> ref = reference_softmax(in.data(), 2, 2);
  std::vector<float> gpu = {kNan, kNan, static_cast<float>(ref[2]), static_cast<float>(ref[3])};
  EXPECT_TRUE(verify_softmax(gpu.data(), ref, 2).match);
  gpu[0] = 0.5f;  // a row that should be NaN is not
  EXPECT_FALSE(verify_softmax(gpu.data(), ref, 2).match);
}

}  // namespace
