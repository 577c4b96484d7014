// reduce_probe: says in one line which CUDA devices the stages would run on, or why none.
// Exit code 0 with a device, 3 (as the stages use) without one.
#include <cstdio>
#include <exception>

#include "common/harness/device.h"
#include "common/harness/report.h"

int main() {
  const reduce::DeviceProbe probe = reduce::probe_devices();
  if (probe.count == 0) {
    std::printf("No CUDA device found (%s)\n", probe.problem.c_str());
    return reduce::kExitNoDevice;
  }
  try {
    for (int d = 0; d < probe.count; ++d) {
      std::printf("CUDA device %d: %s\n", d, reduce::describe_device(d).c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reduce_probe: error: %s\n", e.what());
    return reduce::kExitCudaError;
  }
  return 0;
}
