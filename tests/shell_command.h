// Runs a shell command for the tests that check the course's executables and scripts.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace reduce_tests {

// Exit code of `command` run by the shell (-1 if it did not exit normally); stdout and
// stderr together are appended to *output.
inline int shell(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) *output += buffer;
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace reduce_tests
