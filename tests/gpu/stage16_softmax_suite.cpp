// The GPU suite of stage 16 (softmax), in place of stage_suite.cpp: every version at every
// block size, on the shapes that break a row kernel (one column, rows shorter than a warp,
// a few values past a whole block, rows longer than a block can cover in one step, more
// rows than one launch of warps covers) and on the values that break a softmax: logits of
// +-1000 (a plain exp overflows), -inf from a mask (a running max that starts at -inf
// meets -inf - -inf = NaN) and NaN. Every value is checked against the CPU's, in double.
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
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

class SoftmaxSuite : public RowSuite {
 protected:
  // Runs the version on `input` and compares every value with the CPU's; returns the output.
  std::vector<float> expect_matches(Shape shape, const std::vector<float>& input,
                                    std::size_t offset = 0) {
    RowRunner runner(plan(), shape.rows, shape.cols, offset);
    runner.upload(input);
    const std::vector<float> out = runner.run(block());
    const std::vector<double> ref = reference_softmax(input.data(), shape.rows, shape.cols);
    const RowVerdict v = verify_softmax(out.data(), ref, shape.cols);
    EXPECT_TRUE(compared(v.match, out[v.worst], ref[v.worst]))
        << where(shape) << ": row " << v.worst / shape.cols << ", column " << v.worst % shape.cols
        << ": GPU " << out[v.worst] << ", CPU " << ref[v.worst] << " (error " << v.error
        << ", allowed " << v.tolerance
        << "; a NaN is a value never written or computed from a NaN)";
    return out;
  }
};

TEST_P(SoftmaxSuite, DefaultColumnsMatch) {
  const Shape shape{512, kDefaultCols};
  static const std::vector<float> input = matrix(shape, kDefaultSeed);
  expect_matches(shape, input);
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(SoftmaxSuite, HiddenSeedColumnsMatch) {
  runs_on_hidden_seed();
  const Shape shape{512, kDefaultCols};
  static const std::vector<float> input = matrix(shape, hidden_seed());
  expect_matches(shape, input);
}

TEST_P(SoftmaxSuite, EveryShapeMatches) {
  for (const Shape shape : kAwkwardShapes) {
    expect_matches(shape, matrix(shape, static_cast<std::uint32_t>(shape.rows * 7 + shape.cols)));
  }
}

// exp(1000) is inf in float and exp(-1000) is 0: only the row's own max subtracted first
// keeps the values and their sum finite and nonzero (rows from -1100 to -900 too).
TEST_P(SoftmaxSuite, LogitsOfPlusMinusAThousandMatch) {
  stands_for("tests.overflow");
  for (const Shape shape : {Shape{4, 1024}, Shape{3, 33}, Shape{2, 32768}}) {
    expect_matches(shape, matrix(shape, 99, -1000.0, 2000.0));
    expect_matches(shape, matrix(shape, 98, -1100.0, 200.0));
  }
}

// A causal mask: row r keeps its first r + 1 values and has -inf after them, so some
// threads (and, in long rows, whole warps) see nothing but -inf. Masked values must come
// out exactly 0.
TEST_P(SoftmaxSuite, MaskedValuesComeOutZero) {
  stands_for("tests.masked");
  for (const Shape shape : {Shape{40, 40}, Shape{3, 2048}}) {
    std::vector<float> input = matrix(shape, 7, -4.0, 8.0);
    for (std::size_t r = 0; r < shape.rows; ++r) {
      for (std::size_t c = r + 1; c < shape.cols; ++c) input[r * shape.cols + c] = -kInf;
    }
    const std::vector<float> out = expect_matches(shape, input);
    for (std::size_t i = 0; i < input.size(); ++i) {
      if (input[i] == -kInf) {
        ASSERT_EQ(out[i], 0.0f) << where(shape) << ": masked value at row " << i / shape.cols
                                << ", column " << i % shape.cols;
      }
    }
  }
}

// A NaN makes its own row NaN (as the float formula does) and leaves the others alone.
TEST_P(SoftmaxSuite, NanSpoilsOnlyItsRow) {
  stands_for("tests.nan_rule");
  const Shape shape{6, 300};
  std::vector<float> input = matrix(shape, 5);
  input[1 * shape.cols + 0] = kNan;
  input[4 * shape.cols + shape.cols - 1] = kNan;
  const std::vector<float> out = expect_matches(shape, input);
  EXPECT_TRUE(std::isnan(out[1 * shape.cols + 17])) << where(shape);
  EXPECT_FALSE(std::isnan(out[2 * shape.cols + 17])) << where(shape);
}

// Rows that start off a 16-byte boundary, for a kernel that loads four floats at a time.
TEST_P(SoftmaxSuite, MisalignedMatrixMatches) {
  for (std::size_t offset : {1, 3}) {
    const Shape shape{9, 1028};
    expect_matches(shape, matrix(shape, 11), offset);
  }
}

TEST_P(SoftmaxSuite, InputIsUnchanged) {
  stands_for("tests.input");
  // The output must be right first: a kernel that never ran leaves the input unchanged too.
  // Its values are not recorded: the failure this test names is the input's.
  const Shape shape{33, 777};
  const std::vector<float> input = matrix(shape, 3);
  RowRunner runner(plan(), shape.rows, shape.cols);
  runner.upload(input);
  const std::vector<float> out = runner.run(block());
  const std::vector<double> ref = reference_softmax(input.data(), shape.rows, shape.cols);
  EXPECT_TRUE(verify_softmax(out.data(), ref, shape.cols).match)
      << where(shape) << ": the output is wrong, so the input check proves nothing";
  EXPECT_EQ(runner.download_input(), input) << where(shape);
}

INSTANTIATE_TEST_SUITE_P(Versions, SoftmaxSuite,
                         ::testing::Combine(::testing::ValuesIn(all_versions()),
                                            ::testing::ValuesIn(kBlocks)),
                         row_case_name);

}  // namespace
