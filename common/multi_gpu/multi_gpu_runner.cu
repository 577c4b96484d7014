#include "common/multi_gpu/multi_gpu_runner.h"

#include "common/harness/device.h"
#include "common/harness/report.h"

#include <algorithm>
#include <limits>

#include "common/device_buffer.h"
#include "common/harness/negate.h"
#include "common/multi_gpu/multi_gpu_call_log.h"
#include "common/multi_gpu/span_timer.h"
#include "common/harness/timing.h"

namespace reduce {

namespace {

constexpr std::size_t kNcclMarginBytes = std::size_t{512} << 20;

std::string shard_text(int g, const Shard& s) {
  return "shard_of(..., g = " + std::to_string(g) + ") = {begin " + std::to_string(s.begin) +
         ", count " + std::to_string(s.count) + "}";
}

}  // namespace

ShardError::ShardError(const std::string& what) : std::runtime_error(what) {
  report_failure("tests.shards", what);
}

std::vector<Shard> shards_for(const MultiGpuPlan& plan, std::size_t n, int gpus) {
  std::vector<Shard> shards;
  for (int g = 0; g < gpus; ++g) shards.push_back(plan.shard_of(n, gpus, g));
  return shards;
}

std::string shard_problem(const std::vector<Shard>& shards, std::size_t n) {
  std::size_t next = 0;
  for (std::size_t g = 0; g < shards.size(); ++g) {
    if (shards[g].begin != next || shards[g].count > n - std::min(n, shards[g].begin)) {
      return shard_text(static_cast<int>(g), shards[g]) + " for n = " + std::to_string(n) +
             " over " + std::to_string(shards.size()) + " GPUs: it should begin at " +
             std::to_string(next) + " and stay within n (TODO 1)";
    }
    next += shards[g].count;
  }
  if (next == n) return "";
  return "the shards for n = " + std::to_string(n) + " over " + std::to_string(shards.size()) +
         " GPUs cover " + std::to_string(next) + " elements, not n: the last shard must end at n "
         "(TODO 1)";
}

int gpus_for(int option, int visible, std::string* problem) {
  const int gpus = option > 0 ? option : visible;
  *problem = "";
  if (gpus > visible) {
    *problem = "--gpus " + std::to_string(gpus) + ", but this machine shows " +
               std::to_string(visible) + " CUDA device" + (visible == 1 ? "" : "s") +
               "; use --gpus " + std::to_string(visible) +
               " or fewer (or leave --gpus out for all of them)";
  }
  return gpus;
}

std::size_t multi_gpu_bytes_needed(std::size_t n, int gpus) {
  const std::size_t largest = (n + gpus - 1) / gpus;
  return largest * sizeof(float) + L2Flusher::bytes() + kNcclMarginBytes;
}

GpuScratch::GpuScratch() {
  CUDA_CHECK(cudaGetDevice(&device));
  sm_count = current_sm_count();
  block_sums = DeviceBuffer<float>(capstone_block_sums_capacity(sm_count));
  ticket = DeviceBuffer<unsigned int>(1);
  results = DeviceBuffer<float>(2);
  scratch = DeviceBuffer<unsigned char>(sum_shard_scratch_bytes());
  CUDA_CHECK(cudaMemset(ticket.get(), 0, sizeof(unsigned int)));
  CUDA_CHECK(cudaStreamCreate(&stream));
}

GpuScratch::~GpuScratch() { cudaStreamDestroy(stream); }

GpuPart GpuScratch::part(const float* shard, std::size_t count, ncclComm_t comm) const {
  GpuPart part;
  part.device = device;
  part.stream = stream;
  part.comm = comm;
  part.shard = shard;
  part.count = count;
  part.shard_sum = results.get();
  part.total = results.get() + 1;
  part.block_sums = block_sums.get();
  part.ticket = ticket.get();
  part.scratch = scratch.get();
  part.scratch_bytes = scratch.bytes();
  part.sm_count = sm_count;
  return part;
}

// Everything the runner holds on one GPU; made and destroyed with that GPU current.
struct MultiGpuRunner::Gpu {
  ~Gpu() {
    if (comm != nullptr) ncclCommDestroy(comm);  // nothing useful to do with a failure here
  }
  GpuScratch on;  // the scratch, the results and the stream
  L2Flusher l2;
  DeviceBuffer<float> shard;
  ncclComm_t comm = nullptr;
};

MultiGpuRunner::MultiGpuRunner(const MultiGpuPlan& plan, int gpus) : plan_(plan) {
  std::vector<int> devices;
  for (int g = 0; g < gpus; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    gpus_.push_back(std::make_unique<Gpu>());
    devices.push_back(g);
  }
  std::vector<ncclComm_t> comms(gpus, nullptr);
  plan_.open_communicators(comms.data(), gpus, devices.data());
  for (int g = 0; g < gpus; ++g) {
    gpus_[g]->comm = comms[g];
    int device = -1;
    int rank = -1;
    if (comms[g] == nullptr || ncclCommCuDevice(comms[g], &device) != ncclSuccess ||
        ncclCommUserRank(comms[g], &rank) != ncclSuccess || device != g || rank != g) {
      throw NcclError("open_communicators: comms[" + std::to_string(g) +
                      "] is not GPU " + std::to_string(g) + "'s communicator of rank " +
                      std::to_string(g) + ": one ncclCommInitAll(comms, gpus, devices) "
                      "call opens them all (TODO 2) (ncclInvalidUsage)");
    }
  }
}

MultiGpuRunner::~MultiGpuRunner() {
  for (auto& gpu : gpus_) {
    cudaSetDevice(gpu->on.device);
    gpu.reset();
  }
  cudaSetDevice(0);
}

void MultiGpuRunner::upload(const std::vector<float>& input) {
  std::vector<Shard> shards = shards_for(plan_, input.size(), gpus());
  const std::string problem = shard_problem(shards, input.size());
  if (!problem.empty()) throw ShardError(problem);
  for (int g = 0; g < gpus(); ++g) {
    Gpu& gpu = *gpus_[g];
    CUDA_CHECK(cudaSetDevice(gpu.on.device));
    // One float even for an empty shard, so every GPU's pointer is a real one.
    if (gpu.shard.count() < std::max<std::size_t>(shards[g].count, 1)) {
      gpu.shard = DeviceBuffer<float>();
      gpu.shard = DeviceBuffer<float>(std::max<std::size_t>(shards[g].count, 1));
    }
    CUDA_CHECK(cudaMemcpy(gpu.shard.get(), input.data() + shards[g].begin,
                          shards[g].count * sizeof(float), cudaMemcpyHostToDevice));
  }
  shards_ = std::move(shards);
}

std::vector<GpuPart> MultiGpuRunner::parts() const {
  std::vector<GpuPart> parts;
  for (int g = 0; g < gpus(); ++g) {
    parts.push_back(gpus_[g]->on.part(gpus_[g]->shard.get(), shards_[g].count, gpus_[g]->comm));
  }
  return parts;
}

// Both result floats to NaN (all bits set), so one nobody wrote shows as NaN.
void MultiGpuRunner::poison() {
  for (auto& gpu : gpus_) {
    CUDA_CHECK(cudaSetDevice(gpu->on.device));
    CUDA_CHECK(cudaMemsetAsync(gpu->on.results.get(), 0xFF, gpu->on.results.bytes(), gpu->on.stream));
  }
}

std::vector<float> MultiGpuRunner::totals() {
  std::vector<float> totals;
  for (auto& gpu : gpus_) {
    CUDA_CHECK(cudaSetDevice(gpu->on.device));
    CUDA_CHECK(cudaStreamSynchronize(gpu->on.stream));
    float total = std::numeric_limits<float>::quiet_NaN();
    CUDA_CHECK(cudaMemcpy(&total, gpu->on.results.get() + 1, sizeof(float), cudaMemcpyDeviceToHost));
    totals.push_back(total);
  }
  CUDA_CHECK(cudaSetDevice(0));
  return totals;
}

// The stage's sum_on_every_gpu, its calls recorded and checked (common/multi_gpu/multi_gpu_call_log.h).
void MultiGpuRunner::call_stage(unsigned block) {
  const std::vector<GpuPart> all = parts();
  begin_stage_calls();
  try {
    plan_.sum_on_every_gpu(all, block);
  } catch (...) {
    end_stage_calls();
    throw;
  }
  const StageCalls calls = end_stage_calls();
  // A group left open would swallow every later NCCL call of this thread: close it first.
  for (int open = calls.group_starts - calls.group_ends; open > 0; --open) ncclGroupEnd();
  const StageCallProblem problem = stage_call_problem(calls, all);
  if (!problem.line.empty()) throw StageCallError(problem);
}

std::vector<float> MultiGpuRunner::run(unsigned block) {
  poison();
  call_stage(block);
  return totals();
}

// Every shard's sign flipped in place (untimed), as the one-GPU runner does between timed
// runs (common/harness/negate.h).
void MultiGpuRunner::negate_shards() {
  for (int g = 0; g < gpus(); ++g) {
    CUDA_CHECK(cudaSetDevice(gpus_[g]->on.device));
    negate_on_device(gpus_[g]->shard.get(), shards_[g].count, gpus_[g]->on.stream);
  }
}

// The span from the first GPU's start to the last GPU's end: common/multi_gpu/span_timer.h.
// Every timed run is checked, not only the last: the shards' sign flips before each, so
// every GPU's total must be its warm-up's total, negated on every other run, bit for bit.
MultiGpuTiming MultiGpuRunner::time(unsigned block, int repeat, CacheState cache) {
  MultiGpuTiming timing;
  timing.warmup = run(block);
  std::vector<DeviceStream> streams;
  for (auto& gpu : gpus_) streams.push_back({gpu->on.device, gpu->on.stream});
  SpanTimer span(streams);
  std::vector<double> ms;
  bool negated = false;
  for (int pass = 0; pass < repeat; ++pass) {
    negate_shards();
    negated = !negated;
    poison();
    for (auto& gpu : gpus_) {
      CUDA_CHECK(cudaSetDevice(gpu->on.device));
      gpu->l2.set_state(cache);
      gpu->l2.flush(pass);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
    span.start();
    call_stage(block);
    ms.push_back(span.stop_ms());
    timing.last = totals();
    bool agrees = true;
    for (std::size_t g = 0; g < timing.last.size(); ++g) {
      if (negated) timing.last[g] = -timing.last[g];
      const bool same = same_value(timing.last[g], timing.warmup[g]);
      if (!same && agrees && timing.disagreeing == 0) timing.first_disagreeing = timing.last[g];
      agrees = agrees && same;
    }
    if (!agrees) ++timing.disagreeing;
  }
  if (negated) negate_shards();  // the input as uploaded, for whoever reads it next
  if (repeat == 0) timing.last = timing.warmup;
  timing.median_ms = median(ms);
  return timing;
}

}  // namespace reduce
