// bench_memory: what the memory could do at most, the benchmark's physical limit. Prints
// the device's memory clock (kHz) and bus width (bits) as the driver reports them; the
// benchmark (scripts/course/gpu.py, peak_gbps) turns them into the theoretical bandwidth,
// 2 transfers per clock (DDR, HBM) x clock x bus width / 8: 3.35 TB/s on an H100 SXM.
// Nothing is timed: no kernel can read faster than this, so every measured time is above
// empty launch + bytes / this bandwidth.
#include <cstdio>

#include "common/cuda_check.h"
#include "common/harness/cli.h"
#include "common/harness/report.h"

namespace {

using namespace reduce;

int run_memory(const Program& program) {
  const Options& opt = program.options;
  int clock_khz = 0;
  int bus_bits = 0;
  // cudaDeviceProp lost memoryClockRate in CUDA 13; the attribute is still there.
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, opt.device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, opt.device));
  const double peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  if (opt.csv) {
    std::printf("memory,%d,%d,%.1f\n", clock_khz, bus_bits, peak_gbps);
  } else {
    std::printf("Memory clock %d kHz, bus %d bits: theoretical bandwidth %.1f GB/s\n", clock_khz,
                bus_bits, peak_gbps);
  }
  return kExitMatch;
}

}  // namespace

int main(int argc, char** argv) {
  const ProgramSpec spec{
      "Usage: " + std::string(argv[0]) + " [--device D] [--csv]\n"
          "Prints the device's memory clock and bus width and the theoretical bandwidth they\n"
          "give (2 x clock x bus width / 8). Exit codes: 0, 2 bad option, 3 no CUDA device,\n"
          "4 CUDA error.\n",
      nullptr,
      [](const Options&) { return std::size_t{0}; }};
  return run_program(argc, argv, spec, run_memory);
}
