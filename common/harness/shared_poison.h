// Makes reads of shared memory that a kernel never wrote show in its result.
#pragma once

namespace reduce {

// 2^100: finite, far above any sum of the course's inputs, and the same sign every time,
// so a sum that picked it up is off by at least 10^29 instead of matching by luck.
inline constexpr float kSharedPoison = 0x1p100f;

// Fills the shared memory of every multiprocessor with kSharedPoison, on stream 0.
// Shared memory is not cleared between kernels, so a block that reads a slot nobody in
// it wrote gets this value rather than whatever zeros an earlier kernel happened to leave.
void poison_shared_memory();

}  // namespace reduce
