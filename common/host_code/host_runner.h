// Stage 05's side of the harness: the stage writes the host code (allocate, copy, launch,
// time, copy back, free); the harness calls it, adds the block sums it returned and checks
// that the device memory it took came back.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/harness/allocation_log.h"
#include "common/harness/launch_watch.h"
#include "common/stage.h"

namespace reduce {

struct HostOutcome {
  float sum = 0.0f;        // the returned block sums added in double, rounded to float
  std::size_t blocks = 0;  // how many block sums came back
  bool unwritten = false;  // some block sum is still NaN: it was never copied back
  float kernel_ms = -1.0f; // what the host code's own events measured
  LaunchWatch watched;      // the launches it made, timed by the harness's own events
  std::vector<float> block_sums;  // as returned
};

// One call of the stage's host code.
HostOutcome run_host_code(const StagePlan& plan, const std::vector<float>& input, unsigned block);

// Whether the device did the work of one call, in one line, or "" (also "" where this build
// cannot watch launches): the given kernel was launched for all n elements with the block
// asked for, the block sums returned are the ones it wrote on the device, and the code's
// events, which enclose the harness's, did not measure less than the launches took.
std::string launch_problem(const HostOutcome& out, std::size_t n, unsigned block);

// The most block sums a launch over n floats can give: at the smallest block (32 threads,
// two floats each), one per 64 floats.
std::size_t most_block_sums(std::size_t n);

// Bytes of device memory stage 05 needs for n floats at the smallest block: the input and
// its most block sums, plus the harness's L2 flusher.
std::size_t host_code_bytes_needed(std::size_t n);

// What the host code kept across `calls` calls, as the one line the report and the tests
// print ("" when it kept nothing): buffers and MiB, events.
std::string kept_after_calls(const DeviceHoldings& kept, int calls);

}  // namespace reduce
