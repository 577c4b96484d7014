// The cluster barrier's two halves in their .aligned form, for the staged-cluster kernel of
// stage 17 (layer norm's version 10). cooperative_groups' barrier_arrive() and
// barrier_wait() issue the form that lets the threads of a warp arrive apart; the .aligned
// form promises that every thread of the warp executes the same barrier instruction, which
// holds where the whole block calls it at one place (kernel start, no branch around it),
// and costs less.
#pragma once

namespace reduce {

// "This block has started": no ordering of memory, only of the start; pair with
// cluster_wait() before touching another block's shared memory. Every thread of the block
// must call it, at the same place.
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}

// Waits until every thread of every block of the cluster has arrived.
__device__ __forceinline__ void cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#endif
}

}  // namespace reduce
