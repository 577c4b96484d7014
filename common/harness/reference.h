// The CPU reference sum and the rule that decides whether a GPU sum matches it; the same
// for the maximum (stage 15), which must match exactly.
#pragma once

#include <cstddef>

#include "common/stage_rules.h"

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

// The largest value, NaN if any value is NaN (common/max_of.h's rule).
float reference_max(const float* values, std::size_t n);

// The index of the first maximum: the first NaN if there is one, else the first element
// equal to reference_max (-0 equal to +0). n >= 1.
std::size_t reference_argmax(const float* values, std::size_t n);

// Max is exact: the GPU must give the very value (a NaN for a NaN; -0 equals +0).
Verdict verify_max(float gpu_max, float ref_max);

// Either operation, for code that serves every stage (the executables' main).
struct Reference {
  Operation op;
  double value;     // the sum, or the max
  ReferenceSum sum; // op == kSum only
  std::size_t n;
};
Reference reference_for(Operation op, const float* values, std::size_t n);
Verdict verify(float gpu, const Reference& ref);

}  // namespace reduce
