// What this process holds on the device through the CUDA runtime: live cudaMalloc buffers
// and live events. Every executable that links reduce_device is linked with --wrap for
// cudaMalloc, cudaFree, cudaEventCreate(WithFlags) and cudaEventDestroy (common/
// CMakeLists.txt), so every such call, the student's included, passes through
// allocation_log.cu. Stage 05 compares two readings around the host code it calls:
// cudaMemGetInfo could not, since it counts every process on the GPU and a parallel test
// run moves it by hundreds of MiB.
#pragma once

#include <cstddef>

namespace reduce {

struct DeviceHoldings {
  std::size_t bytes = 0;    // in live cudaMalloc buffers
  std::size_t buffers = 0;  // live cudaMalloc buffers
  std::size_t events = 0;   // live events
};

DeviceHoldings device_holdings();

// What `after` holds beyond `before` (zero where it holds less).
DeviceHoldings holdings_gained(const DeviceHoldings& before, const DeviceHoldings& after);

}  // namespace reduce
