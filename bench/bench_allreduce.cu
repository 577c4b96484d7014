// Stage 18's second part: the all-reduce of a whole vector, the gradient sum of
// data-parallel training. ncclAllReduce over K GPUs from 1 MiB to 1 GiB per GPU, reported
// as nccl-tests reports it: algorithm bandwidth (bytes / time) and bus bandwidth
// (algbw x 2(K-1)/K, what each GPU's links carried). On two GPUs, the same sum written by
// hand beside it: each GPU copies the other's vector over (cudaMemcpyPeerAsync) and adds.
//
//   bench_allreduce [--gpus K] [--repeat R] [--csv]
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/harness/cli.h"
#include "common/harness/device.h"
#include "common/device_buffer.h"
#include "common/multi_gpu.h"
#include "common/multi_gpu/multi_gpu_runner.h"
#include "common/harness/report.h"
#include "common/multi_gpu/span_timer.h"
#include "common/harness/timing.h"

namespace {

using namespace reduce;

constexpr std::size_t kMinBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;

// GPU g's value i: a small whole number, so the sum over any K GPUs is exact in float and
// the check can ask for equality.
__host__ __device__ float pattern(std::size_t i, int g) {
  return static_cast<float>(static_cast<int>((i * 7 + static_cast<std::size_t>(g) * 5) % 17) - 8);
}

__global__ void fill_pattern(float* out, std::size_t count, int g) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{blockDim.x} * gridDim.x) {
    out[i] = pattern(i, g);
  }
}

__global__ void add_vectors(const float* a, const float* b, float* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{blockDim.x} * gridDim.x) {
    out[i] = a[i] + b[i];
  }
}

struct Gpu {
  int device = 0;
  int sm_count = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  DeviceBuffer<float> send, recv, peer;  // peer: the other GPU's vector, for the hand-made sum
};

struct Row {
  std::size_t bytes;
  double nccl_ms;
  double peer_ms;  // < 0 when not measured (not two GPUs)
  bool nccl_ok;
  bool peer_ok;
};

// Each GPU's recv must equal the sum of every GPU's pattern, value by value.
bool verified(std::vector<std::unique_ptr<Gpu>>& gpus, std::size_t count) {
  std::vector<float> got(count);
  for (auto& gpu : gpus) {
    CUDA_CHECK(cudaSetDevice(gpu->device));
    CUDA_CHECK(cudaStreamSynchronize(gpu->stream));
    CUDA_CHECK(cudaMemcpy(got.data(), gpu->recv.get(), count * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) {
      float want = 0.0f;
      for (std::size_t g = 0; g < gpus.size(); ++g) want += pattern(i, static_cast<int>(g));
      if (got[i] != want) return false;
    }
  }
  return true;
}

void poison_recv(std::vector<std::unique_ptr<Gpu>>& gpus, std::size_t count) {
  for (auto& gpu : gpus) {
    CUDA_CHECK(cudaSetDevice(gpu->device));
    CUDA_CHECK(cudaMemsetAsync(gpu->recv.get(), 0xFF, count * sizeof(float), gpu->stream));
    CUDA_CHECK(cudaStreamSynchronize(gpu->stream));
  }
}

void enqueue_nccl(std::vector<std::unique_ptr<Gpu>>& gpus, std::size_t count) {
  NCCL_CHECK(ncclGroupStart());
  for (auto& gpu : gpus) {
    NCCL_CHECK(ncclAllReduce(gpu->send.get(), gpu->recv.get(), count, ncclFloat, ncclSum,
                             gpu->comm, gpu->stream));
  }
  NCCL_CHECK(ncclGroupEnd());
}

// Two GPUs by hand: each pulls the other's vector into its `peer` buffer, then adds.
void enqueue_peer(std::vector<std::unique_ptr<Gpu>>& gpus, std::size_t count) {
  for (int g = 0; g < 2; ++g) {
    Gpu& self = *gpus[g];
    const Gpu& other = *gpus[1 - g];
    CUDA_CHECK(cudaSetDevice(self.device));
    CUDA_CHECK(cudaMemcpyPeerAsync(self.peer.get(), self.device, other.send.get(), other.device,
                                   count * sizeof(float), self.stream));
    add_vectors<<<static_cast<unsigned>(self.sm_count * 4), 256, 0, self.stream>>>(
        self.send.get(), self.peer.get(), self.recv.get(), count);
    CUDA_CHECK_LAUNCH("add_vectors");
  }
}

template <typename Enqueue>
double median_span_ms(std::vector<std::unique_ptr<Gpu>>& gpus, SpanTimer& span, int repeat,
                      Enqueue enqueue) {
  for (int warm = 0; warm < 3; ++warm) {
    span.start();
    enqueue();
    span.stop_ms();
  }
  std::vector<double> ms;
  for (int pass = 0; pass < repeat; ++pass) {
    span.start();
    enqueue();
    ms.push_back(span.stop_ms());
  }
  return median(ms);
}

Row measure(std::vector<std::unique_ptr<Gpu>>& gpus, SpanTimer& span, std::size_t bytes, int repeat) {
  const std::size_t count = bytes / sizeof(float);
  Row row{bytes, 0.0, -1.0, false, false};
  poison_recv(gpus, count);
  row.nccl_ms = median_span_ms(gpus, span, repeat, [&] { enqueue_nccl(gpus, count); });
  row.nccl_ok = verified(gpus, count);
  if (gpus.size() == 2) {
    poison_recv(gpus, count);
    row.peer_ms = median_span_ms(gpus, span, repeat, [&] { enqueue_peer(gpus, count); });
    row.peer_ok = verified(gpus, count);
  }
  return row;
}

std::vector<std::unique_ptr<Gpu>> open_gpus(int k) {
  std::vector<std::unique_ptr<Gpu>> gpus;
  std::vector<int> devices;
  for (int g = 0; g < k; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    auto gpu = std::make_unique<Gpu>();
    gpu->device = g;
    CUDA_CHECK(cudaDeviceGetAttribute(&gpu->sm_count, cudaDevAttrMultiProcessorCount, g));
    CUDA_CHECK(cudaStreamCreate(&gpu->stream));
    const std::size_t count = kMaxBytes / sizeof(float);
    gpu->send = DeviceBuffer<float>(count);
    gpu->recv = DeviceBuffer<float>(count);
    if (k == 2) gpu->peer = DeviceBuffer<float>(count);
    fill_pattern<<<static_cast<unsigned>(gpu->sm_count * 4), 256, 0, gpu->stream>>>(
        gpu->send.get(), count, g);
    CUDA_CHECK_LAUNCH("fill_pattern");
    gpus.push_back(std::move(gpu));
    devices.push_back(g);
  }
  // Direct copies between the two GPUs where the hardware allows (NVLink or PCIe peer);
  // cudaMemcpyPeerAsync works without, through host memory, only slower.
  if (k == 2) {
    for (int g = 0; g < 2; ++g) {
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, g, 1 - g));
      CUDA_CHECK(cudaSetDevice(g));
      if (can) CUDA_CHECK(cudaDeviceEnablePeerAccess(1 - g, 0));
    }
  }
  std::vector<ncclComm_t> comms(k);
  NCCL_CHECK(ncclCommInitAll(comms.data(), k, devices.data()));
  for (int g = 0; g < k; ++g) gpus[g]->comm = comms[g];
  return gpus;
}

void close_gpus(std::vector<std::unique_ptr<Gpu>>& gpus) {
  for (auto& gpu : gpus) {
    CUDA_CHECK(cudaSetDevice(gpu->device));
    NCCL_CHECK(ncclCommDestroy(gpu->comm));
    CUDA_CHECK(cudaStreamDestroy(gpu->stream));
    gpu.reset();
  }
}

double gbps(std::size_t bytes, double ms) { return ms > 0.0 ? bytes / (ms * 1.0e6) : 0.0; }

void print_row(const Row& r, int k, bool csv) {
  const double factor = 2.0 * (k - 1) / k;  // nccl-tests' bus bandwidth for an all-reduce
  const double nccl = gbps(r.bytes, r.nccl_ms);
  const double peer = gbps(r.bytes, r.peer_ms);
  if (csv) {
    std::printf("%zu,%d,%.6f,%.2f,%.2f,%d,%.6f,%.2f,%.2f,%d\n", r.bytes, k, r.nccl_ms, nccl,
                nccl * factor, r.nccl_ok ? 1 : 0, r.peer_ms, peer, peer * factor, r.peer_ok ? 1 : 0);
    return;
  }
  std::printf("%10zu %9.1f %8.1f %8.1f %4s", r.bytes >> 10, r.nccl_ms * 1000.0, nccl,
              nccl * factor, r.nccl_ok ? "yes" : "NO");
  if (r.peer_ms >= 0.0) {
    std::printf(" %9.1f %8.1f %8.1f %4s", r.peer_ms * 1000.0, peer, peer * factor,
                r.peer_ok ? "yes" : "NO");
  }
  std::printf("\n");
}

int run(const Options& opt, const std::string& program) {
  std::string problem;
  const int k = gpus_for(opt.gpus, probe_devices().count, &problem);
  if (!problem.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), problem.c_str());
    return kExitBadOption;
  }
  auto gpus = open_gpus(k);
  std::vector<DeviceStream> streams;
  for (auto& gpu : gpus) streams.push_back({gpu->device, gpu->stream});
  bool all_ok = true;
  {
    SpanTimer span(streams);
    if (opt.csv) {
      std::printf("bytes,gpus,nccl_ms,nccl_algbw,nccl_busbw,nccl_match,peer_ms,peer_algbw,"
                  "peer_busbw,peer_match\n");
    } else {
      std::printf("ncclAllReduce (float, sum, out of place) on %d x %s; median of %d, L2 not "
                  "flushed\n%s", k, describe_device(0).c_str(), opt.repeat,
                  k == 2 ? "" : "(the hand-written copy-and-add runs on exactly 2 GPUs)\n");
      std::printf("%10s %9s %8s %8s %4s%s\n", "KiB", "NCCL us", "algbw", "busbw", "ok",
                  k == 2 ? "   peer us    algbw    busbw   ok" : "");
    }
    for (std::size_t bytes = kMinBytes; bytes <= kMaxBytes; bytes *= 2) {
      const Row row = measure(gpus, span, bytes, opt.repeat);
      print_row(row, k, opt.csv);
      all_ok = all_ok && row.nccl_ok && (row.peer_ms < 0.0 || row.peer_ok);
    }
  }
  close_gpus(gpus);
  return all_ok ? kExitMatch : kExitMismatch;
}

}  // namespace

int main(int argc, char** argv) {
  const ProgramSpec spec{
      "Usage: bench_allreduce [--gpus K] [--repeat R] [--csv]\n"
      "ncclAllReduce of 1 MiB to 1 GiB per GPU over GPUs 0 to K-1 (default: all), and on two\n"
      "GPUs a hand-written copy-and-add beside it; algorithm and bus bandwidth as nccl-tests\n"
      "reports them. Every result is checked after timing.\n"
      "Exit codes: 0 all verified, 1 some did not, 2 bad option, 3 no CUDA device, 4 CUDA or\n"
      "NCCL error.\n",
      [](const Options& opt) -> std::string {
        if (opt.n_given || opt.rows_given || opt.version != 0 || opt.device != 0) {
          return "bench_allreduce takes --gpus K, --repeat R and --csv only";
        }
        return "";
      },
      [](const Options&) { return 3 * kMaxBytes + (std::size_t{512} << 20); }};
  return run_program(argc, argv, spec,
                     [](const Program& program) { return run(program.options, program.name); });
}
