/* mim_version (include/mim/world.h): the project version CMake compiles in. */
#include "mim/world.h"

#ifndef MIM_VERSION_STRING
#define MIM_VERSION_STRING "unknown"
#endif

const char *mim_version(void) { return MIM_VERSION_STRING; }
