// The main() every stage executable shares: it checks the stage's plan once, answers
// --help and --describe from it, checks the options against it and hands the run to the
// one runner of the plan's kind. The stage file only supplies reduce::stage_plan().
#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/harness/cli.h"
#include "common/harness/describe.h"
#include "common/harness/stage_kinds.h"
#include "common/host_code/host_runner.h"
#include "common/rows/row_runner.h"
#include "common/harness/runner.h"

// Stand-ins for the many-GPU runner (common/multi_gpu/multi_gpu_stage.cu), which only the
// many-GPU stage links (it needs NCCL) and whose definitions then take their place. No
// other plan has kind kMultiGpu, and plan_problem() refuses one without its MultiGpuPlan.
__attribute__((weak)) int reduce::run_multi_gpu_stage(const StagePlan&, const Options&,
                                                      const std::string&) {
  throw std::logic_error("this executable was built without the many-GPU runner");
}
__attribute__((weak)) std::size_t reduce::multi_gpu_stage_bytes(const StagePlan&, const Options&) {
  throw std::logic_error("this executable was built without the many-GPU runner");
}

namespace {

using namespace reduce;

std::string versions_help(const StagePlan& plan) {
  if (plan.default_version() < 2) return "";
  std::string text = "\nVersions (--version V; without it, version " +
                     std::to_string(plan.default_version()) + "):\n";
  const bool two_digits = plan.default_version() >= 10;  // keeps the techniques in a column
  for (int v = 1; v <= plan.default_version(); ++v) {
    const std::string number = std::to_string(v);
    const std::string pad = two_digits && v < 10 ? " " : "";
    text += "  " + pad + number + "  " + plan.version(v).technique + "\n";
  }
  return text;
}

std::string check_version(const StagePlan& plan, int version) {
  if (version == 0 || version <= plan.default_version()) return "";
  const std::string stage = "stage " + std::to_string(plan.number);
  if (plan.default_version() == 1) return "--version " + std::to_string(version) + ": " + stage +
                                         " has only one version; leave --version out";
  return "--version " + std::to_string(version) + ": " + stage + " has versions 1 to " +
         std::to_string(plan.default_version()) + " (run with --help)";
}

std::string check_options(const StagePlan& plan, const Options& opt) {
  const std::string stage = "stage " + std::to_string(plan.number);
  std::string problem = check_shape(plan.kind == StageKind::kRows, plan.number, opt.n_given,
                                    opt.rows_given);
  if (!problem.empty()) return problem;
  if (plan.kind == StageKind::kMultiGpu) {
    if (opt.version != 0) return "--version: " + stage + " has only one version; leave --version out";
    if (opt.device != 0) {
      return "--device: " + stage + " runs on GPUs 0 to K-1; choose how many with --gpus K (and "
             "which with CUDA_VISIBLE_DEVICES)";
    }
  } else if (opt.gpus != 0) {
    return "--gpus is stage 18's option (one sum over many GPUs); " + stage +
           " runs on one GPU, picked with --device D";
  }
  const bool writes = plan.kind == StageKind::kVector || plan.kind == StageKind::kRows;
  if (!writes && !(opt.write_output.empty() && opt.verify_output.empty())) {
    return std::string(opt.write_output.empty() ? "--verify-output" : "--write-output") + ": " +
           stage + " has no output file (only one-GPU kernel stages write one)";
  }
  problem = check_version(plan, opt.version);
  return problem.empty() ? check_size(plan.sizes, plan.number, opt.n, opt.block) : problem;
}

std::size_t device_bytes(const StagePlan& plan, const Options& opt) {
  switch (plan.kind) {
    case StageKind::kVector: return StageRunner::bytes_needed(plan, opt.n);
    case StageKind::kRows: return RowRunner::bytes_needed(opt.n);
    case StageKind::kHostCode: return host_code_bytes_needed(opt.n);
    case StageKind::kMultiGpu: return multi_gpu_stage_bytes(plan, opt);
  }
  return 0;
}

int verify_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  return plan.kind == StageKind::kRows ? verify_row_output(plan, opt, program)
                                       : verify_vector_output(plan, opt, program);
}

int run_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  switch (plan.kind) {
    case StageKind::kVector: return run_vector_stage(plan, opt, program);
    case StageKind::kRows: return run_row_stage(plan, opt, program);
    case StageKind::kHostCode: return run_host_stage(plan, opt, program);
    case StageKind::kMultiGpu: return run_multi_gpu_stage(plan, opt, program);
  }
  return kExitCudaError;
}

}  // namespace

int main(int argc, char** argv) {
  const StagePlan& plan = stage_plan();
  const std::string problem = plan_problem(plan);
  if (!problem.empty()) {  // the stage file's plan, not the student's kernel: say so and stop
    std::fprintf(stderr, "%s: error: the stage's plan is not runnable: %s\n", argv[0], problem.c_str());
    return kExitCudaError;
  }
  const ProgramSpec spec{usage(argv[0], stage_facts(plan)) + versions_help(plan),
                         [&](const Options& opt) { return check_options(plan, opt); },
                         [&](const Options& opt) { return device_bytes(plan, opt); },
                         describe_json(plan, argv[0]),
                         [&](const Program& program) {
                           return verify_stage(plan, program.options, program.name);
                         }};
  return run_program(argc, argv, spec, [&](const Program& program) {
    return run_stage(plan, program.options, program.name);
  });
}
