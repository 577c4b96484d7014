# The GPUs of the machine that configures: what to compile for by default, and ctest's
# resource spec (build/gpu_resources.json), so that the GPU tests spread over every GPU and
# a test that times or runs several tools gets the share of a GPU it needs.
include_guard(GLOBAL)

# `out` = "90-real" (one entry per distinct GPU model) for the GPUs nvidia-smi lists, or ""
# where it lists none (no driver, no GPU, a CPU-only CI machine).
function(reduce_visible_gpu_architectures out)
  set(${out} "" PARENT_SCOPE)
  find_program(REDUCE_NVIDIA_SMI nvidia-smi)
  if(NOT REDUCE_NVIDIA_SMI)
    return()
  endif()
  execute_process(COMMAND ${REDUCE_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                  RESULT_VARIABLE code OUTPUT_VARIABLE text ERROR_QUIET TIMEOUT 30)
  if(NOT code EQUAL 0)
    return()
  endif()
  string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${text}")
  set(architectures "")
  foreach(capability IN LISTS capabilities)
    string(REPLACE "." "" architecture ${capability})
    list(APPEND architectures ${architecture}-real)
  endforeach()
  list(REMOVE_DUPLICATES architectures)
  set(${out} "${architectures}" PARENT_SCOPE)
endfunction()

# The GPUs ctest hands out: CUDA_VISIBLE_DEVICES's entries where it is set at configure,
# else one per GPU nvidia-smi lists, else one (so that GPU tests are scheduled, and skip).
function(reduce_gpu_ids out)
  if(DEFINED ENV{CUDA_VISIBLE_DEVICES} AND NOT "$ENV{CUDA_VISIBLE_DEVICES}" STREQUAL "")
    string(REPLACE "," ";" ids "$ENV{CUDA_VISIBLE_DEVICES}")
    set(${out} "${ids}" PARENT_SCOPE)
    return()
  endif()
  set(ids 0)
  find_program(REDUCE_NVIDIA_SMI nvidia-smi)
  if(REDUCE_NVIDIA_SMI)
    execute_process(COMMAND ${REDUCE_NVIDIA_SMI} --query-gpu=index --format=csv,noheader
                    RESULT_VARIABLE code OUTPUT_VARIABLE text ERROR_QUIET TIMEOUT 30)
    string(REGEX MATCHALL "[0-9]+" listed "${text}")
    if(code EQUAL 0 AND listed)
      set(ids ${listed})
    endif()
  endif()
  set(${out} "${ids}" PARENT_SCOPE)
endfunction()

# A slot is one process on a GPU. The presets run eight ctest jobs, and a student check runs
# two processes at once, so sixteen slots keep one GPU as busy as before the slots existed
# (ctest -j 8 on the H100: process start-up, not the GPU, limited the suites); a test that
# times takes all of them.
set(REDUCE_GPU_SLOTS 16 CACHE STRING "GPU processes ctest runs at once on each GPU")
if(NOT REDUCE_GPU_SLOTS MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "REDUCE_GPU_SLOTS must be a whole number of processes, such as 8")
endif()
reduce_gpu_ids(REDUCE_GPU_IDS)
list(LENGTH REDUCE_GPU_IDS REDUCE_GPU_COUNT)

# `out` = the RESOURCE_GROUPS of a test whose share of the GPUs is `share`:
#   process  one slot of one GPU (a suite, a harness test)
#   N        N slots of one GPU (a student check that runs N tools at once)
#   whole    every slot of one GPU (a test that times, or calibrates timing)
#   gpus2    every slot of two GPUs where the machine has two, else one slot (stage 18)
# ctest hands the slots out only with a resource spec (the presets name it); the test's
# process turns them into CUDA_VISIBLE_DEVICES (tests/gpu/ctest_gpus.cpp, course.ctest_gpus).
function(reduce_gpu_groups share out)
  if(share STREQUAL "process")
    set(groups "gpus:1")
  elseif(share STREQUAL "whole")
    set(groups "gpus:${REDUCE_GPU_SLOTS}")
  elseif(share STREQUAL "gpus2")
    if(REDUCE_GPU_COUNT GREATER_EQUAL 2)
      set(groups "2,gpus:${REDUCE_GPU_SLOTS}")
    else()
      set(groups "gpus:1")
    endif()
  elseif(share MATCHES "^[0-9]+$")
    set(slots ${share})
    if(slots GREATER REDUCE_GPU_SLOTS)
      set(slots ${REDUCE_GPU_SLOTS})
    endif()
    set(groups "gpus:${slots}")
  else()
    message(FATAL_ERROR "reduce_gpu_groups: unknown share '${share}'")
  endif()
  set(${out} "${groups}" PARENT_SCOPE)
endfunction()

# Gives `test` its share of the GPUs (reduce_gpu_groups).
function(reduce_gpu_share test share)
  reduce_gpu_groups(${share} groups)
  set_property(TEST ${test} PROPERTY RESOURCE_GROUPS "${groups}")
endfunction()

# build/gpu_resources.json: ctest's resource spec for the GPUs above.
function(reduce_write_gpu_resources)
  set(gpus "[]")
  set(at 0)
  foreach(id IN LISTS REDUCE_GPU_IDS)
    string(JSON gpus SET "${gpus}" ${at} "{\"id\": \"${id}\", \"slots\": ${REDUCE_GPU_SLOTS}}")
    math(EXPR at "${at} + 1")
  endforeach()
  set(spec "{\"version\": {\"major\": 1, \"minor\": 0}, \"local\": [{\"gpus\": []}]}")
  string(JSON spec SET "${spec}" local 0 gpus "${gpus}")
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/gpu_resources.json CONTENT "${spec}\n" @ONLY)
endfunction()
