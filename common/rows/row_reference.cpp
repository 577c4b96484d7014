#include "common/rows/row_reference.h"

#include <cmath>
#include <limits>

#include "common/harness/input.h"
#include "common/harness/row_ranges.h"

namespace reduce {

namespace {

void softmax_row(const float* x, double* y, std::size_t cols) {
  double top = -std::numeric_limits<double>::infinity();
  bool nan = false;
  for (std::size_t c = 0; c < cols; ++c) {
    nan = nan || std::isnan(x[c]);
    top = std::fmax(top, x[c]);
  }
  double total = 0.0;
  for (std::size_t c = 0; c < cols; ++c) total += std::exp(x[c] - top);
  for (std::size_t c = 0; c < cols; ++c) {
    y[c] = nan ? std::numeric_limits<double>::quiet_NaN() : std::exp(x[c] - top) / total;
  }
}

// Row r of the layer-norm reference: its mean and rstd, and its values, into ref.
void layer_norm_row(const float* x, const LayerNormParams& params, std::size_t r, std::size_t cols,
                    LayerNormReference& ref) {
  double total = 0.0;
  for (std::size_t c = 0; c < cols; ++c) total += x[c];
  const double mean = total / static_cast<double>(cols);
  double squares = 0.0;
  for (std::size_t c = 0; c < cols; ++c) squares += (x[c] - mean) * (x[c] - mean);
  const double rstd =
      1.0 / std::sqrt(squares / static_cast<double>(cols) + static_cast<double>(kLayerNormEpsilon));
  ref.mean[r] = mean;
  ref.rstd[r] = rstd;
  for (std::size_t c = 0; c < cols; ++c) {
    ref.values[r * cols + c] = (x[c] - mean) * rstd * params.gamma[c] + params.beta[c];
  }
}

// The verdicts of consecutive row ranges as one pass over all rows gives it: the first
// value that is not a number where it must be, else the largest error (the first on a tie).
RowVerdict combined(const std::vector<RowVerdict>& ranges, double tolerance) {
  RowVerdict v{0.0, tolerance, true, 0};
  for (const RowVerdict& range : ranges) {
    if (!range.match) return range;
    if (range.error > v.error) {
      v.error = range.error;
      v.worst = range.worst;
    }
  }
  v.match = v.error <= v.tolerance;
  return v;
}

// The verdict over `rows` rows of `cols` values, the rows split over the cores: a NaN must
// meet a NaN, and any other NaN or an inf decides at once; otherwise value (r, c) errs by
// |gpu - ref| / scale(c), where scale = row_scale(r) is asked once per row.
template <typename RowScale>
RowVerdict verify_rows(const float* gpu, const double* ref, std::size_t rows, std::size_t cols,
                       double tolerance, RowScale row_scale) {
  const auto range = [&](std::size_t begin, std::size_t end) {
    RowVerdict v{0.0, tolerance, true, 0};
    for (std::size_t r = begin; r < end; ++r) {
      const auto scale = row_scale(r);
      for (std::size_t c = 0; c < cols; ++c) {
        const std::size_t i = r * cols + c;
        const bool gpu_nan = std::isnan(gpu[i]);
        const bool ref_nan = std::isnan(ref[i]);
        if (gpu_nan && ref_nan) continue;
        if (gpu_nan || ref_nan || std::isinf(gpu[i])) {
          return RowVerdict{std::numeric_limits<double>::quiet_NaN(), tolerance, false, i};
        }
        const double error = std::fabs(static_cast<double>(gpu[i]) - ref[i]) / scale(c);
        if (error > v.error) {
          v.error = error;
          v.worst = i;
        }
      }
    }
    return v;
  };
  return combined(over_row_ranges(rows, cols, range), tolerance);
}

}  // namespace

std::vector<double> reference_softmax(const float* in, std::size_t rows, std::size_t cols) {
  std::vector<double> out(rows * cols);
  for_row_ranges(rows, cols, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      softmax_row(in + r * cols, out.data() + r * cols, cols);
    }
  });
  return out;
}

// Each value is exp(d) / sum with d = x - max <= 0, and the row's largest value is 1 / sum,
// so errors are measured against that largest value. exp and the division cost a few units
// of float rounding u = 2^-24 (CUDA's expf is within 2 ulp; __expf, 2 + 1.17 |d| ulp, is
// within 2 ulp of the largest value, since e^d shrinks faster); rounding d changes a value
// by at most e^d |d| u <= u / e of the largest. The sum carries the rest: float additions
// in any order err like a random walk, about sqrt(cols) u (Higham, "Accuracy and Stability
// of Numerical Algorithms", sec. 2.8); we allow twice that.
double softmax_tolerance(std::size_t cols) {
  constexpr double kUnitRoundoff = 1.0 / 16777216.0;
  return (16.0 + 2.0 * std::sqrt(static_cast<double>(cols))) * kUnitRoundoff;
}

RowVerdict verify_softmax(const float* gpu, const std::vector<double>& ref, std::size_t cols) {
  const std::size_t rows = cols == 0 ? 0 : ref.size() / cols;
  return verify_rows(gpu, ref.data(), rows, cols, softmax_tolerance(cols), [&](std::size_t r) {
    double largest = 0.0;
    for (std::size_t c = 0; c < cols; ++c) largest = std::fmax(largest, ref[r * cols + c]);
    return [largest](std::size_t) { return largest; };
  });
}

LayerNormParams layer_norm_params(std::size_t cols, std::uint32_t seed) {
  const std::vector<float> u = generate_input(2 * cols, seed + 1);
  LayerNormParams params{std::vector<float>(cols), std::vector<float>(cols)};
  for (std::size_t c = 0; c < cols; ++c) {
    params.gamma[c] = 0.5f + u[c];
    params.beta[c] = u[cols + c] - 0.5f;
  }
  return params;
}

LayerNormReference reference_layer_norm(const float* in, std::size_t rows, std::size_t cols,
                                        const LayerNormParams& params) {
  LayerNormReference ref{std::vector<double>(rows * cols), std::vector<double>(rows),
                         std::vector<double>(rows)};
  for_row_ranges(rows, cols, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) layer_norm_row(in + r * cols, params, r, cols, ref);
  });
  return ref;
}

RowVerdict verify_layer_norm(const float* gpu, const LayerNormReference& ref,
                             const LayerNormParams& params, std::size_t cols) {
  const auto row_scale = [&](std::size_t r) {
    return [&, r](std::size_t c) {
      const double gamma = std::fabs(params.gamma[c]);
      const double z = (ref.values[r * cols + c] - params.beta[c]) / params.gamma[c];
      return gamma * (1.0 + std::fabs(z) + std::fabs(ref.mean[r]) * ref.rstd[r]) +
             std::fabs(params.beta[c]);
    };
  };
  return verify_rows(gpu, ref.values.data(), ref.mean.size(), cols, softmax_tolerance(cols),
                     row_scale);
}

RowReference::RowReference(Operation op, const std::vector<float>& in, std::size_t rows,
                           std::size_t cols, const LayerNormParams& params)
    : op_(op), cols_(cols), params_(params) {
  if (op == Operation::kSoftmax) {
    softmax_ = reference_softmax(in.data(), rows, cols);
  } else {
    norm_ = reference_layer_norm(in.data(), rows, cols, params);
  }
}

RowVerdict RowReference::verify(const float* gpu) const {
  return op_ == Operation::kSoftmax ? verify_softmax(gpu, softmax_, cols_)
                                    : verify_layer_norm(gpu, norm_, params_, cols_);
}

}  // namespace reduce
