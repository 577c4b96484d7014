#include "common/stage_rules.h"

#include <sstream>

namespace reduce {

bool is_valid_block(unsigned long long block) {
  for (unsigned size : kBlockSizes) {
    if (block == size) return true;
  }
  return false;
}

std::string block_sizes_text() {
  std::string text;
  for (std::size_t i = 0; i < std::size(kBlockSizes); ++i) {
    if (i > 0) text += i + 1 == std::size(kBlockSizes) ? " or " : ", ";
    text += std::to_string(kBlockSizes[i]);
  }
  return text;
}

std::string check_size(SizeRule rule, int stage_number, std::size_t n, unsigned block) {
  if (rule == SizeRule::kAnyLength || n % block == 0) return "";
  const std::size_t below = n / block * block;
  const std::size_t above = below + block;
  std::ostringstream msg;
  msg << "--n " << n << " is not a multiple of --block " << block << ": stage "
      << stage_number << " reduces whole blocks only; use --n ";
  // Suggest only sizes the options accept: at least one block, at most kMaxN.
  if (above <= kMaxN) msg << above << (below > 0 ? " or --n " : "");
  if (below > 0) msg << below;
  return msg.str();
}

std::string check_shape(bool takes_rows, int stage_number, bool n_given, bool rows_given) {
  const std::string stage = "stage " + std::to_string(stage_number);
  if (takes_rows && n_given) {
    return "--n: " + stage + " works on the rows of a matrix; give --rows R --cols C instead "
           "(default --rows " + std::to_string(kDefaultRows) + " --cols " +
           std::to_string(kDefaultCols) + ")";
  }
  if (!takes_rows && rows_given) {
    return "--rows/--cols: " + stage + " reduces one vector; give --n N instead (--rows and "
           "--cols are for the row stages, 16 on)";
  }
  return "";
}

}  // namespace reduce
