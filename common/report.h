// The report every stage prints, and the exit codes it ends with.
#pragma once

#include <cstddef>
#include <string>

namespace reduce {

enum ExitCode : int {
  kExitMatch = 0,
  kExitMismatch = 1,
  kExitBadOption = 2,
  kExitNoDevice = 3,
  kExitCudaError = 4,
};

struct ReportData {
  int stage;
  std::size_t n;
  double cpu_sum;
  float gpu_sum;
  double relative_error;
  bool match;
  double cpu_ms;
  double gpu_ms;  // median of the timed runs
};

// Bytes the stage must read (each input float once) per second, in GB/s (10^9 bytes).
double bandwidth_gbps(std::size_t n, double ms);

std::string format_report(const ReportData& r);

}  // namespace reduce
