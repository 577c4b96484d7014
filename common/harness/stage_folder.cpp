// Compiled into each stage executable with its own REDUCE_STAGE_FOLDER (common/CMakeLists.txt,
// reduce_use_stage_main), so --describe can name the folder the stage lives in.
#include "common/harness/describe.h"

#ifndef REDUCE_STAGE_FOLDER
#error "REDUCE_STAGE_FOLDER must name the stage's folder"
#endif

const char* reduce::stage_folder() { return REDUCE_STAGE_FOLDER; }
