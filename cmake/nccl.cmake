# NCCL for stage 18 (many GPUs, one sum) and its all-reduce benchmark. Everything else in
# the course builds without it: when NCCL is missing (or REDUCE_NCCL is OFF), configure
# says so in one line, and stage 18's executables only print what to install.
#
# Looks for nccl.h and the library under NCCL_ROOT (a CMake or environment variable), the
# CUDA toolkit and the usual prefixes. A runtime-only install ships just libnccl.so.2,
# with no unversioned libnccl.so link; that file is accepted too.
option(REDUCE_NCCL "Build stage 18 (NCCL) when NCCL is found" ON)
set(REDUCE_HAVE_NCCL OFF)
# For the scripts, which read CMakeCache.txt: ON only once NCCL is found below.
set(REDUCE_NCCL_FOUND OFF CACHE INTERNAL "stage 18 is built (NCCL found)")

if(NOT REDUCE_NCCL)
  message(STATUS "NCCL: off (REDUCE_NCCL=OFF): stage 18 is not built")
  return()
endif()

get_filename_component(_reduce_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
set(_reduce_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${_reduce_cuda_root} /usr/local/cuda
    /usr/local /usr)
find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${_reduce_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
  HINTS ${_reduce_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu)

if(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY OR NOT EXISTS "${NCCL_LIBRARY}")
  message(STATUS "NCCL: not found (nccl.h or libnccl): stage 18 is not built; install NCCL "
                 "(e.g. apt install libnccl-dev) or set NCCL_ROOT, then configure again")
  return()
endif()

file(STRINGS "${NCCL_INCLUDE_DIR}/nccl.h" _reduce_nccl_version REGEX
     "^#define NCCL_(MAJOR|MINOR|PATCH) [0-9]+")
string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*"
       "\\1.\\2.\\3" _reduce_nccl_version "${_reduce_nccl_version}")
message(STATUS "NCCL: ${_reduce_nccl_version} (${NCCL_LIBRARY})")

add_library(Reduce::NCCL UNKNOWN IMPORTED)
set_target_properties(Reduce::NCCL PROPERTIES
  IMPORTED_LOCATION "${NCCL_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${NCCL_INCLUDE_DIR}")
set(REDUCE_HAVE_NCCL ON)
set(REDUCE_NCCL_FOUND ON CACHE INTERNAL "stage 18 is built (NCCL found)")
