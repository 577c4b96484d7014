// One block's part of a row staged in shared memory (stages 16 and 17, the versions that
// split a long row over a cluster): copied in once, read and rewritten there, written out
// once. The harness gives it so that the lessons' kernels say what they compute, not how
// the copies are spelt.
//
// Why shared memory and not registers: a part held in registers needs a block of many
// registers a thread, so one block fills an SM and the SM's memory traffic stops while that
// block reduces and waits at its barriers. Staged, a block needs few registers, several
// share an SM, and one block's reads overlap another's reductions and writes.
#pragma once

#include <cuda_pipeline.h>

namespace reduce {

// The blocks of `threads` a kernel over staged parts asks one SM to hold, for
// __launch_bounds__: on sm_90 (228 KiB of shared memory, 2048 threads an SM), 1536 threads'
// worth (three blocks of 512, the most that parts of up to 64 KiB leave room for) and two
// blocks of 1024. That caps a thread at 40 registers (32 in blocks of 1024), so the
// compiler cannot take so many that an SM loses a block. Elsewhere 1: the compiler's own
// choice.
constexpr unsigned int staged_blocks_per_sm(unsigned int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  return threads >= 1024 ? 2 : 1536 / threads;
#else
  (void)threads;
  return 1;
#endif
}

// `count` floats at `staged` (the block's dynamic shared memory, 16-byte aligned), moved
// kVec at a time: kVec = 4 copies and reads 16 bytes at once, which needs the source row
// 16-byte aligned and count a multiple of 4 (rows_take_vectors). Thread t always takes the
// accesses t, t + step(), ...: in the copy and in every pass, so a thread only reads back
// values it copied itself and no block barrier is needed between them. kThreads, where
// not 0, is the block size the kernel was compiled for, so the loops step by a constant
// (with the .aligned cluster barriers of cluster_barrier.h, layer norm's version 10 ran
// 4-7% faster on an H200 at 32768 to 131072 columns; either alone, 1-3%). 0 steps by
// blockDim.x, for kernels built once for every block size.
template <int kVec, unsigned int kThreads = 0>
class StagedPart {
  static_assert(kVec == 1 || kVec == 4, "one float or a float4 per access");

 public:
  __device__ StagedPart(float* staged, unsigned int count) : s_(staged), count_(count) {}

  // The distance between one thread's accesses: the block's threads.
  __device__ static unsigned int step() { return kThreads != 0 ? kThreads : blockDim.x; }

  // Copies x[0, count) in (cp.async: the values go to shared memory without passing
  // through registers) and waits for this thread's copies.
  __device__ void load(const float* x) {
    for (unsigned int c = threadIdx.x * kVec; c < count_; c += step() * kVec) {
      __pipeline_memcpy_async(s_ + c, x + c, kVec * sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }

  // Calls f(value) for each of this thread's values.
  template <typename F>
  __device__ void each(F&& f) const {
    if constexpr (kVec == 4) {
      const float4* s4 = reinterpret_cast<const float4*>(s_);
      for (unsigned int i = threadIdx.x; i < count_ / 4; i += step()) {
        const float4 q = s4[i];
        f(q.x), f(q.y), f(q.z), f(q.w);
      }
    } else {
      for (unsigned int c = threadIdx.x; c < count_; c += step()) f(s_[c]);
    }
  }

  // Replaces each of this thread's values with f(value): a store onto the part itself, each
  // access read before it is written.
  template <typename F>
  __device__ void update(F&& f) {
    store(s_, f);
  }

  // Writes y[c] = f(value) for each of this thread's values.
  template <typename F>
  __device__ void store(float* y, F&& f) const {
    if constexpr (kVec == 4) {
      const float4* s4 = reinterpret_cast<const float4*>(s_);
      float4* y4 = reinterpret_cast<float4*>(y);
      for (unsigned int i = threadIdx.x; i < count_ / 4; i += step()) {
        y4[i] = lanes(f, s4[i]);
      }
    } else {
      for (unsigned int c = threadIdx.x; c < count_; c += step()) y[c] = f(s_[c]);
    }
  }

  // Writes y[c] = f(value, a[c], b[c]) for each of this thread's values: the same columns of
  // two more rows (layer norm's gamma and beta), read kVec at a time like the part (so they
  // need its alignment). They come from L2, not shared memory, so each thread asks for two
  // accesses' worth before it writes either: on an H100 at 32768 columns, 4% faster than one
  // at a time, while four needed 64 registers and lost a block an SM.
  template <typename F>
  __device__ void store(float* y, const float* a, const float* b, F&& f) const {
    if constexpr (kVec == 4) {
      const float4* s4 = reinterpret_cast<const float4*>(s_);
      const float4* a4 = reinterpret_cast<const float4*>(a);
      const float4* b4 = reinterpret_cast<const float4*>(b);
      float4* y4 = reinterpret_cast<float4*>(y);
      constexpr int kAhead = 2;
      const unsigned int n = count_ / 4;
      for (unsigned int i = threadIdx.x; i < n; i += kAhead * step()) {
        float4 p[kAhead], r[kAhead];
#pragma unroll
        for (int k = 0; k < kAhead; ++k) {
          const unsigned int j = i + k * step();
          if (j < n) p[k] = a4[j], r[k] = b4[j];
        }
#pragma unroll
        for (int k = 0; k < kAhead; ++k) {
          const unsigned int j = i + k * step();
          if (j < n) y4[j] = lanes(f, s4[j], p[k], r[k]);
        }
      }
    } else {
      for (unsigned int c = threadIdx.x; c < count_; c += step()) y[c] = f(s_[c], a[c], b[c]);
    }
  }

 private:
  // f over the four lanes of q, each with the same lane of `more`.
  template <typename F, typename... More>
  __device__ static float4 lanes(F& f, float4 q, More... more) {
    return make_float4(f(q.x, more.x...), f(q.y, more.y...), f(q.z, more.z...),
                       f(q.w, more.w...));
  }

  float* s_;
  unsigned int count_;
};

}  // namespace reduce
