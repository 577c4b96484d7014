#include "common/harness/stage_kinds.h"

#include <chrono>
#include <cstdio>

#include "common/harness/input.h"

namespace reduce {

std::string stage_title(const StagePlan& plan) {
  return plan.title != nullptr ? plan.title : "Stage " + std::to_string(plan.number);
}

std::string report_title(const StagePlan& plan, int version) {
  std::string title = stage_title(plan);
  if (plan.op == Operation::kMax) title += " max";
  if (plan.op == Operation::kSoftmax) title += " softmax";
  if (plan.op == Operation::kLayerNorm) title += " layer norm";
  if (plan.default_version() > 1) {
    const int shown = version > 0 ? version : plan.default_version();
    title += ", version " + std::to_string(shown) + " of " +
             std::to_string(plan.default_version()) + " (" + plan.version(shown).technique + ")";
  }
  return title;
}

std::string csv_title(const StagePlan& plan, int version) {
  return stage_title(plan) + (version > 0 ? " v" + std::to_string(version) : "");
}

std::vector<float> stage_input(const Options& opt) {
  std::vector<float> input = generate_input(opt.n, opt.seed);
  shift_and_scale(input, opt.offset, opt.scale);
  return input;
}

Reference timed_reference(Operation op, const std::vector<float>& input, double* cpu_ms) {
  const auto start = std::chrono::steady_clock::now();
  const Reference ref = reference_for(op, input.data(), input.size());
  const auto stop = std::chrono::steady_clock::now();
  *cpu_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return ref;
}

void report_disagreeing_runs(const std::string& program, int disagreeing, int repeat,
                             const std::string& result, const std::string& duty) {
  if (disagreeing == 0) return;
  const std::string problem = std::to_string(disagreeing) + " of " + std::to_string(repeat) +
                              " timed runs gave " + result + ": every run must " + duty;
  std::fprintf(stderr, "%s: %s\n", program.c_str(), problem.c_str());
  report_failure("tests.repeat", problem);
}

int print_report(const ReportData& report, const Options& opt) {
  if (opt.csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::fputs(format_report(report).c_str(), stdout);
  }
  return report.match ? kExitMatch : kExitMismatch;
}

}  // namespace reduce
