// The GPU suite of stage 15 (max), in place of stage_suite.cpp: every version at every
// block size. Max is exact, so every test compares with the CPU's value exactly; the
// inputs are the ones a max gets wrong: every value negative (an identity of 0 instead of
// -inf), the maximum at the first or the last element (a dropped element), -inf, +inf,
// ties, and NaN, which must come out as NaN wherever it is (common/max_of.h). Then the
// argmax: the index of the first maximum.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/harness/runner.h"
#include "common/stage.h"
#include "tests/gpu/suite_fixture.h"

namespace {

using namespace reduce;

constexpr auto& kBlocks = reduce::kBlockSizes;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

const std::vector<std::size_t> kSizes = {1,    2,    31,    32,      33,       255, 256,
                                         257,  1000, 4097,  65537,   1u << 20, 16777217};

// Values in [-2, -1): every one negative, so a tree that starts from 0 answers 0.
std::vector<float> negative_input(std::size_t n, std::uint32_t seed) {
  std::vector<float> values = generate_input(n, seed);
  for (float& v : values) v = -1.0f - v;
  return values;
}

// Where to plant a single maximum in n values: the ends, where a dropped element hides,
// and one place inside.
std::vector<std::size_t> plant_positions(std::size_t n) {
  std::vector<std::size_t> at = {n - 1};
  if (n > 1) at.push_back(0);
  if (n > 2) at.push_back(n / 2 + 1);
  return at;
}

class MaxSuite : public VersionBlockSuite {
 protected:
  std::string where(std::size_t n) const {
    return "version " + std::to_string(version()) + " (" + plan().technique() + "), n = " +
           std::to_string(n) + ", block = " + std::to_string(block());
  }

  // Runs the version on `input` (already uploaded to `runner`) and compares with the CPU.
  float expect_matches(StageRunner& runner, const std::vector<float>& input) {
    const RunOutput out = runner.run(block());
    const float cpu = reference_max(input.data(), input.size());
    EXPECT_TRUE(compared(verify_max(out.sum, cpu).match, out.sum, cpu))
        << where(input.size()) << ": GPU " << out.sum << ", CPU " << cpu << ", must be equal";
    EXPECT_EQ(out.device_values, 1u) << where(input.size());
    return out.sum;
  }

  float expect_matches(const std::vector<float>& input, std::size_t offset = 0) {
    StageRunner runner(plan(), input.size(), offset);
    runner.upload(input);
    return expect_matches(runner, input);
  }
};

TEST_P(MaxSuite, DefaultInputMatchesReference) {
  static const std::vector<float> input = generate_input(kDefaultN, kDefaultSeed);
  expect_matches(input);
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(MaxSuite, HiddenSeedInputMatchesReference) {
  runs_on_hidden_seed();
  static const std::vector<float> input = generate_input(kDefaultN, hidden_seed());
  expect_matches(input);
}

TEST_P(MaxSuite, AllNegativeInputMatchesReference) {
  for (std::size_t n : kSizes) expect_matches(negative_input(n, static_cast<std::uint32_t>(n)));
}

TEST_P(MaxSuite, MaximumAtEitherEndIsFound) {
  for (std::size_t n : kSizes) {
    std::vector<float> input = negative_input(n, 7u + static_cast<std::uint32_t>(n));
    StageRunner runner(plan(), n);
    for (std::size_t at : plant_positions(n)) {
      SCOPED_TRACE("maximum at element " + std::to_string(at));
      const float saved = input[at];
      input[at] = 0.5f;
      runner.upload(input);
      expect_matches(runner, input);
      input[at] = saved;
    }
  }
}

TEST_P(MaxSuite, InfinitiesAndTies) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{65537}}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_matches(std::vector<float>(n, -kInf));  // the identity itself is a valid input
    expect_matches(std::vector<float>(n, 3.0f));   // every element ties
    std::vector<float> input = negative_input(n, 11u);
    input[n - 1] = kInf;
    expect_matches(input);
    input[n / 2] = -kInf;
    input[0] = 0.25f;
    input[n - 1] = 0.25f;  // two tied maxima at the ends
    expect_matches(input);
  }
}

TEST_P(MaxSuite, NanAnywhereGivesNan) {
  stands_for("tests.nan_rule");
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{4097}, std::size_t{1} << 20}) {
    std::vector<float> input = generate_input(n, 5u);
    StageRunner runner(plan(), n);
    for (std::size_t at : plant_positions(n)) {
      SCOPED_TRACE("NaN at element " + std::to_string(at));
      const float saved = input[at];
      input[at] = kNan;
      runner.upload(input);
      expect_matches(runner, input);
      input[at] = saved;
    }
  }
}

TEST_P(MaxSuite, MisalignedInputMatchesReference) {
  for (std::size_t offset : {1u, 2u, 3u}) {
    for (std::size_t n : {std::size_t{33}, std::size_t{1000}, std::size_t{65537}}) {
      SCOPED_TRACE("offset = " + std::to_string(offset) + " floats");
      std::vector<float> input = negative_input(n, 99u);
      input[n - 1] = 0.5f;
      expect_matches(input, offset);
    }
  }
}

TEST_P(MaxSuite, InputIsUnchanged) {
  stands_for("tests.input");
  const std::vector<float> input = negative_input(1u << 20, 31337);
  StageRunner runner(plan(), input.size());
  runner.upload(input);
  expect_matches(runner, input);
  const std::vector<float> after = runner.download_input();
  EXPECT_EQ(std::memcmp(after.data(), input.data(), input.size() * sizeof(float)), 0);
}

// Argmax (the last TODO): one kernel, every block size. Its answer is an index, so any
// slip shows: a lost warp or block, the last of equal maxima instead of the first.
class ArgmaxSuite : public BlockSuite {
 protected:
  // Every test here checks the argmax alone, the hidden-seed one included.
  void SetUp() override {
    BlockSuite::SetUp();
    stands_for("tests.argmax");
  }

  void expect_argmax(const std::vector<float>& input) {
    StageRunner runner(stage_plan(), input.size());
    runner.upload(input);
    expect_argmax(runner, input);
  }

  void expect_argmax(StageRunner& runner, const std::vector<float>& input) {
    const std::size_t gpu = runner.argmax(block());
    const std::size_t cpu = reference_argmax(input.data(), input.size());
    const std::string gpu_index =
        gpu == StageRunner::kNoIndex ? std::string("none") : std::to_string(gpu);
    EXPECT_TRUE(compared(gpu == cpu, gpu_index, std::to_string(cpu)))
        << "argmax, n = " << input.size() << ", block = " << block() << ": GPU index " << gpu_index
        << " (value " << (gpu < input.size() ? input[gpu] : kNan) << "), CPU index " << cpu
        << " (value " << input[cpu] << ")";
  }
};

TEST_P(ArgmaxSuite, ArgmaxOfDefaultInput) {
  static const std::vector<float> input = generate_input(kDefaultN, kDefaultSeed);
  expect_argmax(input);
}

TEST_P(ArgmaxSuite, HiddenSeedArgmax) {
  runs_on_hidden_seed();
  static const std::vector<float> input = generate_input(kDefaultN, hidden_seed());
  expect_argmax(input);
}

TEST_P(ArgmaxSuite, ArgmaxAtEveryPlace) {
  for (std::size_t n : kSizes) {
    std::vector<float> input = negative_input(n, 3u + static_cast<std::uint32_t>(n));
    StageRunner runner(stage_plan(), n);
    for (std::size_t at : plant_positions(n)) {
      SCOPED_TRACE("maximum at element " + std::to_string(at));
      const float saved = input[at];
      input[at] = 0.5f;
      runner.upload(input);
      expect_argmax(runner, input);
      input[at] = saved;
    }
  }
}

TEST_P(ArgmaxSuite, ArgmaxOfTiesIsTheFirst) {
  for (std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{65537}, std::size_t{1} << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_argmax(std::vector<float>(n, 3.0f));   // every element ties: index 0
    expect_argmax(std::vector<float>(n, -kInf));  // so does the lowest value
    std::vector<float> input = negative_input(n, 17u);
    input[n - 1] = 0.75f;
    input[n / 3 + 1] = 0.75f;  // the first of two equal maxima, far apart
    expect_argmax(input);
    input[n / 3 + 1] = -0.0f;
    input[n - 1] = 0.0f;  // -0 and +0 are equal: the first of them
    expect_argmax(input);
  }
}

TEST_P(ArgmaxSuite, ArgmaxOfNanIsTheFirstNan) {
  for (std::size_t n : {std::size_t{33}, std::size_t{65537}}) {
    std::vector<float> input = generate_input(n, 23u);
    input[n - 1] = kNan;
    input[n / 2] = kInf;
    expect_argmax(input);
    input[n / 4] = kNan;
    expect_argmax(input);
  }
}

INSTANTIATE_TEST_SUITE_P(Blocks, ArgmaxSuite, ::testing::ValuesIn(kBlocks),
                         [](const auto& info) { return "block" + std::to_string(info.param); });

INSTANTIATE_TEST_SUITE_P(
    Versions, MaxSuite,
    ::testing::Combine(::testing::Range(1, stage_plan().default_version() + 1),
                       ::testing::ValuesIn(kBlocks)),
    [](const auto& info) {
      return "block" + std::to_string(std::get<1>(info.param)) + "_version" +
             std::to_string(std::get<0>(info.param));
    });

}  // namespace
