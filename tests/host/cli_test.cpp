// The stage executables reject bad options before touching the GPU, so these run on any
// machine: each bad option gives exit code 2 and one line on stderr.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/rows/row_reference.h"

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Outcome run(const std::string& command) {
  const fs::path dir = fs::temp_directory_path();
  const fs::path out = dir / ("reduce_cli_" + std::to_string(::getpid()) + ".out");
  const fs::path err = dir / ("reduce_cli_" + std::to_string(::getpid()) + ".err");
  const int status = std::system((command + " >" + out.string() + " 2>" + err.string()).c_str());
  Outcome outcome;
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.out = slurp(out);
  outcome.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return outcome;
}

// A student edition (no answers/) builds only the templates.
std::vector<std::string> stage_binaries() {
  std::vector<std::string> binaries;
  for (const auto& entry : fs::directory_iterator(fs::path(REDUCE_SOURCE_DIR) / "stages")) {
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, std::regex("stage[0-9]{2}_.*"))) continue;
    if (!REDUCE_STUDENT_EDITION) binaries.push_back(name.substr(0, 7));  // stage07: the answer
    binaries.push_back(name.substr(0, 7) + "_todo");  // stage07_todo: the template
  }
  return binaries;
}

std::string binary(const std::string& name) { return std::string(REDUCE_BIN_DIR) + "/" + name; }

// The first template executable whose --describe holds `fact` (e.g. "\"kind\": \"rows\""),
// or "" where this build has none (a student edition of some stages only).
std::string template_with(const std::string& fact) {
  std::vector<std::string> names = stage_binaries();
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, "_todo") != 0) continue;
    if (run(binary(name) + " --describe").out.find(fact) != std::string::npos) return name;
  }
  return "";
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

// The row stages (16 on) take a matrix: --rows and --cols instead of --n.
std::string elements(const std::string& name, std::size_t count) {
  const bool rows = run(binary(name) + " --help").out.find("--rows R") != std::string::npos;
  return rows ? " --rows 1 --cols " + std::to_string(count) : " --n " + std::to_string(count);
}

class Cli : public ::testing::TestWithParam<std::string> {};

TEST_P(Cli, BadOptionsExitTwoWithOneLine) {
  const std::vector<std::string> bad = {
      "--n 0",          "--n -5",          "--n ten",       "--n 2147483648",
      "--block 100",    "--block 2048",    "--block 16",    "--seed -1",
      "--repeat 0",     "--device -1",     "--device x",    "--frobnicate 1",
      "--n",
  };
  for (const std::string& args : bad) {
    const Outcome o = run(binary(GetParam()) + " " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_EQ(count_lines(o.err), 1) << args << "\n" << o.err;
    EXPECT_EQ(o.err.rfind(GetParam() + ": error: ", 0), 0u) << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
}

TEST_P(Cli, PartialBlockFollowsTheStageSizeRule) {
  // The size check comes before any CUDA call: a whole-block stage (its --help says so)
  // rejects n = 1000 with exit 2; an any-length stage gets past it and, with every GPU
  // hidden, stops at the device check with exit 3.
  const bool whole_blocks =
      run(binary(GetParam()) + " --help").out.find("needs a multiple of --block") !=
      std::string::npos;
  const Outcome o =
      run("CUDA_VISIBLE_DEVICES=-1 " + binary(GetParam()) + elements(GetParam(), 1000) + " --block 256");
  EXPECT_EQ(o.exit_code, whole_blocks ? 2 : 3) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  if (whole_blocks) EXPECT_NE(o.err.find("--n 1024"), std::string::npos) << o.err;
}

TEST_P(Cli, AShapeTheStageDoesNotTakeExitsTwoWithOneLine) {
  // A row stage refuses --n, a vector stage --rows and --cols: one line saying what to
  // give instead, before any CUDA call.
  const bool rows = elements(GetParam(), 1).find("--rows") != std::string::npos;
  const Outcome o = run(binary(GetParam()) + (rows ? " --n 1024" : " --rows 4 --cols 256"));
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find(rows ? "give --rows R --cols C" : "give --n N"), std::string::npos) << o.err;
}

TEST_P(Cli, HelpListsOptionsAndExitsZero) {
  const Outcome o = run(binary(GetParam()) + " --help");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("--block"), std::string::npos);
  EXPECT_NE(o.out.find("Exit codes"), std::string::npos);
}

TEST_P(Cli, NoVisibleDeviceExitsThreeWithOneLine) {
  // CUDA_VISIBLE_DEVICES=-1 hides every GPU, so this holds with or without one.
  const Outcome o = run("CUDA_VISIBLE_DEVICES=-1 " + binary(GetParam()) + elements(GetParam(), 1024));
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_EQ(count_lines(o.err), 1) << o.err;
  EXPECT_NE(o.err.find("no CUDA device found"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
}

TEST(Scripts, BenchmarkAndCountersSayNoDeviceInOneLine) {
  // With every GPU hidden, the benchmark and the profiler script stop before measuring
  // anything: one line naming the missing device, exit code 3, no traceback.
  // They find this build through REDUCE_BUILD_DIR, wherever it was configured.
  const std::string build = fs::path(REDUCE_BIN_DIR).parent_path().string();
  // They are modules of the scripts' package (scripts/course), run without building first.
  for (const std::string script : {"course.bench --quick", "course.counters"}) {
    const Outcome o = run("CUDA_VISIBLE_DEVICES=-1 REDUCE_BUILD_DIR='" + build + "' PYTHONPATH='" +
                          std::string(REDUCE_SOURCE_DIR) + "/scripts' python3 -m " + script);
    EXPECT_EQ(count_lines(o.err), 1) << script << "\n" << o.err;
    if (REDUCE_STUDENT_EDITION) {  // no answers/ to measure: one line says so first
      EXPECT_EQ(o.exit_code, 2) << script << "\n" << o.err;
      EXPECT_NE(o.err.find("student edition"), std::string::npos) << o.err;
    } else {
      EXPECT_EQ(o.exit_code, 3) << script << "\n" << o.err;
      EXPECT_NE(o.err.find("No CUDA device found"), std::string::npos) << o.err;
    }
    EXPECT_EQ(o.err.find("Traceback"), std::string::npos) << o.err;
  }
}

// The grader's cross-check judges what a student's executable wrote with an executable
// that runs no student code and needs no GPU (here a template's: the judging is the
// harness's, not the kernel's). Written here from the CPU's own reference, then spoilt.
fs::path output_file(const std::string& name, const std::vector<float>& values) {
  const fs::path path = fs::temp_directory_path() / (name + std::to_string(::getpid()) + ".bin");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
  return path;
}

std::string verify_command(const std::string& exe, const std::string& options, const fs::path& file) {
  return "CUDA_VISIBLE_DEVICES= " + binary(exe) + " " + options + " --verify-output " + file.string();
}

TEST(VerifyOutput, JudgesAWrittenSumOnTheCpuAloneAndRefusesAWrongOne) {
  const std::string stage = template_with("\"kind\": \"vector\", \"operation\": \"sum\"");
  if (stage.empty()) GTEST_SKIP() << "this build has no stage that sums a vector";
  const std::vector<float> input = reduce::generate_input(1024, 77);
  const float right = static_cast<float>(reduce::reference_sum(input.data(), input.size()).sum);
  const fs::path good = output_file("reduce_verify_good", {right});
  const Outcome pass = run(verify_command(stage, "--n 1024 --seed 77", good));
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("matches the reference"), std::string::npos) << pass.out;
  // The same file judged for another seed: the input differs, so the sum does.
  EXPECT_EQ(run(verify_command(stage, "--n 1024 --seed 78", good)).exit_code, 1);
  const fs::path bad = output_file("reduce_verify_bad", {right * 1.001f});
  const Outcome fail = run(verify_command(stage, "--n 1024 --seed 77", bad));
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("does not match"), std::string::npos) << fail.out;
  fs::remove(good);
  fs::remove(bad);
}

TEST(VerifyOutput, JudgesAWrittenMatrixAndRefusesAFileOfTheWrongSize) {
  const std::string stage = template_with("\"operation\": \"softmax\"");
  if (stage.empty()) GTEST_SKIP() << "this build has no softmax stage";
  const std::size_t rows = 3, cols = 100;
  const std::vector<float> input = reduce::generate_input(rows * cols, 5);
  const reduce::RowReference ref(reduce::Operation::kSoftmax, input, rows, cols, {});
  std::vector<float> right(rows * cols);
  for (std::size_t i = 0; i < right.size(); ++i) right[i] = static_cast<float>(ref.value(i));
  const fs::path good = output_file("reduce_verify_rows", right);
  const std::string options = "--rows 3 --cols 100 --seed 5";
  EXPECT_EQ(run(verify_command(stage, options, good)).exit_code, 0);
  right.pop_back();
  const fs::path short_file = output_file("reduce_verify_short", right);
  const Outcome refused = run(verify_command(stage, options, short_file));
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("1196 bytes"), std::string::npos) << refused.err;
  fs::remove(good);
  fs::remove(short_file);
}

TEST(VerifyOutput, AStageWithoutAnOutputFileSaysSoInOneLine) {
  const std::string stage = template_with("\"kind\": \"host_code\"");
  if (stage.empty()) GTEST_SKIP() << "this build has no host-code stage";
  const Outcome refused = run(binary(stage) + " --write-output x.bin");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("has no output file"), std::string::npos) << refused.err;
}

INSTANTIATE_TEST_SUITE_P(Stages, Cli, ::testing::ValuesIn(stage_binaries()),
                         [](const auto& info) { return info.param; });

}  // namespace
