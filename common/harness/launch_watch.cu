#include "common/harness/launch_watch.h"

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "common/cuda_check.h"

// The runtime's own event calls: the harness's events are not the code's, so they must not
// count in the allocation log (allocation_log.cu wraps the public names).
extern "C" cudaError_t __real_cudaEventCreate(cudaEvent_t* event);
extern "C" cudaError_t __real_cudaEventDestroy(cudaEvent_t event);

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
};

Watch& watch() {
  static Watch* const instance = new Watch;
  return *instance;
}

}  // namespace

void watch_launches() {
  std::lock_guard<std::mutex> lock(watch().mutex);
  watch().on = true;
  watch().launches.clear();
}

LaunchWatch launches_watched() {
  std::vector<Recorded> seen;
  {
    std::lock_guard<std::mutex> lock(watch().mutex);
    watch().on = false;
    seen.swap(watch().launches);
  }
  LaunchWatch result;
#if REDUCE_WATCH_LAUNCHES
  result.available = true;
#endif
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
  return status;
}
#endif
