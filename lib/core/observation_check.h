/* SPDX-License-Identifier: MIT */
/* Checks the file writers share on the observation they are given. Not installed. */
#ifndef BLADE_CORE_OBSERVATION_CHECK_H
#define BLADE_CORE_OBSERVATION_CHECK_H

#include "internal.h"

#include <blade/io/observation.h>

/* Times beyond this many unix seconds (the year 33658) are not dates: readers refuse
 * them, writers will not write them. */
#define BLADE_MOST_UNIX_SECONDS 1e12

/* ::BLADE_ERROR_INVALID_ARGUMENT, naming `who`, when the observation has a pointing
 * that is no direction (RA not finite, |Dec| beyond pi/2): the RA/Dec cards and
 * header fields written from it must be numbers a reader accepts. */
blade_status blade_check_pointing(const blade_observation* observation, const char* who);

#endif
