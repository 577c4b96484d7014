#include "common/harness/device.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "common/cuda_check.h"

namespace reduce {
namespace {

std::string gigabytes(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

}  // namespace

DeviceProbe probe_devices() {
  DeviceProbe probe;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    probe.problem = std::string("cudaGetDeviceCount returned ") + cudaGetErrorName(status) +
                    ": " + cudaGetErrorString(status);
    // The runtime says "driver version is insufficient" also where no driver is installed at
    // all, which would send someone on a machine without a GPU to upgrade a driver.
    if (status == cudaErrorInsufficientDriver) {
      probe.problem += "; no NVIDIA driver is installed here, or it is older than CUDA " +
                       std::to_string(CUDART_VERSION / 1000) + "." +
                       std::to_string(CUDART_VERSION % 1000 / 10) + " needs";
    }
    (void)cudaGetLastError();  // clear the sticky error so later calls start clean
    return probe;
  }
  if (count <= 0) {
    probe.problem = "cudaGetDeviceCount found 0 devices";
    return probe;
  }
  probe.count = count;
  return probe;
}

std::string describe_device(int device) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaSetDevice(device));  // cudaMemGetInfo reports on the current device
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) +
         " SMs, " + std::to_string(prop.l2CacheSize >> 20) + " MB L2, " +
         gigabytes(free_bytes) + " free)";
}

std::string select_device(int device, int count) {
  if (device >= count) {
    return "--device " + std::to_string(device) + " does not exist: this machine has " +
           std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") +
           ", so use --device 0" + (count > 1 ? " to " + std::to_string(count - 1) : "");
  }
  CUDA_CHECK(cudaSetDevice(device));
  return "";
}

int current_sm_count() {
  int device = 0;
  int sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

std::string check_fits(std::size_t n, std::size_t bytes_needed) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes_needed <= free_bytes) return "";
  return "--n " + std::to_string(n) + " needs " + gigabytes(bytes_needed) +
         " of device memory but only " + gigabytes(free_bytes) + " is free; use a smaller --n (for a row stage, smaller --rows or --cols)";
}

}  // namespace reduce
