// Stage 18: many GPUs, one sum.
// One process drives every GPU it sees (or --gpus K of them). The input is cut into
// contiguous shards, one per GPU; each GPU sums its shard with the capstone's kernel on its
// own stream, and one NCCL all-reduce of those partial sums leaves the whole sum on every
// GPU. You write the sharding and the NCCL calls; the harness copies the shards, times
// the span over all GPUs and checks every GPU's total against the CPU.
//
// Run it:   scripts/run.sh 18         (answer)     scripts/run.sh --todo 18  (your template)
//           build/bin/stage18_todo --gpus 1 --n 1000
// Test it:  scripts/test.sh --todo 18
#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/multi_gpu.h"

// Where GPU g of `gpus` starts and how many elements it sums.
reduce::Shard shard_of(std::size_t n, int gpus, int g) {
  reduce::Shard shard;
  // ====================== TODO 1 of 4: BEGIN ======================
  // Contiguous shards of per_gpu = ceil(n / gpus) elements: GPU g's begins at
  // g * per_gpu and holds per_gpu elements, except that none may reach past n. So the last
  // shard is shorter when gpus does not divide n, and when n < gpus the GPUs past the end
  // get begin = n, count = 0 (std::min keeps both inside the input).
  // ====================== TODO 1 of 4: END ========================
  return shard;
}

// One NCCL communicator per GPU, all owned by this one process.
void open_communicators(ncclComm_t* comms, int gpus, const int* devices) {
  // ====================== TODO 2 of 4: BEGIN ======================
  // Open all of them in one call of ncclCommInitAll, from the three arguments this
  // function receives: afterwards comms[g] is rank g, on CUDA device devices[g], for each
  // of the gpus GPUs. Wrap the call in NCCL_CHECK, which names the call, the file and the
  // line and adds NCCL's own message when it fails.
  // ====================== TODO 2 of 4: END ========================
}

// Enqueues every GPU's work; no syncing (the harness times it and waits).
void sum_on_every_gpu(const std::vector<reduce::GpuPart>& parts, unsigned block) {
  // ====================== TODO 3 of 4: BEGIN ======================
  // For each part: make its GPU (part.device) the current device with cudaSetDevice,
  // checked by CUDA_CHECK; then hand the part and the block size to reduce::sum_shard,
  // which enqueues the capstone kernel on part.stream and leaves the shard's sum in
  // *part.shard_sum. A kernel runs on the current device: without the switch, every
  // launch would go to the same GPU.
  // ====================== TODO 3 of 4: END ========================

  // ====================== TODO 4 of 4: BEGIN ======================
  // One all-reduce over every GPU's part.shard_sum (1 float, ncclFloat, ncclSum) into its
  // part.total, on its communicator and stream. One thread calls for all GPUs, so wrap the
  // calls in ncclGroupStart() / ncclGroupEnd(): NCCL then launches them together instead
  // of waiting inside the first call for ranks that have not called yet. NCCL_CHECK each.
  // ====================== TODO 4 of 4: END ========================
}

constexpr reduce::MultiGpuPlan kMultiGpu{.shard_of = shard_of,
                                         .open_communicators = open_communicators,
                                         .sum_on_every_gpu = sum_on_every_gpu};
// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {
    {"shards, the capstone kernel on each GPU, one NCCL all-reduce"}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 18,
                              .kind = StageKind::kMultiGpu,
                              .versions = kVersions,
                              .multi_gpu = &kMultiGpu};
  return plan;
}
