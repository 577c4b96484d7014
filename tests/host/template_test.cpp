// Each stage's template and answer must differ only inside the TODO blocks, so that
// `diff stages/X/todo.cu answers/X/todo.cu` shows exactly the solution.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = REDUCE_SOURCE_DIR;

std::vector<std::string> stage_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kSource / "stages")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, std::regex("stage[0-9]{2}_[a-z0-9_]+"))) {
      names.push_back(name);
    }
  }
  return names;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Split {
  std::vector<std::string> outside;  // every line outside TODO blocks, markers included
  int blocks = 0;
  std::string problem;               // a malformed marker, if any
};

Split split_todo_blocks(const std::vector<std::string>& lines) {
  static const std::regex begin(R"(// =+ TODO (\d+) of (\d+): BEGIN =+)");
  static const std::regex end(R"(// =+ TODO (\d+) of (\d+): END =+)");
  Split split;
  bool inside = false;
  int total = 0;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, begin)) {
      if (inside) split.problem = "TODO block opened twice: " + line;
      inside = true;
      ++split.blocks;
      if (std::stoi(m[1]) != split.blocks) split.problem = "TODO numbered out of order: " + line;
      total = std::stoi(m[2]);
      split.outside.push_back(line);
    } else if (std::regex_search(line, m, end)) {
      if (!inside || std::stoi(m[1]) != split.blocks) split.problem = "stray END: " + line;
      inside = false;
      split.outside.push_back(line);
    } else if (!inside) {
      split.outside.push_back(line);
    }
  }
  if (inside) split.problem = "a TODO block is never closed";
  if (split.blocks != total) split.problem = "TODO count does not match 'of N'";
  return split;
}

TEST(TemplatesFound, EveryStageHasLessonAndTemplate) {
  const auto names = stage_names();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    EXPECT_TRUE(fs::exists(kSource / "stages" / name / "README.md")) << name;
    EXPECT_TRUE(fs::exists(kSource / "stages" / name / "todo.cu")) << name;
  }
}

// scripts/check.sh counts and reads the blocks by their markers, so a student who breaks
// one hears it here rather than from a puzzling check.
TEST(TemplatesFound, TodoMarkersAreWellFormed) {
  for (const std::string& name : stage_names()) {
    const Split templ = split_todo_blocks(read_lines(kSource / "stages" / name / "todo.cu"));
    EXPECT_EQ(templ.problem, "") << name;
    EXPECT_GE(templ.blocks, 1) << name << ": a template needs at least one TODO block";
  }
}

// The rest compares the shipped templates with the answers. A student edition has no
// answers, and its templates are meant to be filled in, so none of it is compiled there.
#if !REDUCE_STUDENT_EDITION

TEST(TemplatesFound, EveryStageHasAnAnswer) {
  for (const std::string& name : stage_names()) {
    EXPECT_TRUE(fs::exists(kSource / "answers" / name / "todo.cu")) << name;
  }
}

class Templates : public ::testing::TestWithParam<std::string> {};

TEST_P(Templates, DifferFromAnswerOnlyInsideTodoBlocks) {
  const Split templ = split_todo_blocks(read_lines(kSource / "stages" / GetParam() / "todo.cu"));
  const Split answer = split_todo_blocks(read_lines(kSource / "answers" / GetParam() / "todo.cu"));
  EXPECT_EQ(templ.problem, "");
  EXPECT_EQ(answer.problem, "");
  EXPECT_GE(templ.blocks, 1) << "a template needs at least one TODO block";
  EXPECT_EQ(templ.blocks, answer.blocks);
  ASSERT_EQ(templ.outside.size(), answer.outside.size());
  for (std::size_t i = 0; i < templ.outside.size(); ++i) {
    EXPECT_EQ(templ.outside[i], answer.outside[i]) << "line " << i + 1 << " outside TODO blocks";
  }
}

TEST_P(Templates, TemplateTodoBlocksHoldOnlyComments) {
  const auto lines = read_lines(kSource / "stages" / GetParam() / "todo.cu");
  bool inside = false;
  for (const std::string& line : lines) {
    if (line.find(": BEGIN =") != std::string::npos) inside = true;
    else if (line.find(": END =") != std::string::npos) inside = false;
    else if (inside) {
      const auto first = line.find_first_not_of(' ');
      EXPECT_TRUE(first == std::string::npos || line.compare(first, 2, "//") == 0)
          << "code inside a shipped TODO block: " << line;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, Templates, ::testing::ValuesIn(stage_names()),
                         [](const auto& info) { return info.param; });

#endif  // !REDUCE_STUDENT_EDITION

}  // namespace
