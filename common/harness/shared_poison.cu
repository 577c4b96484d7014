#include "common/harness/shared_poison.h"

#include "common/cuda_check.h"
#include "common/harness/device.h"

namespace reduce {
namespace {

__global__ void fill_shared(unsigned int words, float value) {
  extern __shared__ float slots[];
  for (unsigned int i = threadIdx.x; i < words; i += blockDim.x) slots[i] = value;
}

struct PoisonShape {
  int blocks = 0;
  int bytes = 0;
};

// The largest block of shared memory one block may take, and two such blocks per
// multiprocessor so every multiprocessor runs at least one. Asked once per process.
PoisonShape poison_shape() {
  static PoisonShape shape = [] {
    int device = 0;
    PoisonShape s;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&s.bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    s.blocks = 2 * current_sm_count();
    CUDA_CHECK(cudaFuncSetAttribute(fill_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    s.bytes));
    return s;
  }();
  return shape;
}

}  // namespace

void poison_shared_memory() {
  const PoisonShape shape = poison_shape();
  fill_shared<<<shape.blocks, 1024, shape.bytes, 0>>>(
      static_cast<unsigned int>(shape.bytes / sizeof(float)), kSharedPoison);
  CUDA_CHECK_LAUNCH("fill_shared (shared-memory poison)");
}

}  // namespace reduce
