// Stage 14's per-thread read: float4 loads, 16 KB per block per trip, the odd floats at
// either end one at a time. It is stage 14's TODO 1 almost line for line, so it lives in
// answers/ and the student edition (scripts/export_student.sh) has none. Two kernels use
// it: the floor's read (bench/baseline_read.cu, built only where this file exists) and the
// capstone stage 18 reuses (answers/shared/capstone_kernel.cuh).
#pragma once

#include <cstdint>

namespace {

constexpr unsigned int kFloatsPerVector = 4;  // float4: 16-byte loads
constexpr unsigned int kVectorsInFlight = 4;  // float4s per thread per trip

// This thread's share of in[0, n): floats before the first 16-byte boundary and after the
// last whole float4 are read one at a time by the grid's first threads; the rest as
// float4s, chunk by chunk over the grid.
__device__ float stream_thread_sum(const float* in, unsigned int n) {
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

}  // namespace
