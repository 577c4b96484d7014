#include "common/harness/input.h"

#include <cstring>
#include <random>

namespace reduce {

// std::mt19937's output sequence is fixed by the C++ standard, but
// std::uniform_real_distribution is not: libstdc++, libc++ and MSVC turn the same
// outputs into different floats. So we map them ourselves: keep the top 24 bits
// and scale by 2^-24. Every result is exact in a float (24-bit significand), the
// 2^24 values are equally likely, and 1.0 can never appear.
float unit_float(std::uint32_t raw) {
  constexpr float kTwoToMinus24 = 1.0f / 16777216.0f;
  return static_cast<float>(raw >> 8) * kTwoToMinus24;
}

std::vector<float> generate_input(std::size_t n, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<float> values(n);
  for (float& v : values) v = unit_float(static_cast<std::uint32_t>(generator()));
  return values;
}

void shift_and_scale(std::vector<float>& values, double offset, double scale) {
  if (offset == 0.0 && scale == 1.0) return;
  for (float& v : values) v = static_cast<float>(offset + scale * static_cast<double>(v));
}

std::uint64_t fingerprint(const std::vector<float>& values) {
  std::uint64_t hash = 14695981039346656037ull;
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int byte = 0; byte < 4; ++byte) {
      hash ^= (bits >> (8 * byte)) & 0xffu;
      hash *= 1099511628211ull;
    }
  }
  return hash;
}

}  // namespace reduce
