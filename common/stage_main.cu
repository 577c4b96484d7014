// The main() every stage executable shares: options, device, input, reference, timed
// runs, verification and the report. The stage file only supplies reduce::stage_plan().
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "common/device.h"
#include "common/input.h"
#include "common/options.h"
#include "common/reference.h"
#include "common/report.h"
#include "common/runner.h"
#include "common/stage.h"

namespace {

using namespace reduce;

int fail(const std::string& program, const std::string& message, int code) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
  return code;
}

// Picks the device and checks the stage's buffers fit; "" or a --device / --n error.
std::string prepare_device(const StagePlan& plan, const Options& opt, int device_count) {
  std::string problem = select_device(opt.device, device_count);
  if (problem.empty()) problem = check_fits(opt.n, StageRunner::bytes_needed(plan, opt.n));
  return problem;
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
  const Timing timing = runner.time(opt.block, opt.repeat);

  const Verdict warmup = verify(timing.warmup.sum, ref, opt.n);
  const Verdict last = verify(timing.last.sum, ref, opt.n);
  if (!std::isfinite(timing.last.sum)) {
    std::fprintf(stderr,
                 "%s: the GPU sum is not a number: the harness fills the block sums with NaN "
                 "before each run, so some block's sum was never written (or the input "
                 "overflowed)\n",
                 program.c_str());
  }
  if (!warmup.match) {
    std::fprintf(stderr, "%s: the untimed warm-up run gave %.6f\n", program.c_str(),
                 static_cast<double>(timing.warmup.sum));
  }
  const ReportData report{plan.number,     opt.n,        ref.sum,     timing.last.sum,
                          last.relative_error, last.match && warmup.match, cpu_ms,
                          timing.median_ms};
  std::fputs(format_report(report).c_str(), stdout);
  return report.match ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const StagePlan& plan = stage_plan();
  // "stage07" or "stage07_todo": messages name the executable the student ran.
  const std::string invoked = argv[0];
  const std::string program = invoked.substr(invoked.find_last_of('/') + 1);

  const ParsedOptions parsed = parse_options(argc, argv);
  if (!parsed.ok()) return fail(program, parsed.error, kExitBadOption);
  const Options& opt = parsed.options;
  if (opt.help) {
    std::fputs(usage(argv[0], plan.number, plan.sizes).c_str(), stdout);
    return kExitMatch;
  }
  const std::string size_problem = check_size(plan.sizes, plan.number, opt.n, opt.block);
  if (!size_problem.empty()) return fail(program, size_problem, kExitBadOption);

  const DeviceProbe probe = probe_devices();
  if (probe.count == 0) {
    return fail(program, "no CUDA device found (" + probe.problem +
                             "); run this on a machine with an NVIDIA GPU and driver",
                kExitNoDevice);
  }
  try {
    const std::string device_problem = prepare_device(plan, opt, probe.count);
    if (!device_problem.empty()) return fail(program, device_problem, kExitBadOption);
    return run_stage(plan, opt, program);
  } catch (const std::exception& e) {
    return fail(program, e.what(), kExitCudaError);
  }
}
