#include "common/cuda_check.h"

#include <cstring>

#include "common/harness/report.h"

namespace reduce {

const char* project_path(const char* file) {
  const char* best = file;
  for (const char* dir : {"/common/", "/stages/", "/answers/", "/tests/", "/bench/"}) {
    const char* hit = std::strstr(file, dir);
    if (hit != nullptr && hit + 1 > best) best = hit + 1;
  }
  return best;
}

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  const std::string message = std::string(call) + " failed at " + project_path(file) + ":" +
                              std::to_string(line) + ": " + cudaGetErrorString(status) + " (" +
                              cudaGetErrorName(status) + ")";
  // A 16-byte load from an address that is not 16-byte aligned has its own hint.
  report_failure(status == cudaErrorMisalignedAddress ? "tests.misaligned" : "tests.cuda_error",
                 message);
  throw CudaError(message);
}

}  // namespace reduce
