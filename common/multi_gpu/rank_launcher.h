// The process side of stage 18's one-process-per-GPU form (build/bin/reduce_ranks): start K
// ranks as child processes, hand rank 0's NCCL id to the others through a file, and end
// every rank, with one line, as soon as one fails. Plain C++ and POSIX, no CUDA or NCCL,
// so that the host tests run it anywhere with stand-in ranks.
//
// Where MPI or a launcher such as torchrun is at hand, it does this part: it starts the
// ranks (on several machines) and carries the id over the network. Here one machine and
// one parent process are enough, so the id travels through a private folder.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace reduce {

using Clock = std::chrono::steady_clock;

// Exit codes of reduce_ranks beyond the harness's 0-4 (common/harness/report.h).
inline constexpr int kExitTimedOut = 5;  // a rank gave up waiting (--timeout)

// A folder only this user can read (mkdtemp, mode 0700) for the id and the ranks' lines.
// Throws std::runtime_error when it cannot be made.
std::string make_private_dir();
// Removes the folder and the files the ranks left in it.
void remove_private_dir(const std::string& dir);

// Rank 0: writes the id's bytes to a temporary name and renames it to "id", so that a rank
// that reads "id" never sees half of it. Returns false (errno set) when it cannot.
bool publish_id(const std::string& dir, const void* bytes, std::size_t size);
// The other ranks: waits for "id" until `deadline`, polling; true once all `size` bytes
// are read.
bool wait_for_id(const std::string& dir, void* bytes, std::size_t size, Clock::time_point deadline);

// The one line a failing rank leaves for the launcher to print ("" when it left none).
void write_rank_line(const std::string& dir, int rank, const std::string& line);
std::string read_rank_line(const std::string& dir, int rank);

struct LaunchOutcome {
  int exit_code = 0;  // 0 when every rank exited 0; else the first failing rank's code,
                      // 4 for a rank killed by a signal, 5 when the backstop fired
  std::string line;   // "" on success; else the one line that says what happened
};

// Forks `ranks` children; child r runs rank_body(r) and exits with what it returns (its
// standard error goes to <dir>/rank<r>.log unless keep_stderr). Waits for all of them.
// When one exits non-zero or dies by a signal, stops the others (SIGTERM, then SIGKILL
// after a second) and returns that rank's code and one line naming it, with the line the
// rank left (write_rank_line) when it left one. When no rank has ended by `backstop`, stops
// them all (exit 5). The caller must not have initialised CUDA: a forked child cannot use
// its parent's CUDA context.
LaunchOutcome launch_ranks(int ranks, const std::string& dir, Clock::time_point backstop,
                           bool keep_stderr, const std::function<int(int rank)>& rank_body);

}  // namespace reduce
