#include "common/multi_gpu/rank_launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace reduce {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(10);
constexpr auto kGraceAfterTerm = std::chrono::seconds(1);

std::string rank_file(const std::string& dir, int rank, const char* suffix) {
  return dir + "/rank" + std::to_string(rank) + suffix;
}

// "rank 1" or "ranks 0, 2 and 3".
std::string ranks_text(const std::vector<int>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  }
  return text;
}

std::string status_text(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    return "was killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  }
  return "exited with code " + std::to_string(WEXITSTATUS(status));
}

// Ends every child still running: SIGTERM, a second's grace, then SIGKILL; reaps them all.
void stop_all(std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    if (pid > 0) kill(pid, SIGTERM);
  }
  const auto kill_at = Clock::now() + kGraceAfterTerm;
  bool any = true;
  while (any) {
    any = false;
    for (pid_t& pid : pids) {
      if (pid <= 0) continue;
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = 0;
      } else {
        any = true;
        if (Clock::now() >= kill_at) kill(pid, SIGKILL);
      }
    }
    if (any) std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace

std::string make_private_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && base[0] != '\0' ? base : "/tmp") +
                        "/reduce_ranks.XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    throw std::runtime_error("cannot make a private folder from " + pattern + ": " +
                             std::strerror(errno));
  }
  return name.data();
}

void remove_private_dir(const std::string& dir) {
  // Only the names this file writes; a rank may have died before writing any of them.
  const int most_ranks = 1024;
  std::remove((dir + "/id").c_str());
  std::remove((dir + "/id.partial").c_str());
  for (int rank = 0; rank < most_ranks; ++rank) {
    std::remove(rank_file(dir, rank, ".line").c_str());
    std::remove(rank_file(dir, rank, ".log").c_str());
  }
  rmdir(dir.c_str());
}

bool publish_id(const std::string& dir, const void* bytes, std::size_t size) {
  const std::string partial = dir + "/id.partial";
  const int fd = open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return false;
  const bool written = write(fd, bytes, size) == static_cast<ssize_t>(size);
  const bool closed = close(fd) == 0;
  return written && closed && rename(partial.c_str(), (dir + "/id").c_str()) == 0;
}

bool wait_for_id(const std::string& dir, void* bytes, std::size_t size, Clock::time_point deadline) {
  const std::string path = dir + "/id";
  while (true) {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
      const bool whole = read(fd, bytes, size) == static_cast<ssize_t>(size);
      close(fd);
      return whole;  // the rename makes "id" whole or absent, never half there
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPoll);
  }
}

void write_rank_line(const std::string& dir, int rank, const std::string& line) {
  std::ofstream(rank_file(dir, rank, ".line")) << line;
}

std::string read_rank_line(const std::string& dir, int rank) {
  std::ifstream file(rank_file(dir, rank, ".line"));
  std::string line;
  std::getline(file, line);
  return line;
}

LaunchOutcome launch_ranks(int ranks, const std::string& dir, Clock::time_point backstop,
                           bool keep_stderr, const std::function<int(int rank)>& rank_body) {
  std::fflush(nullptr);  // nothing buffered may be written twice, once by each child
  std::vector<pid_t> pids(ranks, 0);
  for (int rank = 0; rank < ranks; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) {
      stop_all(pids);
      return {4, "cannot start rank " + std::to_string(rank) + ": fork failed: " +
                     std::strerror(errno)};
    }
    if (pid == 0) {
      if (!keep_stderr) {
        const int log = open(rank_file(dir, rank, ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (log >= 0) dup2(log, STDERR_FILENO);
      }
      if (rank != 0) {  // only rank 0 reports
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, STDOUT_FILENO);
      }
      int code = 4;
      try {
        code = rank_body(rank);
      } catch (const std::exception& e) {
        write_rank_line(dir, rank, e.what());
      }
      std::fflush(nullptr);
      _exit(code);  // no static destructors: NCCL's may wait for peers that are gone
    }
    pids[rank] = pid;
  }

  int running = ranks;
  while (running > 0) {
    for (int rank = 0; rank < ranks; ++rank) {
      if (pids[rank] <= 0) continue;
      int status = 0;
      if (waitpid(pids[rank], &status, WNOHANG) != pids[rank]) continue;
      pids[rank] = 0;
      --running;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
      std::vector<int> stopped;
      for (int other = 0; other < ranks; ++other) {
        if (pids[other] > 0) stopped.push_back(other);
      }
      stop_all(pids);
      const std::string said = read_rank_line(dir, rank);
      std::string line = "rank " + std::to_string(rank) + " " +
                         (said.empty() ? status_text(status) : said);
      if (!stopped.empty()) line += "; stopped " + ranks_text(stopped);
      return {WIFEXITED(status) ? WEXITSTATUS(status) : 4, line};
    }
    if (Clock::now() >= backstop) {
      std::vector<int> left;
      for (int rank = 0; rank < ranks; ++rank) {
        if (pids[rank] > 0) left.push_back(rank);
      }
      stop_all(pids);
      return {kExitTimedOut, ranks_text(left) + " had not ended by the launcher's backstop "
                             "(--timeout plus a margin); stopped"};
    }
    std::this_thread::sleep_for(kPoll);
  }
  return {0, ""};
}

}  // namespace reduce
