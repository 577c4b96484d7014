// The main() every stage executable shares: options, device, input, reference, timed
// runs, verification and the report. The stage file only supplies reduce::stage_plan().
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/cli.h"
#include "common/input.h"
#include "common/options.h"
#include "common/reference.h"
#include "common/report.h"
#include "common/runner.h"
#include "common/stage.h"

namespace {

using namespace reduce;

std::string stage_title(const StagePlan& plan) {
  return plan.title != nullptr ? plan.title : "Stage " + std::to_string(plan.number);
}

ReferenceSum timed_reference(const std::vector<float>& input, double* cpu_ms) {
  const auto start = std::chrono::steady_clock::now();
  const ReferenceSum ref = reference_sum(input.data(), input.size());
  const auto stop = std::chrono::steady_clock::now();
  *cpu_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return ref;
}

int run_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  const std::vector<float> input = generate_input(opt.n, opt.seed);
  double cpu_ms = 0.0;
  const ReferenceSum ref = timed_reference(input, &cpu_ms);

  StageRunner runner(plan, opt.n);
  runner.upload(input);
  const Timing timing = runner.time(opt.block, opt.repeat, opt.cache);

  const Verdict warmup = verify(timing.warmup.sum, ref, opt.n);
  const Verdict last = verify(timing.last.sum, ref, opt.n);
  if (!std::isfinite(timing.last.sum)) {
    std::fprintf(stderr,
                 "%s: the GPU sum is not a number: the harness fills the block sums with NaN "
                 "before each run, so some block's sum was never written (or the input "
                 "overflowed)\n",
                 program.c_str());
  }
  if (!warmup.match && last.match) {  // otherwise the report itself shows the failure
    std::fprintf(stderr, "%s: the untimed warm-up run gave %.6f\n", program.c_str(),
                 static_cast<double>(timing.warmup.sum));
  }
  const ReportData report{stage_title(plan), opt.n,          ref.sum,
                          timing.last.sum,   last.relative_error, last.match && warmup.match,
                          cpu_ms,            timing.median_ms};
  if (opt.csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::fputs(format_report(report).c_str(), stdout);
  }
  return report.match ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const StagePlan& plan = stage_plan();
  const ProgramSpec spec{
      usage(argv[0], plan.number, plan.sizes),
      [&](const Options& opt) { return check_size(plan.sizes, plan.number, opt.n, opt.block); },
      [&](std::size_t n) { return StageRunner::bytes_needed(plan, n); }};
  return run_program(argc, argv, spec,
                     [&](const Program& program) { return run_stage(plan, program.options, program.name); });
}
