// The one runner per StageKind that main() (stage_main.cu) dispatches to, and what they
// share: the input, the CPU's timed reference, the report's titles and the report itself.
#pragma once

#include <string>
#include <vector>

#include "common/harness/options.h"
#include "common/harness/reference.h"
#include "common/harness/report.h"
#include "common/stage.h"

namespace reduce {

int run_vector_stage(const StagePlan& plan, const Options& opt, const std::string& program);
int run_row_stage(const StagePlan& plan, const Options& opt, const std::string& program);
// --verify-output for the two kinds that write one (options.h): the CPU alone, exit 0 or 1.
int verify_vector_output(const StagePlan& plan, const Options& opt, const std::string& program);
int verify_row_output(const StagePlan& plan, const Options& opt, const std::string& program);
int run_host_stage(const StagePlan& plan, const Options& opt, const std::string& program);
// kMultiGpu (common/multi_gpu/multi_gpu_stage.cu): linked into the many-GPU stage alone,
// which needs NCCL.
int run_multi_gpu_stage(const StagePlan& plan, const Options& opt, const std::string& program);
std::size_t multi_gpu_stage_bytes(const StagePlan& plan, const Options& opt);

// "Stage 15 max, version 4 of 6 (warp shuffle)"; `version` 0 is the default version.
std::string report_title(const StagePlan& plan, int version);
// The --csv name: "Stage 15", or "Stage 15 v4" when a version was asked for.
std::string csv_title(const StagePlan& plan, int version);
std::string stage_title(const StagePlan& plan);

std::vector<float> stage_input(const Options& opt);
Reference timed_reference(Operation op, const std::vector<float>& input, double* cpu_ms);

// Says in one line on stderr, with the failure key tests.repeat, that `disagreeing` of the
// `repeat` timed runs gave `result` (e.g. "a matrix other than the warm-up's") and what
// every run must do instead; nothing when none did.
void report_disagreeing_runs(const std::string& program, int disagreeing, int repeat,
                             const std::string& result, const std::string& duty);

// Prints the report (or its --csv line) and returns the exit code of its verdict.
int print_report(const ReportData& report, const Options& opt);

}  // namespace reduce
