// StageKind::kHostCode (stage 05): the stage's own host code, once to warm up and then
// --repeat times, each after the L2 flush; its events' times, the block sums it returns,
// and the memory and events it gives back.
#include <cmath>
#include <cstdio>

#include "common/harness/stage_kinds.h"
#include "common/harness/timing.h"
#include "common/host_code/host_runner.h"

namespace reduce {
namespace {

// What went wrong in the host code, in one line, or "". A leak also prints its failure
// key; the other problems show as a wrong or NaN sum.
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
  if (kept_line.empty()) return "";
  const std::string problem = kept_line + ": cudaFree what you allocated and destroy the events (TODO 5)";
  report_failure("tests.leak", problem);
  return problem;
}

}  // namespace

int run_host_stage(const StagePlan& plan, const Options& opt, const std::string& program) {
  const std::vector<float> input = stage_input(opt);
  double cpu_ms = 0.0;
  const Reference ref = timed_reference(plan.op, input, &cpu_ms);
  L2Flusher l2(opt.cache);
  const DeviceHoldings before = device_holdings();
  const HostOutcome warmup = run_host_code(plan, input, opt.block);
  HostOutcome last = warmup;
  // The reported time is the code's own events' (the lesson is about making them right); the
  // harness's events around the launch bound it from below (host_code_problem), so it can
  // be made larger, never smaller than the launch.
  std::vector<double> ms;
  std::string launch_line = launch_problem(warmup, input.size(), opt.block);
  for (int pass = 0; pass < opt.repeat; ++pass) {
    l2.flush(pass);
    CUDA_CHECK(cudaDeviceSynchronize());
    last = run_host_code(plan, input, opt.block);
    ms.push_back(last.kernel_ms);
    if (launch_line.empty()) launch_line = launch_problem(last, input.size(), opt.block);
  }
  const DeviceHoldings kept = holdings_gained(before, device_holdings());
  std::string problem = host_code_problem(last, kept, opt.repeat + 1);
  if (problem.empty() && !launch_line.empty()) {
    problem = launch_line;
    report_failure("tests.device_work", problem);
  }
  if (!problem.empty()) std::fprintf(stderr, "%s: %s\n", program.c_str(), problem.c_str());
  const Verdict verdict = verify(last.sum, ref);
  const Verdict first = verify(warmup.sum, ref);
  const ReportData report{.title = opt.csv ? csv_title(plan, 0) : report_title(plan, 0),
                          .n = opt.n,
                          .cpu_sum = ref.value,
                          .gpu_sum = last.sum,
                          .relative_error = verdict.relative_error,
                          .match = verdict.match && first.match && problem.empty(),
                          .cpu_ms = cpu_ms,
                          .gpu_ms = median(ms)};
  return print_report(report, opt);
}

}  // namespace reduce
