// The GPU suite every stage must pass. CMake builds it once against each stage's answer
// (label gpu) and once against its template (label todo); reduce::stage_plan() comes
// from whichever todo.cu it is linked with. Every test checks the sum first, so a
// template whose kernel writes nothing fails them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/harness/runner.h"
#include "common/stage.h"
#include "tests/gpu/exact_input.h"
#include "tests/gpu/suite_fixture.h"

namespace {

using namespace reduce;

constexpr auto& kBlocks = reduce::kBlockSizes;

// Sizes the stage accepts at this block size: the smallest valid one, a few small and
// odd counts, and counts large enough for many waves of blocks.
std::vector<std::size_t> valid_sizes(SizeRule rule, unsigned block) {
  if (rule == SizeRule::kMultipleOfBlock) {
    std::vector<std::size_t> sizes;
    for (std::size_t blocks : {1u, 2u, 3u, 31u, 33u, 1000u, 4097u, 65537u}) {
      sizes.push_back(blocks * block);
    }
    return sizes;
  }
  return {1, 2, 31, 32, 33, 255, 256, 257, 1000, 4097, 65537, 1u << 20, 16777217};
}

// Both signs, magnitudes from 2^-20 to 2^20: heavy cancellation, and large terms that
// swamp small ones, unlike the default input's [0, 1). Two generator outputs a value and a
// table of powers of two (an exact scaling): a multiple-of-block stage's sizes reach 2^26
// floats, and three outputs and an ldexp each made this most of the suite's time.
std::vector<float> mixed_input(std::size_t n, std::uint32_t seed) {
  static const std::vector<float> kScales = [] {
    std::vector<float> scales;
    for (int exponent = -20; exponent <= 20; ++exponent) {
      scales.push_back(std::ldexp(1.0f, exponent));
      scales.push_back(-std::ldexp(1.0f, exponent));
    }
    return scales;
  }();
  std::mt19937 generator(seed);
  std::vector<float> values(n);
  for (float& v : values) {
    const float fraction = unit_float(static_cast<std::uint32_t>(generator()));
    v = fraction * kScales[generator() % kScales.size()];
  }
  return values;
}

// Sizes for the exact input: the valid sizes below 2^24, plus the largest odd count that
// keeps the guarantee, so a dropped element past the first 2^20 shows too.
std::vector<std::size_t> exact_sizes(SizeRule rule, unsigned block) {
  std::vector<std::size_t> sizes;
  for (std::size_t n : valid_sizes(rule, block)) {
    if (n < (std::size_t{1} << 24)) sizes.push_back(n);
  }
  if (rule == SizeRule::kAnyLength) sizes.push_back((std::size_t{1} << 24) - 1);
  return sizes;
}

// The versions a stage offers (--version 1 .. N, stage 19's library calls), or just 0, the
// stage's own launch, for a stage with one version.
std::vector<int> suite_versions() {
  const int count = stage_plan().default_version();
  if (count == 1) return {0};
  std::vector<int> versions;
  for (int v = 1; v <= count; ++v) versions.push_back(v);
  return versions;
}

class StageSuite : public VersionBlockSuite {
 protected:
  // "n = 1000, block = 256", with the version first when the stage has several.
  std::string where(std::size_t n) const {
    const std::string shape = "n = " + std::to_string(n) + ", block = " + std::to_string(block());
    if (version() == 0) return shape;
    return "version " + std::to_string(version()) + " (" + plan().technique() + "), " + shape;
  }

  // Runs the stage once on `input` and checks the sum against the CPU reference.
  RunOutput expect_matches(StageRunner& runner, const std::vector<float>& input) {
    const RunOutput out = runner.run(block());
    const ReferenceSum ref = reference_sum(input.data(), input.size());
    const Verdict verdict = verify(out.sum, ref, input.size());
    EXPECT_TRUE(compared(verdict.match, out.sum, ref.sum))
        << where(input.size()) << ": GPU " << out.sum << ", CPU " << ref.sum
        << ", relative error " << verdict.relative_error << " > tolerance " << verdict.tolerance;
    if (plan().finish == Finish::kOnDevice) EXPECT_EQ(out.device_values, 1u);
    return out;
  }

  void expect_matches(const std::vector<float>& input) {
    StageRunner runner(plan(), input.size());
    runner.upload(input);
    expect_matches(runner, input);
  }
};

TEST_P(StageSuite, DefaultInputMatchesReference) {
  expect_matches(generate_input(kDefaultN, kDefaultSeed));
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(StageSuite, HiddenSeedInputMatchesReference) {
  runs_on_hidden_seed();
  expect_matches(generate_input(kDefaultN, hidden_seed()));
  const std::size_t n = valid_sizes(plan().sizes, block())[4];
  expect_matches(mixed_input(n, hidden_seed() + static_cast<std::uint32_t>(n)));
}

TEST_P(StageSuite, EveryValidSizeMatchesReference) {
  for (std::size_t n : valid_sizes(plan().sizes, block())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_matches(generate_input(n, static_cast<std::uint32_t>(n)));
  }
}

TEST_P(StageSuite, MixedSignsAndMagnitudesMatchReference) {
  for (std::size_t n : valid_sizes(plan().sizes, block())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    expect_matches(mixed_input(n, 777u + static_cast<std::uint32_t>(n)));
  }
}

TEST_P(StageSuite, MisalignedInputMatchesReference) {
  // The input starts 1, 2 or 3 floats past a 16-byte boundary: stages that load float4s
  // must read the first and last few floats one at a time.
  const std::vector<std::size_t> sizes = valid_sizes(plan().sizes, block());
  for (std::size_t k = 0; k < 8 && k < sizes.size(); ++k) {
    const std::size_t n = sizes[k];
    const std::vector<float> input = mixed_input(n, 4242u + static_cast<std::uint32_t>(n));
    for (std::size_t offset : {1u, 2u, 3u}) {
      SCOPED_TRACE("offset = " + std::to_string(offset) + " floats, n = " + std::to_string(n));
      StageRunner runner(plan(), n, offset);
      runner.upload(input);
      expect_matches(runner, input);
    }
  }
}

TEST_P(StageSuite, ExactIntegerInputGivesExactSum) {
  stands_for("tests.exact");
  // The tolerance of the other tests would let one dropped element through at large n;
  // here any dropped, doubled or misplaced element changes the float.
  for (std::size_t n : exact_sizes(plan().sizes, block())) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::int64_t exact = 0;
    const std::vector<float> input = exact_input(n, 99u + static_cast<std::uint32_t>(n), &exact);
    StageRunner runner(plan(), n);
    runner.upload(input);
    const RunOutput out = runner.run(block());
    EXPECT_TRUE(compared(out.sum == static_cast<float>(exact), out.sum, static_cast<double>(exact)))
        << where(n) << ": GPU " << out.sum << ", exact "
        << exact << " (off by " << (static_cast<double>(out.sum) - static_cast<double>(exact))
        << ")";
  }
}

TEST_P(StageSuite, SameInputGivesBitIdenticalSums) {
  stands_for("tests.repeat");
  // Several repeats, not two: a sum whose order follows the blocks' arrival (one float
  // atomicAdd per block) lands on one of a few neighbouring floats, and two runs alone
  // agree by chance often enough to let it through.
  constexpr int kRepeats = 5;
  const std::vector<float> input = generate_input(kDefaultN, 2024);
  StageRunner runner(plan(), input.size());
  runner.upload(input);
  const float first = expect_matches(runner, input).sum;
  for (int repeat = 2; repeat <= kRepeats; ++repeat) {
    const float again = expect_matches(runner, input).sum;
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(float)), 0)
        << where(input.size()) << ": first run " << first << ", run " << repeat << " " << again;
  }
}

TEST_P(StageSuite, InputIsUnchanged) {
  stands_for("tests.input");
  const std::vector<float> input = mixed_input(1u << 20, 31337);
  StageRunner runner(plan(), input.size());
  runner.upload(input);
  expect_matches(runner, input);
  const std::vector<float> after = runner.download_input();
  EXPECT_EQ(std::memcmp(after.data(), input.data(), input.size() * sizeof(float)), 0);
}

// Names stay "block256" for a stage with one version, "block256_version2" otherwise (as in
// stage 15's suite), for people: the tools read the block from the recorded facts.
INSTANTIATE_TEST_SUITE_P(Blocks, StageSuite,
                         ::testing::Combine(::testing::ValuesIn(suite_versions()),
                                            ::testing::ValuesIn(kBlocks)),
                         [](const auto& info) {
                           const int version = std::get<0>(info.param);
                           const std::string block = "block" + std::to_string(std::get<1>(info.param));
                           return version == 0 ? block : block + "_version" + std::to_string(version);
                         });

}  // namespace
