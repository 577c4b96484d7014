#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/argmax_key.h"
#include "common/harness/reference.h"

namespace {

using reduce::reference_sum;
using reduce::tree_sum_error_bound;
using reduce::verify;

constexpr double kU = 1.0 / 16777216.0;  // 2^-24

TEST(Reference, CountsPastWhereFloatStops) {
  // A float running sum of ones sticks at 2^24; the reference must not.
  const std::vector<float> ones((1u << 24) + 3, 1.0f);
  const auto ref = reference_sum(ones.data(), ones.size());
  EXPECT_EQ(ref.sum, 16777219.0);
  EXPECT_EQ(ref.sum_abs, 16777219.0);
}

TEST(Reference, ExactSumOfAnArithmeticSeries) {
  // k * 2^-24 for k = 0 .. m-1 sums to m(m-1)/2 * 2^-24, exact in double.
  const std::size_t m = 3000000;
  std::vector<float> values(m);
  for (std::size_t k = 0; k < m; ++k) values[k] = static_cast<float>(k) * static_cast<float>(kU);
  const auto ref = reference_sum(values.data(), m);
  EXPECT_EQ(ref.sum, static_cast<double>(m) * (m - 1) / 2 * kU);
}

TEST(Reference, CancellationLeavesTheSmallTerm) {
  std::vector<float> values;
  for (int i = 0; i < 1000; ++i) {
    values.push_back(1.0e8f);
    values.push_back(-1.0e8f);
  }
  values.push_back(0.25f);
  const auto ref = reference_sum(values.data(), values.size());
  EXPECT_EQ(ref.sum, 0.25);
  EXPECT_EQ(ref.sum_abs, 2000 * 1.0e8 + 0.25);
}

TEST(Reference, EmptyAndSingle) {
  const float one = -3.5f;
  EXPECT_EQ(reference_sum(&one, 1).sum, -3.5);
  EXPECT_EQ(reference_sum(&one, 1).sum_abs, 3.5);
  EXPECT_EQ(reference_sum(&one, 0).sum, 0.0);
}

TEST(Tolerance, BoundGrowsWithTreeDepth) {
  EXPECT_DOUBLE_EQ(tree_sum_error_bound(1, 1.0), 1 * kU);
  EXPECT_DOUBLE_EQ(tree_sum_error_bound(2, 1.0), 2 * kU);
  EXPECT_DOUBLE_EQ(tree_sum_error_bound(3, 1.0), 3 * kU);
  EXPECT_DOUBLE_EQ(tree_sum_error_bound(1u << 24, 1.0), 25 * kU);
  EXPECT_DOUBLE_EQ(tree_sum_error_bound((1u << 24) + 1, 1.0), 26 * kU);
  EXPECT_DOUBLE_EQ(tree_sum_error_bound(1024, 500.0), 11 * kU * 500.0);
}

TEST(Verify, ExactResultMatches) {
  const auto v = verify(1000.0f, {1000.0, 1000.0}, 1024);
  EXPECT_TRUE(v.match);
  EXPECT_EQ(v.relative_error, 0.0);
  EXPECT_DOUBLE_EQ(v.tolerance, 11 * kU);
}

TEST(Verify, InsideAndOutsideTheBound) {
  const reduce::ReferenceSum ref{1000.0, 1000.0};  // bound: 11 * 2^-24 * 1000 = 6.6e-4
  EXPECT_TRUE(verify(1000.00048828125f, ref, 1024).match);   // 4.9e-4 away
  EXPECT_FALSE(verify(1000.0009765625f, ref, 1024).match);   // 9.8e-4 away
  EXPECT_FALSE(verify(999.9990234375f, ref, 1024).match);
  EXPECT_NEAR(verify(1000.0009765625f, ref, 1024).relative_error, 9.765625e-7, 1e-15);
}

TEST(Verify, BoundScalesWithSumOfMagnitudes) {
  // Heavy cancellation: |sum| is small but sum|x| is large, so larger errors are allowed.
  const reduce::ReferenceSum ref{1.0, 1.0e6};
  EXPECT_TRUE(verify(1.5f, ref, 1024).match);   // 0.5 <= 11 * 2^-24 * 1e6 = 0.66
  EXPECT_FALSE(verify(1.75f, ref, 1024).match);
}

TEST(Verify, NaNAndInfinityNeverMatch) {
  const reduce::ReferenceSum ref{1.0, 1.0};
  const auto nan = verify(std::numeric_limits<float>::quiet_NaN(), ref, 4);
  EXPECT_FALSE(nan.match);
  EXPECT_TRUE(std::isnan(nan.relative_error));
  EXPECT_FALSE(verify(std::numeric_limits<float>::infinity(), ref, 4).match);
  EXPECT_FALSE(verify(-std::numeric_limits<float>::infinity(), ref, 4).match);
  // Even a reference that is itself huge does not let NaN through.
  EXPECT_FALSE(verify(std::numeric_limits<float>::quiet_NaN(), {1e30, 1e30}, 4).match);
}

TEST(Verify, ZeroReferenceUsesAbsoluteError) {
  const reduce::ReferenceSum ref{0.0, 8.0};
  const auto v = verify(0.25f, ref, 8);
  EXPECT_EQ(v.relative_error, 0.25);
  EXPECT_FALSE(v.match);  // 0.25 > 4 * 2^-24 * 8
  EXPECT_TRUE(verify(0.0f, ref, 8).match);
}

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(ReferenceMax, LargestValueEvenWhenAllAreNegative) {
  const std::vector<float> values = {-3.0f, -1.5f, -7.0f, -1.5f};
  EXPECT_EQ(reduce::reference_max(values.data(), values.size()), -1.5f);
  const std::vector<float> lows = {-kInf, -kInf};
  EXPECT_EQ(reduce::reference_max(lows.data(), lows.size()), -kInf);
}

TEST(ReferenceMax, ANanAnywhereMakesTheMaxNan) {
  for (std::size_t at : {0u, 1u, 2u}) {
    std::vector<float> values = {1.0f, 5.0f, 2.0f};
    values[at] = kNan;
    EXPECT_TRUE(std::isnan(reduce::reference_max(values.data(), values.size()))) << at;
  }
}

TEST(ReferenceMax, VerifyIsExact) {
  EXPECT_TRUE(reduce::verify_max(5.0f, 5.0f).match);
  EXPECT_TRUE(reduce::verify_max(kNan, kNan).match);
  EXPECT_TRUE(reduce::verify_max(-0.0f, 0.0f).match);  // equal as floats
  EXPECT_FALSE(reduce::verify_max(std::nextafter(5.0f, 6.0f), 5.0f).match);
  EXPECT_FALSE(reduce::verify_max(5.0f, kNan).match);
  EXPECT_FALSE(reduce::verify_max(kNan, 5.0f).match);
  EXPECT_FALSE(reduce::verify_max(kInf, 5.0f).match);
}

TEST(ReferenceMax, ReferenceForPicksTheOperation) {
  const std::vector<float> values = {1.0f, 2.0f, 4.0f};
  EXPECT_EQ(reduce::reference_for(reduce::Operation::kSum, values.data(), 3).value, 7.0);
  const auto max = reduce::reference_for(reduce::Operation::kMax, values.data(), 3);
  EXPECT_EQ(max.value, 4.0);
  EXPECT_TRUE(reduce::verify(4.0f, max).match);
  EXPECT_FALSE(reduce::verify(4.000001f, max).match);  // a sum's tolerance would let this pass
}

}  // namespace

namespace {

TEST(ReferenceArgmax, FirstOfTheMaximaNanFirst) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ties = {1.0f, 3.0f, 2.0f, 3.0f};
  EXPECT_EQ(reduce::reference_argmax(ties.data(), ties.size()), 1u);
  const std::vector<float> lows = {-inf, -inf};
  EXPECT_EQ(reduce::reference_argmax(lows.data(), lows.size()), 0u);
  const std::vector<float> zeros = {-1.0f, -0.0f, 0.0f};
  EXPECT_EQ(reduce::reference_argmax(zeros.data(), zeros.size()), 1u);
  const std::vector<float> nans = {5.0f, nan, inf, nan};
  EXPECT_EQ(reduce::reference_argmax(nans.data(), nans.size()), 1u);
}

// The device combines argmax_key()s with atomicMax: the largest key must name the same
// element as the reference, for every pair of these values in either order.
TEST(ArgmaxKey, LargestKeyIsTheReferencesAnswer) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {-inf, -3.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 2.0f,
                                     std::numeric_limits<float>::max(), inf, nan, -nan};
  for (float a : values) {
    for (float b : values) {
      const std::vector<float> pair = {a, b};
      const unsigned long long first = reduce::argmax_key(a, 0), second = reduce::argmax_key(b, 1);
      const unsigned int chosen = reduce::argmax_index(first > second ? first : second);
      EXPECT_EQ(chosen, reduce::reference_argmax(pair.data(), 2)) << a << ", " << b;
    }
  }
  EXPECT_GT(reduce::argmax_key(-inf, 0x7ffffffeu), reduce::kNoArgmax);
  EXPECT_EQ(reduce::argmax_index(reduce::argmax_key(1.0f, 123456789u)), 123456789u);
}

}  // namespace
