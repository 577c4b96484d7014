// Stands in for stage 18's executables when CMake found no NCCL: one line, exit 4.
#include <cstdio>
#include <cstring>

int main(int, char** argv) {
  const char* slash = std::strrchr(argv[0], '/');
  std::fprintf(stderr,
               "%s: error: this build has no NCCL (nccl.h and libnccl were not found when CMake "
               "configured); install NCCL (e.g. apt install libnccl-dev) or set NCCL_ROOT, then "
               "configure again\n",
               slash != nullptr ? slash + 1 : argv[0]);
  return 4;
}
