// The file between the two halves of the grader's cross-check: the stage executable under
// test writes its raw result (--write-output), an answer's executable judges it
// (--verify-output). Raw float32 values in the machine's byte order, nothing else: the
// reader knows from the options how many to expect and refuses a file of any other size.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace reduce {

// Throws std::runtime_error naming the file when it cannot be written.
void write_output_file(const std::string& path, const float* values, std::size_t count);

// Exactly `count` floats, or std::runtime_error saying what the file held instead.
std::vector<float> read_output_file(const std::string& path, std::size_t count);

}  // namespace reduce
