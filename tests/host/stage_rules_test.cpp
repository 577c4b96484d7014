#include <gtest/gtest.h>

#include <string>

#include "common/stage_rules.h"

namespace {

using reduce::check_size;
using reduce::SizeRule;

TEST(StageRules, BlockSizes) {
  for (unsigned long long b : {32ull, 64ull, 128ull, 256ull, 512ull, 1024ull}) {
    EXPECT_TRUE(reduce::is_valid_block(b)) << b;
  }
  for (unsigned long long b : {0ull, 1ull, 16ull, 31ull, 33ull, 96ull, 100ull, 2048ull}) {
    EXPECT_FALSE(reduce::is_valid_block(b)) << b;
  }
}

TEST(StageRules, WholeBlocksAccepted) {
  EXPECT_EQ(check_size(SizeRule::kMultipleOfBlock, 7, 256, 256), "");
  EXPECT_EQ(check_size(SizeRule::kMultipleOfBlock, 7, 1u << 24, 1024), "");
  EXPECT_EQ(check_size(SizeRule::kMultipleOfBlock, 8, 32, 32), "");
}

TEST(StageRules, PartialBlockRejectedWithSizesThatWork) {
  const std::string msg = check_size(SizeRule::kMultipleOfBlock, 7, 1000, 256);
  EXPECT_NE(msg.find("--n 1000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--block 256"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stage 7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--n 1024"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--n 768"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(StageRules, FewerElementsThanOneBlock) {
  const std::string msg = check_size(SizeRule::kMultipleOfBlock, 8, 100, 256);
  EXPECT_NE(msg.find("--n 256"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("--n 0"), std::string::npos) << msg;  // never suggest an invalid size
  EXPECT_NE(check_size(SizeRule::kMultipleOfBlock, 8, 1, 32), "");
  EXPECT_NE(check_size(SizeRule::kMultipleOfBlock, 8, (1u << 24) + 1, 256), "");
}

TEST(StageRules, NeverSuggestsASizeAboveTheLargest) {
  // 2147483647 / 1024 rounds up to 2147483648, one past the largest --n.
  const std::string msg = check_size(SizeRule::kMultipleOfBlock, 7, reduce::kMaxN, 1024);
  EXPECT_EQ(msg.find("2147483648"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--n 2147482624"), std::string::npos) << msg;
}

TEST(StageRules, AnyLengthTakesEverything) {
  for (std::size_t n : {1u, 2u, 31u, 33u, 257u, 16777217u}) {
    EXPECT_EQ(check_size(SizeRule::kAnyLength, 9, n, 1024), "") << n;
  }
}

TEST(StageRules, EachStageTakesItsOwnShape) {
  using reduce::check_shape;
  using reduce::Operation;
  EXPECT_EQ(check_shape(false, 9, true, false), "");
  EXPECT_EQ(check_shape(false, 15, false, false), "");
  EXPECT_EQ(check_shape(true, 16, false, true), "");
  EXPECT_EQ(check_shape(true, 16, false, false), "");  // the default matrix
  const std::string rows = check_shape(true, 16, true, false);
  EXPECT_NE(rows.find("--rows R --cols C"), std::string::npos) << rows;
  const std::string vector = check_shape(false, 7, false, true);
  EXPECT_NE(vector.find("--n N"), std::string::npos) << vector;
  EXPECT_TRUE(reduce::works_on_rows(Operation::kSoftmax));
  EXPECT_FALSE(reduce::works_on_rows(Operation::kMax));
}

}  // namespace
