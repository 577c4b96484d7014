// Stage 18's side of the harness: one process driving several GPUs. It shards the input
// where the stage says, gives each GPU its stream and scratch, runs the stage's work
// (poisoned results first), times the span over every GPU and reads back every total.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_buffer.h"
#include "common/harness/cache_state.h"
#include "common/multi_gpu.h"

namespace reduce {

// A stage's shard_of broke the contract: the shards do not follow each other over [0, n).
// Making one prints its "reduce-failure: tests.shards" line.
class ShardError : public std::runtime_error {
 public:
  explicit ShardError(const std::string& what);
};

// Floats of block-sum scratch the capstone kernel may use on a GPU with sm_count SMs.
std::size_t capstone_block_sums_capacity(int sm_count);

// Bytes of scratch sum_shard needs on the current device besides block_sums: 0 for the
// capstone kernel, CUB's temporary storage for the student edition's fallback
// (common/multi_gpu/capstone.cu). The runner allocates it once per GPU, before any timing.
std::size_t sum_shard_scratch_bytes();

// What sum_shard and the all-reduce need on one GPU besides its shard: the capstone kernel's
// scratch, the two result floats and a stream. Made and destroyed with that GPU current;
// the one-GPU-per-process form (common/multi_gpu/ranks_main.cu) holds one too.
struct GpuScratch {
  GpuScratch();
  ~GpuScratch();
  GpuScratch(const GpuScratch&) = delete;
  GpuScratch& operator=(const GpuScratch&) = delete;

  // This GPU's part for a shard of `count` floats at `shard`, summed on `comm`.
  GpuPart part(const float* shard, std::size_t count, ncclComm_t comm) const;

  int device = 0;
  int sm_count = 0;
  DeviceBuffer<float> block_sums;
  DeviceBuffer<unsigned int> ticket;
  DeviceBuffer<float> results;          // [0] the shard's sum, [1] the total
  DeviceBuffer<unsigned char> scratch;  // sum_shard's own, when it needs any
  cudaStream_t stream = nullptr;
};

// The stage's shards of n over `gpus`, in order.
std::vector<Shard> shards_for(const MultiGpuPlan& plan, std::size_t n, int gpus);

// "" when the shards start at 0, each begins where the one before ended and the last ends
// at n; otherwise one line naming the first shard that does not.
std::string shard_problem(const std::vector<Shard>& shards, std::size_t n);

// How many GPUs `--gpus K` names: K, or every visible GPU when it was left out (0). Sets
// *problem to one line when the machine shows fewer than K, else to "".
int gpus_for(int option, int visible, std::string* problem);

// Device memory one GPU needs for n floats over `gpus` (its shard, scratch, L2 flusher),
// and a margin for NCCL's own buffers.
std::size_t multi_gpu_bytes_needed(std::size_t n, int gpus);

struct MultiGpuTiming {
  std::vector<float> warmup;  // every GPU's total after the untimed first run
  std::vector<float> last;    // and after the last timed one
  double median_ms = 0.0;     // from the first GPU's start to the last GPU's end
  int disagreeing = 0;        // timed runs where some GPU's total differs from its warm-up's
  float first_disagreeing = 0.0f;  // the first such total, signed as the warm-up's
};

class MultiGpuRunner {
 public:
  // Devices 0 to gpus - 1, one stream each, and the stage's communicators.
  MultiGpuRunner(const MultiGpuPlan& plan, int gpus);
  ~MultiGpuRunner();
  MultiGpuRunner(const MultiGpuRunner&) = delete;
  MultiGpuRunner& operator=(const MultiGpuRunner&) = delete;

  // Shards the input with the stage's shard_of and copies each shard to its GPU. Throws
  // ShardError when the shards break the contract.
  void upload(const std::vector<float>& input);

  // One untimed run: every GPU's total. Throws StageCallError when the stage's calls had
  // the wrong shape (common/multi_gpu/multi_gpu_call_log.h), even if the totals came out right.
  std::vector<float> run(unsigned block);

  // A warm-up run, then `repeat` timed runs, each after every GPU's L2 is put in `cache`.
  MultiGpuTiming time(unsigned block, int repeat, CacheState cache);

  int gpus() const { return static_cast<int>(gpus_.size()); }
  const std::vector<Shard>& shards() const { return shards_; }

 private:
  struct Gpu;
  void poison();
  void negate_shards();
  void call_stage(unsigned block);
  std::vector<GpuPart> parts() const;
  std::vector<float> totals();

  const MultiGpuPlan& plan_;
  std::vector<std::unique_ptr<Gpu>> gpus_;
  std::vector<Shard> shards_;
};

}  // namespace reduce
