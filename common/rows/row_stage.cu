// StageKind::kRows: a matrix through the stage, each value checked against the CPU's.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/harness/output_file.h"
#include "common/harness/report.h"
#include "common/harness/stage_kinds.h"
#include "common/rows/row_reference.h"
#include "common/rows/row_runner.h"

namespace reduce {
namespace {

void explain_mismatch(const RowTiming& timing, const RowReference& ref, const RowVerdict& last,
                      const RowVerdict& warmup, const Options& opt, const std::string& program) {
  if (!last.match) {
    std::fprintf(stderr, "%s: row %zu, column %zu: GPU %g, CPU %g%s\n", program.c_str(),
                 last.worst / opt.cols, last.worst % opt.cols,
                 static_cast<double>(timing.last_matrix()[last.worst]), ref.value(last.worst),
                 std::isnan(timing.last_matrix()[last.worst])
                     ? " (the harness fills the output with NaN before each run: a NaN there "
                       "was never written, or came from a NaN in the computation)"
                     : "");
  } else if (!warmup.match) {
    std::fprintf(stderr, "%s: the untimed warm-up run differs at row %zu, column %zu\n",
                 program.c_str(), warmup.worst / opt.cols, warmup.worst % opt.cols);
  }
}

}  // namespace

static LayerNormParams params_for(const StagePlan& plan, const Options& opt) {
  return plan.op == Operation::kLayerNorm ? layer_norm_params(opt.cols, opt.seed) : LayerNormParams{};
}

// --write-output: one untimed run, its matrix written raw; no CPU reference is made.
static int write_row_output(const StagePlan& plan, const Options& opt, const std::string& program) {
  const LayerNormParams params = params_for(plan, opt);
  RowRunner runner(plan, opt.rows, opt.cols);
  runner.upload(stage_input(opt));
  if (plan.op == Operation::kLayerNorm) runner.upload_params(params.gamma, params.beta);
  const std::vector<float> out = runner.run(opt.block);
  write_output_file(opt.write_output, out.data(), out.size());
  std::printf("%s: wrote the GPU's %zu x %zu matrix to %s\n", program.c_str(), opt.rows, opt.cols,
              opt.write_output.c_str());
  return kExitMatch;
}

int verify_row_output(const StagePlan& stage, const Options& opt, const std::string& program) {
  const StagePlan plan = with_version(stage, opt.version);
  const std::vector<float> got = read_output_file(opt.verify_output, opt.rows * opt.cols);
  const RowReference ref(plan.op, stage_input(opt), opt.rows, opt.cols, params_for(plan, opt));
  const RowVerdict verdict = ref.verify(got.data());
  std::printf("%s: %s %s for seed %u: largest error %.3e (tolerance %.1e) %s\n", program.c_str(),
              opt.verify_output.c_str(), verdict.match ? "matches the reference" : "does not match the reference",
              opt.seed, verdict.error, verdict.tolerance, verdict.match ? "✅" : "❌");
  return verdict.match ? kExitMatch : kExitMismatch;
}

int run_row_stage(const StagePlan& stage, const Options& opt, const std::string& program) {
  const StagePlan plan = with_version(stage, opt.version);
  if (!opt.write_output.empty()) return write_row_output(plan, opt, program);
  const std::vector<float> input = stage_input(opt);
  const LayerNormParams params = params_for(plan, opt);
  const auto start = std::chrono::steady_clock::now();
  const RowReference ref(plan.op, input, opt.rows, opt.cols, params);
  const auto stop = std::chrono::steady_clock::now();

  RowRunner runner(plan, opt.rows, opt.cols);
  runner.upload(input);
  if (plan.op == Operation::kLayerNorm) runner.upload_params(params.gamma, params.beta);
  const RowTiming timing = runner.time(opt.block, opt.repeat, opt.cache);
  const RowVerdict warmup = ref.verify(timing.warmup.data());
  // Where every timed run matched the warm-up bit for bit, the last one's verdict is its.
  const RowVerdict last =
      timing.disagreeing == 0 ? warmup : ref.verify(timing.last_matrix().data());
  explain_mismatch(timing, ref, last, warmup, opt, program);
  report_disagreeing_runs(program, timing.disagreeing, opt.repeat,
                          "a matrix other than the warm-up's", "compute every row from its input");
  const ReportData report{
      .title = opt.csv ? csv_title(stage, opt.version) : report_title(stage, opt.version),
      .n = opt.n,
      .cpu_sum = 0.0,
      .gpu_sum = 0.0f,
      .relative_error = last.error,
      .match = last.match && warmup.match && timing.disagreeing == 0,
      .cpu_ms = std::chrono::duration<double, std::milli>(stop - start).count(),
      .gpu_ms = timing.median_ms,
      .rows = opt.rows,
      .cols = opt.cols,
      .tolerance = last.tolerance,
      .error_scale = plan.op == Operation::kLayerNorm ? "its own scale" : "its row's largest"};
  return print_report(report, opt);
}

}  // namespace reduce
