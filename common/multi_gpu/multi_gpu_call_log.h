// What stage 18's sum_on_every_gpu called, so that its mistakes show on one GPU too.
//
// With one GPU (what most students have) several wrong calls still give the right total:
// the max or the average of one value is that value, a missing cudaSetDevice changes
// nothing when there is only device 0, and one rank needs no group. Every executable that
// links reduce_multi_gpu is linked with --wrap for cudaSetDevice, ncclGroupStart,
// ncclGroupEnd and ncclAllReduce (common/CMakeLists.txt), so the stage's calls pass through
// multi_gpu_call_log.cu; the runner records them around each call of sum_on_every_gpu and
// refuses a call of the wrong shape with one line naming the TODO.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/multi_gpu.h"

namespace reduce {

// What is wrong with the stage's calls: one line naming the TODO to look at, and its
// failure key (tests.device for TODO 3's devices, tests.nccl_usage for TODO 4's NCCL
// calls); an empty line when nothing is.
struct StageCallProblem {
  std::string key;
  std::string line;
};

// The stage's calls were of the wrong shape. Making one prints its reduce-failure line.
class StageCallError : public std::runtime_error {
 public:
  explicit StageCallError(const StageCallProblem& problem);
};

struct AllReduceCall {
  const void* send;
  void* recv;
  std::size_t count;
  ncclDataType_t type;
  ncclRedOp_t op;
  ncclComm_t comm;
  cudaStream_t stream;
  int open_groups;  // ncclGroupStart()s not yet ended when it was called
};

struct ShardSumCall {
  int device;      // part.device
  int set_device;  // the last cudaSetDevice(d) of this call before it; -1 if none
  int current;     // the current device when it was called
};

struct StageCalls {
  std::vector<ShardSumCall> shard_sums;
  std::vector<AllReduceCall> all_reduces;
  int group_starts = 0;
  int group_ends = 0;
};

// Starts recording (and forgets what was recorded before).
void begin_stage_calls();
// Stops recording and returns what was recorded since begin_stage_calls().
StageCalls end_stage_calls();

// sum_shard reports itself; returns false when the current device is not part.device
// (then it launches nothing: the kernel would run on the wrong GPU).
bool note_shard_sum(int device);

// No line when every part's shard was summed on its own device after a cudaSetDevice to
// it, and exactly one ncclAllReduce per part ran inside a group with the part's buffers,
// communicator and stream, 1 float, ncclSum. Else one line:
// "sum_on_every_gpu (TODO 3): ..." or "sum_on_every_gpu (TODO 4): ...".
StageCallProblem stage_call_problem(const StageCalls& calls, const std::vector<GpuPart>& parts);

}  // namespace reduce
