// block_reduce_sum on CUB, for the student edition (see block_reduce.cuh). CUB wants the
// block size at compile time, so the six block sizes the course allows each get their own
// instance, picked by blockDim.x.
#pragma once

#include <cub/block/block_reduce.cuh>

namespace reduce {

template <int kThreads>
__device__ __forceinline__ float block_reduce_sum_of(float value) {
  using BlockReduce = cub::BlockReduce<float, kThreads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename BlockReduce::TempStorage storage;
  return BlockReduce(storage).Sum(value);
}

__device__ __forceinline__ float block_reduce_sum(float value) {
  switch (blockDim.x) {
    case 32: return block_reduce_sum_of<32>(value);
    case 64: return block_reduce_sum_of<64>(value);
    case 128: return block_reduce_sum_of<128>(value);
    case 256: return block_reduce_sum_of<256>(value);
    case 512: return block_reduce_sum_of<512>(value);
    default: return block_reduce_sum_of<1024>(value);  // the harness allows nothing else
  }
}

}  // namespace reduce
