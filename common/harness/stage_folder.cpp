// Compiled once per stage folder with its REDUCE_STAGE_FOLDER (common/CMakeLists.txt,
// reduce_use_stage_main) and linked into that stage's executables, so --describe can name
// the folder the stage lives in.
#include "common/harness/describe.h"

#ifndef REDUCE_STAGE_FOLDER
#error "REDUCE_STAGE_FOLDER must name the stage's folder"
#endif

const char* reduce::stage_folder() { return REDUCE_STAGE_FOLDER; }
