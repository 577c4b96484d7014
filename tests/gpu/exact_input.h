// Input whose exact total every summation order reproduces, for the suites' exact tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace reduce {

// Nonzero whole numbers in [-k, k], with n * k below 2^24: every partial sum of any subset
// is a whole number a float holds exactly, so every summation order gives the same float
// and the GPU must match the exact total bit for bit. Nonzero, so dropping or doubling any
// one element changes the total. `exact` receives that total.
inline std::vector<float> exact_input(std::size_t n, std::uint32_t seed, std::int64_t* exact) {
  const std::int64_t k = std::clamp<std::int64_t>(
      ((std::int64_t{1} << 24) - 1) / static_cast<std::int64_t>(n), 1, 15);
  std::mt19937 generator(seed);
  std::vector<float> values(n);
  *exact = 0;
  for (float& v : values) {
    const std::int64_t magnitude = 1 + static_cast<std::int64_t>(generator() % k);
    const std::int64_t value = (generator() & 1u) ? -magnitude : magnitude;
    *exact += value;
    v = static_cast<float>(value);
  }
  return values;
}

}  // namespace reduce
