/* SPDX-License-Identifier: MIT */
/* The process-wide FFTW planner lock (see fftw_planner.h). */
#include "fftw_planner.h"

#include <pthread.h>

static pthread_mutex_t planner_mutex = PTHREAD_MUTEX_INITIALIZER;

void blade_fftw_planner_lock(void) { pthread_mutex_lock(&planner_mutex); }

void blade_fftw_planner_unlock(void) { pthread_mutex_unlock(&planner_mutex); }
