#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "common/harness/report.h"

namespace {

TEST(Report, MatchingReportInTheCourseFormat) {
  const reduce::ReportData data{"Stage 7", 16777216, 8388674.123456789, 8388674.0f, 1.4717e-8, true,
                                12.3456, 0.123456};
  const std::string expected =
      "Stage 7 reduction matches reference ✅\n"
      "\n"
      "Input size: 16777216 elements\n"
      "CPU sum : 8388674.123457\n"
      "GPU sum : 8388674.000000\n"
      "Relative error: 1.472e-08\n"
      "\n"
      "Timing:\n"
      "  CPU time : 12.346 ms\n"
      "  GPU time : 0.1235 ms\n"
      "  Bandwidth: 543.6 GB/s\n";
  EXPECT_EQ(reduce::format_report(data), expected);
}

TEST(Report, FailingReportSaysSoInItsFirstLine) {
  const reduce::ReportData data{"Stage 8", 1024, 512.5, std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<double>::quiet_NaN(), false, 0.01, 0.002};
  const std::string expected =
      "Stage 8 reduction does not match reference ❌\n"
      "\n"
      "Input size: 1024 elements\n"
      "CPU sum : 512.500000\n"
      "GPU sum : nan\n"
      "Relative error: nan\n"
      "\n"
      "Timing:\n"
      "  CPU time : 0.010 ms\n"
      "  GPU time : 0.0020 ms\n"
      "  Bandwidth: 2.0 GB/s\n";
  EXPECT_EQ(reduce::format_report(data), expected);
}

TEST(Report, CsvLineForTheBenchmark) {
  const reduce::ReportData data{"CUB", 16777216, 8388674.1, 8388674.0f, 1.4717e-8, true,
                                12.3, 0.036};
  EXPECT_EQ(reduce::format_csv(data, 256), "CUB,16777216,256,0.036000,1864.14,1.472e-08,1");
  EXPECT_STREQ(reduce::kCsvHeader, "name,n,block,gpu_ms,gbps,relative_error,match");
  const reduce::ReportData nan{"Stage 9", 1, 1.0, std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<double>::quiet_NaN(), false, 0.0, 0.01};
  EXPECT_EQ(reduce::format_csv(nan, 32), "Stage 9,1,32,0.010000,0.00,nan,0");
}

TEST(Report, BandwidthCountsEachInputFloatOnce) {
  EXPECT_DOUBLE_EQ(reduce::bandwidth_gbps(1000000, 1.0), 4.0);  // 4 MB in 1 ms
  EXPECT_DOUBLE_EQ(reduce::bandwidth_gbps(1u << 24, 0.0), 0.0);
}

TEST(Report, ExitCodesAreDistinct) {
  EXPECT_EQ(reduce::kExitMatch, 0);
  EXPECT_EQ(reduce::kExitMismatch, 1);
  EXPECT_EQ(reduce::kExitBadOption, 2);
  EXPECT_NE(reduce::kExitNoDevice, reduce::kExitCudaError);
  EXPECT_GT(reduce::kExitNoDevice, 2);
  EXPECT_GT(reduce::kExitCudaError, 2);
}

TEST(Report, MaxReportNamesItsQuantityAndExactness) {
  reduce::ReportData data{"Stage 15 max, version 4 of 6 (warp shuffle)", 1000, 0.999, 0.999f,
                          0.0, true, 0.01, 0.002};
  data.quantity = "max";
  data.exact = true;
  const std::string report = reduce::format_report(data);
  EXPECT_EQ(report.rfind("Stage 15 max, version 4 of 6 (warp shuffle) reduction matches", 0), 0u);
  EXPECT_NE(report.find("CPU max : 0.999000\n"), std::string::npos) << report;
  EXPECT_NE(report.find("GPU max : 0.999000\n"), std::string::npos) << report;
  EXPECT_NE(report.find("(the max must match exactly)"), std::string::npos) << report;
}

TEST(Report, RowStageReportNamesTheMatrixAndTheRule) {
  reduce::ReportData data{"Stage 16 softmax, version 2 of 5 (three passes, a warp per row)",
                          16777216, 0.0, 0.0f, 3.2e-7, true, 300.0, 0.05};
  data.rows = 16384;
  data.cols = 1024;
  data.tolerance = 4.77e-6;
  const std::string expected =
      "Stage 16 softmax, version 2 of 5 (three passes, a warp per row) matches reference ✅\n"
      "\n"
      "Input size: 16777216 elements (16384 rows x 1024 columns)\n"
      "Relative error: 3.200e-07 (the largest over the values, each against its row's largest; "
      "allowed 4.8e-06)\n"
      "\n"
      "Timing:\n"
      "  CPU time : 300.000 ms\n"
      "  GPU time : 0.0500 ms\n"
      "  Bandwidth: 2684.4 GB/s (each value read once and written once)\n";
  EXPECT_EQ(reduce::format_report(data), expected);
  // Read once and written once: twice the bytes of a reduction over the same values.
  EXPECT_DOUBLE_EQ(reduce::report_gbps(data), 2.0 * reduce::bandwidth_gbps(16777216, 0.05));
  EXPECT_EQ(reduce::format_csv(data, 256).rfind("Stage 16 softmax, version 2 of 5", 0), 0u);
}

}  // namespace
