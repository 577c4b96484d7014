#include "common/harness/output_file.h"

#include <fstream>
#include <stdexcept>

namespace reduce {

void write_output_file(const std::string& path, const float* values, std::size_t count) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(values),
            static_cast<std::streamsize>(count * sizeof(float)));
  if (!out) throw std::runtime_error("--write-output: cannot write " + path);
}

std::vector<float> read_output_file(const std::string& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("--verify-output: cannot read " + path);
  const auto bytes = static_cast<std::size_t>(in.tellg());
  if (bytes != count * sizeof(float)) {
    throw std::runtime_error("--verify-output: " + path + " holds " + std::to_string(bytes) +
                             " bytes, not the " + std::to_string(count * sizeof(float)) +
                             " bytes of " + std::to_string(count) + " float32 values these options give");
  }
  std::vector<float> values(count);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(bytes));
  if (!in) throw std::runtime_error("--verify-output: cannot read " + path);
  return values;
}

}  // namespace reduce
