/* SPDX-License-Identifier: MIT */
/*
 * FFTW's planner (plan creation and destruction) is not thread-safe, while its
 * execute functions are. Blocks create plans from their own threads, so every core
 * module that plans with FFTW takes this process-wide lock around planning.
 *
 * Plans come from FFTW wisdom kept across runs when it holds one for the problem
 * (a measured plan: for N = 8192 up to twice as fast as an estimated one), else
 * they are estimated, which is instant and the same every run. Measuring is opted
 * into with BLADE_FFTW_PLANNING=measure|patient|exhaustive: the plans found are
 * saved to the wisdom file, so that later runs use them without measuring. The file
 * is $BLADE_FFTW_WISDOM, else $XDG_CACHE_HOME/gr-blade/fftw3f.wisdom, else
 * ~/.cache/gr-blade/fftw3f.wisdom; failing to read or write it is reported once on
 * stderr and is never an error. Not installed.
 */
#ifndef BLADE_CORE_FFTW_PLANNER_H
#define BLADE_CORE_FFTW_PLANNER_H

#include <fftw3.h>

#ifdef __cplusplus
extern "C" {
#endif

void blade_fftw_planner_lock(void);
void blade_fftw_planner_unlock(void);

/* `howmany` in-place forward transforms of length n, consecutive in `data` (which
 * has fftwf_malloc's alignment and may be overwritten while measuring), planned as
 * above. Takes the planner lock. NULL if FFTW cannot plan the problem. */
fftwf_plan blade_fftw_plan_forward_batch(int n, int howmany, fftwf_complex* data);

/* The wisdom file's path ("" when no directory for it is known). */
const char* blade_fftw_wisdom_path(void);

#ifdef __cplusplus
}
#endif

#endif
