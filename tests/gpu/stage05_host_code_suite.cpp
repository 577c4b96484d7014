// The GPU suite of stage 05 (the student writes the host side), in place of
// stage_suite.cpp: the sum of the block sums the host code returns, one block sum per
// block, the events' time, and the device memory given back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/host_code/host_runner.h"
#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/stage.h"
#include "tests/gpu/exact_input.h"
#include "tests/gpu/suite_fixture.h"

namespace {

using namespace reduce;

constexpr auto& kBlocks = reduce::kBlockSizes;
const std::vector<std::size_t> kSizes = {1,    2,    31,   32,    33,      255,     256,
                                         257,  1000, 4097, 65537, 1u << 20, 16777217};

class HostCodeSuite : public BlockSuite {
 protected:
  std::string where(std::size_t n) const {
    return "n = " + std::to_string(n) + ", block = " + std::to_string(block());
  }

  HostOutcome expect_matches(const std::vector<float>& input) {
    const HostOutcome out = run_host_code(stage_plan(), input, block());
    const ReferenceSum ref = reference_sum(input.data(), input.size());
    const Verdict verdict = verify(out.sum, ref, input.size());
    EXPECT_FALSE(out.unwritten) << where(input.size())
                                << ": a block sum is NaN, so it was never copied back";
    EXPECT_TRUE(compared(verdict.match, out.sum, ref.sum))
        << where(input.size()) << ": GPU " << out.sum << ", CPU " << ref.sum
        << ", relative error " << verdict.relative_error << " > tolerance " << verdict.tolerance;
    return out;
  }
};

TEST_P(HostCodeSuite, DefaultInputMatchesReference) {
  expect_matches(generate_input(kDefaultN, kDefaultSeed));
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(HostCodeSuite, HiddenSeedInputMatchesReference) {
  runs_on_hidden_seed();
  expect_matches(generate_input(kDefaultN, hidden_seed()));
}

TEST_P(HostCodeSuite, EveryValidSizeMatchesReference) {
  for (std::size_t n : kSizes) {
    SCOPED_TRACE(where(n));
    expect_matches(generate_input(n, static_cast<std::uint32_t>(n)));
  }
}

TEST_P(HostCodeSuite, ExactIntegerInputGivesExactSum) {
  stands_for("tests.exact");
  // Any dropped or doubled block sum changes the result.
  for (std::size_t n : {std::size_t{1000}, std::size_t{65537}, std::size_t{1} << 20}) {
    std::int64_t exact = 0;
    const std::vector<float> input = exact_input(n, static_cast<std::uint32_t>(n), &exact);
    const HostOutcome out = run_host_code(stage_plan(), input, block());
    EXPECT_TRUE(compared(out.sum == static_cast<float>(exact), out.sum, static_cast<double>(exact)))
        << where(n) << ": GPU " << out.sum << ", exact " << exact;
  }
}

TEST_P(HostCodeSuite, OneBlockSumPerBlock) {
  for (std::size_t n : kSizes) {
    const HostOutcome out = expect_matches(generate_input(n, 5u));
    const std::size_t per_block = 2 * std::size_t{block()};
    EXPECT_EQ(out.blocks, (n + per_block - 1) / per_block)
        << where(n) << ": the launch has one block per " << per_block << " elements";
  }
}

TEST_P(HostCodeSuite, EventsTimeTheLaunch) {
  const HostOutcome out = expect_matches(generate_input(kDefaultN, kDefaultSeed));
  EXPECT_TRUE(std::isfinite(out.kernel_ms) && out.kernel_ms > 0.0f && out.kernel_ms < 1000.0f)
      << where(kDefaultN) << ": kernel_ms = " << out.kernel_ms
      << "; record start and stop around the launch and synchronize on stop";
}

// The harness watches the launches (common/harness/launch_watch.h): a sum added on the CPU
// beside a launch that reads nothing, or events around something else than the launch,
// fails here even when the sum is right.
TEST_P(HostCodeSuite, TheGpuDidTheWork) {
  stands_for("tests.device_work");
  for (std::size_t n : {std::size_t{1000}, std::size_t{65537}, std::size_t{1} << 22}) {
    const HostOutcome out = expect_matches(generate_input(n, static_cast<std::uint32_t>(n)));
    if (!out.watched.available) GTEST_SKIP() << "this CUDA toolkit's launches cannot be watched";
    EXPECT_EQ(launch_problem(out, n, block()), "") << where(n);
  }
}

TEST_P(HostCodeSuite, DeviceMemoryIsGivenBack) {
  stands_for("tests.leak");
  // Every cudaMalloc and event of this process is counted (common/harness/allocation_log.h), so
  // even one event or a 4-byte buffer kept is seen.
  const std::vector<float> input = generate_input(std::size_t{1} << 22, 11u);
  const DeviceHoldings before = device_holdings();
  for (int call = 0; call < 4; ++call) expect_matches(input);
  const std::string kept = kept_after_calls(holdings_gained(before, device_holdings()), 4);
  EXPECT_EQ(kept, "") << where(input.size()) << ": " << kept
                      << ": cudaFree what you allocate and destroy the events";
}

INSTANTIATE_TEST_SUITE_P(Blocks, HostCodeSuite, ::testing::ValuesIn(kBlocks),
                         [](const auto& info) { return "block" + std::to_string(info.param); });

}  // namespace
