// Splits a matrix's rows over the host's cores for the CPU references and their checks.
// Every row is computed on its own, so the split changes no value, only how soon the answer
// comes: a 2^24-value softmax reference took about half a second on one core, and the
// operations benchmark makes one in each of its hundreds of processes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

namespace reduce {

// Below this many values a thread costs more than it saves.
constexpr std::size_t kValuesPerRowRange = std::size_t{1} << 20;

// Calls work(begin, end) on consecutive row ranges that cover [0, rows), each on its own
// thread, and returns their results in row order, so a caller combines them as one pass
// over the rows would. `work` must not throw. Where no thread can be started, the range
// runs on the calling thread.
template <typename Work>
auto over_row_ranges(std::size_t rows, std::size_t cols, Work work) {
  using Result = decltype(work(std::size_t{}, std::size_t{}));
  static_assert(!std::is_same_v<Result, bool>, "threads may not share a vector<bool>'s words");
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_size = std::max<std::size_t>(1, rows * cols / kValuesPerRowRange);
  const std::size_t ranges = std::min({cores, by_size, std::max<std::size_t>(rows, 1)});
  std::vector<Result> results(ranges);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < ranges; ++k) {
    const std::size_t begin = rows * k / ranges, end = rows * (k + 1) / ranges;
    const auto one = [&results, &work, k, begin, end] { results[k] = work(begin, end); };
    if (k + 1 == ranges) {
      one();
      continue;
    }
    try {
      threads.emplace_back(one);
    } catch (const std::system_error&) {
      one();
    }
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

// over_row_ranges for work that only fills its own rows and returns nothing.
template <typename Work>
void for_row_ranges(std::size_t rows, std::size_t cols, Work work) {
  over_row_ranges(rows, cols, [&work](std::size_t begin, std::size_t end) {
    work(begin, end);
    return 0;
  });
}

}  // namespace reduce
