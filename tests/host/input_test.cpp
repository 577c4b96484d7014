#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "common/harness/input.h"

namespace {

using reduce::generate_input;
using reduce::unit_float;

// The first raw std::mt19937 outputs for seed 12345, computed by an independent
// implementation of the MT19937 reference algorithm (Matsumoto and Nishimura, 1998).
constexpr std::uint32_t kFirstRawOutputs[] = {3992670690u, 3823185381u, 1358822685u,
                                              561383553u, 789925284u};

TEST(Input, GeneratorMatchesTheMt19937Reference) {
  std::mt19937 generator(12345);
  for (std::uint32_t expected : kFirstRawOutputs) EXPECT_EQ(generator(), expected);
}

TEST(Input, FirstValuesForSeed12345) {
  const std::vector<float> values = generate_input(5);
  // (raw >> 8) / 2^24 for each raw output above, written out as exact decimals.
  EXPECT_EQ(values[0], 0.9296160340309143f);
  EXPECT_EQ(values[1], 0.8901546597480774f);
  EXPECT_EQ(values[2], 0.3163755536079407f);
  EXPECT_EQ(values[3], 0.1307072639465332f);
  EXPECT_EQ(values[4], 0.1839187741279602f);
}

TEST(Input, DefaultInputFingerprint) {
  const std::vector<float> values = generate_input(reduce::kDefaultN, reduce::kDefaultSeed);
  ASSERT_EQ(values.size(), 16777216u);
  // Pins every bit of the course's default input: if this changes, every number quoted
  // in the lessons changes with it.
  EXPECT_EQ(reduce::fingerprint(values), 0xb0bd9da6e7c938b4ull);
}

TEST(Input, SeedChangesTheInput) {
  EXPECT_NE(generate_input(16, 12345), generate_input(16, 12346));
  EXPECT_EQ(generate_input(16, 7), generate_input(16, 7));
}

TEST(Input, UnitFloatCoversZeroToJustBelowOne) {
  EXPECT_EQ(unit_float(0u), 0.0f);
  EXPECT_EQ(unit_float(0xFFu), 0.0f);  // the low 8 bits are dropped
  EXPECT_EQ(unit_float(0x100u), 1.0f / 16777216.0f);
  EXPECT_EQ(unit_float(0xFFFFFFFFu), 1.0f - 1.0f / 16777216.0f);
  EXPECT_LT(unit_float(0xFFFFFFFFu), 1.0f);
}

TEST(Input, UnitFloatIsExactAndMonotonic) {
  for (std::uint32_t top = 0; top < (1u << 24); top += 4099) {
    const float v = unit_float(top << 8);
    EXPECT_EQ(static_cast<double>(v), top / 16777216.0) << "top bits " << top;
    EXPECT_LT(v, unit_float((top + 1) << 8));
  }
}

TEST(Input, GeneratedValuesStayInRange) {
  for (float v : generate_input(100000, 99)) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
  }
}

}  // namespace
