// Every CUDA call and launch goes through these, so a failure names the call, file and line.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace reduce {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// __FILE__ holds the build machine's absolute path; the part from the project's own
// top-level folder on ("common/runner.cu") is what a reader can look up.
const char* project_path(const char* file);

// Throws CudaError("<call> failed at <file>:<line>: <message> (<error name>)").
void check_cuda(cudaError_t status, const char* call, const char* file, int line);

}  // namespace reduce

#define CUDA_CHECK(call) ::reduce::check_cuda((call), #call, __FILE__, __LINE__)

// A launch reports a bad configuration only through cudaGetLastError; faults inside the
// kernel surface at the next synchronising call, which CUDA_CHECK also covers.
#define CUDA_CHECK_LAUNCH(kernel_name) \
  ::reduce::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
