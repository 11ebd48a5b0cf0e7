/* SPDX-License-Identifier: MIT */
/*
 * FFTW's planner (plan creation and destruction) is not thread-safe, while its
 * execute functions are. Blocks create plans from their own threads, so every core
 * module that plans with FFTW takes this process-wide lock around planning. Not
 * installed.
 */
#ifndef BLADE_CORE_FFTW_PLANNER_H
#define BLADE_CORE_FFTW_PLANNER_H

#ifdef __cplusplus
extern "C" {
#endif

void blade_fftw_planner_lock(void);
void blade_fftw_planner_unlock(void);

#ifdef __cplusplus
}
#endif

#endif
