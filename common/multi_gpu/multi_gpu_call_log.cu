#include "common/multi_gpu/multi_gpu_call_log.h"

#include "common/harness/report.h"

#include <mutex>

namespace reduce {
namespace {

struct Log {
  std::mutex mutex;
  bool recording = false;
  int set_device = -1;
  StageCalls calls;
};

Log& call_log() {
  static Log* const instance = new Log;  // never destroyed: wrapped calls may come late
  return *instance;
}

std::string op_name(ncclRedOp_t op) {
  switch (op) {
    case ncclSum: return "ncclSum";
    case ncclProd: return "ncclProd";
    case ncclMax: return "ncclMax";
    case ncclMin: return "ncclMin";
    case ncclAvg: return "ncclAvg";
    default: return "op " + std::to_string(static_cast<int>(op));
  }
}

std::string type_name(ncclDataType_t type) {
  switch (type) {
    case ncclFloat: return "ncclFloat";
    case ncclDouble: return "ncclDouble";
    case ncclHalf: return "ncclHalf";
    case ncclInt32: return "ncclInt32";
    case ncclUint32: return "ncclUint32";
    case ncclInt64: return "ncclInt64";
    case ncclUint64: return "ncclUint64";
    case ncclInt8: return "ncclInt8";
    case ncclUint8: return "ncclUint8";
    default: return "type " + std::to_string(static_cast<int>(type));
  }
}

std::string todo3(const std::string& what) { return "sum_on_every_gpu (TODO 3): " + what; }
std::string todo4(const std::string& what) { return "sum_on_every_gpu (TODO 4): " + what; }

std::string shard_sum_problem(const StageCalls& calls, const GpuPart& part) {
  const std::string gpu = "GPU " + std::to_string(part.device);
  for (const ShardSumCall& call : calls.shard_sums) {
    if (call.device != part.device) continue;
    if (call.current != part.device) {
      return todo3("sum_shard for " + gpu + " was called while device " +
                   std::to_string(call.current) + " was current, so its kernel would run on "
                   "the wrong GPU; call cudaSetDevice(part.device) before it");
    }
    if (call.set_device != part.device) {
      return todo3("sum_shard for " + gpu + " ran without cudaSetDevice(part.device) before "
                   "it in this call; with one GPU that works by luck, with two the kernel "
                   "would go to whichever device was current");
    }
    return "";
  }
  return todo3(gpu + "'s shard was never summed: call reduce::sum_shard(part, block) for every "
               "part");
}

std::string all_reduce_problem(const AllReduceCall& call, const GpuPart& part) {
  const std::string of = "the ncclAllReduce of GPU " + std::to_string(part.device);
  if (call.open_groups <= 0) {
    return todo4(of + " was called outside ncclGroupStart()/ncclGroupEnd(); one thread "
                 "calling for several GPUs must group the calls, or the first one waits for "
                 "ranks not yet called (with one GPU it happens to work)");
  }
  if (call.send != part.shard_sum || call.recv != part.total) {
    return todo4(of + " must read part.shard_sum and write part.total");
  }
  if (call.count != 1 || call.type != ncclFloat) {
    return todo4(of + " reduces " + std::to_string(call.count) + " x " + type_name(call.type) +
                 "; each GPU's partial sum is 1 x ncclFloat");
  }
  if (call.op != ncclSum) {
    return todo4(of + " uses " + op_name(call.op) + "; the partial sums need ncclSum (with "
                 "one GPU, max, min, average or product of one value equal it by luck)");
  }
  if (call.stream != part.stream) {
    return todo4(of + " is not on part.stream, so it is not ordered after that GPU's "
                 "sum_shard");
  }
  return "";
}

std::string nccl_problem(const StageCalls& calls, const std::vector<GpuPart>& parts) {
  if (calls.group_starts != calls.group_ends) {
    return todo4(std::to_string(calls.group_starts) + " ncclGroupStart() but " +
                 std::to_string(calls.group_ends) + " ncclGroupEnd(): each start needs its end, "
                 "or the grouped calls never run");
  }
  for (const AllReduceCall& call : calls.all_reduces) {
    bool known = false;
    for (const GpuPart& part : parts) known = known || call.comm == part.comm;
    if (!known) return todo4("an ncclAllReduce on a communicator that is no part's comm");
  }
  for (const GpuPart& part : parts) {
    const AllReduceCall* mine = nullptr;
    int count = 0;
    for (const AllReduceCall& call : calls.all_reduces) {
      if (call.comm == part.comm) {
        mine = &call;
        ++count;
      }
    }
    if (count != 1) {
      return todo4(std::to_string(count) + " ncclAllReduce calls on GPU " +
                   std::to_string(part.device) + "'s communicator; each GPU's rank takes "
                   "exactly one");
    }
    const std::string problem = all_reduce_problem(*mine, part);
    if (!problem.empty()) return problem;
  }
  return "";
}

}  // namespace

void begin_stage_calls() {
  Log& log = call_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  log.calls = StageCalls();
  log.set_device = -1;
  log.recording = true;
}

StageCalls end_stage_calls() {
  Log& log = call_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  log.recording = false;
  return std::move(log.calls);
}

bool note_shard_sum(int device) {
  int current = -1;
  CUDA_CHECK(cudaGetDevice(&current));
  Log& log = call_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  if (log.recording) log.calls.shard_sums.push_back({device, log.set_device, current});
  return current == device;
}

StageCallProblem stage_call_problem(const StageCalls& calls, const std::vector<GpuPart>& parts) {
  for (const GpuPart& part : parts) {
    const std::string problem = shard_sum_problem(calls, part);
    if (!problem.empty()) return {"tests.device", problem};
  }
  return {"tests.nccl_usage", nccl_problem(calls, parts)};
}

StageCallError::StageCallError(const StageCallProblem& problem) : std::runtime_error(problem.line) {
  report_failure(problem.key, problem.line);
}

}  // namespace reduce

// The linker sends the wrapped calls here (--wrap=NAME: NAME means __wrap_NAME, and
// __real_NAME the library's own). Each is recorded only while the runner records.
extern "C" {
cudaError_t __real_cudaSetDevice(int device);
ncclResult_t __real_ncclGroupStart();
ncclResult_t __real_ncclGroupEnd();
ncclResult_t __real_ncclAllReduce(const void* send, void* recv, std::size_t count,
                                  ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t stream);

cudaError_t __wrap_cudaSetDevice(int device) {
  const cudaError_t status = __real_cudaSetDevice(device);
  reduce::Log& log = reduce::call_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  if (log.recording && status == cudaSuccess) log.set_device = device;
  return status;
}

ncclResult_t __wrap_ncclGroupStart() {
  {
    reduce::Log& log = reduce::call_log();
    std::lock_guard<std::mutex> lock(log.mutex);
    if (log.recording) ++log.calls.group_starts;
  }
  return __real_ncclGroupStart();
}

ncclResult_t __wrap_ncclGroupEnd() {
  {
    reduce::Log& log = reduce::call_log();
    std::lock_guard<std::mutex> lock(log.mutex);
    if (log.recording) ++log.calls.group_ends;
  }
  return __real_ncclGroupEnd();
}

ncclResult_t __wrap_ncclAllReduce(const void* send, void* recv, std::size_t count,
                                  ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t stream) {
  {
    reduce::Log& log = reduce::call_log();
    std::lock_guard<std::mutex> lock(log.mutex);
    if (log.recording) {
      const int open = log.calls.group_starts - log.calls.group_ends;
      log.calls.all_reduces.push_back({send, recv, count, type, op, comm, stream, open});
    }
  }
  return __real_ncclAllReduce(send, recv, count, type, op, comm, stream);
}
}
