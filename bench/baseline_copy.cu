// bench_copy: a device-to-device copy (cudaMemcpyAsync) of the same n floats, timed like
// the stages: warm-up, the L2 put into the same state before each run, median of
// --repeat runs. Its bandwidth counts bytes read plus bytes written; a reduction only
// reads, so its floor is bench_read's, not this.
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/harness/cli.h"
#include "common/device_buffer.h"
#include "common/harness/input.h"
#include "common/harness/report.h"
#include "common/harness/timing.h"

namespace {

using namespace reduce;

int run_copy(const Program& program) {
  const Options& opt = program.options;
  const std::vector<float> input = generate_input(opt.n, opt.seed);
  const std::size_t bytes = opt.n * sizeof(float);
  DeviceBuffer<float> source(opt.n), target(opt.n);
  CUDA_CHECK(cudaMemcpy(source.get(), input.data(), bytes, cudaMemcpyHostToDevice));
  L2Flusher l2(opt.cache);
  const auto copy = [&] {
    CUDA_CHECK(cudaMemcpyAsync(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice, 0));
  };
  copy();  // warm-up
  const double ms = median_event_ms(
      opt.repeat, l2, [&] { CUDA_CHECK(cudaMemsetAsync(target.get(), 0xFF, bytes, 0)); }, copy);

  std::vector<float> copied(opt.n);
  CUDA_CHECK(cudaMemcpy(copied.data(), target.get(), bytes, cudaMemcpyDeviceToHost));
  const bool match = std::memcmp(copied.data(), input.data(), bytes) == 0;
  const double gbps = 2.0 * bandwidth_gbps(opt.n, ms);  // read and write
  if (opt.csv) {
    std::printf("copy,%zu,0,%.6f,%.2f,%s,%d\n", opt.n, ms, gbps, match ? "0.000e+00" : "nan",
                match ? 1 : 0);
  } else {
    std::printf("Device-to-device copy of %zu floats %s\n\n  GPU time : %.4f ms\n"
                "  Bandwidth: %.1f GB/s (bytes read + bytes written)\n",
                opt.n, match ? "matches the input ✅" : "does not match the input ❌", ms, gbps);
  }
  return match ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const ProgramSpec spec{
      "Usage: " + std::string(argv[0]) +
          " [--n N] [--seed S] [--repeat R] [--device D] [--csv] [--dirty-l2]\n"
          "Times a device-to-device copy of N floats (bytes read plus bytes written) and\n"
          "checks the copy. --block is accepted and ignored. Exit codes as for the stages.\n",
      nullptr,
      [](const Options& opt) { return 2 * opt.n * sizeof(float) + L2Flusher::bytes(); }};
  return run_program(argc, argv, spec, run_copy);
}
