// What the L2 holds when a timed run starts. Host-only, so the option parser can name it.
#pragma once

namespace reduce {

enum class CacheState {
  // None of the input and no dirty lines (the default). Writing twice the L2's size
  // evicts the input; an untimed read of another buffer that size then evicts those
  // written lines, so their write-back to DRAM happens before the timer starts.
  kClean,
  // The write sweep only (--dirty-l2): the timed run starts with the L2 full of dirty
  // lines and pays for writing them back while it reads. Kept to compare with.
  kDirty,
};

}  // namespace reduce
