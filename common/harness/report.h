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
  std::string title;  // "Stage 7"
  std::size_t n;
  double cpu_sum;
  float gpu_sum;
  double relative_error;
  bool match;
  double cpu_ms;
  double gpu_ms;  // median of the timed runs
  const char* quantity = "sum";  // "max" for stage 15: its lines read "CPU max", "GPU max"
  bool exact = false;            // the result must equal the CPU's (max), not come within a bound
  // A row stage (16 on): its matrix's shape, and the largest error its rule allows. Its
  // relative_error is the largest over the values, each against its row's largest value.
  std::size_t rows = 0;
  std::size_t cols = 0;
  double tolerance = 0.0;
  const char* error_scale = "its row's largest";  // what each value's error is measured against
  std::string argmax_line;  // stage 15: "Argmax  : GPU 7, CPU 7 ✅", part of the verdict
};

// Bytes the stage must read (each input float once) per second, in GB/s (10^9 bytes).
double bandwidth_gbps(std::size_t n, double ms);

// The report's bandwidth: a row stage also writes each value once, so twice the bytes.
double report_gbps(const ReportData& r);

std::string format_report(const ReportData& r);

// One line on stderr, "reduce-failure: <key> <details>", that the student check reads
// (scripts' hint table, keyed the same) instead of the English sentence around it.
void report_failure(const std::string& key, const std::string& details);

// One machine-readable line (no newline) for --csv, in the columns of kCsvHeader.
inline constexpr const char* kCsvHeader = "name,n,block,gpu_ms,gbps,relative_error,match";
std::string format_csv(const ReportData& r, unsigned block);

}  // namespace reduce
