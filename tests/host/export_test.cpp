// The student edition (scripts/export_student.sh) is handed out without the answers: it
// must give no solution away and still configure on its own. Each test exports the course
// into a fresh temporary folder and inspects it; a student edition has nothing to export.
#include <gtest/gtest.h>

#include "tests/shell_command.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = REDUCE_SOURCE_DIR;

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

using reduce_tests::shell;

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

bool is_code(const std::string& line) {
  const std::string text = trimmed(line);
  return !text.empty() && text.rfind("//", 0) != 0;
}

// The lines inside the file's TODO blocks that are neither blank nor a // comment.
std::vector<std::string> code_in_todo_blocks(const fs::path& file) {
  static const std::regex begin(R"(// =+ TODO \d+ of \d+: BEGIN =+)");
  static const std::regex end(R"(// =+ TODO \d+ of \d+: END =+)");
  std::vector<std::string> code;
  bool inside = false;
  for (const std::string& line : read_lines(file)) {
    if (std::regex_search(line, begin)) inside = true;
    else if (std::regex_search(line, end)) inside = false;
    else if (inside && is_code(line)) code.push_back(trimmed(line));
  }
  return code;
}

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    if (REDUCE_STUDENT_EDITION) {
      GTEST_SKIP() << "this is the student edition: it has no answers to leave out";
    }
    std::string name = (fs::temp_directory_path() / "reduce_export_XXXXXX").string();
    ASSERT_NE(mkdtemp(name.data()), nullptr) << "cannot create a temporary folder";
    dir_ = name;
    exit_code_ = shell(quoted(kSource / "scripts" / "export_student.sh") + " " + quoted(dir_),
                       &output_);
    ASSERT_EQ(exit_code_, 0) << output_;
  }

  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
  int exit_code_ = -1;
  std::string output_;
};

TEST_F(Export, SaysInOneLineWhereTheEditionIsAndWhatToRun) {
  EXPECT_EQ(std::count(output_.begin(), output_.end(), '\n'), 1) << output_;
  EXPECT_NE(output_.find(dir_.string()), std::string::npos) << output_;
  EXPECT_NE(output_.find("scripts/check.sh"), std::string::npos) << output_;
}

TEST_F(Export, LeavesOutAnswersMistakesAndTheInstructorsCheck) {
  EXPECT_FALSE(fs::exists(dir_ / "answers"));
  EXPECT_FALSE(fs::exists(dir_ / "tests" / "mistakes"));
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "gpu_check.sh"));
  EXPECT_FALSE(fs::exists(dir_ / "docs" / "experiments"));  // stage 14's solution, step by step
  // Stage 12's solution; the edition's block_reduce.cuh falls back to CUB without it.
  EXPECT_FALSE(fs::exists(dir_ / "common" / "block_reduce_warp.cuh"));
  EXPECT_TRUE(fs::exists(dir_ / "common" / "block_reduce_library.cuh"));
}

TEST_F(Export, ShipsEveryTemplateAndLessonAndExecutableScripts) {
  int stages = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "stages")) {
    if (!entry.is_directory()) continue;
    const fs::path stage = fs::path("stages") / entry.path().filename();
    EXPECT_TRUE(fs::exists(dir_ / stage / "todo.cu")) << stage;
    EXPECT_TRUE(fs::exists(dir_ / stage / "README.md")) << stage;
    ++stages;
  }
  EXPECT_GT(stages, 0);
  for (const char* script : {"check.sh", "run.sh", "test.sh"}) {
    const fs::perms perms = fs::status(dir_ / "scripts" / script).permissions();
    EXPECT_NE(perms & fs::perms::owner_exec, fs::perms::none) << script;
  }
}

TEST_F(Export, NoTodoBlockHoldsCode) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string path = fs::relative(entry.path(), dir_).string();
    for (const std::string& line : code_in_todo_blocks(entry.path())) {
      ADD_FAILURE() << path << ": code inside a TODO block: " << line;
    }
  }
  EXPECT_GT(files, 0);
}

TEST_F(Export, RefusesAFolderThatIsNotEmpty) {
  std::string output;
  const int code =
      shell(quoted(kSource / "scripts" / "export_student.sh") + " " + quoted(dir_), &output);
  EXPECT_EQ(code, 2) << output;
  EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
}

TEST_F(Export, ConfiguresWithCMakeOnItsOwn) {
  // The toolkit's usual place, for machines where nvcc is installed but not on PATH.
  const std::string command =
      "command -v nvcc >/dev/null || PATH=/usr/local/cuda/bin:$PATH; cmake -S " +
      quoted(dir_) + " -B " + quoted(dir_ / "build") + " -DCMAKE_CUDA_ARCHITECTURES=75";
  std::string output;
  EXPECT_EQ(shell(command, &output), 0) << output;
}

// `cmake -B out` leaves a build folder that .gitignore does not know; its copies of the
// answers must stay behind all the same.
TEST(ExportBuildFolders, LeavesOutABuildFolderOfAnyName) {
  if (REDUCE_STUDENT_EDITION) GTEST_SKIP() << "this is the student edition: nothing to leave out";
  const fs::path build = kSource / ("export_test_build_" + std::to_string(getpid()));
  std::string name = (fs::temp_directory_path() / "reduce_export_XXXXXX").string();
  ASSERT_NE(mkdtemp(name.data()), nullptr) << "cannot create a temporary folder";
  const fs::path dest = name;
  fs::create_directories(build / "answers");
  std::ofstream(build / "CMakeCache.txt") << "# CMake cache\n";
  std::ofstream(build / "answers" / "todo.cu") << "// a copied answer\n";
  std::string output;
  const int code =
      shell(quoted(kSource / "scripts" / "export_student.sh") + " " + quoted(dest), &output);
  std::error_code ignored;
  fs::remove_all(build, ignored);
  EXPECT_EQ(code, 0) << output;
  EXPECT_TRUE(fs::exists(dest / "scripts" / "check.sh")) << output;
  EXPECT_FALSE(fs::exists(dest / build.filename())) << output;
  fs::remove_all(dest, ignored);
}

}  // namespace
