// The main() every stage executable shares: options, device, input, reference, timed
// runs, verification and the report. The stage file only supplies reduce::stage_plan().
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/harness/cli.h"
#include "common/host_code/host_runner.h"
#include "common/harness/input.h"
#include "common/harness/options.h"
#include "common/harness/reference.h"
#include "common/harness/report.h"
#include "common/rows/row_reference.h"
#include "common/rows/row_runner.h"
#include "common/harness/runner.h"
#include "common/stage.h"
#include "common/harness/timing.h"

namespace {

using namespace reduce;

std::string stage_title(const StagePlan& plan) {
  return plan.title != nullptr ? plan.title : "Stage " + std::to_string(plan.number);
}

// The report's first words: "Stage 15 max, version 4 of 6 (warp shuffle)".
std::string report_title(const StagePlan& plan, int version) {
  std::string title = stage_title(plan);
  if (plan.op == Operation::kMax) title += " max";
  if (plan.op == Operation::kSoftmax) title += " softmax";
  if (plan.op == Operation::kLayerNorm) title += " layer norm";
  if (plan.version_count > 0) {
    const int shown = version > 0 ? version : plan.version_count;
    title += ", version " + std::to_string(shown) + " of " + std::to_string(plan.version_count) +
             " (" + plan.versions[shown - 1].technique + ")";
  }
  return title;
}

// The --csv name: "Stage 15", or "Stage 15 v4" when a version was asked for.
std::string csv_title(const StagePlan& plan, int version) {
  return stage_title(plan) + (version > 0 ? " v" + std::to_string(version) : "");
}

std::string versions_help(const StagePlan& plan) {
  if (plan.version_count == 0) return "";
  std::string text = "\nVersions (--version V; without it, version " +
                     std::to_string(plan.version_count) + "):\n";
  for (int v = 1; v <= plan.version_count; ++v) {
    text += "  " + std::to_string(v) + "  " + plan.versions[v - 1].technique + "\n";
  }
  return text;
}

std::string check_version(const StagePlan& plan, int version) {
  if (version == 0 || version <= plan.version_count) return "";
  if (plan.version_count == 0) {
    return "--version " + std::to_string(version) + ": stage " + std::to_string(plan.number) +
           " has only one version; leave --version out";
  }
  return "--version " + std::to_string(version) + ": stage " + std::to_string(plan.number) +
         " has versions 1 to " + std::to_string(plan.version_count) + " (run with --help)";
}

Reference timed_reference(Operation op, const std::vector<float>& input, double* cpu_ms) {
  const auto start = std::chrono::steady_clock::now();
  const Reference ref = reference_for(op, input.data(), input.size());
  const auto stop = std::chrono::steady_clock::now();
  *cpu_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  return ref;
}

// Stage 15's argmax, untimed, after the timed runs; one line in the report. A run of
// one --version leaves it out, so each version can be checked on its own.
bool check_argmax(const StagePlan& plan, StageRunner& runner, const std::vector<float>& input,
                  const Options& opt) {
  if (plan.argmax == nullptr) return true;
  const std::size_t gpu = runner.argmax(opt.block);
  const std::size_t cpu = reference_argmax(input.data(), input.size());
  if (!opt.csv) {
    const std::string shown = gpu == StageRunner::kNoIndex ? "none" : std::to_string(gpu);
    std::printf("Argmax  : GPU %s, CPU %zu %s\n", shown.c_str(), cpu, gpu == cpu ? "✅" : "❌");
  }
  return gpu == cpu;
}

const char* quantity(Operation op) { return op == Operation::kMax ? "max" : "sum"; }

std::vector<float> stage_input(const Options& opt) {
  std::vector<float> input = generate_input(opt.n, opt.seed);
  shift_and_scale(input, opt.offset, opt.scale);
  return input;
}

// A row stage: the matrix through the stage, each value checked against the CPU's.
int run_row_stage(const StagePlan& stage, const Options& opt, const std::string& program) {
  const StagePlan plan = with_version(stage, opt.version);
  const std::vector<float> input = stage_input(opt);
  const LayerNormParams params =
      plan.op == Operation::kLayerNorm ? layer_norm_params(opt.cols, opt.seed) : LayerNormParams{};
  const auto start = std::chrono::steady_clock::now();
  const RowReference ref(plan.op, input, opt.rows, opt.cols, params);
  const auto stop = std::chrono::steady_clock::now();

  RowRunner runner(plan, opt.rows, opt.cols);
  runner.upload(input);
  if (plan.op == Operation::kLayerNorm) runner.upload_params(params.gamma, params.beta);
  const RowTiming timing = runner.time(opt.block, opt.repeat, opt.cache);
  const RowVerdict warmup = ref.verify(timing.warmup.data());
  const RowVerdict last = ref.verify(timing.last.data());
  if (!last.match) {
    std::fprintf(stderr, "%s: row %zu, column %zu: GPU %g, CPU %g%s\n", program.c_str(),
                 last.worst / opt.cols, last.worst % opt.cols,
                 static_cast<double>(timing.last[last.worst]), ref.value(last.worst),
                 std::isnan(timing.last[last.worst])
                     ? " (the harness fills the output with NaN before each run: a NaN there "
                       "was never written, or came from a NaN in the computation)"
                     : "");
  } else if (!warmup.match) {
    std::fprintf(stderr, "%s: the untimed warm-up run differs at row %zu, column %zu\n",
                 program.c_str(), warmup.worst / opt.cols, warmup.worst % opt.cols);
  }
  ReportData report{opt.csv ? csv_title(stage, opt.version) : report_title(stage, opt.version),
                    opt.n, 0.0, 0.0f, last.error, last.match && warmup.match,
                    std::chrono::duration<double, std::milli>(stop - start).count(),
                    timing.median_ms};
  report.rows = opt.rows;
  report.cols = opt.cols;
  report.tolerance = last.tolerance;
  report.error_scale = plan.op == Operation::kLayerNorm ? "its own scale" : "its row's largest";
  if (opt.csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::fputs(format_report(report).c_str(), stdout);
  }
  return report.match ? kExitMatch : kExitMismatch;
}

// What went wrong in stage 20's host code, in one line, or empty.
std::string host_code_problem(const HostOutcome& out, const DeviceHoldings& kept, int calls) {
  if (out.blocks == 0) return "no block sums came back: fill run.block_sums (TODO 4)";
  if (out.unwritten) {
    return "a block sum is still NaN: the block sums were never copied back from the device "
           "(cudaMemcpy ... cudaMemcpyDeviceToHost, TODO 4)";
  }
  if (!(out.kernel_ms > 0.0f) || !std::isfinite(out.kernel_ms)) {
    return "kernel_ms is " + std::to_string(out.kernel_ms) +
           ": record the two events around the launch, wait for the second and read the "
           "time between them (TODO 3)";
  }
  const std::string kept_line = kept_after_calls(kept, calls);
  if (!kept_line.empty()) {
    return kept_line + ": cudaFree what you allocated and destroy the events (TODO 5)";
  }
  return "";
}

// Stage 20: the stage's own host code, once to warm up and then --repeat times, each after
// the L2 flush; its events' times, the block sums it returns, and the memory it returns.
int run_host_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  const std::vector<float> input = stage_input(opt);
  double cpu_ms = 0.0;
  const Reference ref = timed_reference(plan.op, input, &cpu_ms);
  L2Flusher l2(opt.cache);
  const DeviceHoldings before = device_holdings();
  const HostOutcome warmup = run_host_code(plan, input, opt.block);
  HostOutcome last = warmup;
  std::vector<double> ms;
  for (int pass = 0; pass < opt.repeat; ++pass) {
    l2.flush(pass);
    CUDA_CHECK(cudaDeviceSynchronize());
    last = run_host_code(plan, input, opt.block);
    ms.push_back(last.kernel_ms);
  }
  const DeviceHoldings kept = holdings_gained(before, device_holdings());
  const std::string problem = host_code_problem(last, kept, opt.repeat + 1);
  if (!problem.empty()) std::fprintf(stderr, "%s: %s\n", program.c_str(), problem.c_str());
  const Verdict verdict = verify(last.sum, ref);
  const Verdict first = verify(warmup.sum, ref);
  const ReportData report{opt.csv ? csv_title(plan, 0) : report_title(plan, 0),
                          opt.n,
                          ref.value,
                          last.sum,
                          verdict.relative_error,
                          verdict.match && first.match && problem.empty(),
                          cpu_ms,
                          median(ms)};
  if (opt.csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::fputs(format_report(report).c_str(), stdout);
  }
  return report.match ? kExitMatch : kExitMismatch;
}

int run_stage(const StagePlan& stage, const Options& opt, const std::string& program) {
  if (works_on_rows(stage.op)) return run_row_stage(stage, opt, program);
  if (stage.host_run != nullptr) return run_host_stage(stage, opt, program);
  const StagePlan plan = with_version(stage, opt.version);
  const std::vector<float> input = stage_input(opt);
  double cpu_ms = 0.0;
  const Reference ref = timed_reference(plan.op, input, &cpu_ms);

  StageRunner runner(plan, opt.n);
  runner.upload(input);
  const Timing timing = runner.time(opt.block, opt.repeat, opt.cache);

  const Verdict warmup = verify(timing.warmup.sum, ref);
  const Verdict last = verify(timing.last.sum, ref);
  const bool unwritten = plan.op == Operation::kMax
                             ? std::isnan(timing.last.sum) && !std::isnan(ref.value)
                             : !std::isfinite(timing.last.sum);
  if (unwritten) {
    std::fprintf(stderr,
                 "%s: the GPU %s is not a number: the harness fills the block results with NaN "
                 "before each run, so some block's %s was never written%s\n",
                 program.c_str(), quantity(plan.op), quantity(plan.op),
                 plan.op == Operation::kSum ? " (or the input overflowed)" : "");
  }
  if (!warmup.match && last.match) {  // otherwise the report itself shows the failure
    std::fprintf(stderr, "%s: the untimed warm-up run gave %.6f\n", program.c_str(),
                 static_cast<double>(timing.warmup.sum));
  }
  const bool csv = opt.csv;
  const ReportData report{csv ? csv_title(stage, opt.version) : report_title(stage, opt.version),
                          opt.n,
                          ref.value,
                          timing.last.sum,
                          last.relative_error,
                          last.match && warmup.match,
                          cpu_ms,
                          timing.median_ms,
                          quantity(plan.op),
                          plan.op == Operation::kMax};
  if (csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::fputs(format_report(report).c_str(), stdout);
  }
  const bool argmax_ok = opt.version != 0 || check_argmax(plan, runner, input, opt);
  return report.match && argmax_ok ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const StagePlan& plan = stage_plan();
  const ProgramSpec spec{
      usage(argv[0], plan.number, plan.sizes, plan.op) + versions_help(plan),
      [&](const Options& opt) {
        std::string problem = check_shape(plan.op, plan.number, opt.n_given, opt.rows_given);
        if (problem.empty() && opt.gpus != 0) {
          problem = "--gpus is stage 18's option (one sum over many GPUs); stage " +
                    std::to_string(plan.number) + " runs on one GPU, picked with --device D";
        }
        if (problem.empty()) problem = check_version(plan, opt.version);
        return problem.empty() ? check_size(plan.sizes, plan.number, opt.n, opt.block) : problem;
      },
      [&](std::size_t n) {
        if (plan.host_run != nullptr) return host_code_bytes_needed(n);
        return works_on_rows(plan.op) ? RowRunner::bytes_needed(n)
                                      : StageRunner::bytes_needed(plan, n);
      }};
  return run_program(argc, argv, spec,
                     [&](const Program& program) { return run_stage(plan, program.options, program.name); });
}
