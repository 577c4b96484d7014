#include "common/harness/report.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace reduce {

double bandwidth_gbps(std::size_t n, double ms) {
  if (!(ms > 0.0)) return 0.0;
  return static_cast<double>(n) * sizeof(float) / (ms * 1.0e6);
}

double report_gbps(const ReportData& r) {
  return (r.rows > 0 ? 2.0 : 1.0) * bandwidth_gbps(r.n, r.gpu_ms);
}

namespace {

// printf writes "-nan" for a NaN with its sign bit set (the harness's poison pattern
// is one); a sign on NaN means nothing, so every NaN prints as "nan".
std::string number(const char* format, double value) {
  if (std::isnan(value)) return "nan";
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string format_row_report(const ReportData& r) {
  char buffer[640];
  std::snprintf(buffer, sizeof buffer,
                "%s %s\n"
                "\n"
                "Input size: %zu elements (%zu rows x %zu columns)\n"
                "Relative error: %s (the largest over the values, each against %s; "
                "allowed %.1e)\n"
                "\n"
                "Timing:\n"
                "  CPU time : %.3f ms\n"
                "  GPU time : %.4f ms\n"
                "  Bandwidth: %.1f GB/s (each value read once and written once)\n",
                r.title.c_str(), r.match ? "matches reference ✅" : "does not match reference ❌", r.n,
                r.rows, r.cols, number("%.3e", r.relative_error).c_str(), r.error_scale,
                r.tolerance, r.cpu_ms,
                r.gpu_ms, report_gbps(r));
  return buffer;
}

}  // namespace

void report_failure(const std::string& key, const std::string& details) {
  std::fprintf(stderr, "reduce-failure: %s %s\n", key.c_str(), details.c_str());
}

std::string format_report(const ReportData& r) {
  if (r.rows > 0) return format_row_report(r);
  char buffer[640];
  std::snprintf(buffer, sizeof buffer,
                "%s reduction %s\n"
                "\n"
                "Input size: %zu elements\n"
                "CPU %s : %s\n"
                "GPU %s : %s\n"
                "Relative error: %s%s\n"
                "\n"
                "Timing:\n"
                "  CPU time : %.3f ms\n"
                "  GPU time : %.4f ms\n"
                "  Bandwidth: %.1f GB/s\n",
                r.title.c_str(), r.match ? "matches reference ✅" : "does not match reference ❌", r.n,
                r.quantity, number("%.6f", r.cpu_sum).c_str(), r.quantity,
                number("%.6f", r.gpu_sum).c_str(), number("%.3e", r.relative_error).c_str(),
                r.exact ? " (the max must match exactly)" : "", r.cpu_ms, r.gpu_ms,
                bandwidth_gbps(r.n, r.gpu_ms));
  return buffer + (r.argmax_line.empty() ? "" : r.argmax_line + "\n");
}

std::string format_csv(const ReportData& r, unsigned block) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, "%s,%zu,%u,%.6f,%.2f,%s,%d", r.title.c_str(), r.n, block,
                r.gpu_ms, report_gbps(r), number("%.3e", r.relative_error).c_str(),
                r.match ? 1 : 0);
  return buffer;
}

}  // namespace reduce
