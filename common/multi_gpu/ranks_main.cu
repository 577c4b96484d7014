// reduce_ranks: stage 18's sum with one process per GPU, the form that spans machines.
//
// `--ranks K` starts K processes (common/multi_gpu/rank_launcher.h); rank r drives GPU r.
// Rank 0 makes the NCCL id (ncclGetUniqueId) and hands it to the others through a private
// folder; each rank opens its own communicator (ncclCommInitRankConfig), sums its shard of
// the harness's input (stage 18's shard_of and sum_shard: the capstone kernel, CUB in the
// student edition), and one ncclAllReduce of one float leaves the total on every rank.
// Every rank checks its total against the CPU reference; rank 0 prints the report.
//
// No rank waits forever: the communicator is non-blocking (config.blocking = 0), so each
// rank polls its init and every all-reduce with ncclCommGetAsyncError against its own
// wall-clock deadline (--timeout S), and on time-out aborts its communicators
// (ncclCommAbort), leaves one line and exits 5. The launcher stops every other rank as soon
// as one fails and prints that one line. The timed all-reduce runs on a second, blocking
// communicator split from the first once every rank has been seen in an all-reduce: a
// non-blocking communicator hands each call's enqueue to another thread (ncclInProgress
// every time, 100 to 200 us of host time on two H200s), and the GPU sat idle for it, since
// the stop event can follow the all-reduce only once that is enqueued.
//
//   build/bin/reduce_ranks --ranks 1                 (one GPU)
//   build/bin/reduce_ranks --ranks 2 --n 268435456   (two GPUs)
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/device_buffer.h"
#include "common/harness/device.h"
#include "common/harness/input.h"
#include "common/harness/negate.h"
#include "common/harness/options.h"
#include "common/harness/reference.h"
#include "common/harness/report.h"
#include "common/harness/timing.h"
#include "common/multi_gpu.h"
#include "common/multi_gpu/multi_gpu_runner.h"
#include "common/multi_gpu/rank_launcher.h"

namespace reduce {
namespace {

constexpr const char* kProgram = "reduce_ranks";
constexpr int kMaxRanks = 64;
constexpr int kMaxTimeoutSeconds = 3600;
constexpr auto kPoll = std::chrono::microseconds(200);
constexpr auto kAbortGrace = std::chrono::seconds(5);   // for ncclCommAbort itself
constexpr auto kBackstopMargin = std::chrono::seconds(60);  // the launcher's, past every wait

// The test hook (hidden from --help): one rank that fails on purpose.
enum class FailMode { kNone, kNeverJoins, kDiesBeforeInit, kDiesAfterInit };

struct RankOptions {
  Options common;  // --n, --block, --seed, --repeat, --dirty-l2
  int ranks = 1;
  int timeout_s = 60;
  int fail_rank = -1;
  FailMode fail_mode = FailMode::kNone;
};

const char* kUsage =
    "Usage: reduce_ranks [--ranks K] [--timeout S] [--n N] [--block B] [--seed S] [--repeat R]\n"
    "                    [--dirty-l2]\n"
    "Stage 18 with one process per GPU: K ranks (default 1), rank r on CUDA device r. Rank 0\n"
    "makes the NCCL id and hands it to the others; each rank opens its communicator with\n"
    "ncclCommInitRankConfig, sums its shard with stage 14's kernel, and one ncclAllReduce\n"
    "leaves the total on every rank. Every rank checks its total; rank 0 prints the report.\n"
    "  --timeout S  seconds a rank waits for the id, for its communicator and for each\n"
    "               all-reduce before it aborts the communicator and gives up (default 60)\n"
    "Exit codes: 0 every rank's total matches, 1 one does not, 2 bad option (or fewer GPUs\n"
    "than ranks), 3 no CUDA device, 4 a CUDA or NCCL error or a rank killed by a signal,\n"
    "5 a rank gave up waiting (--timeout).\n";

bool whole_number(const char* text, int low, int high, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || parsed < low || parsed > high) return false;
  *value = static_cast<int>(parsed);
  return true;
}

// Takes reduce_ranks' own options out of argv and hands the rest to the harness's parser.
std::string parse(int argc, char** argv, RankOptions* out) {
  std::vector<const char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    const bool ours = name == "--ranks" || name == "--timeout" || name == "--fail-rank" ||
                      name == "--fail-mode";
    if (!ours) {
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) return name + " needs a value";
    const char* value = argv[++i];
    if (name == "--ranks" && !whole_number(value, 1, kMaxRanks, &out->ranks)) {
      return "--ranks takes a whole number from 1 to " + std::to_string(kMaxRanks);
    }
    if (name == "--timeout" && !whole_number(value, 1, kMaxTimeoutSeconds, &out->timeout_s)) {
      return "--timeout takes whole seconds from 1 to " + std::to_string(kMaxTimeoutSeconds);
    }
    if (name == "--fail-rank" && !whole_number(value, 0, kMaxRanks - 1, &out->fail_rank)) {
      return "--fail-rank takes a rank from 0 to " + std::to_string(kMaxRanks - 1);
    }
    if (name == "--fail-mode") {
      const std::string mode = value;
      out->fail_mode = mode == "never-joins"        ? FailMode::kNeverJoins
                       : mode == "dies-before-init" ? FailMode::kDiesBeforeInit
                       : mode == "dies-after-init"  ? FailMode::kDiesAfterInit
                                                    : FailMode::kNone;
      if (out->fail_mode == FailMode::kNone) {
        return "--fail-mode takes never-joins, dies-before-init or dies-after-init";
      }
    }
  }
  const ParsedOptions parsed = parse_options(static_cast<int>(rest.size()), rest.data());
  if (!parsed.ok()) return parsed.error;
  out->common = parsed.options;
  if (out->common.gpus != 0 || out->common.version != 0 || out->common.device != 0) {
    return "--gpus, --version and --device are stage 18's; reduce_ranks takes --ranks K "
           "(rank r on device r)";
  }
  if ((out->fail_rank >= 0) != (out->fail_mode != FailMode::kNone)) {
    return "--fail-rank and --fail-mode go together";
  }
  if (out->fail_rank >= out->ranks) return "--fail-rank must name one of the --ranks";
  return "";
}

// The GPUs the ranks need: rank r needs device r, except a rank that fails before it
// touches one (so that the tests of a rank that never joins run on one GPU).
int gpus_needed(const RankOptions& opt) {
  const bool gpu_free_failure = opt.fail_mode == FailMode::kNeverJoins ||
                                opt.fail_mode == FailMode::kDiesBeforeInit;
  int needed = 0;
  for (int rank = 0; rank < opt.ranks; ++rank) {
    if (!(gpu_free_failure && rank == opt.fail_rank)) needed = rank + 1;
  }
  return needed;
}

// How many CUDA devices this machine shows, asked in a child process: the launcher must
// not initialise CUDA itself before it forks the ranks. -1 when the child could not say.
int visible_gpus(std::string* problem) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fds[0]);
    const DeviceProbe probe = probe_devices();
    const std::string said = std::to_string(probe.count) + " " + probe.problem;
    const bool sent = write(pipe_fds[1], said.data(), said.size()) == static_cast<ssize_t>(said.size());
    _exit(sent ? 0 : 1);
  }
  close(pipe_fds[1]);
  std::string said;
  char buffer[256];
  for (ssize_t got; pid > 0 && (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) {
    said.append(buffer, static_cast<std::size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  if (said.empty()) return -1;
  *problem = said.substr(said.find(' ') + 1);
  return std::atoi(said.c_str());
}

// ---- one rank -------------------------------------------------------------------------

class RankFailure : public std::runtime_error {
 public:
  RankFailure(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

class Rank {
 public:
  Rank(const RankOptions& opt, const std::string& dir, int rank)
      : opt_(opt), dir_(dir), rank_(rank), timeout_(std::chrono::seconds(opt.timeout_s)) {}

  int run();

 private:
  [[noreturn]] void give_up(const std::string& waiting_for);
  void open_communicator();
  void wait_for_nccl(ncclResult_t started, ncclComm_t comm, const std::string& call,
                     Clock::time_point deadline);
  void wait_for_nccl_work(ncclResult_t started, ncclComm_t comm, const std::string& call,
                          Clock::time_point deadline);
  void wait_for_event(cudaEvent_t event, ncclComm_t comm, const std::string& what,
                      Clock::time_point deadline);
  void open_timed_communicator(cudaStream_t stream);
  float sum_once(GpuScratch& gpu, const GpuPart& part, double* ms);
  void line_up(cudaStream_t stream);
  std::string check_line(float total, const Reference& ref) const;

  const RankOptions& opt_;
  const std::string& dir_;
  const int rank_;
  DeviceBuffer<float> lineup_;  // line_up's one float, on this rank's GPU (made in run())
  const std::chrono::seconds timeout_;
  ncclComm_t comm_ = nullptr;   // non-blocking: init, lining up, finalize
  ncclComm_t timed_ = nullptr;  // blocking, split from comm_: the timed all-reduce
};

// The deadline has passed: abort the communicator (so that no kernel of ours keeps
// waiting for a peer), leave the one line, exit 5. ncclCommAbort gets its own few seconds
// on another thread: this exit must not hang on it either.
void Rank::give_up(const std::string& waiting_for) {
  write_rank_line(dir_, rank_, "gave up after --timeout " + std::to_string(opt_.timeout_s) +
                                   " s waiting for " + waiting_for);
  if (comm_ != nullptr) {
    std::atomic<bool> aborted{false};
    std::thread([this, &aborted] {
      if (timed_ != nullptr && timed_ != comm_) ncclCommAbort(timed_);
      ncclCommAbort(comm_);
      aborted = true;
    }).detach();
    const auto until = Clock::now() + kAbortGrace;
    while (!aborted && Clock::now() < until) std::this_thread::sleep_for(kPoll);
  }
  std::fflush(nullptr);
  _exit(kExitTimedOut);
}

// What an NCCL call returned (`started`): where it is still in progress (a non-blocking
// communicator's work runs on another thread), polls `comm`'s state until it is not, or
// gives up at the deadline; a failure names `call`.
void Rank::wait_for_nccl(ncclResult_t started, ncclComm_t comm, const std::string& call,
                         Clock::time_point deadline) {
  ncclResult_t state = started;
  while (state == ncclInProgress) {
    NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
    if (state != ncclInProgress) break;
    if (Clock::now() >= deadline) give_up(call);
    std::this_thread::sleep_for(kPoll);
  }
  check_nccl(state, call.c_str(), __FILE__, __LINE__);
}

// Init, split and finalize on a non-blocking communicator run on another thread and can
// answer ncclSuccess before they end (a split sets its child only then; one rank's tests
// failed on an H200 without this), so their state is asked at least once.
void Rank::wait_for_nccl_work(ncclResult_t started, ncclComm_t comm, const std::string& call,
                              Clock::time_point deadline) {
  if (started != ncclInProgress) check_nccl(started, call.c_str(), __FILE__, __LINE__);
  wait_for_nccl(ncclInProgress, comm, call, deadline);
}

void Rank::open_communicator() {
  ncclUniqueId id;
  const auto deadline = Clock::now() + timeout_;
  if (rank_ == 0) {
    NCCL_CHECK(ncclGetUniqueId(&id));
    if (!publish_id(dir_, &id, sizeof id)) {
      throw RankFailure(kExitCudaError, "could not write the NCCL id to " + dir_ + ": " +
                                            std::strerror(errno));
    }
  } else if (!wait_for_id(dir_, &id, sizeof id, deadline)) {
    give_up("rank 0's NCCL id (rank 0 never made it)");
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every call returns at once; we poll, with our own deadline
  const ncclResult_t started = ncclCommInitRankConfig(&comm_, opt_.ranks, id, rank_, &config);
  wait_for_nccl_work(started, comm_, "ncclCommInitRankConfig (every rank must join; " +
                                         std::to_string(opt_.ranks) + " ranks)",
                     deadline);
}

// The ranks reach a run at different times: each learns that the last run ended by
// polling its own event every kPoll, and each flushes its own L2. A rank whose start event
// fired first would time its wait for the others inside the all-reduce, and rank 0 reports
// its own times. A one-float all-reduce ends on every GPU at about the same moment, so a
// start event recorded behind it on the stream starts every rank's run together, as long
// as every rank has recorded it before the line-up ends. Once the timed communicator is
// open the line-up runs on it: its enqueue returns at once, where the non-blocking one's
// could leave a rank polling (kPoll) while the others' runs had already started.
void Rank::line_up(cudaStream_t stream) {
  const ncclComm_t comm = timed_ != nullptr ? timed_ : comm_;
  const ncclResult_t started = ncclAllReduce(lineup_.get(), lineup_.get(), 1, ncclFloat, ncclSum,
                                             comm, stream);
  wait_for_nccl(started, comm, "ncclAllReduce (lining the ranks up) to be enqueued",
                Clock::now() + timeout_);
}

// Polls `event` (never blocks: it may wait for a peer that never comes), checking `comm`
// for an asynchronous error, until it fires or the deadline passes.
void Rank::wait_for_event(cudaEvent_t event, ncclComm_t comm, const std::string& what,
                          Clock::time_point deadline) {
  while (true) {
    const cudaError_t done = cudaEventQuery(event);
    if (done == cudaSuccess) return;
    if (done != cudaErrorNotReady) CUDA_CHECK(done);
    ncclResult_t state = ncclSuccess;
    NCCL_CHECK(ncclCommGetAsyncError(comm, &state));
    if (state != ncclSuccess && state != ncclInProgress) {
      check_nccl(state, "ncclAllReduce", __FILE__, __LINE__);
    }
    if (Clock::now() >= deadline) give_up(what);
    std::this_thread::sleep_for(kPoll);
  }
}

// A blocking communicator's calls cannot be given up on, so it is split off only once an
// all-reduce on the non-blocking one has ended: every rank is then alive and past init.
void Rank::open_timed_communicator(cudaStream_t stream) {
  const auto deadline = Clock::now() + timeout_;
  CudaEvent lined_up;
  line_up(stream);
  CUDA_CHECK(cudaEventRecord(lined_up.get(), stream));
  wait_for_event(lined_up.get(), comm_, "every rank's first all-reduce", deadline);
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  const ncclResult_t started = ncclCommSplit(comm_, 0, rank_, &timed_, &config);
  // Split from a non-blocking parent, the child is made on another thread: the parent's
  // state says when, and only then is timed_ set.
  wait_for_nccl_work(started, comm_, "ncclCommSplit (the timed communicator)", deadline);
  if (timed_ == nullptr) throw RankFailure(kExitCudaError, "ncclCommSplit made no communicator");
#else
  // NCCL before 2.18 has no ncclCommSplit: the timed all-reduce stays on the non-blocking
  // communicator, and its enqueue is timed with it.
  timed_ = comm_;
#endif
}

// One run: the shard's sum, the all-reduce, and the time between two events around both.
float Rank::sum_once(GpuScratch& gpu, const GpuPart& part, double* ms) {
  CudaEvent start, stop;
  CUDA_CHECK(cudaMemsetAsync(gpu.results.get(), 0xFF, gpu.results.bytes(), gpu.stream));
  line_up(gpu.stream);
  CUDA_CHECK(cudaEventRecord(start.get(), gpu.stream));
  sum_shard(part, opt_.common.block);
  const auto deadline = Clock::now() + timeout_;
  const ncclResult_t started = ncclAllReduce(part.shard_sum, part.total, 1, ncclFloat, ncclSum,
                                             timed_, gpu.stream);
  wait_for_nccl(started, timed_, "ncclAllReduce to be enqueued", deadline);
  CUDA_CHECK(cudaEventRecord(stop.get(), gpu.stream));
  // The all-reduce finishes only when every rank has joined it: poll, never block.
  wait_for_event(stop.get(), timed_, "the all-reduce (every rank must join it)", deadline);
  float elapsed = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
  *ms = elapsed;
  float total = NAN;
  CUDA_CHECK(cudaMemcpy(&total, gpu.results.get() + 1, sizeof total, cudaMemcpyDeviceToHost));
  return total;
}

std::string Rank::check_line(float total, const Reference& ref) const {
  if (verify(total, ref).match) return "";
  return "holds total " + std::to_string(total) + ", the CPU's sum is " +
         std::to_string(ref.value) + " (relative error " +
         std::to_string(verify(total, ref).relative_error) + ")";
}

int Rank::run() {
  if (rank_ == opt_.fail_rank) {
    if (opt_.fail_mode == FailMode::kNeverJoins) {
      while (true) pause();  // alive, never calls NCCL: the others must time out
    }
    if (opt_.fail_mode == FailMode::kDiesBeforeInit) raise(SIGKILL);
  }
  CUDA_CHECK(cudaSetDevice(rank_));
  std::vector<float> input = generate_input(opt_.common.n, opt_.common.seed);
  const auto cpu_start = Clock::now();
  const Reference ref = reference_for(Operation::kSum, input.data(), input.size());
  const double cpu_ms = std::chrono::duration<double, std::milli>(Clock::now() - cpu_start).count();
  // Stage 18's own shard rule, so that both forms cut the input the same way.
  const Shard shard = stage_plan().multi_gpu->shard_of(opt_.common.n, opt_.ranks, rank_);
  GpuScratch gpu;
  lineup_ = DeviceBuffer<float>(1);
  CUDA_CHECK(cudaMemset(lineup_.get(), 0, lineup_.bytes()));
  DeviceBuffer<float> shard_copy(std::max<std::size_t>(shard.count, 1));  // a real pointer if empty
  CUDA_CHECK(cudaMemcpy(shard_copy.get(), input.data() + shard.begin, shard.count * sizeof(float),
                        cudaMemcpyHostToDevice));
  L2Flusher l2(opt_.common.cache);

  open_communicator();
  if (rank_ == opt_.fail_rank && opt_.fail_mode == FailMode::kDiesAfterInit) raise(SIGKILL);

  open_timed_communicator(gpu.stream);
  const GpuPart part = gpu.part(shard_copy.get(), shard.count, timed_);

  double ms = 0.0;
  const float warmup = sum_once(gpu, part, &ms);
  std::vector<double> times;
  float last = warmup;
  // Every timed run is checked, as in the one-process form: the shard's sign flips before
  // each (untimed), so the total must be the warm-up's, negated on every other run.
  bool negated = false;
  int disagreeing = 0;
  for (int pass = 0; pass < opt_.common.repeat; ++pass) {
    negate_on_device(shard_copy.get(), shard.count);
    negated = !negated;
    l2.flush(pass);
    CUDA_CHECK(cudaDeviceSynchronize());
    last = sum_once(gpu, part, &ms);
    if (negated) last = -last;
    if (!same_value(last, warmup)) ++disagreeing;
    times.push_back(ms);
  }
  std::string problem = check_line(last, ref);
  if (problem.empty()) problem = check_line(warmup, ref);
  if (problem.empty() && disagreeing > 0) {
    problem = std::to_string(disagreeing) + " of " + std::to_string(opt_.common.repeat) +
              " timed runs gave a total other than the warm-up's";
  }
  if (rank_ == 0) {
    const std::string ranks = std::to_string(opt_.ranks);
    const ReportData report{.title = opt_.common.csv ? "Stage 18 ranks x" + ranks
                                                     : "Stage 18, " + ranks + " rank" +
                                                           (opt_.ranks == 1 ? "" : "s") +
                                                           " (one process per GPU)",
                            .n = opt_.common.n,
                            .cpu_sum = ref.value,
                            .gpu_sum = last,
                            .relative_error = verify(last, ref).relative_error,
                            .match = problem.empty(),
                            .cpu_ms = cpu_ms,
                            .gpu_ms = median(times)};
    if (opt_.common.csv) {
      std::printf("%s\n", format_csv(report, opt_.common.block).c_str());
    } else {
      std::printf("Ranks: %d process%s, rank r on GPU r (%s), rank 0's shard of %zu elements\n",
                  opt_.ranks, opt_.ranks == 1 ? "" : "es", describe_device(0).c_str(), shard.count);
      std::fputs(format_report(report).c_str(), stdout);
    }
  }
  if (!problem.empty()) {
    write_rank_line(dir_, rank_, problem);
    return kExitMismatch;
  }
  // The timed communicator's work has ended (its last event fired): finalizing it waits
  // for nothing.
  if (timed_ != comm_) {
    NCCL_CHECK(ncclCommFinalize(timed_));
    ncclCommDestroy(timed_);
  }
  timed_ = nullptr;
  // Finalize waits (polled, with the deadline) until no rank still needs this one; then
  // destroying it is local.
  wait_for_nccl_work(ncclCommFinalize(comm_), comm_, "ncclCommFinalize (every rank's)",
                     Clock::now() + timeout_);
  ncclCommDestroy(comm_);
  return kExitMatch;
}

int rank_main(const RankOptions& opt, const std::string& dir, int rank) {
  try {
    return Rank(opt, dir, rank).run();
  } catch (const RankFailure& e) {
    write_rank_line(dir, rank, e.what());
    return e.code;
  } catch (const std::exception& e) {  // CudaError, NcclError: the harness's one-line messages
    write_rank_line(dir, rank, e.what());
    return kExitCudaError;
  }
}

int fail(const std::string& message, int code) {
  std::fprintf(stderr, "%s: error: %s\n", kProgram, message.c_str());
  return code;
}

}  // namespace
}  // namespace reduce

int main(int argc, char** argv) {
  using namespace reduce;
  RankOptions opt;
  const std::string problem = parse(argc, argv, &opt);
  if (!problem.empty()) return fail(problem, kExitBadOption);
  if (opt.common.help) {
    std::fputs(kUsage, stdout);
    return kExitMatch;
  }
  std::string no_device;
  const int visible = visible_gpus(&no_device);
  if (visible <= 0) {
    return fail("no CUDA device found (" + no_device + "); run this on a machine with an NVIDIA "
                "GPU and driver", kExitNoDevice);
  }
  if (gpus_needed(opt) > visible) {
    return fail("--ranks " + std::to_string(opt.ranks) + " puts rank r on GPU r, but this "
                "machine shows " + std::to_string(visible) + " CUDA device" +
                (visible == 1 ? "" : "s") + "; use --ranks " + std::to_string(visible) +
                " or fewer (NCCL does not take two ranks of one communicator on one GPU)",
                kExitBadOption);
  }
  std::string dir;
  try {
    dir = make_private_dir();
  } catch (const std::exception& e) {
    return fail(e.what(), kExitCudaError);
  }
  // Rank stderr stays on the terminal when NCCL is asked to speak; otherwise each rank's
  // goes to a file in the private folder and only the launcher's one line is shown.
  const bool nccl_speaks = std::getenv("NCCL_DEBUG") != nullptr;
  // The ranks' own deadlines end every wait; the launcher's backstop is the last resort,
  // past the longest a healthy run can wait (the id and init, every run, the finalize).
  const auto backstop = Clock::now() +
                        std::chrono::seconds(opt.timeout_s) * (opt.common.repeat + 3) +
                        kBackstopMargin;
  const LaunchOutcome outcome = launch_ranks(opt.ranks, dir, backstop, nccl_speaks,
                                             [&](int rank) { return rank_main(opt, dir, rank); });
  remove_private_dir(dir);
  if (outcome.exit_code != 0) std::fprintf(stderr, "%s: %s\n", kProgram, outcome.line.c_str());
  return outcome.exit_code;
}
