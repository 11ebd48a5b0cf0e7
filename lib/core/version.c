/* SPDX-License-Identifier: MIT */
#include <blade/version.h>

#include "build_commit.h" /* generated in the build tree */

const char* blade_version(void) { return BLADE_VERSION_STRING; }

const char* blade_build_commit(void) { return BLADE_BUILD_COMMIT; }
