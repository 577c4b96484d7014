// experiment_stage14_steps: what each of stage 14's techniques buys, in microseconds.
//
// Starts from the earlier capstone (each thread's float4s a whole grid apart, every block
// the multiprocessors hold, __threadfence() on both sides of the ticket, a last block that
// waits for one block sum at a time) and adds stage 14's techniques one at a time. Every
// step runs at the same sizes in the same process, timed like the benchmark: the L2 clean
// (no input, no dirty lines) before each run, CUDA events, the median, the result verified
// against the CPU reference after timing. CUB runs beside them.
//
//   build/bin/experiment_stage14_steps            one Markdown table
//   build/bin/experiment_stage14_steps --csv      step,n,us,match lines
// scripts/bench.sh --steps runs it and writes docs/results/stage14_steps.md.
#include <cub/device/device_reduce.cuh>
#include <cuda/atomic>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/block_reduce.cuh"
#include "common/device_buffer.h"
#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/harness/timing.h"

namespace {

using namespace reduce;

constexpr unsigned int kBlock = 256;
constexpr unsigned int kVectorsInFlight = 4;

struct Step {
  bool chunked;         // block b reads 16 KB chunks b, b + gridDim.x, ... (else thread strides)
  int blocks_per_sm;    // 0: every block the multiprocessor holds
  bool acq_rel;         // the ticket as one acquire-release fetch_add (else two fences)
  bool batched_combine; // the last block issues its loads together (else one at a time)
  bool one_block;       // inputs of at most two chunks get one block and no ticket
  bool streaming_hint;  // __ldcs loads (evict-first): tried, not kept
};

template <bool kChunked, bool kAcqRel, bool kBatched, bool kStreaming>
__global__ void step_kernel(const float4* vectors, unsigned int count, float* block_sums,
                            unsigned int* ticket, float* result) {
  __shared__ bool is_last_block;
  float sum = 0.0f;
  const unsigned int chunk = kVectorsInFlight * blockDim.x;
  const unsigned int first_index = kChunked ? blockIdx.x * chunk : blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int step = kChunked ? gridDim.x * chunk : kVectorsInFlight * gridDim.x * blockDim.x;
  const unsigned int spacing = kChunked ? blockDim.x : gridDim.x * blockDim.x;
  for (unsigned int first = first_index; first < count; first += step) {
    float4 loaded[kVectorsInFlight];
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      const unsigned int index = first + k * spacing + (kChunked ? threadIdx.x : 0);
      const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      loaded[k] = index < count ? (kStreaming ? __ldcs(&vectors[index]) : vectors[index]) : zero;
    }
#pragma unroll
    for (unsigned int k = 0; k < kVectorsInFlight; ++k) {
      sum += (loaded[k].x + loaded[k].y) + (loaded[k].z + loaded[k].w);
    }
  }
  sum = block_reduce_sum(sum);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) *result = sum;
    return;
  }
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = sum;
    unsigned int before;
    if constexpr (kAcqRel) {
      cuda::atomic_ref<unsigned int, cuda::thread_scope_device> counter(*ticket);
      before = counter.fetch_add(1u, cuda::memory_order_acq_rel);
    } else {
      __threadfence();
      before = atomicAdd(ticket, 1u);
    }
    is_last_block = before == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;
  if constexpr (!kAcqRel) __threadfence();
  float total = 0.0f;
  if constexpr (kBatched) {
    for (unsigned int first = 0; first < gridDim.x; first += 4 * blockDim.x) {
      float loaded[4];
#pragma unroll
      for (unsigned int k = 0; k < 4; ++k) {
        const unsigned int b = first + k * blockDim.x + threadIdx.x;
        loaded[k] = b < gridDim.x ? __ldcg(&block_sums[b]) : 0.0f;
      }
#pragma unroll
      for (unsigned int k = 0; k < 4; ++k) total += loaded[k];
    }
  } else {
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += __ldcg(&block_sums[b]);
  }
  total = block_reduce_sum(total);
  if (threadIdx.x == 0) {
    *result = total;
    *ticket = 0;
  }
}

using Kernel = void (*)(const float4*, unsigned int, float*, unsigned int*, float*);

Kernel kernel_for(const Step& s) {
  if (s.streaming_hint) return step_kernel<true, true, true, true>;
  if (!s.chunked) return step_kernel<false, false, false, false>;
  if (!s.acq_rel) return step_kernel<true, false, false, false>;
  if (!s.batched_combine) return step_kernel<true, true, false, false>;
  return step_kernel<true, true, true, false>;
}

struct Named {
  const char* name;
  Step step;
};

const std::vector<Named>& steps() {
  static const std::vector<Named> all = {
      {"earlier capstone (thread-strided float4s, 8 blocks/SM, two fences, one load at a time)",
       {false, 0, false, false, false, false}},
      {"+ 16 KB chunk per block per trip", {true, 0, false, false, false, false}},
      {"+ 64 KB in flight per SM (4 blocks/SM)", {true, 4, false, false, false, false}},
      {"+ acquire-release ticket", {true, 4, true, false, false, false}},
      {"+ last block's loads together", {true, 4, true, true, false, false}},
      {"+ one block for small n (stage 14)", {true, 4, true, true, true, false}},
      {"stage 14 with every block the SM holds (8/SM) instead of 64 KB in flight", {true, 0, true, true, true, false}},
      {"stage 14 with __ldcs loads (not kept)", {true, 4, true, true, true, true}},
  };
  return all;
}

unsigned int grid_for(const Step& s, unsigned int count, int sm_count) {
  const unsigned int chunk = kBlock * kVectorsInFlight;
  const unsigned int chunks = (count + chunk - 1) / chunk;
  if (s.one_block && chunks <= 2) return 1;
  int per_sm = s.blocks_per_sm;
  if (per_sm == 0) {
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_for(s), kBlock, 0));
  }
  const unsigned int resident = static_cast<unsigned int>(sm_count * per_sm);
  const unsigned int useful = s.chunked ? chunks : (count + kBlock - 1) / kBlock;
  return std::max(2u, std::min(resident, useful));  // 2: the ticket path even when small
}

}  // namespace

int main(int argc, char** argv) {
  const bool csv = argc > 1 && std::strcmp(argv[1], "--csv") == 0;
  int device = 0, sm_count = 0;
  if (cudaGetDeviceCount(&device) != cudaSuccess || device == 0) {
    std::fprintf(stderr, "experiment_stage14_steps: no CUDA device; run it on a GPU machine\n");
    return 3;
  }
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
  const std::vector<int> log2_sizes = {12, 16, 20, 24, 28};
  const std::size_t largest = std::size_t{1} << log2_sizes.back();
  const std::vector<float> input = generate_input(largest, kDefaultSeed);
  DeviceBuffer<float> in(largest), block_sums(1 << 16), result(2);
  DeviceBuffer<unsigned int> ticket(1);
  CUDA_CHECK(cudaMemcpy(in.get(), input.data(), largest * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(ticket.get(), 0, sizeof(unsigned int)));
  DeviceBuffer<unsigned char> cub_scratch;
  L2Flusher l2;

  std::vector<std::string> names;
  std::vector<std::vector<double>> us(steps().size() + 1);
  bool all_match = true;
  for (int log2_n : log2_sizes) {
    const std::size_t n = std::size_t{1} << log2_n;
    const ReferenceSum ref = reference_sum(input.data(), n);
    const int repeat = log2_n <= 20 ? 301 : 50;
    const auto check = [&](const char* name, double time_us) {
      float gpu = 0.0f;
      CUDA_CHECK(cudaMemcpy(&gpu, result.get(), sizeof gpu, cudaMemcpyDeviceToHost));
      const bool match = verify(gpu, ref, n).match;
      all_match = all_match && match;
      if (csv) std::printf("%s,%zu,%.3f,%d\n", name, n, time_us, match ? 1 : 0);
      return time_us;
    };
    for (std::size_t i = 0; i < steps().size(); ++i) {
      const Step& s = steps()[i].step;
      const unsigned int count = static_cast<unsigned int>(n / 4);
      const unsigned int grid = grid_for(s, count, sm_count);
      const Kernel kernel = kernel_for(s);
      const auto launch = [&] {
        kernel<<<grid, kBlock>>>(reinterpret_cast<const float4*>(in.get()), count,
                                 block_sums.get(), ticket.get(), result.get());
        CUDA_CHECK_LAUNCH("step_kernel");
      };
      launch();
      us[i].push_back(check(steps()[i].name, 1000.0 * median_event_ms(repeat, l2, [] {}, launch)));
    }
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in.get(), result.get(), static_cast<int>(n)));
    if (bytes > cub_scratch.bytes()) cub_scratch = DeviceBuffer<unsigned char>(bytes);
    const auto cub = [&] {
      CUDA_CHECK(cub::DeviceReduce::Sum(cub_scratch.get(), bytes, in.get(), result.get(),
                                        static_cast<int>(n)));
    };
    cub();
    us.back().push_back(check("CUB", 1000.0 * median_event_ms(repeat, l2, [] {}, cub)));
  }
  if (!csv) {
    std::printf("| step |");
    for (int k : log2_sizes) std::printf(" 2^%d (us) |", k);
    std::printf("\n|---|");
    for (std::size_t k = 0; k < log2_sizes.size(); ++k) std::printf("---|");
    std::printf("\n");
    for (std::size_t i = 0; i <= steps().size(); ++i) {
      std::printf("| %s |", i < steps().size() ? steps()[i].name : "CUB");
      for (double t : us[i]) std::printf(" %.2f |", t);
      std::printf("\n");
    }
  }
  if (!all_match) std::fprintf(stderr, "experiment_stage14_steps: some results did not verify\n");
  return all_match ? 0 : 1;
}
