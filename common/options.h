// Command-line options every stage executable takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cache_state.h"
#include "common/input.h"
#include "common/stage_rules.h"

namespace reduce {

struct Options {
  std::size_t n = kDefaultN;
  unsigned block = 256;
  std::uint32_t seed = kDefaultSeed;
  int repeat = 20;
  int device = 0;
  bool help = false;
  bool csv = false;  // one machine-readable line instead of the report (for the benchmark)
  CacheState cache = CacheState::kClean;  // --dirty-l2: kDirty
  int version = 0;  // --version V: which of a stage's versions runs; 0 = the stage's default
};

inline constexpr int kMaxRepeat = 1000;
inline constexpr int kMaxDeviceIndex = 63;
inline constexpr int kMaxVersion = 16;

struct ParsedOptions {
  Options options;
  std::string error;  // empty on success; otherwise one line naming the option
  bool ok() const { return error.empty(); }
};

// Accepts `--name value` and `--name=value`. Values must be plain decimal numbers.
ParsedOptions parse_options(int argc, const char* const* argv);

// The help text; it says which sizes the stage takes.
std::string usage(const std::string& program, int stage_number, SizeRule sizes);

}  // namespace reduce
