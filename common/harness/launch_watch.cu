#include "common/harness/launch_watch.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include "common/cuda_check.h"

// The runtime's own event calls: the harness's events are not the code's, so they must not
// count in the allocation log (allocation_log.cu wraps the public names).
extern "C" cudaError_t __real_cudaEventCreate(cudaEvent_t* event);
extern "C" cudaError_t __real_cudaEventDestroy(cudaEvent_t event);
extern "C" cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
extern "C" cudaError_t __real_cudaFree(void* pointer);

namespace reduce {
namespace {

struct Recorded {
  cudaEvent_t before;
  cudaEvent_t after;
};

struct Watch {
  std::mutex mutex;
  std::atomic<bool> on{false};  // read on every launch: no lock on the unwatched path
  std::vector<Recorded> launches;
  cudaKernel_t given = nullptr;  // the kernel whose block sums are captured
  int given_launches = 0;
  GivenLaunch last_given;        // block_sums filled by launches_watched()
  bool captured = false;         // the copy of the last given launch's output was enqueued
  // The harness's own copy of the given kernel's output, made on a stream of its own that
  // waits for the kernel and nothing else: a stream that does not block the legacy default
  // stream, so the code's own stop event never waits for this copy.
  cudaStream_t stream = nullptr;
  float* capture = nullptr;
  std::size_t capacity = 0;
};

Watch& watch() {
  static Watch* const instance = new Watch;
  return *instance;
}

// Resolved and allocated here, before the watched code runs, so that nothing the wrap does
// during a launch allocates or synchronizes.
void prepare_capture(Watch& w, GivenKernel given, std::size_t capacity) {
  w.given = nullptr;
  if (given == nullptr || capacity == 0) return;
  CUDA_CHECK(cudaGetKernel(&w.given, reinterpret_cast<const void*>(given)));
  if (w.stream == nullptr) CUDA_CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
  if (w.capacity < capacity) {
    if (w.capture != nullptr) CUDA_CHECK(__real_cudaFree(w.capture));
    w.capture = nullptr;
    CUDA_CHECK(__real_cudaMalloc(reinterpret_cast<void**>(&w.capture), capacity * sizeof(float)));
    w.capacity = capacity;
  }
}

}  // namespace

void watch_launches(GivenKernel given, std::size_t capacity) {
  Watch& w = watch();
  std::lock_guard<std::mutex> lock(w.mutex);
  prepare_capture(w, given, capacity);
  w.launches.clear();
  w.given_launches = 0;
  w.last_given = GivenLaunch{};
  w.captured = false;
  w.on = true;
}

LaunchWatch launches_watched() {
  LaunchWatch result;
#if REDUCE_WATCH_LAUNCHES
  result.available = true;
#endif
  std::vector<Recorded> seen;
  {
    Watch& w = watch();
    std::lock_guard<std::mutex> lock(w.mutex);
    w.on = false;
    seen.swap(w.launches);
    result.given_launches = w.given_launches;
    result.last_given = w.last_given;
    if (w.captured) {
      CUDA_CHECK(cudaStreamSynchronize(w.stream));
      result.last_given.block_sums.resize(std::min<std::size_t>(w.last_given.grid, w.capacity));
      CUDA_CHECK(cudaMemcpy(result.last_given.block_sums.data(), w.capture,
                            result.last_given.block_sums.size() * sizeof(float),
                            cudaMemcpyDeviceToHost));
    }
  }
  result.launches = static_cast<int>(seen.size());
  for (const Recorded& launch : seen) {
    CUDA_CHECK(cudaEventSynchronize(launch.after));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, launch.before, launch.after));
    result.kernel_ms += ms;
    CUDA_CHECK(__real_cudaEventDestroy(launch.before));
    CUDA_CHECK(__real_cudaEventDestroy(launch.after));
  }
  return result;
}

}  // namespace reduce

#if REDUCE_WATCH_LAUNCHES
extern "C" cudaError_t __real___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void** args, size_t shared, cudaStream_t stream);

namespace reduce {
namespace {

// A launch of the given kernel: its arguments (in, block_sums, n: GivenKernel's fixed
// parameters) and, once the kernel has ended, a copy of the block sums it wrote. Called
// with the watch's lock held, only after a launch the runtime accepted. A copy the runtime
// refuses (a block_sums pointer that is not device memory) is not made, and its error is
// taken back so that the code's own launch check does not see it.
void capture_given(Watch& w, dim3 grid, dim3 block, void** args, cudaEvent_t after) {
  ++w.given_launches;
  float* const block_sums = *static_cast<float**>(args[1]);
  w.last_given = GivenLaunch{grid.x * grid.y * grid.z, block.x * block.y * block.z,
                             *static_cast<unsigned int*>(args[2]), {}};
  w.captured = false;
  if (cudaPeekAtLastError() != cudaSuccess) return;  // the code's own pending error stays
  const std::size_t count = std::min<std::size_t>(w.last_given.grid, w.capacity);
  if (cudaStreamWaitEvent(w.stream, after, 0) == cudaSuccess &&
      cudaMemcpyAsync(w.capture, block_sums, count * sizeof(float), cudaMemcpyDeviceToDevice,
                      w.stream) == cudaSuccess) {
    w.captured = true;
  } else {
    (void)cudaGetLastError();
  }
}

}  // namespace
}  // namespace reduce

// Every launch of a kernel compiled by nvcc comes here. Unwatched, it goes straight on;
// watched, it is bracketed by two events of the harness on the launch's own stream.
extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                 void** args, size_t shared, cudaStream_t stream) {
  reduce::Watch& w = reduce::watch();
  if (!w.on.load(std::memory_order_acquire)) {
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  }
  reduce::Recorded recorded{};
  if (__real_cudaEventCreate(&recorded.before) != cudaSuccess ||
      __real_cudaEventCreate(&recorded.after) != cudaSuccess) {
    return __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  }
  cudaEventRecord(recorded.before, stream);
  const cudaError_t status = __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
  cudaEventRecord(recorded.after, stream);
  std::lock_guard<std::mutex> lock(w.mutex);
  w.launches.push_back(recorded);
  if (status == cudaSuccess && kernel == w.given && w.given != nullptr) {
    reduce::capture_given(w, grid, block, args, recorded.after);
  }
  return status;
}
#endif
