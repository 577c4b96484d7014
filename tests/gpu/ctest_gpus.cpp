// Linked into every GPU test executable: before main, and so before the first CUDA call,
// the GPU slots ctest handed this process (cmake/gpus.cmake, reduce_gpu_share) become
// CUDA_VISIBLE_DEVICES, so the suites spread over the machine's GPUs and a test given two
// GPUs sees exactly those two. Without a resource spec ctest hands out nothing and every GPU
// stays visible, as when the executable is run by hand.
#include <cstdlib>
#include <string>

namespace {

// "id:1,slots:2;id:1,slots:1" -> the ids, comma-separated.
std::string ids_of(const std::string& allocations) {
  std::string ids;
  std::size_t at = 0;
  while ((at = allocations.find("id:", at)) != std::string::npos) {
    at += 3;
    const std::size_t end = allocations.find_first_of(",;", at);
    const std::string id = allocations.substr(at, end == std::string::npos ? end : end - at);
    if (("," + ids + ",").find("," + id + ",") == std::string::npos) {
      ids += (ids.empty() ? "" : ",") + id;
    }
  }
  return ids;
}

bool apply_ctest_gpus() {
  const char* count_text = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (count_text == nullptr) return false;
  std::string all;
  const int count = std::atoi(count_text);
  for (int group = 0; group < count; ++group) {
    const std::string name = "CTEST_RESOURCE_GROUP_" + std::to_string(group) + "_GPUS";
    const char* allocations = std::getenv(name.c_str());
    if (allocations == nullptr) continue;
    const std::string ids = ids_of(allocations);
    if (!ids.empty()) all += (all.empty() ? "" : ",") + ids;
  }
  if (all.empty()) return false;
  return setenv("CUDA_VISIBLE_DEVICES", all.c_str(), 1) == 0;
}

[[maybe_unused]] const bool applied = apply_ctest_gpus();

}  // namespace
