#include "common/harness/describe.h"

#include <string>

namespace reduce {
namespace {

const char* kind_name(StageKind kind) {
  switch (kind) {
    case StageKind::kVector: return "vector";
    case StageKind::kRows: return "rows";
    case StageKind::kHostCode: return "host_code";
    case StageKind::kMultiGpu: return "multi_gpu";
  }
  return "unknown";
}

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::kSum: return "sum";
    case Operation::kMax: return "max";
    case Operation::kSoftmax: return "softmax";
    case Operation::kLayerNorm: return "layer_norm";
  }
  return "unknown";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename Items, typename Format>
std::string json_list(const Items& items, Format format) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? ", " : "") + format(item);
  return out + "]";
}

std::string versions_json(const StagePlan& plan) {
  std::string out = "[";
  for (int v = 1; v <= plan.default_version(); ++v) {
    out += (v > 1 ? ", " : "") + std::string("{\"version\": ") + std::to_string(v) +
           ", \"technique\": " + quoted(plan.version(v).technique) + "}";
  }
  return out + "]";
}

}  // namespace

StageFacts stage_facts(const StagePlan& plan) {
  return {.number = plan.number, .kind = plan.kind, .sizes = plan.sizes,
          .versions = plan.default_version()};
}

std::string describe_json(const StagePlan& plan, const std::string& program) {
  std::string name = stage_folder();
  if (name.empty()) name = program.substr(program.find_last_of('/') + 1);
  const std::string options =
      json_list(stage_options(stage_facts(plan)), [](const OptionHelp& o) { return quoted(o.name); });
  const std::string blocks =
      json_list(kBlockSizes, [](unsigned block) { return std::to_string(block); });
  return "{\"number\": " + std::to_string(plan.number) + ", \"name\": " + quoted(name) +
         ", \"technique\": " + quoted(plan.technique()) + ", \"kind\": " +
         quoted(kind_name(plan.kind)) + ", \"operation\": " + quoted(operation_name(plan.op)) +
         ", \"size_rule\": " +
         quoted(plan.sizes == SizeRule::kMultipleOfBlock ? "multiple_of_block" : "any_length") +
         ", \"finish\": " + quoted(plan.finish == Finish::kOnHost ? "host" : "device") +
         ", \"versions\": " + versions_json(plan) +
         ", \"default_version\": " + std::to_string(plan.default_version()) +
         ", \"options\": " + options + ", \"blocks\": " + blocks +
         ", \"default_block\": " + std::to_string(kDefaultBlock) +
         ", \"default_seed\": " + std::to_string(kDefaultSeed) +
         ", \"argmax\": " + (plan.argmax != nullptr ? "true" : "false") + "}";
}

std::string plan_problem(const StagePlan& plan) {
  if (plan.versions.empty()) return "it lists no version";
  if ((plan.kind == StageKind::kRows) != works_on_rows(plan.op)) {
    return "its kind and its operation disagree about rows";
  }
  for (int v = 1; v <= plan.default_version(); ++v) {
    const StageVersion& version = plan.version(v);
    if (plan.kind == StageKind::kVector && version.launch == nullptr) return "a version has no launch";
    if (plan.kind == StageKind::kRows && version.row_launch == nullptr) {
      return "a version has no row launch";
    }
  }
  if (plan.kind == StageKind::kHostCode && plan.host_run == nullptr) return "it has no host_run";
  if (plan.kind == StageKind::kMultiGpu && plan.multi_gpu == nullptr) return "it has no MultiGpuPlan";
  return "";
}

}  // namespace reduce
