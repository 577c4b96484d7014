// Argmax as one unsigned 64-bit number, so that the largest key names the answer and
// atomicMax can combine the keys of every block: the value, made order-preserving, in
// the high 32 bits, and ~index in the low 32 bits, so among equal values the smaller
// index has the larger key. The rule matches max_of (common/max_of.h): NaN beats every
// number, so the answer is the first NaN if there is one (as numpy.argmax does); -0 and
// +0 are equal, so the first of them wins.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/max_of.h"

namespace reduce {

// No element gives 0 (the smallest value, -inf, already gives 0x007fffff in the high
// half), so a key still 0 after the launches means nothing was written.
inline constexpr unsigned long long kNoArgmax = 0;

REDUCE_HOST_DEVICE inline unsigned long long argmax_key(float value, unsigned int index) {
  std::uint32_t bits;
  if (value != value) {
    bits = 0xffffffffu;  // NaN: above everything
  } else {
    const float canonical = value == 0.0f ? 0.0f : value;  // -0 counts as +0
    std::memcpy(&bits, &canonical, sizeof bits);
    // Flip negatives entirely and set the sign bit of positives: unsigned order then
    // follows the float order.
    bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
  }
  return (static_cast<unsigned long long>(bits) << 32) | (0xffffffffu - index);
}

REDUCE_HOST_DEVICE inline unsigned int argmax_index(unsigned long long key) {
  return 0xffffffffu - static_cast<unsigned int>(key & 0xffffffffu);
}

}  // namespace reduce
