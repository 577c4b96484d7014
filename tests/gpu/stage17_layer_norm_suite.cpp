// The GPU suite of stage 17 (layer norm), in place of stage_suite.cpp: every version at
// every block size, on stage 16's awkward shapes, on constant rows (variance 0: the output
// is beta, not NaN) and on the data that separates the methods: 10^4 + noise, where the
// one-pass E[x^2] - E[x]^2 must be seen to fail and every other version must hold, and
// outliers at a row's first column, where sums about a shift taken from that value fail.
// Every value is checked against the CPU's, in double, by the rule in
// common/rows/row_reference.h.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "common/harness/input.h"
#include "common/rows/row_reference.h"
#include "common/rows/row_runner.h"
#include "common/stage.h"
#include "tests/gpu/rows_suite.h"

namespace {

using namespace reduce;

constexpr auto& kBlocks = reduce::kBlockSizes;
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

class LayerNormSuite : public RowSuite {
 protected:
  // Version 1 is the one-pass shortcut the lesson shows failing.
  bool one_pass() const { return std::string(plan().technique()).rfind("one pass", 0) == 0; }

  struct Result {
    std::vector<float> out;
    RowVerdict verdict;
    double cpu;  // the CPU's value where the verdict points (verdict.worst)
  };

  Result run(Shape shape, const std::vector<float>& input, std::size_t offset = 0) {
    const LayerNormParams params = layer_norm_params(shape.cols, 2024);
    RowRunner runner(plan(), shape.rows, shape.cols, offset);
    runner.upload(input);
    runner.upload_params(params.gamma, params.beta);
    Result result{runner.run(block()), {}, 0.0};
    const RowReference reference(Operation::kLayerNorm, input, shape.rows, shape.cols, params);
    result.verdict = reference.verify(result.out.data());
    result.cpu = reference.value(result.verdict.worst);
    return result;
  }

  std::vector<float> expect_matches(Shape shape, const std::vector<float>& input,
                                    std::size_t offset = 0) {
    const Result r = run(shape, input, offset);
    const RowVerdict& v = r.verdict;
    EXPECT_TRUE(compared(v.match, r.out[v.worst], r.cpu))
        << where(shape) << ": row " << v.worst / shape.cols << ", column " << v.worst % shape.cols
        << ": GPU " << r.out[v.worst] << ", CPU " << r.cpu << ", error " << v.error << ", allowed "
        << v.tolerance << " (a NaN is a value never written or computed from a NaN)";
    return r.out;
  }
};

TEST_P(LayerNormSuite, DefaultColumnsMatch) {
  const Shape shape{512, kDefaultCols};
  static const std::vector<float> input = matrix(shape, kDefaultSeed);
  expect_matches(shape, input);
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(LayerNormSuite, HiddenSeedColumnsMatch) {
  runs_on_hidden_seed();
  const Shape shape{512, kDefaultCols};
  static const std::vector<float> input = matrix(shape, hidden_seed());
  expect_matches(shape, input);
}

TEST_P(LayerNormSuite, EveryShapeMatches) {
  for (const Shape shape : kAwkwardShapes) {
    expect_matches(shape, matrix(shape, static_cast<std::uint32_t>(shape.rows * 7 + shape.cols),
                                 -2.0, 4.0));
  }
}

// 10^4 + noise from [0, 1): E[x^2] and E[x]^2 are both about 10^8, where a float's step
// is 8, so their difference (the variance, about 0.083) is lost. The one-pass version must
// be seen to fail here (the lesson says it does); every other version must hold.
TEST_P(LayerNormSuite, LargeOffsetNeedsTwoPassesOrWelford) {
  stands_for("tests.cancellation");
  for (const Shape shape : {Shape{8, 1024}, Shape{2, 4097}, Shape{64, 128}}) {
    const std::vector<float> input = matrix(shape, 77, 10000.0, 1.0);
    if (one_pass()) {
      // Right on ordinary rows first, so an output that was never written cannot pass as
      // "wrong on 10^4 + noise".
      expect_matches(shape, matrix(shape, 77));
      EXPECT_FALSE(run(shape, input).verdict.match)
          << where(shape) << ": E[x^2] - E[x]^2 held on 10^4 + noise";
    } else {
      expect_matches(shape, input);
    }
  }
}

// Rows of [0, 1) with 10^4 at column 0 and at every 4096th column after it, so at the
// first column of every part a split version cuts (64 x 1024: rows a warp holds). Sums
// about a shift taken from one value (d = x - x[0], then S2 - S1^2 / n) cancel here: the
// shift is 32 to 64 standard deviations from the mean, so S2 and S1^2 / n both near n 10^8
// differ by 1/1025 to 1/4097 of them.
// On 10^4 + noise such a shift passes (every value is near it); the mean must come first.
// Version 1 holds here too (E[x]^2 is small beside E[x^2]).
TEST_P(LayerNormSuite, OutlierFirstNeedsTheMeanFirst) {
  stands_for("tests.cancellation");
  for (const Shape shape : {Shape{4, 32768}, Shape{2, 131072}, Shape{8, 4096}, Shape{64, 1024}}) {
    std::vector<float> input = matrix(shape, 91);
    for (std::size_t r = 0; r < shape.rows; ++r) {
      for (std::size_t c = 0; c < shape.cols; c += 4096) input[r * shape.cols + c] = 10000.0f;
    }
    expect_matches(shape, input);
  }
}

// Every value the same: variance 0, so each output is beta (epsilon keeps the division
// finite); a merge of two empty statistics must not make 0 / 0.
TEST_P(LayerNormSuite, ConstantRowsGiveBeta) {
  for (const Shape shape : {Shape{3, 1000}, Shape{40, 5}, Shape{1, 4097}}) {
    const std::vector<float> input(shape.rows * shape.cols, 3.0f);
    expect_matches(shape, input);
  }
}

TEST_P(LayerNormSuite, NanSpoilsOnlyItsRow) {
  stands_for("tests.nan_rule");
  const Shape shape{6, 300};
  std::vector<float> input = matrix(shape, 5);
  input[1 * shape.cols + 0] = kNan;
  input[4 * shape.cols + shape.cols - 1] = kNan;
  const std::vector<float> out = expect_matches(shape, input);
  EXPECT_TRUE(std::isnan(out[1 * shape.cols + 17])) << where(shape);
  EXPECT_FALSE(std::isnan(out[2 * shape.cols + 17])) << where(shape);
}

TEST_P(LayerNormSuite, MisalignedMatrixMatches) {
  for (std::size_t offset : {1, 3}) {
    const Shape shape{9, 1028};
    expect_matches(shape, matrix(shape, 11), offset);
  }
}

TEST_P(LayerNormSuite, InputIsUnchanged) {
  stands_for("tests.input");
  const Shape shape{33, 777};
  const std::vector<float> input = matrix(shape, 3);
  const LayerNormParams params = layer_norm_params(shape.cols, 1);
  RowRunner runner(plan(), shape.rows, shape.cols);
  runner.upload(input);
  runner.upload_params(params.gamma, params.beta);
  // The output must be right first: a kernel that never ran leaves the input unchanged too.
  // Its values are not recorded: the failure this test names is the input's.
  const std::vector<float> out = runner.run(block());
  EXPECT_TRUE(RowReference(Operation::kLayerNorm, input, shape.rows, shape.cols, params)
                  .verify(out.data())
                  .match)
      << where(shape) << ": the output is wrong, so the input check proves nothing";
  EXPECT_EQ(runner.download_input(), input) << where(shape);
}

INSTANTIATE_TEST_SUITE_P(Versions, LayerNormSuite,
                         ::testing::Combine(::testing::ValuesIn(all_versions()),
                                            ::testing::ValuesIn(kBlocks)),
                         row_case_name);

}  // namespace
