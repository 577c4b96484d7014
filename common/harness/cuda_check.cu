#include "common/cuda_check.h"

#include <cstring>

namespace reduce {

const char* project_path(const char* file) {
  const char* best = file;
  for (const char* dir : {"/common/", "/stages/", "/answers/", "/tests/"}) {
    const char* hit = std::strstr(file, dir);
    if (hit != nullptr && hit + 1 > best) best = hit + 1;
  }
  return best;
}

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw CudaError(std::string(call) + " failed at " + project_path(file) + ":" +
                  std::to_string(line) + ": " + cudaGetErrorString(status) + " (" +
                  cudaGetErrorName(status) + ")");
}

}  // namespace reduce
