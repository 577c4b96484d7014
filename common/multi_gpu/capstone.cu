// reduce::sum_shard, stage 18's given sum of one GPU's shard. In the instructor edition it
// is the capstone's kernel (stage 14's answer, answers/shared/capstone_kernel.cuh), so that
// each GPU sums its shard at its memory's floor. The student edition has no answers/, so
// that stage 14 is still the student's to write; there each shard is summed by CUB's
// cub::DeviceReduce::Sum (deterministic run to run), in scratch the runner allocates once
// per GPU before anything is timed (sum_shard_scratch_bytes).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "common/geometry.h"
#include "common/multi_gpu.h"
#include "common/multi_gpu/multi_gpu_call_log.h"
#include "common/multi_gpu/multi_gpu_runner.h"

namespace reduce {

std::size_t capstone_block_sums_capacity(int sm_count) {
  return static_cast<std::size_t>(sm_count) * 64;  // > resident blocks per SM on any GPU
}

}  // namespace reduce

#if __has_include("answers/shared/capstone_kernel.cuh")
#include "answers/shared/capstone_kernel.cuh"

namespace reduce {
namespace {

// Blocks per multiprocessor for 64 KB in flight, never more than fit at once. Asked once
// per device and block size: the query is host work that would sit inside the timed span.
int blocks_per_sm(int device, unsigned int block) {
  static std::map<std::pair<int, unsigned int>, int> known;
  const auto found = known.find({device, block});
  if (found != known.end()) return found->second;
  int resident = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, capstone_single_pass,
                                                           static_cast<int>(block), 0));
  const unsigned int bytes_per_block = block * kVectorsInFlight * sizeof(float4);
  const int wanted = static_cast<int>((kBytesInFlightPerSm + bytes_per_block - 1) / bytes_per_block);
  return known[{device, block}] = std::min(wanted, resident);
}

}  // namespace

std::size_t sum_shard_scratch_bytes() { return 0; }  // the kernel needs only block_sums

void sum_shard(const GpuPart& part, unsigned block) {
  // On the wrong device the launch would run there with another GPU's pointers; the runner
  // reports the call (common/multi_gpu/multi_gpu_call_log.h) instead.
  if (!note_shard_sum(part.device)) return;
  const std::size_t vectors = blocks_for(part.count, kFloatsPerVector);
  const unsigned int chunk = block * kVectorsInFlight;
  const auto grid = static_cast<unsigned int>(
      vectors <= 2 * chunk ? 1 : resident_grid(vectors, chunk, part.sm_count,
                                                   blocks_per_sm(part.device, block)));
  capstone_single_pass<<<grid, block, 0, part.stream>>>(part.shard, part.block_sums, part.ticket,
                                                        part.shard_sum,
                                                        static_cast<unsigned int>(part.count));
  CUDA_CHECK_LAUNCH("capstone_single_pass");
}

}  // namespace reduce

#else  // the student edition: CUB's device-wide sum, no stage's solution

#include <cub/device/device_reduce.cuh>

namespace reduce {

// The scratch CUB asks for at the largest shard sum_shard takes (its count is an unsigned
// int, as the capstone kernel's n); CUB's need grows with the count, so this covers every
// shard, and a shortfall would be CUB's cudaErrorInvalidValue, not a wrong sum.
std::size_t sum_shard_scratch_bytes() {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr),
                                    static_cast<float*>(nullptr),
                                    std::numeric_limits<unsigned int>::max()));
  return bytes;
}

void sum_shard(const GpuPart& part, unsigned /*block*/) {
  // On the wrong device the launch would run there with another GPU's pointers; the runner
  // reports the call (common/multi_gpu/multi_gpu_call_log.h) instead.
  if (!note_shard_sum(part.device)) return;
  std::size_t bytes = part.scratch_bytes;
  CUDA_CHECK(cub::DeviceReduce::Sum(part.scratch, bytes, part.shard, part.shard_sum,
                                    static_cast<unsigned int>(part.count), part.stream));
  CUDA_CHECK_LAUNCH("cub::DeviceReduce::Sum");
}

}  // namespace reduce

#endif
