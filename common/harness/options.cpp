#include "common/harness/options.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "common/harness/report.h"
#include "common/stage_rules.h"

namespace reduce {
namespace {

// Strict decimal: digits only, no sign, no spaces, no overflow past `max`.
bool parse_whole(std::string_view text, unsigned long long max, unsigned long long* out) {
  if (text.empty() || text.size() > 20) return false;
  unsigned long long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const unsigned digit = static_cast<unsigned>(c - '0');
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

// Strict decimal number: an optional '-', digits with at most one '.', an optional
// exponent (1e4, 2.5E-3); no spaces, no hex, no inf or nan.
bool parse_decimal(std::string_view text, double* out) {
  if (text.empty() || text.size() > 32) return false;
  for (char c : text) {
    const bool allowed = (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' ||
                         c == 'e' || c == 'E';
    if (!allowed) return false;
  }
  if (!((text[0] >= '0' && text[0] <= '9') || text[0] == '-' || text[0] == '.')) return false;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return false;
  *out = value;
  return true;
}

std::string range_error(std::string_view name, unsigned long long lo, unsigned long long hi,
                        std::string_view got) {
  std::ostringstream msg;
  msg << name << " must be a whole number from " << lo << " to " << hi << " (got '" << got
      << "')";
  return msg.str();
}

bool takes_value(std::string_view name) {
  for (std::string_view known : {"--n", "--block", "--seed", "--repeat", "--device", "--version", "--rows",
                                "--cols", "--offset", "--scale", "--gpus", "--write-output",
                                "--verify-output"}) {
    if (name == known) return true;
  }
  return false;
}

std::string unknown_option(std::string_view name) {
  return "unknown option '" + std::string(name) + "'; run with --help to see the options";
}

// Applies one option's value; returns an error line or "".
std::string apply(std::string_view name, std::string_view value, Options* opt) {
  unsigned long long v = 0;
  if (name == "--n") {
    if (!parse_whole(value, kMaxN, &v) || v == 0) return range_error(name, 1, kMaxN, value);
    opt->n = v;
    opt->n_given = true;
  } else if (name == "--rows" || name == "--cols") {
    if (!parse_whole(value, kMaxN, &v) || v == 0) return range_error(name, 1, kMaxN, value);
    (name == "--rows" ? opt->rows : opt->cols) = v;
    opt->rows_given = true;
  } else if (name == "--offset" || name == "--scale") {
    double d = 0.0;
    const bool scale = name == "--scale";
    if (!parse_decimal(value, &d) || std::fabs(d) > kMaxMagnitude || (scale && d <= 0.0)) {
      return std::string(name) + " must be a decimal number " +
             (scale ? "above 0 and at most 1000000" : "from -1000000 to 1000000") + " (got '" +
             std::string(value) + "')";
    }
    (scale ? opt->scale : opt->offset) = d;
  } else if (name == "--block") {
    if (!parse_whole(value, kMaxBlock, &v) || !is_valid_block(v)) {
      return "--block must be a power of two from " + std::to_string(kMinBlock) + " to " +
             std::to_string(kMaxBlock) + ": " + block_sizes_text() + " (got '" +
             std::string(value) + "')";
    }
    opt->block = static_cast<unsigned>(v);
  } else if (name == "--seed") {
    if (!parse_whole(value, 4294967295ull, &v)) return range_error(name, 0, 4294967295ull, value);
    opt->seed = static_cast<std::uint32_t>(v);
  } else if (name == "--repeat") {
    if (!parse_whole(value, kMaxRepeat, &v) || v == 0) return range_error(name, 1, kMaxRepeat, value);
    opt->repeat = static_cast<int>(v);
  } else if (name == "--device") {
    if (!parse_whole(value, kMaxDeviceIndex, &v)) {
      return range_error(name, 0, kMaxDeviceIndex, value) + "; reduce_probe lists the devices";
    }
    opt->device = static_cast<int>(v);
  } else if (name == "--gpus") {
    if (!parse_whole(value, kMaxDeviceIndex + 1, &v) || v == 0) {
      return range_error(name, 1, kMaxDeviceIndex + 1, value) + "; reduce_probe counts the devices";
    }
    opt->gpus = static_cast<int>(v);
  } else if (name == "--write-output" || name == "--verify-output") {
    if (value.empty()) return std::string(name) + " needs a file name, e.g. " + std::string(name) + " out.bin";
    (name == "--write-output" ? opt->write_output : opt->verify_output) = std::string(value);
    if (!opt->write_output.empty() && !opt->verify_output.empty()) {
      return "--write-output and --verify-output: give one of them";
    }
  } else if (name == "--version") {
    // The stage's own count is checked once the plan is known (stage_main.cu); a bound here
    // would contradict --help, which names that count.
    if (!parse_whole(value, kMaxVersion, &v) || v == 0) {
      const bool big = parse_whole(value, ~0ull, &v) && v > 0;
      return std::string(big ? "--version: no stage has that many versions"
                             : "--version must be a version number, 1 or more") +
             "; --help lists this stage's versions (got '" + std::string(value) + "')";
    }
    opt->version = static_cast<int>(v);
  } else {
    return unknown_option(name);
  }
  return "";
}

}  // namespace

ParsedOptions parse_options(int argc, const char* const* argv) {
  ParsedOptions parsed;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      parsed.options.help = true;
      continue;
    }
    if (arg == "--csv") {
      parsed.options.csv = true;
      continue;
    }
    if (arg == "--describe") {
      parsed.options.describe = true;
      continue;
    }
    if (arg == "--dirty-l2") {
      parsed.options.cache = CacheState::kDirty;
      continue;
    }
    if (arg.substr(0, 2) != "--") {
      parsed.error = "unexpected argument '" + std::string(arg) +
                     "'; options look like --n 16777216 (run with --help)";
      return parsed;
    }
    std::string_view name = arg;
    std::string_view value;
    const std::size_t eq = arg.find('=');
    if (eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (!takes_value(name)) {
      parsed.error = unknown_option(name);
      return parsed;
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      parsed.error = std::string(name) + " needs a value, e.g. " + std::string(name) + " 256";
      return parsed;
    }
    parsed.error = apply(name, value, &parsed.options);
    if (!parsed.ok()) return parsed;
  }
  Options& opt = parsed.options;
  if (opt.rows_given) {
    if (opt.rows > kMaxN / opt.cols) {
      parsed.error = "--rows " + std::to_string(opt.rows) + " --cols " + std::to_string(opt.cols) +
                     " is more than " + std::to_string(kMaxN) +
                     " elements; make the matrix smaller";
      return parsed;
    }
    if (!opt.n_given) opt.n = opt.rows * opt.cols;
  }
  return parsed;
}

std::vector<OptionHelp> stage_options(const StageFacts& facts) {
  std::vector<OptionHelp> options;
  const auto add = [&](const char* name, const std::string& text) { options.push_back({name, text}); };
  if (facts.kind == StageKind::kRows) {
    add("--rows", "  --rows R     rows of the matrix (default " + std::to_string(kDefaultRows) + ")\n");
    add("--cols", "  --cols C     values per row (default " + std::to_string(kDefaultCols) +
                      "); rows x cols at most " + std::to_string(kMaxN) + "\n");
  } else {
    add("--n", "  --n N        elements to reduce, 1 to " + std::to_string(kMaxN) + " (default " +
                   std::to_string(kDefaultN) + ")" +
                   (facts.sizes == SizeRule::kMultipleOfBlock
                        ? ";\n               this stage needs a multiple of --block\n"
                        : ";\n               this stage takes any length\n"));
  }
  add("--block", "  --block B    threads per block: " + block_sizes_text() + " (default " +
                     std::to_string(kDefaultBlock) + ")\n");
  add("--seed", "  --seed S     std::mt19937 seed for the input, 0 to 4294967295 (default " +
                    std::to_string(kDefaultSeed) + ")\n");
  add("--offset", "  --offset O   each input value is O + S * u, u in [0, 1) from the seed (default 0)\n");
  add("--scale", "  --scale S    (default 1); --offset -1000 --scale 2000 gives values from -1000 to 1000\n");
  add("--repeat", "  --repeat R   timed runs, 1 to " + std::to_string(kMaxRepeat) +
                      "; the median is reported (default 20)\n");
  if (facts.kind == StageKind::kMultiGpu) {
    add("--gpus", "  --gpus K     spread the input over GPUs 0 to K-1 (default: every visible GPU;\n"
                  "               CUDA_VISIBLE_DEVICES picks which ones are visible)\n");
  } else {
    add("--device", "  --device D   CUDA device index (default 0)\n");
  }
  if (facts.versions > 1) {
    add("--version", "  --version V  which version runs, 1 to " + std::to_string(facts.versions) +
                         " (listed below)\n");
  }
  add("--csv", std::string("  --csv        print one line of ") + kCsvHeader + " instead of the report\n");
  add("--dirty-l2", "  --dirty-l2   start each timed run with the L2 full of dirty lines (a write-only\n"
                    "               flush) instead of clean (the default: nothing of the input in L2,\n"
                    "               nothing left to write back)\n");
  add("--describe", "  --describe   print this stage's facts as one JSON line and exit (no GPU needed)\n");
  if (facts.kind == StageKind::kVector || facts.kind == StageKind::kRows) {
    add("--write-output", "  --write-output FILE  run once, untimed, and write the result's raw float32\n"
                          "               values to FILE (no CPU reference; for the grader)\n");
    add("--verify-output", "  --verify-output FILE  judge FILE, as --write-output writes it for the same\n"
                           "               options, against the CPU reference (no GPU needed)\n");
  }
  add("--help", "  --help       this text\n");
  return options;
}

std::string usage(const std::string& program, const StageFacts& facts) {
  std::ostringstream out;
  out << "Usage: " << program << " [options]\n";
  if (facts.kind == StageKind::kRows) {
    out << "Runs stage " << facts.number << " on every row of a matrix, checks it against the "
        << "CPU and times it.\n\n";
  } else {
    out << "Runs stage " << facts.number << "'s reduction, checks it against the CPU and times it.\n\n";
  }
  for (const OptionHelp& option : stage_options(facts)) out << option.text;
  out << "\nExit codes: 0 matches the reference, 1 does not match, 2 bad option,\n"
      << "            3 no CUDA device, 4 CUDA"
      << (facts.kind == StageKind::kMultiGpu ? " or NCCL" : "") << " error.\n";
  return out.str();
}

}  // namespace reduce
