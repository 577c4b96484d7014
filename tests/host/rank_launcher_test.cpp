// The launcher of reduce_ranks (common/multi_gpu/rank_launcher.h) with stand-in ranks: no
// GPU, no NCCL. A rank that fails ends the others at once with one line; none hangs.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "common/multi_gpu/rank_launcher.h"

namespace {

using namespace reduce;
using std::chrono::seconds;

class RankLauncher : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = make_private_dir(); }
  void TearDown() override { remove_private_dir(dir_); }
  double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  std::string dir_;
};

TEST_F(RankLauncher, IdGoesFromRankZeroToTheOthersWhole) {
  const char id[] = "0123456789abcdef";
  ASSERT_TRUE(publish_id(dir_, id, sizeof id));
  char got[sizeof id] = {};
  ASSERT_TRUE(wait_for_id(dir_, got, sizeof got, Clock::now() + seconds(1)));
  EXPECT_EQ(std::memcmp(id, got, sizeof id), 0);
}

TEST_F(RankLauncher, WaitingForAnIdNobodyWritesEndsAtTheDeadline) {
  char got[16];
  const auto start = Clock::now();
  EXPECT_FALSE(wait_for_id(dir_, got, sizeof got, start + std::chrono::milliseconds(200)));
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST_F(RankLauncher, EveryRankExitingZeroIsSuccess) {
  const LaunchOutcome outcome =
      launch_ranks(3, dir_, Clock::now() + seconds(20), false, [](int) { return 0; });
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.line, "");
}

TEST_F(RankLauncher, ARankThatFailsStopsTheOthersWithItsLine) {
  const auto start = Clock::now();
  const std::string dir = dir_;
  const LaunchOutcome outcome = launch_ranks(3, dir_, start + seconds(30), false, [&](int rank) {
    if (rank != 1) {
      while (true) pause();  // would wait forever for rank 1
    }
    write_rank_line(dir, rank, "gave up after --timeout 1 s waiting for the test");
    return kExitTimedOut;
  });
  EXPECT_EQ(outcome.exit_code, kExitTimedOut);
  EXPECT_EQ(outcome.line, "rank 1 gave up after --timeout 1 s waiting for the test; "
                          "stopped ranks 0 and 2");
  EXPECT_LT(seconds_since(start), 10.0);
}

TEST_F(RankLauncher, ARankKilledByASignalIsNamedAndTheOthersStopped) {
  const LaunchOutcome outcome = launch_ranks(2, dir_, Clock::now() + seconds(30), false, [](int rank) {
    if (rank == 0) {
      while (true) pause();
    }
    raise(SIGKILL);
    return 0;
  });
  EXPECT_EQ(outcome.exit_code, 4);
  EXPECT_NE(outcome.line.find("rank 1 was killed by signal 9"), std::string::npos) << outcome.line;
  EXPECT_NE(outcome.line.find("stopped rank 0"), std::string::npos) << outcome.line;
}

TEST_F(RankLauncher, RanksThatNeverEndMeetTheBackstop) {
  const auto start = Clock::now();
  const LaunchOutcome outcome = launch_ranks(2, dir_, start + seconds(1), false, [](int) {
    while (true) pause();
    return 0;
  });
  EXPECT_EQ(outcome.exit_code, kExitTimedOut);
  EXPECT_NE(outcome.line.find("ranks 0 and 1 had not ended"), std::string::npos) << outcome.line;
  EXPECT_LT(seconds_since(start), 10.0);
}

}  // namespace
