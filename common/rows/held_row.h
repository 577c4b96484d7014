// A thread's share of a row held in registers (stages 16 and 17, the versions that read a
// row once): loaded once, worked on in place, stored once. The harness gives it so that the
// lessons' kernels say what they compute, not how 16-byte loads are spelt.
#pragma once

#include <cstddef>
#include <cstdint>

namespace reduce {

// kHeld values of the thread `first` among `step` threads that share a row of `cols`
// floats, moved kVec consecutive floats at a time: value j sits at column
// (first + (j / kVec) * step) * kVec + j % kVec, so a warp's accesses stay consecutive.
// kVec = 4 moves 16 bytes per access (a quarter of the load instructions), which needs the
// row's start 16-byte aligned and cols a multiple of 4: rows_take_vectors says when.
template <int kVec, int kHeld>
struct HeldRow {
  static_assert(kVec == 1 || kVec == 4, "one float or a float4 per access");
  static_assert(kHeld % kVec == 0, "whole accesses only");

  float v[kHeld];
  unsigned int first;
  unsigned int step;
  unsigned int cols;

  __device__ HeldRow(unsigned int first_, unsigned int step_, unsigned int cols_)
      : first(first_), step(step_), cols(cols_) {}

  __device__ unsigned int column(int j) const {
    return (first + static_cast<unsigned int>(j / kVec) * step) * kVec + j % kVec;
  }
  // Whether value j is a column of the row (past its end a value holds the fill).
  __device__ bool has(int j) const { return column(j) < cols; }

  __device__ void load(const float* x, float fill) {
#pragma unroll
    for (int j = 0; j < kHeld; j += kVec) {
      const unsigned int c = column(j);
      if constexpr (kVec == 4) {
        const float4 q = c < cols ? *reinterpret_cast<const float4*>(x + c)
                                  : make_float4(fill, fill, fill, fill);
        v[j] = q.x;
        v[j + 1] = q.y;
        v[j + 2] = q.z;
        v[j + 3] = q.w;
      } else {
        v[j] = c < cols ? x[c] : fill;
      }
    }
  }

  // Replaces each value that is a column with f(value, a[c], b[c]), c its column: the same
  // columns of two more rows of cols floats (layer norm's gamma and beta), read kVec at a
  // time like the row, so they need its alignment. One float at a time they cost kVec
  // loads each where the row costs one: layer norm's versions 7 and 8 ran 2.5-3.6 us
  // slower that way on an H200 at 131072 x 128 and 16384 x 1024 (docs/measurements.md).
  template <typename F>
  __device__ void update(const float* a, const float* b, F&& f) {
#pragma unroll
    for (int j = 0; j < kHeld; j += kVec) {
      const unsigned int c = column(j);
      if (c >= cols) continue;
      if constexpr (kVec == 4) {
        const float4 p = *reinterpret_cast<const float4*>(a + c);
        const float4 q = *reinterpret_cast<const float4*>(b + c);
        v[j] = f(v[j], p.x, q.x);
        v[j + 1] = f(v[j + 1], p.y, q.y);
        v[j + 2] = f(v[j + 2], p.z, q.z);
        v[j + 3] = f(v[j + 3], p.w, q.w);
      } else {
        v[j] = f(v[j], a[c], b[c]);
      }
    }
  }

  __device__ void store(float* y) const {
#pragma unroll
    for (int j = 0; j < kHeld; j += kVec) {
      const unsigned int c = column(j);
      if (c >= cols) continue;
      if constexpr (kVec == 4) {
        *reinterpret_cast<float4*>(y + c) = make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]);
      } else {
        y[c] = v[j];
      }
    }
  }
};

// The columns one block takes of a row split over `parts` blocks of `chunk` columns: part
// `part` of row blockIdx.x / parts, none past the row's end.
struct RowPart {
  std::size_t row;
  unsigned int begin;
  unsigned int count;
};

__device__ inline RowPart row_part(unsigned int part, unsigned int parts, unsigned int cols,
                                   unsigned int chunk) {
  const unsigned int begin = part * chunk;
  return {blockIdx.x / parts, begin, begin < cols ? min(chunk, cols - begin) : 0u};
}

// Whether every row of a matrix at `in` and `out` starts 16-byte aligned (HeldRow<4, ...>).
inline bool rows_take_vectors(const void* in, const void* out, std::size_t cols) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return cols % 4 == 0 && aligned(in) && aligned(out);
}

}  // namespace reduce
