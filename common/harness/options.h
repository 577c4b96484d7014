// Command-line options every stage executable takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/harness/cache_state.h"
#include "common/harness/input.h"
#include "common/stage_rules.h"

namespace reduce {

struct Options {
  std::size_t n = kDefaultN;
  unsigned block = kDefaultBlock;
  std::uint32_t seed = kDefaultSeed;
  int repeat = 20;
  int device = 0;
  bool help = false;
  bool csv = false;  // one machine-readable line instead of the report (for the benchmark)
  bool describe = false;  // --describe: the stage's facts as one JSON line, no GPU needed
  CacheState cache = CacheState::kClean;  // --dirty-l2: kDirty
  int version = 0;  // --version V: which of a stage's versions runs; 0 = the stage's default
  // The row stages' matrix (--rows, --cols); n is always rows * cols for them.
  std::size_t rows = kDefaultRows;
  std::size_t cols = kDefaultCols;
  bool n_given = false;     // --n was on the command line
  bool rows_given = false;  // --rows or --cols was
  // Each input value is offset + scale * u, u from the seed's generator in [0, 1)
  // (--offset -1000 --scale 2000: logits from -1000 to 1000).
  double offset = 0.0;
  double scale = 1.0;
  // Stage 18: how many GPUs share the input (--gpus K, devices 0 to K-1); 0 = every one.
  int gpus = 0;
  // The grader's cross-check: --write-output FILE runs the stage once and writes its raw
  // result (float32 values) to FILE, no CPU reference computed; --verify-output FILE reads
  // such a file and judges it against the CPU reference for the same options, no GPU used
  // (an answer's executable, which runs no student code, does this).
  std::string write_output;
  std::string verify_output;
};

inline constexpr double kMaxMagnitude = 1.0e6;  // |--offset| and --scale

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

// What the options and the help text depend on: the facts of the stage's plan.
struct StageFacts {
  int number = 0;
  StageKind kind = StageKind::kVector;
  SizeRule sizes = SizeRule::kAnyLength;
  int versions = 1;
};

// One option a stage takes and its lines in --help.
struct OptionHelp {
  std::string name;  // "--n"
  std::string text;  // "  --n N        elements to reduce, ...\n"
};

// Every option this stage accepts, in --help's order: the one list --help prints and
// --describe names, so the two cannot disagree.
std::vector<OptionHelp> stage_options(const StageFacts& facts);

// The help text; it says which sizes the stage takes.
std::string usage(const std::string& program, const StageFacts& facts);

}  // namespace reduce
