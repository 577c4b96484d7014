// Deterministic input: the same floats on every machine and standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace reduce {

inline constexpr std::uint32_t kDefaultSeed = 12345;
inline constexpr std::size_t kDefaultN = std::size_t{1} << 24;

// Maps one raw 32-bit output of std::mt19937 to a float in [0, 1).
float unit_float(std::uint32_t raw);

// n floats in [0, 1) from std::mt19937 seeded with `seed`, one generator output each.
std::vector<float> generate_input(std::size_t n, std::uint32_t seed = kDefaultSeed);

// Moves the seed's values from [0, 1) to offset + scale * u (--offset, --scale), computed in
// double and rounded once; offset 0 and scale 1 leave every value as it is.
void shift_and_scale(std::vector<float>& values, double offset, double scale);

// FNV-1a over the bit patterns: a fingerprint that changes if any input bit changes.
std::uint64_t fingerprint(const std::vector<float>& values);

}  // namespace reduce
