// StageKind::kMultiGpu (stage 18): the input sharded over GPUs 0 to K-1 (--gpus K), the
// timed span over all of them, and every GPU's total checked against the CPU. Linked into
// the many-GPU stage alone; main() (common/harness/stage_main.cu) dispatches here.
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
#include "common/harness/stage_kinds.h"

namespace reduce {
namespace {

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

int run_on_gpus(const MultiGpuPlan& plan, const Options& opt, const std::string& program, int gpus) {
  std::vector<float> input = generate_input(opt.n, opt.seed);
  shift_and_scale(input, opt.offset, opt.scale);
  const auto start = std::chrono::steady_clock::now();
  const Reference ref = reference_for(Operation::kSum, input.data(), input.size());
  const auto stop = std::chrono::steady_clock::now();

  // The shards first: a wrong shard_of (TODO 1) is a wrong answer, said before any GPU work.
  const std::string problem = shard_problem(shards_for(plan, opt.n, gpus), opt.n);
  if (!problem.empty()) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), problem.c_str());
    report_failure("tests.shards", problem);
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
  report_disagreeing_runs(program, timing.disagreeing, opt.repeat,
                          "a GPU's total other than its warm-up's (first: " +
                              std::to_string(timing.first_disagreeing) + ")",
                          "compute it from the shards (the harness flips their sign between runs)");
  const float shown = timing.last[wrong >= 0 ? wrong : 0];
  const std::string gpus_text = std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
  const ReportData report{
      .title = opt.csv ? "Stage 18 x" + std::to_string(gpus) : "Stage 18 on " + gpus_text,
      .n = opt.n,
      .cpu_sum = ref.value,
      .gpu_sum = shown,
      .relative_error = verify(shown, ref).relative_error,
      .match = wrong < 0 && timing.disagreeing == 0,
      .cpu_ms = std::chrono::duration<double, std::milli>(stop - start).count(),
      .gpu_ms = timing.median_ms};
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

int run_multi_gpu_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  std::string problem;
  const int gpus = gpus_for(opt.gpus, probe_devices().count, &problem);
  if (!problem.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), problem.c_str());
    return static_cast<int>(kExitBadOption);
  }
  return run_on_gpus(*plan.multi_gpu, opt, program, gpus);
}

std::size_t multi_gpu_stage_bytes(const StagePlan&, const Options& opt) {
  std::string too_many;  // run_multi_gpu_stage says it in one line
  return multi_gpu_bytes_needed(opt.n, gpus_for(opt.gpus, probe_devices().count, &too_many));
}

}  // namespace reduce
