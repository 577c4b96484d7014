// StageKind::kVector: one vector in, one value out (a sum or a max), through Launch.
#include <cmath>
#include <cstdio>
#include <string>

#include "common/harness/output_file.h"
#include "common/harness/runner.h"
#include "common/harness/stage_kinds.h"

namespace reduce {
namespace {

const char* quantity(Operation op) { return op == Operation::kMax ? "max" : "sum"; }

// Stage 15's argmax, untimed, after the timed runs: its line joins the report and its
// verdict the report's. A run of one --version leaves it out, so each version can be
// checked on its own.
bool check_argmax(const StagePlan& plan, StageRunner& runner, const std::vector<float>& input,
                  const Options& opt, std::string* line) {
  if (plan.argmax == nullptr || opt.version != 0) return true;
  const std::size_t gpu = runner.argmax(opt.block);
  const std::size_t cpu = reference_argmax(input.data(), input.size());
  const std::string shown = gpu == StageRunner::kNoIndex ? "none" : std::to_string(gpu);
  *line = "Argmax  : GPU " + shown + ", CPU " + std::to_string(cpu) + (gpu == cpu ? " ✅" : " ❌");
  return gpu == cpu;
}

void explain_unwritten(const StagePlan& plan, float got, const Reference& ref,
                       const std::string& program) {
  const bool unwritten = plan.op == Operation::kMax ? std::isnan(got) && !std::isnan(ref.value)
                                                    : !std::isfinite(got);
  if (!unwritten) return;
  std::fprintf(stderr,
               "%s: the GPU %s is not a number: the harness fills the block results with NaN "
               "before each run, so some block's %s was never written%s\n",
               program.c_str(), quantity(plan.op), quantity(plan.op),
               plan.op == Operation::kSum ? " (or the input overflowed)" : "");
}

}  // namespace

// --write-output: one untimed run, its result written raw. No CPU reference is made: the
// process that runs the student's kernel never holds the right answer.
static int write_vector_output(const StagePlan& plan, const Options& opt, const std::string& program) {
  StageRunner runner(plan, opt.n);
  runner.upload(stage_input(opt));
  const RunOutput out = runner.run(opt.block);
  write_output_file(opt.write_output, &out.sum, 1);
  std::printf("%s: wrote the GPU %s to %s\n", program.c_str(), quantity(plan.op),
              opt.write_output.c_str());
  return kExitMatch;
}

int verify_vector_output(const StagePlan& stage, const Options& opt, const std::string& program) {
  const StagePlan plan = with_version(stage, opt.version);
  const float got = read_output_file(opt.verify_output, 1)[0];
  double cpu_ms = 0.0;
  const Verdict verdict = verify(got, timed_reference(plan.op, stage_input(opt), &cpu_ms));
  std::printf("%s: %s %s for seed %u: GPU %.9g, relative error %.3e %s\n", program.c_str(),
              opt.verify_output.c_str(), verdict.match ? "matches the reference" : "does not match the reference",
              opt.seed, static_cast<double>(got), verdict.relative_error, verdict.match ? "✅" : "❌");
  return verdict.match ? kExitMatch : kExitMismatch;
}

int run_vector_stage(const StagePlan& stage, const Options& opt, const std::string& program) {
  const StagePlan plan = with_version(stage, opt.version);
  if (!opt.write_output.empty()) return write_vector_output(plan, opt, program);
  const std::vector<float> input = stage_input(opt);
  double cpu_ms = 0.0;
  const Reference ref = timed_reference(plan.op, input, &cpu_ms);

  StageRunner runner(plan, opt.n);
  runner.upload(input);
  const Timing timing = runner.time(opt.block, opt.repeat, opt.cache);

  const Verdict warmup = verify(timing.warmup.sum, ref);
  const Verdict last = verify(timing.last.sum, ref);
  explain_unwritten(plan, timing.last.sum, ref, program);
  if (!warmup.match && last.match) {  // otherwise the report itself shows the failure
    std::fprintf(stderr, "%s: the untimed warm-up run gave %.6f\n", program.c_str(),
                 static_cast<double>(timing.warmup.sum));
  }
  const bool runs_agree = timing.disagreeing == 0;
  report_disagreeing_runs(program, timing.disagreeing, opt.repeat,
                          std::string("a ") + quantity(plan.op) + " other than the warm-up's (first: " +
                              std::to_string(timing.first_disagreeing) + " against " +
                              std::to_string(timing.warmup.sum) + ")",
                          "compute it from its input");
  std::string argmax_line;
  const bool argmax_ok = check_argmax(plan, runner, input, opt, &argmax_line);
  ReportData report{
      .title = opt.csv ? csv_title(stage, opt.version) : report_title(stage, opt.version),
      .n = opt.n,
      .cpu_sum = ref.value,
      .gpu_sum = timing.last.sum,
      .relative_error = last.relative_error,
      .match = last.match && warmup.match && runs_agree && argmax_ok,
      .cpu_ms = cpu_ms,
      .gpu_ms = timing.median_ms,
      .quantity = quantity(plan.op),
      .exact = plan.op == Operation::kMax,
      .argmax_line = argmax_line};
  return print_report(report, opt);
}

}  // namespace reduce
