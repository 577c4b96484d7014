// What every stage's GPU suite does around each test: record the facts the student check
// and the grader read (tests/gpu/test_facts.h), skip without a CUDA device, and fail a test
// after which common/harness/sync_checks.cuh (built into the suites of a student's file)
// reported a misused barrier or warp intrinsic.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>

#include "common/cuda_check.h"
#include "common/harness/device.h"
#include "common/harness/input.h"
#include "common/stage.h"
#include "tests/gpu/test_facts.h"

// Defined by common/harness/sync_checks.cuh, which only the suites built from a student's file
// include; weak, so the answers' suites link without it.
extern "C" int reduce_sync_checks_take_report() __attribute__((weak));

namespace reduce {

// The seed of each suite's hidden-seed test (the one that calls runs_on_hidden_seed()):
// REDUCE_HIDDEN_SEED where the instructors' grader (scripts/grade.sh --secret-seed) sets it,
// else the default input's seed. The test is visible to everyone; the seed the grader uses
// is not, so a kernel that remembers the default input's answer fails it.
inline std::uint32_t hidden_seed() {
  const char* text = std::getenv("REDUCE_HIDDEN_SEED");
  if (text == nullptr || *text == '\0') return kDefaultSeed;
  return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
}

template <typename Param>
class GpuSuite : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    stands_for("tests.wrong");  // until the test names a more telling key
    record_case();
    const DeviceProbe probe = probe_devices();
    if (probe.count == 0) GTEST_SKIP() << "no CUDA device: " << probe.problem;
    select_device();
  }

  // A CUDA error here (an earlier test's, left in the context) fails the test without
  // stopping it, so the body still records its hidden mark before its own first CUDA call
  // fails: a hidden-seed test stopped in SetUp would not count among the hidden tests.
  static void select_device() {
    try {
      CUDA_CHECK(cudaSetDevice(0));
    } catch (const CudaError& error) {
      ADD_FAILURE() << error.what();
    }
  }

  // Records the case's parameters (block, version or gpus) that the check's details name.
  virtual void record_case() const = 0;

  void TearDown() override {
    if (reduce_sync_checks_take_report != nullptr && reduce_sync_checks_take_report()) {
      ADD_FAILURE() << "a __syncthreads() that not every thread reached, or a warp intrinsic "
                       "called from a lane outside its mask: the reduce-check line above "
                       "names the file and line";
    }
  }
};

// A suite over (version, block size): the stage's plan with that version chosen.
class VersionBlockSuite : public GpuSuite<std::tuple<int, unsigned>> {
 protected:
  int version() const { return std::get<0>(GetParam()); }
  unsigned block() const { return std::get<1>(GetParam()); }
  StagePlan plan() const { return with_version(stage_plan(), version()); }

  // Version 0 is the stage's own launch in a stage with one version: no version to name.
  void record_case() const override {
    record_fact("block", block());
    if (version() != 0) record_fact("version", version());
  }
};

// A suite over the block size alone.
class BlockSuite : public GpuSuite<unsigned> {
 protected:
  unsigned block() const { return GetParam(); }
  void record_case() const override { record_fact("block", block()); }
};

}  // namespace reduce
