// The GPU suite of stage 18 (many GPUs, one sum), in place of stage_suite.cpp. Each test
// runs on 1 GPU and again on 2; the 2-GPU run is skipped, with the reason, on a machine
// that shows fewer. The shard test needs no GPU beyond the fixture's.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/harness/input.h"
#include "common/multi_gpu/multi_gpu_runner.h"
#include "common/harness/reference.h"
#include "tests/gpu/exact_input.h"
#include "tests/gpu/suite_fixture.h"

namespace {

using namespace reduce;

constexpr auto& kBlocks = reduce::kBlockSizes;
const std::vector<std::size_t> kSizes = {1, 2, 3, 31, 33, 1000, 4097, 65537, (1u << 20) + 3};

class MultiGpuSuite : public GpuSuite<int> {
 protected:
  void SetUp() override {
    GpuSuite<int>::SetUp();
    if (IsSkipped()) return;
    const int visible = probe_devices().count;
    if (gpus() > visible) {
      GTEST_SKIP() << "needs " << gpus() << " GPUs; this machine shows " << visible;
    }
  }

  int gpus() const { return GetParam(); }
  void record_case() const override { record_fact("gpus", gpus()); }

  std::string where(std::size_t n, unsigned block) const {
    return std::to_string(gpus()) + " GPU(s), n = " + std::to_string(n) +
           ", block = " + std::to_string(block);
  }

  // Every GPU's total within the course's bound of the CPU's sum, and all of them equal:
  // after an all-reduce each GPU holds the same bits.
  void expect_totals_match(const std::vector<float>& totals, const std::vector<float>& input,
                           const std::string& at) {
    ASSERT_EQ(totals.size(), static_cast<std::size_t>(gpus())) << at;
    const ReferenceSum ref = reference_sum(input.data(), input.size());
    for (int g = 0; g < gpus(); ++g) {
      const Verdict verdict = verify(totals[g], ref, input.size());
      EXPECT_TRUE(compared(verdict.match, totals[g], ref.sum))
          << at << ": GPU " << totals[g] << ", CPU " << ref.sum << " on GPU " << g
          << ", relative error " << verdict.relative_error << " > tolerance " << verdict.tolerance;
      EXPECT_EQ(totals[g], totals[0]) << at << ": GPU " << g << " and GPU 0 hold different totals";
    }
  }
};

TEST_P(MultiGpuSuite, ShardsFollowEachOtherAndCoverN) {
  stands_for("tests.shards");
  for (int k = 1; k <= 8; ++k) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{8},
                          std::size_t{9}, std::size_t{1000}, std::size_t{65537},
                          std::size_t{2147483647}}) {
      const std::vector<Shard> shards = shards_for(*stage_plan().multi_gpu, n, k);
      EXPECT_EQ(shard_problem(shards, n), "") << k << " GPUs, n = " << n;
      for (int g = 0; g < k; ++g) {
        EXPECT_LE(shards[g].count, (n + k - 1) / k)
            << "shard_of(" << n << ", " << k << ", " << g << ") holds " << shards[g].count
            << " elements: no GPU should get more than ceil(n / gpus) (TODO 1)";
      }
    }
  }
}

TEST_P(MultiGpuSuite, DefaultInputMatchesOnEveryGpu) {
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  const std::vector<float> input = generate_input(kDefaultN, kDefaultSeed);
  runner.upload(input);
  expect_totals_match(runner.run(256), input, where(kDefaultN, 256));
}

// The instructors' grader runs this on its secret seed (suite_fixture.h's hidden_seed()).
TEST_P(MultiGpuSuite, HiddenSeedInputMatchesOnEveryGpu) {
  runs_on_hidden_seed();
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  const std::vector<float> input = generate_input(kDefaultN, hidden_seed());
  runner.upload(input);
  expect_totals_match(runner.run(256), input, where(kDefaultN, 256));
}

TEST_P(MultiGpuSuite, EveryBlockAndOddLengthMatches) {
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  for (std::size_t n : kSizes) {
    const std::vector<float> input = generate_input(n, static_cast<std::uint32_t>(n));
    runner.upload(input);
    for (unsigned block : kBlocks) expect_totals_match(runner.run(block), input, where(n, block));
  }
}

TEST_P(MultiGpuSuite, ExactIntegerInputGivesExactSum) {
  stands_for("tests.exact");
  // Any element dropped or counted twice, on any GPU, changes the total.
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  for (std::size_t n : {std::size_t{3}, std::size_t{65537}, std::size_t{1} << 22}) {
    std::int64_t exact = 0;
    const std::vector<float> input = exact_input(n, static_cast<std::uint32_t>(n), &exact);
    runner.upload(input);
    const std::vector<float> totals = runner.run(256);
    for (int g = 0; g < gpus(); ++g) {
      EXPECT_TRUE(compared(totals[g] == static_cast<float>(exact), totals[g],
                           static_cast<double>(exact)))
          << where(n, 256) << ", GPU " << g << ": " << totals[g] << ", exact " << exact;
    }
  }
}

TEST_P(MultiGpuSuite, SameInputGivesBitIdenticalSums) {
  stands_for("tests.repeat");
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  const std::vector<float> input = generate_input((1u << 22) + 5, 7u);
  runner.upload(input);
  const std::vector<float> first = runner.run(256);
  for (int run = 1; run < 5; ++run) {
    EXPECT_EQ(runner.run(256), first) << where(input.size(), 256) << ", run " << run + 1;
  }
}

TEST_P(MultiGpuSuite, TimedRunsMatchAndTakeTime) {
  MultiGpuRunner runner(*stage_plan().multi_gpu, gpus());
  const std::vector<float> input = generate_input(kDefaultN, kDefaultSeed);
  runner.upload(input);
  const MultiGpuTiming timing = runner.time(256, 3, CacheState::kClean);
  expect_totals_match(timing.warmup, input, where(kDefaultN, 256) + ", warm-up");
  expect_totals_match(timing.last, input, where(kDefaultN, 256) + ", last timed run");
  // The harness flips the shards' sign before each timed run: every run's totals must be the
  // warm-up's, negated on every other run (a run that skipped its work would not be).
  EXPECT_EQ(timing.disagreeing, 0) << where(kDefaultN, 256) << ": a timed run's total was "
                                   << timing.first_disagreeing << ", the warm-up's "
                                   << timing.warmup[0];
  EXPECT_GT(timing.median_ms, 0.0) << where(kDefaultN, 256);
}

INSTANTIATE_TEST_SUITE_P(Gpus, MultiGpuSuite, ::testing::Values(1, 2),
                         [](const auto& info) { return "gpus" + std::to_string(info.param); });

}  // namespace
