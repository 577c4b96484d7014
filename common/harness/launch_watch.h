// The harness's own view of the kernel launches a piece of code makes: how many, and the GPU
// time between events the harness records right around each of them. Stage 05 times the
// student's host code with it, so that its reported time and the proof that the device did
// the work come from code the student did not write. The launches reach it through the
// linker's --wrap of the runtime entry that nvcc's launch stubs call (common/CMakeLists.txt),
// where the toolkit has one (CUDA 13's __cudaLaunchKernel); elsewhere nothing is watched.
#pragma once

namespace reduce {

struct LaunchWatch {
  bool available = false;  // false: this build cannot watch launches; the rest means nothing
  int launches = 0;
  double kernel_ms = 0.0;  // summed over the launches
};

// Starts recording the launches of the calling code; launches_watched() stops, waits for
// the recorded events and says what it saw.
void watch_launches();
LaunchWatch launches_watched();

}  // namespace reduce
