// The start and the end every executable shares: options, --help, the device checks,
// one-line errors and the exit codes. Only what happens in between differs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/harness/options.h"

namespace reduce {

struct Program {
  std::string name;  // "stage07_todo": the executable's file name, for messages
  Options options;
};

struct ProgramSpec {
  std::string help;                                         // printed for --help
  std::function<std::string(const Options&)> check;         // "" or a one-line option error
  std::function<std::size_t(const Options&)> device_bytes;  // device memory the run needs
  std::string describe;  // one JSON line for --describe; empty: the program has none
  // --verify-output: judges a written output on the CPU alone; empty: the program has none
  std::function<int(const Program&)> verify = {};
};

// Parses the options, answers --help, checks them, finds and selects the device and
// checks n fits, then returns body(program). Every failure on the way is one line on
// stderr and its exit code (2 bad option, 3 no CUDA device, 4 CUDA error).
int run_program(int argc, char** argv, const ProgramSpec& spec,
                const std::function<int(const Program&)>& body);

}  // namespace reduce
