// The harness's own view of the kernel launches a piece of code makes: how many, and the GPU
// time between events the harness records right around each of them. Stage 05 times the
// student's host code with it, so that its reported time and the proof that the device did
// the work come from code the student did not write. The launches reach it through the
// linker's --wrap of the runtime entry that nvcc's launch stubs call (common/CMakeLists.txt),
// where the toolkit has one (CUDA 13's __cudaLaunchKernel); elsewhere nothing is watched.
#pragma once

#include <cstddef>
#include <vector>

#include "common/stage.h"

namespace reduce {

// The last launch of the given kernel, as the device saw it: its configuration, its n
// argument and the block sums it wrote, copied by the harness as soon as the kernel ended
// (before any later copy could overwrite them).
struct GivenLaunch {
  unsigned grid = 0;
  unsigned block = 0;
  unsigned n = 0;
  std::vector<float> block_sums;  // the first min(grid, capacity) of them
};

struct LaunchWatch {
  bool available = false;  // false: this build cannot watch launches; the rest means nothing
  int launches = 0;        // of any kernel
  double kernel_ms = 0.0;  // summed over the launches
  int given_launches = 0;  // of the given kernel
  GivenLaunch last_given;
};

// Starts recording the launches of the calling code; launches_watched() stops, waits for
// the recorded events and copies and says what it saw. `given` (may be null) is the kernel
// whose output is captured, up to `capacity` block sums.
void watch_launches(GivenKernel given = nullptr, std::size_t capacity = 0);
LaunchWatch launches_watched();

}  // namespace reduce
