// The CPU reference sum and the rule that decides whether a GPU sum matches it.
#pragma once

#include <cstddef>

namespace reduce {

struct ReferenceSum {
  double sum;      // accurate to far below float rounding (see reference.cpp)
  double sum_abs;  // sum of |x|: scales the float error bound
};

ReferenceSum reference_sum(const float* values, std::size_t n);

// The largest |gpu - exact| a float tree sum of n values may show (see reference.cpp).
double tree_sum_error_bound(std::size_t n, double sum_abs);

struct Verdict {
  double relative_error;  // |gpu - ref| / |ref| (or |gpu - ref| when ref is 0); NaN for NaN
  double tolerance;       // the bound, on the same scale as relative_error
  bool match;
};

// NaN or Inf never matches; otherwise |gpu - ref| must stay within the bound.
Verdict verify(float gpu_sum, const ReferenceSum& ref, std::size_t n);

}  // namespace reduce
