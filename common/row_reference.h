// The CPU references of the row stages (16 on) and the rule that decides whether the
// GPU's matrix matches: computed in double, compared value by value.
#pragma once

#include <cstddef>
#include <vector>

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

}  // namespace reduce
