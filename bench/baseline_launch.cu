// bench_launch: the fixed cost of one timed launch, half of the benchmark's floor. An
// empty kernel of one thread, timed like the stages: warm-up, the L2 put into the same
// state before each run, CUDA events around the launch, median of --repeat runs. No
// kernel can finish sooner than this after its start event.
#include <cstdio>

#include "common/harness/cli.h"
#include "common/harness/report.h"
#include "common/harness/timing.h"

namespace {

using namespace reduce;

__global__ void empty_kernel() {}

void launch_empty() {
  empty_kernel<<<1, 1, 0, 0>>>();
  CUDA_CHECK_LAUNCH("empty_kernel");
}

int run_launch(const Program& program) {
  const Options& opt = program.options;
  L2Flusher l2(opt.cache);
  launch_empty();  // warm-up: loads the module
  const double ms = median_event_ms(opt.repeat, l2, [] {}, launch_empty);
  if (opt.csv) {
    // n plays no part; it is echoed so the benchmark can file the row with its size.
    std::printf("launch,%zu,1,%.6f,0.00,0.000e+00,1\n", opt.n, ms);
  } else {
    std::printf("Empty kernel launch (one block of one thread)\n\n  GPU time : %.4f ms\n", ms);
  }
  return kExitMatch;
}

}  // namespace

int main(int argc, char** argv) {
  const ProgramSpec spec{
      "Usage: " + std::string(argv[0]) +
          " [--n N] [--repeat R] [--device D] [--csv] [--dirty-l2]\n"
          "Times an empty kernel launch between two CUDA events (the fixed cost every\n"
          "timed stage pays). --n, --seed and --block are accepted and play no part.\n"
          "Exit codes: 0 measured, 2 bad option, 3 no CUDA device, 4 CUDA error.\n",
      nullptr,
      [](const Options&) { return L2Flusher::bytes(); }};
  return run_program(argc, argv, spec, run_launch);
}
