// build/bin/reduce_ranks, stage 18 with one process per GPU, end to end: one rank matches,
// two ranks match where two GPUs exist, and a rank that never joins or dies ends every
// other rank with one line and a non-zero exit within the time-out, never a hang.
// NCCL refuses two ranks of one communicator on one GPU, so on a one-GPU machine the
// failing rank is one that never touches a GPU (never joins, or dies before joining).
#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "common/harness/device.h"
#include "tests/shell_command.h"

namespace {

using reduce_tests::shell;

const std::string kRanks = std::string(REDUCE_BIN_DIR) + "/reduce_ranks";
constexpr int kTimeoutS = 10;

struct RanksRun {
  int code = -1;
  std::string output;
  double seconds = 0.0;
};

RanksRun run_ranks(const std::string& options) {
  RanksRun run;
  const auto start = std::chrono::steady_clock::now();
  run.code = shell(kRanks + " " + options, &run.output);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

int lines(const std::string& text) {
  int count = 0;
  for (char c : text) count += c == '\n';
  return count;
}

class Ranks : public ::testing::Test {
 protected:
  void SetUp() override {
    visible_ = reduce::probe_devices().count;
    if (visible_ == 0) GTEST_SKIP() << "no CUDA device";
  }
  int visible_ = 0;
};

TEST_F(Ranks, OneRankMatches) {
  const RanksRun run = run_ranks("--ranks 1 --n 1000003 --repeat 3");
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("Stage 18, 1 rank (one process per GPU)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("✅"), std::string::npos) << run.output;
}

TEST_F(Ranks, OneRankWritesTheBenchmarksCsvLine) {
  const RanksRun run = run_ranks("--ranks 1 --n 4096 --repeat 3 --csv");
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_TRUE(std::regex_match(run.output, std::regex("Stage 18 ranks x1,4096,256,[0-9.]+,[0-9.]+,"
                                                      "[0-9.e+-]+,1\n")))
      << run.output;
}

TEST_F(Ranks, OneRankMatchesAtTheDefaultSize) {
  const RanksRun run = run_ranks("--ranks 1");
  EXPECT_EQ(run.code, 0) << run.output;
}

TEST_F(Ranks, ARankThatNeverJoinsEndsTheOthersAtTheTimeout) {
  // Rank 1 stays alive and never calls NCCL: rank 0 waits in ncclCommInitRankConfig until
  // its deadline, aborts, and the launcher stops rank 1.
  const RanksRun run = run_ranks("--ranks 2 --fail-rank 1 --fail-mode never-joins --timeout " +
                            std::to_string(kTimeoutS));
  EXPECT_EQ(run.code, 5) << run.output;
  EXPECT_EQ(lines(run.output), 1) << run.output;
  EXPECT_NE(run.output.find("reduce_ranks: rank 0 gave up after --timeout 10 s waiting for "
                            "ncclCommInitRankConfig"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("stopped rank 1"), std::string::npos) << run.output;
  EXPECT_GE(run.seconds, kTimeoutS - 1.0);
  EXPECT_LT(run.seconds, kTimeoutS + 20.0) << "the deadline did not end the wait";
}

TEST_F(Ranks, ARankThatDiesBeforeJoiningEndsTheOthersAtOnce) {
  const RanksRun run = run_ranks("--ranks 2 --fail-rank 1 --fail-mode dies-before-init --timeout " +
                            std::to_string(kTimeoutS));
  EXPECT_EQ(run.code, 4) << run.output;
  EXPECT_EQ(lines(run.output), 1) << run.output;
  EXPECT_NE(run.output.find("reduce_ranks: rank 1 was killed by signal 9"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("stopped rank 0"), std::string::npos) << run.output;
  EXPECT_LT(run.seconds, kTimeoutS) << "the launcher should not wait for the time-out";
}

TEST_F(Ranks, TwoRanksMatch) {
  // GTEST_SKIP must be in the test body: in a helper it returns from the helper only.
  if (visible_ < 2) GTEST_SKIP() << "needs 2 GPUs; this machine shows " << visible_;
  const RanksRun run = run_ranks("--ranks 2 --n 100000007 --repeat 5");
  EXPECT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("Stage 18, 2 ranks"), std::string::npos) << run.output;
}

TEST_F(Ranks, ARankThatDiesAfterJoiningEndsTheOthers) {
  if (visible_ < 2) GTEST_SKIP() << "needs 2 GPUs; this machine shows " << visible_;
  const RanksRun run = run_ranks("--ranks 2 --fail-rank 1 --fail-mode dies-after-init --timeout " +
                            std::to_string(kTimeoutS));
  EXPECT_NE(run.code, 0) << run.output;
  EXPECT_EQ(lines(run.output), 1) << run.output;
  EXPECT_NE(run.output.find("reduce_ranks: rank 1 was killed by signal 9"), std::string::npos)
      << run.output;
  EXPECT_LT(run.seconds, kTimeoutS + 20.0);
}

TEST_F(Ranks, MoreRanksThanGpusIsABadOption) {
  const RanksRun run = run_ranks("--ranks " + std::to_string(visible_ + 1));
  EXPECT_EQ(run.code, 2) << run.output;
  EXPECT_EQ(lines(run.output), 1) << run.output;
}

}  // namespace
