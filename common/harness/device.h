// Finding and choosing the CUDA device, without crashing on machines that have none.
#pragma once

#include <cstddef>
#include <string>

namespace reduce {

struct DeviceProbe {
  int count = 0;
  std::string problem;  // why no device is usable; empty when count > 0
};

// Never throws. On a machine with no GPU or no driver, cudaGetDeviceCount fails (for
// example cudaErrorInsufficientDriver) and leaves its argument untouched: count stays 0.
DeviceProbe probe_devices();

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MB L2, 79.1 GB free)"
std::string describe_device(int device);

// Selects `device`; returns "" or a one-line --device error naming the valid indices.
std::string select_device(int device, int count);

// The current device's multiprocessor count, which sizes every grid-stride launch.
int current_sm_count();

// Returns "" or a one-line --n error if the stage's buffers for n floats do not fit
// in the selected device's free memory.
std::string check_fits(std::size_t n, std::size_t bytes_needed);

}  // namespace reduce
