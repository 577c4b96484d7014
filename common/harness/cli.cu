#include "common/harness/cli.h"

#include <cstdio>
#include <exception>

#include "common/harness/device.h"
#include "common/harness/report.h"

namespace reduce {
namespace {

int fail(const std::string& program, const std::string& message, int code) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(), message.c_str());
  return code;
}

}  // namespace

int run_program(int argc, char** argv, const ProgramSpec& spec,
                const std::function<int(const Program&)>& body) {
  const std::string invoked = argv[0];
  Program program{invoked.substr(invoked.find_last_of('/') + 1), {}};

  const ParsedOptions parsed = parse_options(argc, argv);
  if (!parsed.ok()) return fail(program.name, parsed.error, kExitBadOption);
  program.options = parsed.options;
  if (program.options.help) {
    std::fputs(spec.help.c_str(), stdout);
    return kExitMatch;
  }
  if (program.options.describe) {
    if (spec.describe.empty()) return fail(program.name, "--describe: this program has no stage facts", kExitBadOption);
    std::printf("%s\n", spec.describe.c_str());
    return kExitMatch;
  }
  const std::string option_problem = spec.check ? spec.check(program.options) : "";
  if (!option_problem.empty()) return fail(program.name, option_problem, kExitBadOption);
  if (!program.options.verify_output.empty()) {  // the CPU alone: no device probed
    if (!spec.verify) return fail(program.name, "--verify-output: this program has no output to verify", kExitBadOption);
    try {
      return spec.verify(program);
    } catch (const std::exception& e) {
      return fail(program.name, e.what(), kExitBadOption);
    }
  }

  // Options are checked before any CUDA call, so they get the same answer with no GPU.
  const DeviceProbe probe = probe_devices();
  if (probe.count == 0) {
    return fail(program.name, "no CUDA device found (" + probe.problem +
                                  "); run this on a machine with an NVIDIA GPU and driver",
                kExitNoDevice);
  }
  try {
    std::string device_problem = select_device(program.options.device, probe.count);
    if (device_problem.empty()) {
      device_problem = check_fits(program.options.n, spec.device_bytes(program.options));
    }
    if (!device_problem.empty()) return fail(program.name, device_problem, kExitBadOption);
    return body(program);
  } catch (const std::exception& e) {
    return fail(program.name, e.what(), kExitCudaError);
  }
}

}  // namespace reduce
