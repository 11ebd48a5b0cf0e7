/* SPDX-License-Identifier: MIT */
#include <blade/version.h>

#ifndef BLADE_BUILD_COMMIT
#define BLADE_BUILD_COMMIT "unknown"
#endif

const char* blade_version(void) { return BLADE_VERSION_STRING; }

const char* blade_build_commit(void) { return BLADE_BUILD_COMMIT; }
