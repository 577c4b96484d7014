// Stage 05: the host side.
// From stage 06 on, you write a kernel and the harness does the host side: it allocates the
// device memory, copies the input, times the launch and copies the result back. Here, once,
// the kernel is given and you write that host side yourself: allocate, copy in, launch,
// time the launch with CUDA events, copy the block sums back, free. The harness still
// makes the input, adds the block sums you return, checks them against the CPU and checks
// that the memory came back; it also watches your launch, so the block sums must be the
// ones reduce_blocks wrote on the GPU and your events must enclose that launch.
//
// Run it:   scripts/run.sh 5         (answer)     scripts/run.sh --todo 5  (your template)
//           build/bin/stage05_todo --n 1000 --block 128
// Test it:  scripts/test.sh --todo 5
#include <cmath>
#include <limits>
#include <vector>

#include "common/block_reduce.cuh"
#include "common/cuda_check.h"
#include "common/stage.h"

constexpr unsigned int kElementsPerThread = 2;

// Given: each thread loads two elements and adds them, then the block adds its threads'
// values with the course's block reduction (stages 06 to 12 build one by hand). Block b
// adds in[b * 2 * blockDim.x ...] and leaves the sum in block_sums[b].
__global__ void reduce_blocks(const float* in, float* block_sums, unsigned int n) {
  const unsigned int i = blockIdx.x * (kElementsPerThread * blockDim.x) + threadIdx.x;
  float sum = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sum = reduce::block_reduce_sum(sum);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = sum;
}

// The host side: input.size() floats in, one sum per block out, and the launch's time.
reduce::HostRun reduce_on_gpu(const std::vector<float>& input, unsigned block) {
  const std::size_t n = input.size();
  const auto grid =
      static_cast<unsigned int>((n + kElementsPerThread * block - 1) / (kElementsPerThread * block));
  reduce::HostRun run;
  // NaN until copied back, so a missing copy shows instead of passing as zeros.
  run.block_sums.assign(grid, std::numeric_limits<float>::quiet_NaN());
  float* d_in = nullptr;
  float* d_block_sums = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;

  // ====================== TODO 1 of 5: BEGIN ======================
  // Allocate the device memory: d_in for the n input floats, d_block_sums for the grid
  // block sums (cudaMalloc counts bytes, not elements). Create the two events
  // (cudaEventCreate). Wrap every CUDA call in CUDA_CHECK, which names the call, the file
  // and the line if it fails.
  // ====================== TODO 1 of 5: END ========================

  // ====================== TODO 2 of 5: BEGIN ======================
  // Copy the whole input, all n floats, from the host vector to d_in (cudaMemcpy, host to
  // device), before the launch reads it.
  // ====================== TODO 2 of 5: END ========================

  // ====================== TODO 3 of 5: BEGIN ======================
  // Time the launch alone, between the start and stop events recorded (cudaEventRecord)
  // just before and just after it:
  // - launch reduce_blocks with grid blocks of block threads; it gets the device buffers
  //   (a kernel cannot read the host vector) and n;
  // - right after the launch, CUDA_CHECK_LAUNCH with the kernel's name: a launch returns
  //   nothing, this asks whether it was accepted;
  // - the host waits until the GPU has reached the stop event (cudaEventSynchronize), and
  //   only then reads the milliseconds between the two events into run.kernel_ms
  //   (cudaEventElapsedTime); read before that, the time is not ready yet.
  // ====================== TODO 3 of 5: END ========================

  // ====================== TODO 4 of 5: BEGIN ======================
  // Copy the grid block sums from d_block_sums back into run.block_sums (device to host):
  // exactly grid floats, which is all that vector holds. cudaMemcpy waits for the kernel
  // before it copies.
  // ====================== TODO 4 of 5: END ========================

  // ====================== TODO 5 of 5: BEGIN ======================
  // Give everything back: both device buffers (cudaFree) and both events
  // (cudaEventDestroy), each call checked.
  // ====================== TODO 5 of 5: END ========================
  return run;
}

// One version; --version and --describe find it in this list.
constexpr reduce::StageVersion kVersions[] = {{"host code: allocate, copy, launch, time, copy back, free"}};

const reduce::StagePlan& reduce::stage_plan() {
  static const StagePlan plan{.number = 5,
                              .kind = StageKind::kHostCode,
                              .finish = Finish::kOnHost,
                              .versions = kVersions,
                              .host_run = reduce_on_gpu,
                              .given_kernel = reduce_blocks};
  return plan;
}
