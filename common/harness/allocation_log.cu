#include "common/harness/allocation_log.h"

#include <cuda_runtime.h>

#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace reduce {
namespace {

struct Log {
  std::mutex mutex;
  std::unordered_map<void*, std::size_t> buffers;
  std::unordered_set<cudaEvent_t> events;
};

// Never destroyed: buffers in static storage (stage 19's scratch) are freed after main
// returns, and their cudaFree still comes through here.
Log& allocation_log() {
  static Log* const instance = new Log;
  return *instance;
}

std::size_t less(std::size_t a, std::size_t b) { return a > b ? a - b : 0; }

}  // namespace

DeviceHoldings device_holdings() {
  Log& l = allocation_log();
  std::lock_guard<std::mutex> lock(l.mutex);
  DeviceHoldings now;
  for (const auto& buffer : l.buffers) now.bytes += buffer.second;
  now.buffers = l.buffers.size();
  now.events = l.events.size();
  return now;
}

DeviceHoldings holdings_gained(const DeviceHoldings& before, const DeviceHoldings& after) {
  return {less(after.bytes, before.bytes), less(after.buffers, before.buffers),
          less(after.events, before.events)};
}

}  // namespace reduce

// The linker sends every call of the wrapped functions here (--wrap=NAME makes NAME mean
// __wrap_NAME and __real_NAME the runtime's own).
extern "C" {
cudaError_t __real_cudaMalloc(void** pointer, std::size_t bytes);
cudaError_t __real_cudaFree(void* pointer);
cudaError_t __real_cudaEventCreate(cudaEvent_t* event);
cudaError_t __real_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t __real_cudaEventDestroy(cudaEvent_t event);

cudaError_t __wrap_cudaMalloc(void** pointer, std::size_t bytes) {
  const cudaError_t status = __real_cudaMalloc(pointer, bytes);
  if (status == cudaSuccess && pointer != nullptr && *pointer != nullptr) {
    std::lock_guard<std::mutex> lock(reduce::allocation_log().mutex);
    reduce::allocation_log().buffers[*pointer] = bytes;
  }
  return status;
}

cudaError_t __wrap_cudaFree(void* pointer) {
  const cudaError_t status = __real_cudaFree(pointer);
  if (status == cudaSuccess && pointer != nullptr) {
    std::lock_guard<std::mutex> lock(reduce::allocation_log().mutex);
    reduce::allocation_log().buffers.erase(pointer);
  }
  return status;
}

static void note_event(cudaError_t status, const cudaEvent_t* event) {
  if (status != cudaSuccess || event == nullptr) return;
  std::lock_guard<std::mutex> lock(reduce::allocation_log().mutex);
  reduce::allocation_log().events.insert(*event);
}

cudaError_t __wrap_cudaEventCreate(cudaEvent_t* event) {
  const cudaError_t status = __real_cudaEventCreate(event);
  note_event(status, event);
  return status;
}

cudaError_t __wrap_cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  const cudaError_t status = __real_cudaEventCreateWithFlags(event, flags);
  note_event(status, event);
  return status;
}

cudaError_t __wrap_cudaEventDestroy(cudaEvent_t event) {
  const cudaError_t status = __real_cudaEventDestroy(event);
  if (status == cudaSuccess) {
    std::lock_guard<std::mutex> lock(reduce::allocation_log().mutex);
    reduce::allocation_log().events.erase(event);
  }
  return status;
}
}
