#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/harness/input.h"
#include "common/harness/row_ranges.h"
#include "common/rows/row_reference.h"
#include "common/stage_rules.h"

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

TEST(RowReference, LayerNormOfAKnownRow) {
  // Mean 2.5, variance 1.25: z = (x - 2.5) / sqrt(1.25 + eps).
  const std::vector<float> in = {1.0f, 2.0f, 3.0f, 4.0f};
  reduce::LayerNormParams params{{1.0f, 1.0f, 2.0f, 1.0f}, {0.0f, 0.0f, 0.0f, 0.5f}};
  const reduce::LayerNormReference ref = reduce::reference_layer_norm(in.data(), 1, 4, params);
  const double rstd = 1.0 / std::sqrt(1.25 + static_cast<double>(reduce::kLayerNormEpsilon));
  EXPECT_NEAR(ref.mean[0], 2.5, 1e-15);
  EXPECT_NEAR(ref.values[0], -1.5 * rstd, 1e-12);
  EXPECT_NEAR(ref.values[2], 2.0 * 0.5 * rstd, 1e-12);
  EXPECT_NEAR(ref.values[3], 1.5 * rstd + 0.5, 1e-12);
}

TEST(RowReference, LayerNormParamsFollowTheSeed) {
  const reduce::LayerNormParams a = reduce::layer_norm_params(1000, 12345);
  const reduce::LayerNormParams b = reduce::layer_norm_params(1000, 12345);
  EXPECT_EQ(a.gamma, b.gamma);
  EXPECT_EQ(a.beta, b.beta);
  for (std::size_t c = 0; c < 1000; ++c) {
    EXPECT_GE(a.gamma[c], 0.5f);
    EXPECT_LT(a.gamma[c], 1.5f);
    EXPECT_GE(a.beta[c], -0.5f);
    EXPECT_LT(a.beta[c], 0.5f);
  }
}

// The lesson's claim, on the host: for 10^4 + noise, float's E[x^2] - E[x]^2 loses the
// variance (about 1/12) entirely, while two passes keep it.
TEST(RowReference, OnePassVarianceCancelsOnLargeOffsets) {
  const std::size_t cols = 1024;
  std::vector<float> in(cols);
  for (std::size_t c = 0; c < cols; ++c) in[c] = 10000.0f + static_cast<float>(c % 97) / 97.0f;
  float total = 0.0f, squares = 0.0f;
  for (float x : in) {
    total += x;
    squares += x * x;
  }
  const float mean = total / cols;
  const float one_pass = squares / cols - mean * mean;
  float distances = 0.0f;
  for (float x : in) distances += (x - mean) * (x - mean);
  const float two_pass = distances / cols;
  const reduce::LayerNormParams params = reduce::layer_norm_params(cols, 1);
  const double exact_rstd = reduce::reference_layer_norm(in.data(), 1, cols, params).rstd[0];
  const double exact = 1.0 / (exact_rstd * exact_rstd) - reduce::kLayerNormEpsilon;
  EXPECT_GT(std::fabs(one_pass - exact), 10.0 * exact) << one_pass;
  EXPECT_LT(std::fabs(two_pass - exact), 0.01 * exact) << two_pass;
}

TEST(RowReference, LayerNormVerifyUsesEachValuesScale) {
  const std::size_t cols = 512;
  std::vector<float> in(2 * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 89) / 89.0f - 0.3f;
  const reduce::LayerNormParams params = reduce::layer_norm_params(cols, 7);
  const reduce::RowReference ref(reduce::Operation::kLayerNorm, in, 2, cols, params);
  std::vector<float> gpu(in.size());
  for (std::size_t i = 0; i < gpu.size(); ++i) gpu[i] = static_cast<float>(ref.value(i));
  EXPECT_TRUE(ref.verify(gpu.data()).match);
  gpu[cols + 3] += 1e-3f;  // far beyond float rounding on data this well conditioned
  const reduce::RowVerdict v = ref.verify(gpu.data());
  EXPECT_FALSE(v.match);
  EXPECT_EQ(v.worst, cols + 3);
  // A constant row: variance 0, every output is beta.
  const std::vector<float> flat(cols, 3.0f);
  const reduce::RowReference beta(reduce::Operation::kLayerNorm, flat, 1, cols, params);
  EXPECT_DOUBLE_EQ(beta.value(5), params.beta[5]);
}

// A matrix large enough to be split over threads (four ranges wherever the host has four
// cores, two on a two-core runner): the verdict must be the one a single pass gives.
TEST(RowReference, RowRangesGiveTheVerdictOfOnePass) {
  const std::size_t rows = 64, cols = reduce::kValuesPerRowRange / 16;
  const std::vector<float> in = reduce::generate_input(rows * cols);
  const std::vector<double> ref = reference_softmax(in.data(), rows, cols);
  const std::vector<float> gpu(ref.begin(), ref.end());
  std::vector<float> off = gpu;
  const auto bump = [&](std::size_t i, double share) {  // an error of `share` of the row's largest
    const std::size_t start = i / cols * cols;
    const double largest = *std::max_element(ref.begin() + start, ref.begin() + start + cols);
    off[i] = static_cast<float>(ref[i] + share * largest);
  };
  bump(3 * cols + 1, 1e-4);
  bump(60 * cols + 2, 3e-4);  // the largest, in a later range than the first
  bump(62 * cols + 3, 2e-4);
  const reduce::RowVerdict v = verify_softmax(off.data(), ref, cols);
  EXPECT_FALSE(v.match);
  EXPECT_EQ(v.worst, 60 * cols + 2);

  off[40 * cols + 9] = kNan;
  off[20 * cols + 8] = kNan;  // the first value that is not a number decides
  const reduce::RowVerdict u = verify_softmax(off.data(), ref, cols);
  EXPECT_TRUE(std::isnan(u.error));
  EXPECT_EQ(u.worst, 20 * cols + 8);

  const reduce::LayerNormParams params = reduce::layer_norm_params(cols, 12345);
  const reduce::LayerNormReference norm = reduce::reference_layer_norm(in.data(), rows, cols, params);
  const reduce::LayerNormReference one_row = reduce::reference_layer_norm(in.data() + 50 * cols, 1, cols, params);
  EXPECT_EQ(norm.mean[50], one_row.mean[0]);  // a row's statistics do not depend on the split
  EXPECT_EQ(norm.values[50 * cols + 7], one_row.values[7]);
  std::vector<float> normed(norm.values.begin(), norm.values.end());
  EXPECT_TRUE(reduce::verify_layer_norm(normed.data(), norm, params, cols).match);
  normed[33 * cols + 4] += 0.01f;
  EXPECT_EQ(reduce::verify_layer_norm(normed.data(), norm, params, cols).worst, 33 * cols + 4);
}

}  // namespace
