// The facts of a stage's plan, for --help, --describe and a check that the plan is whole.
#pragma once

#include <string>

#include "common/harness/options.h"
#include "common/stage.h"

namespace reduce {

StageFacts stage_facts(const StagePlan& plan);

// --describe's one JSON line: number, name, technique, kind, operation, size rule,
// finish, versions and the default, the options it takes and the block sizes it allows.
// `program` is argv[0], the name a baseline goes by.
std::string describe_json(const StagePlan& plan, const std::string& program);

// Empty when the plan gives its kind what the kind's runner needs; otherwise one line.
std::string plan_problem(const StagePlan& plan);

// The stage's folder ("stage15_max"), from the build (common/harness/stage_folder.cpp).
const char* stage_folder();

}  // namespace reduce
