#include <string>

#include "common/multi_gpu.h"
#include "common/harness/report.h"

namespace reduce {
namespace {

const char* result_name(ncclResult_t status) {
  switch (status) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "an unknown ncclResult_t";
  }
}

}  // namespace

NcclError::NcclError(const std::string& what) : std::runtime_error(what) {
  report_failure("tests.nccl_error", what);
}

void check_nccl(ncclResult_t status, const char* call, const char* file, int line) {
  if (status == ncclSuccess) return;
  std::string message = std::string(call) + " failed at " + project_path(file) + ":" +
                        std::to_string(line) + ": " + ncclGetErrorString(status) + " (" +
                        result_name(status) + ")";
  // ncclGetLastError(nullptr) is the last error of any communicator of this process: it
  // names the argument or state NCCL refused, which the result code alone does not.
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && last[0] != '\0') message += "; NCCL says: " + std::string(last);
  throw NcclError(message + "; NCCL_DEBUG=WARN in the environment prints NCCL's own account");
}

}  // namespace reduce
