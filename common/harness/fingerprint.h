// A 64-bit fingerprint of a float array, computed where the array lives: the row runner
// compares every timed run's matrix with the warm-up's this way instead of bringing each
// one back to the host (2^24 floats are 64 MiB a run; the fingerprint is 8 bytes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device_buffer.h"

namespace reduce {

// The wrapping sum over i of mix(i, bits of data[i]): one changed value always changes it,
// several cancel with odds of about 2^-64, and the order the GPU adds in does not matter.
class DeviceFingerprint {
 public:
  DeviceFingerprint();  // on the current device, which every of() must use
  // Of `n` floats at `data`; waits for the default stream.
  std::uint64_t of(const float* data, std::size_t n);

 private:
  DeviceBuffer<unsigned long long> sum_;
  unsigned blocks_ = 0;  // four per SM, asked once: of() runs after every timed run
};

}  // namespace reduce
