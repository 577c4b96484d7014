// What a GPU test records about itself for the tools that read its JSON report
// (--gtest_output=json): GoogleTest properties, which land there as extra keys on the
// test's object. The student check (scripts/course/rules.py) and the grader
// (scripts/course/grade/run.py) read these facts, never the test's name or its English
// messages, so a test can be renamed or reworded without changing any verdict.
//
//   reduce_key             the failure key (stages/*/hints.txt) the test stands for when it
//                          fails: tests.wrong for a plain value test, the fixture's default
//   block, version, gpus   the case's parameters, where its suite has them
//   hidden                 "1" on a test the grader runs on its secret seed
//   gpu_value, cpu_value   the two values of every GPU-to-CPU comparison that failed, in
//                          the order they failed, separated by spaces ("nan", "inf" allowed)
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace reduce {

// The one place a fact reaches the report. A later value of the same name replaces the
// earlier one (GoogleTest's rule), which is how a test's own key replaces the default.
inline void record_fact(const std::string& name, const std::string& value) {
  ::testing::Test::RecordProperty(name, value);
}

inline void record_fact(const std::string& name, long long value) {
  record_fact(name, std::to_string(value));
}

// The running test's value of `name` so far, "" before the first.
inline std::string recorded_fact(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  if (test == nullptr) return "";
  const ::testing::TestResult& result = *test->result();
  for (int i = 0; i < result.test_property_count(); ++i) {
    if (name == result.GetTestProperty(i).key()) return result.GetTestProperty(i).value();
  }
  return "";
}

// The key the running test stands for when it fails. A test whose failure says more than
// "a wrong value" calls this first thing, so the key is there however the test fails. A
// test that has failed already (in SetUp, on a CUDA error an earlier test left behind)
// keeps the fixture's tests.wrong: its own key would not name that failure.
inline void stands_for(const char* key) {
  if (!::testing::Test::HasFailure()) record_fact("reduce_key", key);
}

// First thing in a test that the grader runs on its secret seed (hidden_seed()).
inline void runs_on_hidden_seed() { record_fact("hidden", "1"); }

// A value as text that reads back as the same number: 17 digits hold any float or double.
inline std::string value_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Adds `value` to the running test's fact `name`, after a space.
inline void append_fact(const std::string& name, const std::string& value) {
  const std::string before = recorded_fact(name);
  record_fact(name, before.empty() ? value : before + " " + value);
}

// `match`, after recording the two values when it is false: EXPECT_TRUE(compared(...)).
// Only failures are recorded, since the check reads only failed tests, and every one of
// them, since the check calls a test's output NaN or poison when any failing value was.
inline bool compared(bool match, const std::string& gpu, const std::string& cpu) {
  if (!match) {
    append_fact("gpu_value", gpu);
    append_fact("cpu_value", cpu);
  }
  return match;
}

inline bool compared(bool match, double gpu, double cpu) {
  return match || compared(false, value_text(gpu), value_text(cpu));
}

}  // namespace reduce
