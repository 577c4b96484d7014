// main() of stage 18's executables: the options every stage takes plus --gpus K, the
// input sharded over GPUs 0 to K-1, the timed span over all of them, and every GPU's
// total checked against the CPU. The stage file supplies reduce::multi_gpu_plan().
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/harness/cli.h"
#include "common/harness/device.h"
#include "common/harness/input.h"
#include "common/multi_gpu/multi_gpu_call_log.h"
#include "common/multi_gpu/multi_gpu_runner.h"
#include "common/harness/options.h"
#include "common/harness/reference.h"
#include "common/harness/report.h"

namespace {

using namespace reduce;

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
}

// The usage every stage prints, with --gpus K in place of --device D.
std::string help_text(const std::string& program, const MultiGpuPlan& plan) {
  std::string text = usage(program, plan.number, SizeRule::kAnyLength);
  replace_once(text, "  --device D   CUDA device index (default 0)\n",
               "  --gpus K     spread the input over GPUs 0 to K-1 (default: every visible GPU;\n"
               "               CUDA_VISIBLE_DEVICES picks which ones are visible)\n");
  replace_once(text, "4 CUDA error.", "4 CUDA or NCCL error.");
  return text;
}

std::string check_options(const MultiGpuPlan& plan, const Options& opt) {
  std::string problem = check_shape(Operation::kSum, plan.number, opt.n_given, opt.rows_given);
  if (!problem.empty()) return problem;
  if (opt.version != 0) return "--version: stage 18 has only one version; leave --version out";
  if (opt.device != 0) {
    return "--device: stage 18 runs on GPUs 0 to K-1; choose how many with --gpus K (and "
           "which with CUDA_VISIBLE_DEVICES)";
  }
  return check_size(SizeRule::kAnyLength, plan.number, opt.n, opt.block);
}

// "2 x NVIDIA H200 (GPUs 0-1), shards of 536870912 and 536870911 elements"
std::string gpus_line(const MultiGpuRunner& runner) {
  const auto& shards = runner.shards();
  std::string line = std::to_string(runner.gpus()) + " x " + describe_device(0) + ", shard";
  line += shards.size() == 1 ? " of " : "s of ";
  if (shards.size() > 4) return line + "up to " + std::to_string(shards[0].count) + " elements";
  for (std::size_t g = 0; g < shards.size(); ++g) {
    line += (g == 0 ? "" : g + 1 == shards.size() ? " and " : ", ") + std::to_string(shards[g].count);
  }
  return line + " elements";
}

// Index of the first GPU whose total (last or warm-up run) misses the reference, or -1.
int first_wrong(const MultiGpuTiming& timing, const Reference& ref) {
  for (std::size_t g = 0; g < timing.last.size(); ++g) {
    if (!verify(timing.last[g], ref).match || !verify(timing.warmup[g], ref).match) {
      return static_cast<int>(g);
    }
  }
  return -1;
}

void explain(const std::string& program, int gpu, const MultiGpuTiming& timing) {
  const float got = timing.last[gpu];
  std::fprintf(stderr, "%s: GPU %d's total is %s%s\n", program.c_str(), gpu,
               std::isnan(got) ? "NaN" : std::to_string(got).c_str(),
               std::isnan(got) ? ": the harness fills each GPU's shard sum and total with NaN "
                                 "before every run, so the all-reduce never wrote it, or it "
                                 "added a shard sum nobody wrote (TODO 3 and 4)"
                               : " (the warm-up run or the last one)");
}

int run_stage(const MultiGpuPlan& plan, const Options& opt, const std::string& program, int gpus) {
  std::vector<float> input = generate_input(opt.n, opt.seed);
  shift_and_scale(input, opt.offset, opt.scale);
  const auto start = std::chrono::steady_clock::now();
  const Reference ref = reference_for(Operation::kSum, input.data(), input.size());
  const auto stop = std::chrono::steady_clock::now();

  // The shards first: a wrong shard_of (TODO 1) is a wrong answer, said before any GPU work.
  const std::string problem = shard_problem(shards_for(plan, opt.n, gpus), opt.n);
  if (!problem.empty()) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), problem.c_str());
    return kExitMismatch;
  }
  MultiGpuRunner runner(plan, gpus);
  runner.upload(input);
  MultiGpuTiming timing;
  try {
    timing = runner.time(opt.block, opt.repeat, opt.cache);
  } catch (const StageCallError& e) {
    // Calls of the wrong shape are a wrong stage, like a wrong sum (exit 1), not a CUDA error.
    std::fprintf(stderr, "%s: %s\n", program.c_str(), e.what());
    return kExitMismatch;
  }
  const int wrong = first_wrong(timing, ref);
  if (wrong >= 0) explain(program, wrong, timing);
  const float shown = timing.last[wrong >= 0 ? wrong : 0];
  const std::string gpus_text = std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
  const ReportData report{opt.csv ? "Stage 18 x" + std::to_string(gpus) : "Stage 18 on " + gpus_text,
                          opt.n,
                          ref.value,
                          shown,
                          verify(shown, ref).relative_error,
                          wrong < 0,
                          std::chrono::duration<double, std::milli>(stop - start).count(),
                          timing.median_ms};
  if (opt.csv) {
    std::printf("%s\n", format_csv(report, opt.block).c_str());
  } else {
    std::printf("GPUs: %s\n", gpus_line(runner).c_str());
    std::fputs(format_report(report).c_str(), stdout);
    std::printf("  Every GPU's total: %s\n", wrong < 0 ? "the same sum ✅" : "not all right ❌");
  }
  return report.match ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const MultiGpuPlan& plan = multi_gpu_plan();
  int wanted = 0;  // --gpus, kept for the memory check, which sees only n
  const ProgramSpec spec{help_text(argv[0], plan),
                         [&](const Options& opt) {
                           wanted = opt.gpus;
                           return check_options(plan, opt);
                         },
                         [&](std::size_t n) {
                           std::string too_many;  // the body says it in one line
                           return multi_gpu_bytes_needed(
                               n, gpus_for(wanted, probe_devices().count, &too_many));
                         }};
  return run_program(argc, argv, spec, [&](const Program& program) {
    std::string problem;
    const int gpus = gpus_for(program.options.gpus, probe_devices().count, &problem);
    if (!problem.empty()) {
      std::fprintf(stderr, "%s: error: %s\n", program.name.c_str(), problem.c_str());
      return static_cast<int>(kExitBadOption);
    }
    return run_stage(plan, program.options, program.name, gpus);
  });
}
