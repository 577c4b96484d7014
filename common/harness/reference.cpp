#include "common/harness/reference.h"

#include "common/max_of.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace reduce {

// Plain double accumulation errs by up to n * 2^-53 * sum|x|: 2^-22 at n = 2^31, too
// close to float rounding. Adding fixed chunks in double first and then the chunk sums
// bounds the error by (chunk + n / chunk) * 2^-53 * sum|x|, below 2^-33 for any n we
// accept, at the speed of the plain loop.
ReferenceSum reference_sum(const float* values, std::size_t n) {
  constexpr std::size_t kChunk = 4096;
  ReferenceSum total{0.0, 0.0};
  for (std::size_t start = 0; start < n; start += kChunk) {
    const std::size_t end = std::min(n, start + kChunk);
    double chunk_sum = 0.0;
    double chunk_abs = 0.0;
    for (std::size_t i = start; i < end; ++i) {
      chunk_sum += values[i];
      chunk_abs += std::fabs(values[i]);
    }
    total.sum += chunk_sum;
    total.sum_abs += chunk_abs;
  }
  return total;
}

// A float tree sum of depth d = ceil(log2 n) rounds each partial sum at most d times,
// so (Higham, "Accuracy and Stability of Numerical Algorithms", sec. 4.2)
//   |gpu - exact| <= gamma_d * sum|x|,  gamma_d = d u / (1 - d u),  u = 2^-24.
// We allow (d + 1) u * sum|x|: the extra u covers gamma_d's denominator (d u < 2^-19)
// and the reference's own error (below 2^-33). A sum finished on the host in double
// and rounded once to float stays inside the same bound.
double tree_sum_error_bound(std::size_t n, double sum_abs) {
  constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24, float's unit roundoff
  int depth = 0;
  while ((std::size_t{1} << depth) < n) ++depth;
  return (depth + 1) * kUnitRoundoff * sum_abs;
}

Verdict verify(float gpu_sum, const ReferenceSum& ref, std::size_t n) {
  const double bound = tree_sum_error_bound(n, ref.sum_abs);
  const double scale = ref.sum != 0.0 ? std::fabs(ref.sum) : 1.0;
  Verdict v;
  v.tolerance = bound / scale;
  if (!std::isfinite(gpu_sum)) {
    v.relative_error = std::numeric_limits<double>::quiet_NaN();
    v.match = false;
    return v;
  }
  const double abs_error = std::fabs(static_cast<double>(gpu_sum) - ref.sum);
  v.relative_error = abs_error / scale;
  v.match = abs_error <= bound;
  return v;
}

float reference_max(const float* values, std::size_t n) {
  float best = kLowest;
  for (std::size_t i = 0; i < n; ++i) best = max_of(best, values[i]);
  return best;
}

std::size_t reference_argmax(const float* values, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(values[i])) return i;
    if (values[i] > values[best]) best = i;  // strict: the first of equal values stays
  }
  return best;
}

Verdict verify_max(float gpu_max, float ref_max) {
  Verdict v;
  v.tolerance = 0.0;
  const bool both_nan = std::isnan(gpu_max) && std::isnan(ref_max);
  v.match = both_nan || gpu_max == ref_max;
  if (v.match) {
    v.relative_error = 0.0;
  } else if (std::isnan(gpu_max) || std::isnan(ref_max) || std::isinf(gpu_max) ||
             std::isinf(ref_max)) {
    v.relative_error = std::numeric_limits<double>::quiet_NaN();
  } else {
    const double scale = ref_max != 0.0f ? std::fabs(static_cast<double>(ref_max)) : 1.0;
    v.relative_error = std::fabs(static_cast<double>(gpu_max) - ref_max) / scale;
  }
  return v;
}

Reference reference_for(Operation op, const float* values, std::size_t n) {
  Reference ref{op, 0.0, {0.0, 0.0}, n};
  if (op == Operation::kMax) {
    ref.value = reference_max(values, n);
  } else {
    ref.sum = reference_sum(values, n);
    ref.value = ref.sum.sum;
  }
  return ref;
}

Verdict verify(float gpu, const Reference& ref) {
  return ref.op == Operation::kMax ? verify_max(gpu, static_cast<float>(ref.value))
                                   : verify(gpu, ref.sum, ref.n);
}

}  // namespace reduce
