// The contract between the harness and stage 18 (many GPUs, one sum).
//
// The harness makes the input, asks the stage where each GPU's shard begins and ends,
// copies every shard to its GPU, gives each GPU a stream and scratch, and times and checks
// the result on every GPU. The stage opens the NCCL communicators and enqueues the work:
// each GPU sums its shard with the capstone's kernel (given: sum_shard), then one
// ncclAllReduce leaves the total on every GPU.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cuda_check.h"
#include "common/stage.h"

namespace reduce {

// Any NCCL failure, the stage's or the harness's. Making one prints its
// "reduce-failure: tests.nccl_error" line (common/harness/report.h) for the student check.
class NcclError : public std::runtime_error {
 public:
  explicit NcclError(const std::string& what);
};

// Throws NcclError("<call> failed at <file>:<line>: <message> (<result name>)"), with
// NCCL's own last error when it left one.
void check_nccl(ncclResult_t status, const char* call, const char* file, int line);

// One GPU's contiguous piece of the input: elements [begin, begin + count).
struct Shard {
  std::size_t begin = 0;
  std::size_t count = 0;
};

// What the harness prepared on one GPU. Every pointer is memory on that GPU.
struct GpuPart {
  int device = 0;             // the CUDA device: cudaSetDevice(device) before work on it
  cudaStream_t stream = nullptr;  // this GPU's stream; all of its work goes here
  ncclComm_t comm = nullptr;  // this GPU's communicator (from the stage's open_communicators)
  const float* shard = nullptr;  // this GPU's shard of the input, already copied here
  std::size_t count = 0;         // its length; 0 when there are more GPUs than elements
  float* shard_sum = nullptr;    // one float: sum_shard's result, NaN before every run
  float* total = nullptr;        // one float: the all-reduce's result, NaN before every run
  // The capstone kernel's scratch (sum_shard uses them): one float per block, the ticket.
  float* block_sums = nullptr;
  unsigned int* ticket = nullptr;
  int sm_count = 0;
  // sum_shard's other scratch, allocated once per GPU (none where it needs none).
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
};

// Given: stage 14's kernel (in the student edition, which has no answers/, CUB's
// DeviceReduce::Sum) over part.count floats of part.shard, leaving their sum in
// *part.shard_sum (0 for an empty shard). Enqueued on part.stream, no syncing. The
// current device must be part.device.
void sum_shard(const GpuPart& part, unsigned block);

// The stage's NCCL side; its StagePlan (kind kMultiGpu) points at it.
struct MultiGpuPlan {
  // Where GPU g of `gpus` starts and how many elements it takes; the shards follow each
  // other and cover [0, n) exactly.
  Shard (*shard_of)(std::size_t n, int gpus, int g);
  // One communicator per GPU, comms[g] for devices[g], all in this process.
  void (*open_communicators)(ncclComm_t* comms, int gpus, const int* devices);
  // Enqueues every GPU's sum and the all-reduce; leaves the total in each part's *total.
  void (*sum_on_every_gpu)(const std::vector<GpuPart>& parts, unsigned block);
};

}  // namespace reduce

#define NCCL_CHECK(call) ::reduce::check_nccl((call), #call, __FILE__, __LINE__)
