// Pre-included (nvcc --pre-include) into the GPU test suites built from a student's stage
// file, never into the answers' timed executables. Two kinds of undefined behaviour that
// on an H100 usually still give the right sum, and that compute-sanitizer (synccheck
// included) did not report there:
// - a warp intrinsic (__shfl_*_sync, __syncwarp) called from a lane outside its mask;
// - a __syncthreads() that only some threads of the block reach (inside an `if`).
// Each prints one line naming the file and line, which the student check reads, and fails
// the test that ran it; a bad shuffle also returns NaN, so the sum cannot come out right.
#pragma once

// Headers that declare their own overloads of these intrinsics come first, before the
// macros at the end of this file could rewrite their declarations.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace reduce_sync_checks {

__device__ unsigned int reported;  // one line per process is enough

__device__ __forceinline__ bool first_report() { return atomicExch(&reported, 1u) == 0u; }

__device__ __forceinline__ bool lane_in_mask(unsigned int mask, const char* what,
                                             const char* file, int line) {
  const unsigned int lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
  if ((mask >> lane) & 1u) return true;
  if (first_report()) {
    printf("reduce-check: %s at %s:%d ran in lane %u, which its mask 0x%08x leaves out\n",
           what, file, line, lane, mask);
  }
  return false;
}

template <typename T>
__device__ __forceinline__ T poisoned(T value) {
  return value;
}
template <>
__device__ __forceinline__ float poisoned(float) {
  return __int_as_float(0x7fffffff);
}

template <typename T>
__device__ __forceinline__ T shfl_down(unsigned int mask, T value, const char* file, int line,
                                       unsigned int delta, int width = 32) {
  if (!lane_in_mask(mask, "__shfl_down_sync", file, line)) return poisoned(value);
  return __shfl_down_sync(mask, value, delta, width);
}

template <typename T>
__device__ __forceinline__ T shfl_up(unsigned int mask, T value, const char* file, int line,
                                     unsigned int delta, int width = 32) {
  if (!lane_in_mask(mask, "__shfl_up_sync", file, line)) return poisoned(value);
  return __shfl_up_sync(mask, value, delta, width);
}

template <typename T>
__device__ __forceinline__ T shfl_xor(unsigned int mask, T value, const char* file, int line,
                                      int lane_mask, int width = 32) {
  if (!lane_in_mask(mask, "__shfl_xor_sync", file, line)) return poisoned(value);
  return __shfl_xor_sync(mask, value, lane_mask, width);
}

template <typename T>
__device__ __forceinline__ T shfl(unsigned int mask, T value, const char* file, int line,
                                  int src_lane, int width = 32) {
  if (!lane_in_mask(mask, "__shfl_sync", file, line)) return poisoned(value);
  return __shfl_sync(mask, value, src_lane, width);
}

// __syncwarp takes its mask optionally, so the macro below calls this object with
// whatever arguments the student wrote.
struct SyncWarp {
  const char* file;
  int line;
  __device__ __forceinline__ void operator()(unsigned int mask = 0xffffffffu) const {
    if (lane_in_mask(mask, "__syncwarp", file, line)) __syncwarp(mask);
  }
};

// Every thread of the block must reach each __syncthreads(), and the lanes of a warp
// together. __syncthreads_count counts the threads that did arrive (threads that
// already exited are not waited for, which is how a barrier inside an `if` gets through).
__device__ __forceinline__ void syncthreads(const char* file, int line) {
  const unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned int rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned int warp_lanes = min(32u, threads - rank / 32 * 32);
  const unsigned int whole_warp = warp_lanes == 32 ? 0xffffffffu : (1u << warp_lanes) - 1;
  const unsigned int active = __activemask();
  const unsigned int arrived = static_cast<unsigned int>(__syncthreads_count(1));
  if ((active != whole_warp || arrived != threads) && first_report()) {
    printf("reduce-check: __syncthreads at %s:%d reached by %u of the block's %u threads "
           "(this warp: lanes 0x%08x)\n", file, line, arrived, threads, active);
  }
}

}  // namespace reduce_sync_checks

// For the test suite (tests/gpu/stage_suite.cpp, which declares this weak so the answers'
// suites link without it): whether a misuse was reported since the last call. Clears the
// flag, so each test reports its own.
extern "C" int reduce_sync_checks_take_report() {
  unsigned int flag = 0;
  if (cudaMemcpyFromSymbol(&flag, reduce_sync_checks::reported, sizeof flag) != cudaSuccess) {
    return 0;  // a broken context: the test has failed on that already
  }
  const unsigned int cleared = 0;
  cudaMemcpyToSymbol(reduce_sync_checks::reported, &cleared, sizeof cleared);
  return flag != 0;
}

#define __shfl_down_sync(mask, value, ...) \
  ::reduce_sync_checks::shfl_down(mask, value, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(mask, value, ...) \
  ::reduce_sync_checks::shfl_up(mask, value, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(mask, value, ...) \
  ::reduce_sync_checks::shfl_xor(mask, value, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_sync(mask, value, ...) \
  ::reduce_sync_checks::shfl(mask, value, __FILE__, __LINE__, __VA_ARGS__)
#define __syncwarp(...) (::reduce_sync_checks::SyncWarp{__FILE__, __LINE__}(__VA_ARGS__))
#define __syncthreads() (::reduce_sync_checks::syncthreads(__FILE__, __LINE__))
