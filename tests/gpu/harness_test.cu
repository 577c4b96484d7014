// GPU tests of the harness itself: poisoning catches a stage that never writes, device
// and memory checks give one-line errors, and the stage executables work end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <stdexcept>
#include <string>

#include "common/harness/device.h"
#include "common/harness/input.h"
#include "common/harness/reference.h"
#include "common/cuda_check.h"
#include "common/harness/runner.h"
#include "common/harness/fingerprint.h"
#include "common/rows/row_runner.h"
#include "tests/shell_command.h"

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using namespace reduce;

class Harness : public ::testing::Test {
 protected:
  void SetUp() override {
    const DeviceProbe probe = probe_devices();
    if (probe.count == 0) GTEST_SKIP() << "no CUDA device: " << probe.problem;
    device_count_ = probe.count;
    CUDA_CHECK(cudaSetDevice(0));
  }
  int device_count_ = 0;
};

// A stage whose launch enqueues nothing, as a template does before it is filled in.
DeviceValues launch_nothing(const Launch& run) { return {run.partials, run.n / run.block}; }
DeviceValues launch_nothing_but_claim_one(const Launch& run) { return {run.partials, 1}; }
DeviceValues leave_two_values(const Launch& run) { return {run.partials, 2}; }
constexpr StageVersion kIdle[] = {{"idle", launch_nothing}};
constexpr StageVersion kIdleClaimingOne[] = {{"idle", launch_nothing_but_claim_one}};
constexpr StageVersion kBad[] = {{"bad", leave_two_values}};

TEST_F(Harness, PoisonMakesAStageThatNeverWritesFail) {
  const StagePlan idle{.number = 99,
                       .sizes = SizeRule::kMultipleOfBlock,
                       .finish = Finish::kOnHost,
                       .versions = kIdle};
  const std::vector<float> input = generate_input(4096);
  StageRunner runner(idle, input.size());
  runner.upload(input);
  const RunOutput out = runner.run(256);
  EXPECT_TRUE(std::isnan(out.sum));
  EXPECT_FALSE(verify(out.sum, reference_sum(input.data(), input.size()), input.size()).match);
}

TEST_F(Harness, PoisonIsRenewedBeforeEveryRun) {
  const StagePlan idle{.number = 99, .versions = kIdleClaimingOne};
  StageRunner runner(idle, 1024);
  runner.upload(generate_input(1024));
  EXPECT_TRUE(std::isnan(runner.run(32).sum));
  const Timing timing = runner.time(32, 3);
  EXPECT_TRUE(std::isnan(timing.warmup.sum));
  EXPECT_TRUE(std::isnan(timing.last.sum));
}

// One thread adds the whole input, in order: slow and right. The cheat remembers the
// warm-up's sum and replays it without reading the input again, as a kernel with a
// function-scope static would (the grader's integrity rules forbid those; this is the
// harness's own line of defence).
__device__ float remembered_sum;
__global__ void add_in_order(const float* in, std::size_t n, float* out) {
  float sum = 0.0f;
  for (std::size_t i = 0; i < n; ++i) sum += in[i];
  *out = sum;
  remembered_sum = sum;
}
__global__ void replay(float* out) { *out = remembered_sum; }
DeviceValues add_honestly(const Launch& run) {
  add_in_order<<<1, 1, 0, run.stream>>>(run.in, run.n, run.partials);
  CUDA_CHECK_LAUNCH("add_in_order");
  return {run.partials, 1};
}
int launches_so_far = 0;
DeviceValues add_once_then_replay(const Launch& run) {
  if (launches_so_far++ == 0) return add_honestly(run);
  replay<<<1, 1, 0, run.stream>>>(run.partials);
  CUDA_CHECK_LAUNCH("replay");
  return {run.partials, 1};
}
constexpr StageVersion kHonest[] = {{"honest", add_honestly}};
constexpr StageVersion kReplaying[] = {{"replaying", add_once_then_replay}};

TEST_F(Harness, EveryTimedRunOfAnHonestStageAgreesAndTheInputComesBack) {
  const StagePlan honest{.number = 99, .finish = Finish::kOnDevice, .versions = kHonest};
  const std::vector<float> input = generate_input(4097);
  StageRunner runner(honest, input.size());
  runner.upload(input);
  const Timing timing = runner.time(256, 5);
  EXPECT_EQ(timing.disagreeing, 0);
  EXPECT_EQ(timing.last.sum, timing.warmup.sum);
  EXPECT_EQ(runner.download_input(), input);  // the sign flips an even number of times
}

TEST_F(Harness, ATimedRunThatReplaysAnEarlierSumIsCaught) {
  const StagePlan cheat{.number = 99, .finish = Finish::kOnDevice, .versions = kReplaying};
  const std::vector<float> input = generate_input(4097);
  StageRunner runner(cheat, input.size());
  runner.upload(input);
  launches_so_far = 0;
  const Timing timing = runner.time(256, 4);
  // The input's sign flips before every timed run: the replayed sum is wrong on the runs
  // that see the negated input, though the last run (sign flipped back) looks right.
  EXPECT_EQ(timing.disagreeing, 2);
  EXPECT_EQ(timing.last.sum, timing.warmup.sum);
  EXPECT_EQ(timing.first_disagreeing, -timing.warmup.sum);
}

TEST_F(Harness, DeviceStageMustLeaveOneValue) {
  const StagePlan bad{.number = 99, .versions = kBad};
  StageRunner runner(bad, 1024);
  runner.upload(generate_input(1024));
  EXPECT_THROW(runner.run(32), std::logic_error);
}

TEST_F(Harness, MissingDeviceIsAOneLineOptionError) {
  const std::string msg = select_device(device_count_ + 5, device_count_);
  EXPECT_NE(msg.find("--device " + std::to_string(device_count_ + 5)), std::string::npos) << msg;
  EXPECT_NE(msg.find("use --device 0"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_EQ(select_device(0, device_count_), "");
}

TEST_F(Harness, SizeThatDoesNotFitIsAOneLineOptionError) {
  const std::string msg = check_fits(1u << 30, std::size_t{1} << 50);  // a petabyte
  EXPECT_NE(msg.find("--n 1073741824"), std::string::npos) << msg;
  EXPECT_NE(msg.find("smaller --n"), std::string::npos) << msg;
  EXPECT_EQ(check_fits(1024, 4096), "");
}

TEST(CudaCheck, ErrorNamesTheCallFileAndLine) {
  // Fails with or without a GPU: no device can hand out a petabyte.
  void* p = nullptr;
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 50));
    FAIL() << "cudaMalloc of a petabyte succeeded";
  } catch (const CudaError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cudaMalloc(&p, std::size_t{1} << 50) failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("tests/gpu/harness_test.cu:" + std::to_string(line)), std::string::npos)
        << msg;
  }
  (void)cudaGetLastError();
}

// --- the stage executables, end to end ---

using reduce_tests::shell;

// A student edition has no answers/: its executables are the templates, stageNN_todo.
bool student_edition() { return !fs::exists(fs::path(REDUCE_SOURCE_DIR) / "answers"); }

// Two-digit numbers of the stages whose executables this build has.
std::vector<std::string> stage_numbers() {
  const fs::path dir = fs::path(REDUCE_SOURCE_DIR) / (student_edition() ? "stages" : "answers");
  std::vector<std::string> numbers;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, std::regex("stage[0-9]{2}_.*"))) numbers.push_back(name.substr(5, 2));
  }
  return numbers;
}

std::string stage_binary(const std::string& number) {
  return std::string(REDUCE_BIN_DIR) + "/stage" + number + (student_edition() ? "_todo" : "");
}

bool help_mentions(const std::string& number, const std::string& option) {
  std::string help;
  shell(stage_binary(number) + " --help", &help);
  return help.find(option) != std::string::npos;
}

// The row stages (16 on) take a matrix: --rows and --cols instead of --n.
bool takes_rows(const std::string& number) { return help_mentions(number, "--rows R"); }

// Stage 18 spreads one sum over GPUs 0 to K-1 (--gpus K) and has no --device.
bool multi_gpu(const std::string& number) { return help_mentions(number, "--gpus K"); }

std::string elements(const std::string& number, std::size_t count) {
  return takes_rows(number) ? " --rows " + std::to_string(count / 1024) + " --cols 1024"
                            : " --n " + std::to_string(count);
}

TEST_F(Harness, AnswersPrintTheCourseReportAndExitZero) {
  // A template's sum is right only once the student has filled it in; scripts/check.sh
  // and the todo suites test that.
  if (student_edition()) GTEST_SKIP() << "student edition: no answers/ to run";
  for (const std::string& number : stage_numbers()) {
    std::string out;
    const int code = shell(stage_binary(number) + elements(number, 65536) + " --repeat 3", &out);
    EXPECT_EQ(code, 0) << out;
    const std::string stage = std::to_string(std::stoi(number));
    if (takes_rows(number)) {
      // A row stage names its operation and default version, the matrix, and its rule.
      const std::regex rows(
          "Stage " + stage + " [a-z ]+, version ([0-9]+) of \\1 \\([^)]+\\) matches reference ✅\n\n"
          "Input size: 65536 elements \\(64 rows x 1024 columns\\)\n"
          "Relative error: [0-9.e+-]+ \\(the largest over the values, each against "
          "(its row's largest|its own scale); allowed [0-9.e+-]+\\)\n\n"
          "Timing:\n  CPU time : [0-9.]+ ms\n  GPU time : [0-9.]+ ms\n"
          "  Bandwidth: [0-9.]+ GB/s \\(each value read once and written once\\)\n");
      EXPECT_TRUE(std::regex_match(out, rows)) << out;
      continue;
    }
    if (multi_gpu(number)) {
      // Every visible GPU by default: the shards first, every GPU's total last.
      const std::regex gpus(
          "GPUs: ([0-9]+) x [^\n]+, shards? of (up to )?[0-9, and]+ elements\n"
          "Stage " + stage + " on \\1 GPUs? reduction matches reference ✅\n\n"
          "Input size: 65536 elements\nCPU sum : [0-9.]+\nGPU sum : [0-9.]+\n"
          "Relative error: [0-9.e+-]+\n\n"
          "Timing:\n  CPU time : [0-9.]+ ms\n  GPU time : [0-9.]+ ms\n  Bandwidth: [0-9.]+ GB/s\n"
          "  Every GPU's total: the same sum ✅\n");
      EXPECT_TRUE(std::regex_match(out, gpus)) << out;
      continue;
    }
    // A max stage reports "max" and exactness and adds its argmax; a stage with versions
    // (15, 19) names its default version; a plain sum stage has none of those.
    const std::regex report(
        "Stage " + stage +
        "( max)?(, version ([0-9]+) of \\3 \\([^)]+\\))? reduction matches reference ✅\n\n"
        "Input size: 65536 elements\n"
        "CPU (sum|max) : [0-9.]+\nGPU \\4 : [0-9.]+\nRelative error: [0-9.e+-]+"
        "( \\(the max must match exactly\\))?\n\n"
        "Timing:\n  CPU time : [0-9.]+ ms\n  GPU time : [0-9.]+ ms\n  Bandwidth: [0-9.]+ GB/s\n"
        "(Argmax  : GPU ([0-9]+), CPU \\7 ✅\n)?");
    EXPECT_TRUE(std::regex_match(out, report)) << out;
  }
}

// The device is checked before any kernel runs, so an unfilled template answers the same.
// The grader's cross-check: every one-GPU kernel stage's answer writes its raw result for
// a seed, and the same executable judges it on the CPU; the file judged for another seed
// fails. (Stage 05 and stage 18 write none: their checks say so in one line.)
TEST_F(Harness, AnswersWriteAnOutputThatVerifiesForItsSeedOnly) {
  if (student_edition()) GTEST_SKIP() << "student edition: no answers/ to run";
  const fs::path file = fs::temp_directory_path() / ("reduce_output_" + std::to_string(getpid()));
  int written = 0;
  for (const std::string& number : stage_numbers()) {
    if (multi_gpu(number) || help_mentions(number, "--write-output") == false) continue;
    const std::string exe = stage_binary(number) + elements(number, 65536);
    std::string out;
    ASSERT_EQ(shell(exe + " --seed 41 --write-output " + file.string(), &out), 0) << out;
    EXPECT_EQ(shell(exe + " --seed 41 --verify-output " + file.string(), &out), 0) << out;
    EXPECT_EQ(shell(exe + " --seed 42 --verify-output " + file.string(), &out), 1) << out;
    ++written;
  }
  EXPECT_GE(written, 13);  // 06 to 17 and 19
  std::error_code ignored;
  fs::remove(file, ignored);
}

TEST_F(Harness, MissingDeviceExitsTwo) {
  for (const std::string& number : stage_numbers()) {
    std::string out;
    if (multi_gpu(number)) {  // stage 18 picks GPUs by count, so more than there are
      EXPECT_EQ(shell(stage_binary(number) + " --gpus 64", &out), 2) << out;
      EXPECT_NE(out.find("--gpus 64, but this machine shows"), std::string::npos) << out;
      continue;
    }
    const int code = shell(stage_binary(number) + " --device 63", &out);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("--device 63 does not exist"), std::string::npos) << out;
  }
}

// The floor's parts and the old cache state work end to end: bench_read (each kernel) goes through
// the stage harness (NaN-poisoned block sums, verified against the CPU), bench_launch times
// an empty kernel, and --dirty-l2 changes only what the L2 holds, not the answer.
TEST_F(Harness, FloorBaselinesAndDirtyL2RunAndVerify) {
  const std::string bin = REDUCE_BIN_DIR;
  // The read loop is stage 14's solution (answers/shared/read_loop.cuh): no bench_read in
  // the student edition.
  if (!std::filesystem::exists(bin + "/bench_read")) {
    GTEST_SKIP() << "bench_read is built in the instructor edition only (answers/shared/)";
  }
  std::string read, launch;  // shell() appends, so one string per command
  EXPECT_EQ(shell(bin + "/bench_read --n 1000003 --repeat 3 --csv", &read), 0) << read;
  EXPECT_TRUE(std::regex_match(read, std::regex("read,1000003,256,[0-9.]+,[0-9.]+,[0-9.e+-]+,1\n")))
      << read;
  // Every read kernel reads every float, at sizes below one float4 and odd ones.
  for (const char* version : {"1", "2"}) {
    for (const char* n : {"1", "3", "5", "1000003", "16777217"}) {
      std::string other;
      EXPECT_EQ(shell(bin + "/bench_read --version " + version + " --n " + n + " --repeat 2 --csv",
                      &other), 0) << other;
      EXPECT_TRUE(std::regex_match(other, std::regex(std::string("read v") + version + "," + n +
                                                     ",256,[0-9.]+,[0-9.]+,[0-9.e+-]+,1\n")))
          << other;
    }
  }
  // The physical limit's numbers: a memory clock, a bus width and their bandwidth.
  std::string memory;
  EXPECT_EQ(shell(bin + "/bench_memory --csv", &memory), 0) << memory;
  EXPECT_TRUE(std::regex_match(memory, std::regex("memory,[1-9][0-9]*,[1-9][0-9]*,[0-9.]+\n")))
      << memory;
  EXPECT_EQ(shell(bin + "/bench_launch --repeat 3 --csv --dirty-l2", &launch), 0) << launch;
  EXPECT_TRUE(std::regex_match(launch, std::regex("launch,[0-9]+,1,[0-9.]+,0\\.00,0\\.000e\\+00,1\n")))
      << launch;
  for (const std::string& number : stage_numbers()) {
    std::string out;
    EXPECT_EQ(shell(stage_binary(number) + elements(number, 4096) + " --repeat 2 --dirty-l2", &out),
              student_edition() ? 1 : 0)
        << out;
  }
}

// docs/colab.ipynb runs scripts/colab.sh. In a fresh build folder it configures for this
// GPU alone (as on Colab), runs the untouched stage 14 template, which fails its report,
// and the student check, which says the stage is not started; the script exits 0.
TEST_F(Harness, ColabNotebookCommandsRunOnThisGpu) {
  std::string name = (fs::temp_directory_path() / "reduce_colab_XXXXXX").string();
  ASSERT_NE(mkdtemp(name.data()), nullptr);
  std::string out;
  const int code = shell("cd '" + std::string(REDUCE_SOURCE_DIR) + "' && REDUCE_BUILD_DIR='" +
                             name + "' scripts/colab.sh 14",
                         &out);
  std::error_code ignored;
  fs::remove_all(name, ignored);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("Stage 14 reduction does not match reference"), std::string::npos) << out;
  EXPECT_NE(out.find("colab.sh: ready"), std::string::npos) << out;
}

// The row runner compares timed runs by fingerprint on the GPU (common/harness/fingerprint.h):
// it must tell one changed value, and two swapped ones, from the same matrix.
TEST_F(Harness, FingerprintTellsAChangedOrMovedValue) {
  const std::vector<float> values = generate_input(1 << 20);
  DeviceBuffer<float> data(values.size());
  const auto upload = [&](const std::vector<float>& host) {
    CUDA_CHECK(cudaMemcpy(data.get(), host.data(), data.bytes(), cudaMemcpyHostToDevice));
  };
  DeviceFingerprint fingerprint;
  upload(values);
  const std::uint64_t first = fingerprint.of(data.get(), values.size());
  EXPECT_EQ(fingerprint.of(data.get(), values.size()), first);
  std::vector<float> changed = values;
  changed[777777] = std::nextafter(changed[777777], 2.0f);  // one bit of one value
  upload(changed);
  EXPECT_NE(fingerprint.of(data.get(), values.size()), first);
  std::vector<float> swapped = values;
  std::swap(swapped[5], swapped[1000003]);
  upload(swapped);
  EXPECT_NE(fingerprint.of(data.get(), values.size()), first);
}

// A row stage that copies its input, and one that leaves its last row unwritten on every
// other launch: the warm-up (launch 0) is whole, timed launches 1 and 3 are not.
__global__ void copy_values(const float* in, float* out, std::size_t count) {
  const std::size_t step = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count; i += step) {
    out[i] = in[i];
  }
}
int row_launches = 0;
void copy_rows(const RowLaunch& run, std::size_t count) {
  copy_values<<<64, 256, 0, run.stream>>>(run.in, run.out, count);
  CUDA_CHECK_LAUNCH("copy_values");
}
void copy_every_row(const RowLaunch& run) { copy_rows(run, run.rows * run.cols); }
void skip_the_last_row_every_other_run(const RowLaunch& run) {
  copy_rows(run, run.rows * run.cols - (row_launches++ % 2 == 1 ? run.cols : 0));
}
constexpr StageVersion kCopyRows[] = {{"copy", nullptr, copy_every_row}};
constexpr StageVersion kSkipRows[] = {{"skip", nullptr, skip_the_last_row_every_other_run}};

TEST_F(Harness, EveryTimedRunOfAnHonestRowStageAgrees) {
  const StagePlan honest{.number = 99, .kind = StageKind::kRows, .op = Operation::kSoftmax,
                         .versions = kCopyRows};
  RowRunner runner(honest, 3, 1000);
  runner.upload(generate_input(3000));
  const RowTiming timing = runner.time(256, 5);
  EXPECT_EQ(timing.disagreeing, 0);
  EXPECT_TRUE(timing.last.empty());  // nothing came back but the warm-up
  EXPECT_EQ(&timing.last_matrix(), &timing.warmup);
}

TEST_F(Harness, ATimedRowRunThatSkipsARowIsCaught) {
  const StagePlan skipping{.number = 99, .kind = StageKind::kRows, .op = Operation::kSoftmax,
                           .versions = kSkipRows};
  RowRunner runner(skipping, 3, 1000);
  runner.upload(generate_input(3000));
  row_launches = 0;
  const RowTiming timing = runner.time(256, 3);
  EXPECT_EQ(timing.disagreeing, 2);
  ASSERT_EQ(timing.last.size(), 3000u);  // the last run (launch 3) came back for the report
  EXPECT_TRUE(std::isnan(timing.last.back()));
  EXPECT_FALSE(std::isnan(timing.warmup.back()));
}

}  // namespace
