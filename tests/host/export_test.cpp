// The student edition (scripts/export_student.sh) is handed out without the answers: it
// must give no solution away and still configure on its own. Each test exports the course
// into a fresh temporary folder and inspects it; a student edition has nothing to export.
#include <gtest/gtest.h>

#include "tests/shell_command.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = REDUCE_SOURCE_DIR;

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

using reduce_tests::shell;

// The whole file ("" where it is missing), to compare two files byte for byte.
std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

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

// The leak test. A line of an answer's TODO blocks is a solution line when, with its
// whitespace collapsed, it has at least 20 characters that are not spaces, is not the tail
// of a statement begun on the line before (more ')' than '('), and is given by no template
// of that stage or an earlier one (then the student already has it). No such line may
// appear in the edition, as a whole line or as a Markdown `code` span, except where
// stages/gifts.txt says a later stage's folder or a named file gives it on purpose.
constexpr std::size_t kLeakMinChars = 20;

std::string normalized(const std::string& line) {
  std::string out;
  bool space = false;
  for (char c : line) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

bool is_trivial(const std::string& text) {
  const auto chars = std::count_if(text.begin(), text.end(), [](char c) { return c != ' '; });
  const auto open = std::count(text.begin(), text.end(), '(');
  const auto close = std::count(text.begin(), text.end(), ')');
  return static_cast<std::size_t>(chars) < kLeakMinChars || close > open;
}

int stage_number(const std::string& folder) { return std::stoi(folder.substr(5, 2)); }

std::vector<std::string> stage_folders(const fs::path& root) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(root / "stages")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, std::regex("stage[0-9]{2}_.*"))) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// stage number -> its solution lines, from `root`'s answers/ and stages/.
std::map<int, std::set<std::string>> solution_lines(const fs::path& root) {
  std::map<int, std::set<std::string>> secrets;
  std::set<std::string> given;  // every line of the templates up to this stage
  for (const std::string& name : stage_folders(root)) {
    for (const std::string& line : read_lines(root / "stages" / name / "todo.cu")) {
      given.insert(normalized(line));
    }
    std::set<std::string>& lines = secrets[stage_number(name)];
    for (const std::string& line : code_in_todo_blocks(root / "answers" / name / "todo.cu")) {
      const std::string text = normalized(line);
      if (!is_trivial(text) && given.count(text) == 0) lines.insert(text);
    }
  }
  return secrets;
}

struct Gift {
  std::string giver;  // a later stage's two digits, or a file's path
  int stage = 0;
  std::string text;
};

// stages/gifts.txt of `root`; a malformed line is a failure.
std::vector<Gift> read_gifts(const fs::path& root) {
  static const std::regex form(R"(^([0-9]{2}|[A-Za-z0-9_./-]+) gives ([0-9]{2}): .+)");
  std::vector<Gift> gifts;
  for (const std::string& line : read_lines(root / "stages" / "gifts.txt")) {
    if (trimmed(line).empty() || line[0] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, form)) {
      ADD_FAILURE() << "stages/gifts.txt: not '<giver> gives <stage>: <reason>': " << line;
      continue;
    }
    gifts.push_back({m[1], std::stoi(m[2]), line});
  }
  return gifts;
}

// The gift that lets `path` (relative to the edition) hold a solution line of `stage`.
const Gift* gift_for(const std::vector<Gift>& gifts, const std::string& path, int stage) {
  for (const Gift& gift : gifts) {
    if (gift.stage != stage) continue;
    if (gift.giver.size() == 2 && std::isdigit(static_cast<unsigned char>(gift.giver[0]))) {
      // A stage's folder, and the copy of its template the edition keeps for the student
      // check (scripts/course/registry.py, SHIPPED_TEMPLATES).
      if (path.rfind("stages/stage" + gift.giver + "_", 0) == 0) return &gift;
      if (path.rfind(".course/templates/stage" + gift.giver + "_", 0) == 0) return &gift;
    } else if (path == gift.giver) {
      return &gift;
    }
  }
  return nullptr;
}

// Fails for every solution line of the course at `source` found in the edition at `dir`
// outside its gifts; returns the gifts that covered a line.
std::set<std::string> expect_no_leaks(const fs::path& source, const fs::path& dir) {
  const auto secrets = solution_lines(source);
  const auto gifts = read_gifts(source);
  for (const Gift& gift : gifts) {
    if (gift.giver.size() == 2 && std::isdigit(static_cast<unsigned char>(gift.giver[0]))) {
      EXPECT_GT(std::stoi(gift.giver), gift.stage) << "a gift comes from a later stage: "
                                                   << gift.text;
    }
  }
  static const std::regex span("`([^`]+)`");
  std::set<std::string> used;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = fs::relative(entry.path(), dir).generic_string();
    if (path.rfind("build/", 0) == 0) continue;
    ++files;
    const auto lines = read_lines(entry.path());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::set<std::string> candidates{normalized(lines[i])};
      for (std::sregex_iterator m(lines[i].begin(), lines[i].end(), span), none; m != none; ++m) {
        candidates.insert(normalized((*m)[1]));
      }
      for (const auto& [stage, solution] : secrets) {
        for (const std::string& candidate : candidates) {
          if (solution.count(candidate) == 0) continue;
          if (const Gift* gift = gift_for(gifts, path, stage)) {
            used.insert(gift->text);
          } else {
            ADD_FAILURE() << path << ":" << i + 1 << " holds stage " << stage
                          << "'s solution line: " << candidate;
          }
        }
      }
    }
  }
  EXPECT_GT(files, 0);
  return used;
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
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "grade.sh"));  // the instructors' grader
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "course" / "grade"));
  EXPECT_FALSE(fs::exists(dir_ / "tests" / "host" / "grade_integrity_test.py"));
  // The figures ship; their generator, which computes each stage's indices, does not.
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "course" / "figures"));
  EXPECT_TRUE(fs::exists(dir_ / "stages" / "stage07_interleaved" / "figures" / "banks.svg"));
  EXPECT_FALSE(fs::exists(dir_ / "docs" / "experiments"));  // stage 14's solution, step by step
  EXPECT_FALSE(fs::exists(dir_ / "bench" / "experiments"));
  // The instructors' first run and template maker start from the answers.
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "first_run.sh"));
  EXPECT_FALSE(fs::exists(dir_ / "scripts" / "make_template.sh"));
  // answers/shared/ holds stage 12's block reduction, stage 14's kernel and the floor's read
  // loop; the edition's common/ falls back to CUB without them.
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
    // The student check compares the student's file with this copy outside the TODO blocks.
    const fs::path shipped = dir_ / ".course" / "templates" / entry.path().filename() / "todo.cu";
    EXPECT_EQ(read_file(shipped), read_file(dir_ / stage / "todo.cu")) << shipped;
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

// Nothing of a solution outside answers/, except the gifts stages/gifts.txt lists; and no
// gift there that covers nothing (the list would hide a later leak). host.dictation reads
// the lessons, templates, hints and docs by token windows and checks their gifts; this test
// checks the gifts of the other files it reads (bench/, common/) by whole lines.
TEST_F(Export, GivesNoAnswerLineAwayOutsideTheGifts) {
  const std::set<std::string> used = expect_no_leaks(kSource, dir_);
  static const std::regex read_by_tokens(R"((stages|docs)/.*|README(\.ko)?\.md)");
  for (const Gift& gift : read_gifts(kSource)) {
    const bool stage = gift.giver.size() == 2 && std::isdigit(static_cast<unsigned char>(gift.giver[0]));
    if (stage || std::regex_match(gift.giver, read_by_tokens)) continue;
    EXPECT_EQ(used.count(gift.text), 1u) << "stages/gifts.txt names a gift nothing gives: "
                                         << gift.text;
  }
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

// A partial edition: stages 6 to 10 only, which configures, builds and passes its host
// tests on its own, with no later stage's folder (whose template may give their solutions).
TEST(PartialExport, Stages6To10BuildAndPassTheirHostTests) {
  if (REDUCE_STUDENT_EDITION) GTEST_SKIP() << "this is the student edition: nothing to export";
  std::string name = (fs::temp_directory_path() / "reduce_export_XXXXXX").string();
  ASSERT_NE(mkdtemp(name.data()), nullptr) << "cannot create a temporary folder";
  const fs::path dir = name;
  std::string output;
  ASSERT_EQ(shell(quoted(kSource / "scripts" / "export_student.sh") + " --stages 6-10 " +
                      quoted(dir), &output), 0) << output;
  EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
  std::vector<int> present;
  for (const std::string& folder : stage_folders(dir)) present.push_back(stage_number(folder));
  EXPECT_EQ(present, (std::vector<int>{6, 7, 8, 9, 10}));
  EXPECT_FALSE(fs::exists(dir / "answers"));
  expect_no_leaks(kSource, dir);
  const std::string command =
      "command -v nvcc >/dev/null || PATH=/usr/local/cuda/bin:$PATH; cd " + quoted(dir) +
      " && cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=75-real >build.log 2>&1"
      " && cmake --build build -j 2 --target host_tests >>build.log 2>&1"
      " && ctest --test-dir build -L host >>build.log 2>&1; code=$?; tail -n 40 build.log;"
      " exit $code";
  output.clear();
  EXPECT_EQ(shell(command, &output), 0) << output;
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST(PartialExport, RefusesABadRangeInOneLine) {
  if (REDUCE_STUDENT_EDITION) GTEST_SKIP() << "this is the student edition: nothing to export";
  const fs::path dir = fs::temp_directory_path() / ("reduce_export_bad_" + std::to_string(getpid()));
  for (const std::string stages : {"--stages", "--stages x", "--stages 10-6", "--stages 99"}) {
    std::string output;
    const int code = shell(quoted(kSource / "scripts" / "export_student.sh") + " " + stages +
                               " " + quoted(dir), &output);
    EXPECT_EQ(code, 2) << stages << ": " << output;
    EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << stages << ": " << output;
    EXPECT_FALSE(fs::exists(dir / "stages")) << stages;
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
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
