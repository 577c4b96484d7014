// The capstone's kernel (stage 14's answer) as stage 18's harness uses it: each GPU sums
// its shard with it at its memory's floor (common/multi_gpu/capstone.cu launches it).
// Stage 14's lesson explains every line; the student writes it there, so it lives in
// answers/ and the student edition (scripts/export_student.sh) has none: there
// capstone.cu sums each shard with CUB's device reduction instead.
// Included once, by common/multi_gpu/capstone.cu.
#pragma once

#include <cuda/atomic>

#include "answers/shared/read_loop.cuh"
#include "common/block_reduce.cuh"

namespace reduce {
namespace {

constexpr unsigned int kSumsInFlight = 4;     // block sums the last block loads at once
constexpr unsigned int kBytesInFlightPerSm = 64 * 1024;

__device__ float capstone_sum_of_block_sums(const float* block_sums) {
  float total = 0.0f;
  for (unsigned int first = 0; first < gridDim.x; first += kSumsInFlight * blockDim.x) {
    float loaded[kSumsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kSumsInFlight; ++k) {
      const unsigned int b = first + k * blockDim.x + threadIdx.x;
      loaded[k] = b < gridDim.x ? __ldcg(&block_sums[b]) : 0.0f;
    }
#pragma unroll
    for (unsigned int k = 0; k < kSumsInFlight; ++k) total += loaded[k];
  }
  return block_reduce_sum(total);
}

__global__ void capstone_single_pass(const float* in, float* block_sums, unsigned int* ticket,
                                     float* result, unsigned int n) {
  __shared__ bool is_last_block;
  const float sum = block_reduce_sum(stream_thread_sum(in, n));
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = sum;
    return;
  }
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = sum;
    cuda::atomic_ref<unsigned int, cuda::thread_scope_device> counter(*ticket);
    is_last_block = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  const float total = capstone_sum_of_block_sums(block_sums);
  if (threadIdx.x == 0) {
    *result = total;
    *ticket = 0;
  }
}

}  // namespace
}  // namespace reduce
