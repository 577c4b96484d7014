#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "common/harness/options.h"

namespace {

reduce::ParsedOptions parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"stage07"};
  argv.insert(argv.end(), args.begin(), args.end());
  return reduce::parse_options(static_cast<int>(argv.size()), argv.data());
}

TEST(Options, Defaults) {
  const auto parsed = parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.n, 16777216u);
  EXPECT_EQ(parsed.options.block, 256u);
  EXPECT_EQ(parsed.options.seed, 12345u);
  EXPECT_EQ(parsed.options.repeat, 20);
  EXPECT_EQ(parsed.options.device, 0);
  EXPECT_FALSE(parsed.options.help);
  EXPECT_FALSE(parsed.options.csv);
  EXPECT_EQ(parsed.options.cache, reduce::CacheState::kClean);  // timed runs start from a clean L2
}

TEST(Options, CsvFlag) {
  const auto parsed = parse({"--csv", "--n", "64"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_TRUE(parsed.options.csv);
  EXPECT_EQ(parsed.options.n, 64u);
}

TEST(Options, DirtyL2Flag) {
  const auto parsed = parse({"--n", "64", "--dirty-l2"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.cache, reduce::CacheState::kDirty);
  EXPECT_FALSE(parse({"--dirty-l2=1"}).ok());  // a flag, not an option with a value
}

TEST(Options, SpaceAndEqualsForms) {
  const auto parsed = parse({"--n", "1024", "--block=64", "--seed", "0", "--repeat=3",
                             "--device", "1"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.n, 1024u);
  EXPECT_EQ(parsed.options.block, 64u);
  EXPECT_EQ(parsed.options.seed, 0u);
  EXPECT_EQ(parsed.options.repeat, 3);
  EXPECT_EQ(parsed.options.device, 1);
}

TEST(Options, Limits) {
  EXPECT_TRUE(parse({"--n", "1"}).ok());
  EXPECT_TRUE(parse({"--n", "2147483647"}).ok());
  EXPECT_TRUE(parse({"--seed", "4294967295"}).ok());
  EXPECT_TRUE(parse({"--repeat", "1000"}).ok());
  for (const char* block : {"32", "64", "128", "256", "512", "1024"}) {
    EXPECT_TRUE(parse({"--block", block}).ok()) << block;
  }
}

TEST(Options, Help) {
  EXPECT_TRUE(parse({"--help"}).options.help);
  EXPECT_TRUE(parse({"-h"}).options.help);
  const std::string text = reduce::usage("stage07", {.number = 7, .sizes = reduce::SizeRule::kMultipleOfBlock});
  for (const char* option : {"--n", "--block", "--seed", "--repeat", "--device", "--help"}) {
    EXPECT_NE(text.find(option), std::string::npos) << option;
  }
  EXPECT_NE(text.find("needs a multiple of --block"), std::string::npos);
  EXPECT_NE(reduce::usage("stage09", {.number = 9}).find("any length"),
            std::string::npos);
}

struct BadOption {
  std::vector<const char*> args;
  const char* names;    // the option the message must name
  const char* allowed;  // and a hint of what is allowed
};

// The case's name in ctest shows its arguments (gtest prints the parameter), not its bytes.
void PrintTo(const BadOption& bad, std::ostream* os) {
  for (std::size_t i = 0; i < bad.args.size(); ++i) {
    *os << (i == 0 ? "" : " ") << (*bad.args[i] == '\0' ? "''" : bad.args[i]);
  }
}

class BadOptions : public ::testing::TestWithParam<BadOption> {};

TEST_P(BadOptions, OneLineNamingTheOptionAndWhatIsAllowed) {
  const BadOption& bad = GetParam();
  std::vector<const char*> argv{"stage07"};
  argv.insert(argv.end(), bad.args.begin(), bad.args.end());
  const auto parsed = reduce::parse_options(static_cast<int>(argv.size()), argv.data());
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error.find(bad.names), std::string::npos) << parsed.error;
  EXPECT_NE(parsed.error.find(bad.allowed), std::string::npos) << parsed.error;
  EXPECT_EQ(parsed.error.find('\n'), std::string::npos) << parsed.error;
}

INSTANTIATE_TEST_SUITE_P(
    Options, BadOptions,
    ::testing::Values(
        BadOption{{"--n", "0"}, "--n", "from 1 to 2147483647"},
        BadOption{{"--n", "-5"}, "--n", "from 1 to 2147483647"},
        BadOption{{"--n", "abc"}, "--n", "'abc'"},
        BadOption{{"--n", "12x"}, "--n", "whole number"},
        BadOption{{"--n", "1e6"}, "--n", "whole number"},
        BadOption{{"--n", ""}, "--n", "whole number"},
        BadOption{{"--n", "2147483648"}, "--n", "2147483647"},
        BadOption{{"--n", "99999999999999999999999"}, "--n", "2147483647"},
        BadOption{{"--block", "100"}, "--block", "power of two"},
        BadOption{{"--block", "16"}, "--block", "32, 64, 128, 256, 512 or 1024"},
        BadOption{{"--block", "2048"}, "--block", "32, 64, 128, 256, 512 or 1024"},
        BadOption{{"--block", "0"}, "--block", "power of two"},
        BadOption{{"--block", "-256"}, "--block", "power of two"},
        BadOption{{"--block=big"}, "--block", "power of two"},
        BadOption{{"--seed", "-1"}, "--seed", "from 0 to 4294967295"},
        BadOption{{"--seed", "4294967296"}, "--seed", "from 0 to 4294967295"},
        BadOption{{"--repeat", "0"}, "--repeat", "from 1 to 1000"},
        BadOption{{"--repeat", "1001"}, "--repeat", "from 1 to 1000"},
        BadOption{{"--device", "-1"}, "--device", "from 0 to 63"},
        BadOption{{"--device", "gpu0"}, "--device", "from 0 to 63"},
        BadOption{{"--n"}, "--n", "needs a value"},
        BadOption{{"--block"}, "--block", "needs a value"},
        BadOption{{"--size", "10"}, "--size", "--help"},
        BadOption{{"--bogus"}, "unknown option '--bogus'", "--help"},
        BadOption{{"--n", "1024", "--bogus"}, "unknown option '--bogus'", "--help"},
        BadOption{{"1024"}, "1024", "--n 16777216"}));

TEST(Options, VersionPicksOneOfAStagesVersions) {
  EXPECT_EQ(parse({"--n", "64"}).options.version, 0);  // 0: the stage's default
  const auto parsed = parse({"--version", "4"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.version, 4);
  // The errors point to --help, which names the stage's own count; they name no bound of
  // their own that --help would contradict.
  for (const char* bad : {"0", "17", "shuffle"}) {
    const auto refused = parse({"--version", bad});
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error.find("--help lists this stage's versions"), std::string::npos)
        << refused.error;
    EXPECT_EQ(refused.error.find("16"), std::string::npos) << refused.error;
  }
}

// The row stages' shape: n follows rows x cols; one given, the other keeps its default.
TEST(Options, RowsAndColsSetTheMatrixAndN) {
  auto parsed = parse({"--rows", "8", "--cols", "131072"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.rows, 8u);
  EXPECT_EQ(parsed.options.cols, 131072u);
  EXPECT_EQ(parsed.options.n, 8u * 131072u);
  EXPECT_TRUE(parsed.options.rows_given);
  EXPECT_FALSE(parsed.options.n_given);
  parsed = parse({"--cols=128"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.n, reduce::kDefaultRows * 128);
  EXPECT_EQ(parse({}).options.rows * parse({}).options.cols, parse({}).options.n);
}

TEST(Options, TooLargeAMatrixIsOneLine) {
  const auto parsed = parse({"--rows", "65536", "--cols", "65536"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.error.find("--rows 65536 --cols 65536"), std::string::npos) << parsed.error;
  EXPECT_EQ(parsed.error.find('\n'), std::string::npos);
  EXPECT_FALSE(parse({"--rows", "0"}).ok());
  EXPECT_FALSE(parse({"--cols", "-4"}).ok());
}

TEST(Options, OffsetAndScaleAreStrictDecimals) {
  auto parsed = parse({"--offset", "-1000", "--scale=2e3"});
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.options.offset, -1000.0);
  EXPECT_EQ(parsed.options.scale, 2000.0);
  EXPECT_TRUE(parse({"--offset", "0.5"}).ok());
  EXPECT_TRUE(parse({"--offset", ".5"}).ok());
  for (const char* bad : {"", "nan", "inf", "-inf", "1e400", "0x10", " 5", "5 ", "1,5", "2000000",
                          "abc", "+"}) {
    const auto p = parse({"--offset", bad});
    EXPECT_FALSE(p.ok()) << "'" << bad << "'";
    EXPECT_NE(p.error.find("--offset"), std::string::npos) << p.error;
  }
  for (const char* bad : {"0", "-1", "0.0"}) EXPECT_FALSE(parse({"--scale", bad}).ok()) << bad;
  EXPECT_EQ(parse({}).options.offset, 0.0);
  EXPECT_EQ(parse({}).options.scale, 1.0);
}

}  // namespace
