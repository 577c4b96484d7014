// The capstone's kernel (stage 14's answer) as stage 18's harness uses it: each GPU sums
// its shard with it at its memory's floor (common/multi_gpu/capstone.cu launches it).
// Stage 14's lesson explains every line; the student writes it there, so it lives in
// answers/ and the student edition (scripts/export_student.sh) has none: there
// capstone.cu sums each shard with CUB's device reduction instead.
// Included once, by common/multi_gpu/capstone.cu.
#pragma once

#include <cstdint>

#include <cuda/atomic>

#include "common/block_reduce.cuh"

namespace reduce {
namespace {

constexpr unsigned int kFloatsPerVector = 4;  // float4: 16-byte loads
constexpr unsigned int kVectorsInFlight = 4;  // float4s per thread per trip
constexpr unsigned int kSumsInFlight = 4;     // block sums the last block loads at once
constexpr unsigned int kBytesInFlightPerSm = 64 * 1024;

__device__ float capstone_thread_sum(const float* in, unsigned int n) {
  const unsigned int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const auto misaligned = static_cast<unsigned int>(
      (reinterpret_cast<std::uintptr_t>(in) / sizeof(float)) % kFloatsPerVector);
  const unsigned int head = min(n, (kFloatsPerVector - misaligned) % kFloatsPerVector);
  const unsigned int vector_count = (n - head) / kFloatsPerVector;
  const unsigned int tail = head + vector_count * kFloatsPerVector;
  float sum = 0.0f;
  if (thread < head) sum += in[thread];
  if (tail + thread < n) sum += in[tail + thread];
  const unsigned int chunk = kVectorsInFlight * blockDim.x;
  const float4* vectors = reinterpret_cast<const float4*>(in + head);
  for (unsigned int first = blockIdx.x * chunk; first < vector_count; first += gridDim.x * chunk) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      const unsigned int index = first + k * blockDim.x + threadIdx.x;
      loaded[k] = index < vector_count ? vectors[index] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      sum += (loaded[k].x + loaded[k].y) + (loaded[k].z + loaded[k].w);
    }
  }
  return sum;
}

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
  const float sum = block_reduce_sum(capstone_thread_sum(in, n));
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
