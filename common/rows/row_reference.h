// The CPU references of the row stages (16 on) and the rule that decides whether the
// GPU's matrix matches: computed in double, compared value by value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/stage_rules.h"

namespace reduce {

struct RowVerdict {
  double error;       // the largest error over the values (NaN if a value is not a number)
  double tolerance;   // what the rule allows, on the same scale
  bool match;
  std::size_t worst;  // index of the value with the largest error (or the first NaN)
};

// Softmax of each row in double: exp(x - max) / sum of exp(x - max). A row holding a NaN,
// +inf, or nothing but -inf gives NaN everywhere, as the float formula does.
std::vector<double> reference_softmax(const float* in, std::size_t rows, std::size_t cols);

// The relative error allowed per value of a float softmax over rows of `cols` values.
double softmax_tolerance(std::size_t cols);

// Each value's error, relative to its row's largest value (|gpu - ref| / max of the row),
// must stay within softmax_tolerance(cols); a NaN must be where the reference has one and
// nowhere else.
RowVerdict verify_softmax(const float* gpu, const std::vector<double>& ref, std::size_t cols);

// Layer norm's gamma (from 0.5 to 1.5) and beta (from -0.5 to 0.5), one per column, from
// the seed's generator (seed + 1, so they differ from the matrix).
struct LayerNormParams {
  std::vector<float> gamma;
  std::vector<float> beta;
};
LayerNormParams layer_norm_params(std::size_t cols, std::uint32_t seed);

// Layer norm of each row in double: mean, variance (two passes), then
// y = (x - mean) / sqrt(variance + kLayerNormEpsilon) * gamma + beta.
struct LayerNormReference {
  std::vector<double> values;
  std::vector<double> mean;  // per row
  std::vector<double> rstd;  // per row: 1 / sqrt(variance + epsilon)
};
LayerNormReference reference_layer_norm(const float* in, std::size_t rows, std::size_t cols,
                                        const LayerNormParams& params);

// Each value's error against its own scale, |gamma| (1 + |z| + |mean| / std) + |beta|
// (z = (x - mean) / std), must stay within softmax_tolerance(cols): float rounding in the
// mean and the variance grows with |mean| / std (the matrix 10^4 + noise has 3.5e4), and
// the rule says so rather than hiding it. NaN as in verify_softmax.
RowVerdict verify_layer_norm(const float* gpu, const LayerNormReference& ref,
                             const LayerNormParams& params, std::size_t cols);

// Either row operation, for the code that serves every row stage (the executables' main,
// the suites): the reference computed once, then any number of GPU matrices checked.
class RowReference {
 public:
  RowReference(Operation op, const std::vector<float>& in, std::size_t rows, std::size_t cols,
               const LayerNormParams& params);
  RowVerdict verify(const float* gpu) const;
  double value(std::size_t i) const { return op_ == Operation::kSoftmax ? softmax_[i] : norm_.values[i]; }

 private:
  Operation op_;
  std::size_t cols_;
  const LayerNormParams& params_;
  std::vector<double> softmax_;
  LayerNormReference norm_;
};

}  // namespace reduce
