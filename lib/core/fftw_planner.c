/* SPDX-License-Identifier: MIT */
/* The process-wide FFTW planner lock and the wisdom kept across runs (see
 * fftw_planner.h). */
#include "fftw_planner.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t planner_mutex = PTHREAD_MUTEX_INITIALIZER;

void blade_fftw_planner_lock(void) { pthread_mutex_lock(&planner_mutex); }

void blade_fftw_planner_unlock(void) { pthread_mutex_unlock(&planner_mutex); }

/* All below runs with the planner lock held. */
static char wisdom_path[4096];
static bool wisdom_path_known, wisdom_imported, write_failure_reported;

const char* blade_fftw_wisdom_path(void)
{
    if (wisdom_path_known)
        return wisdom_path;
    wisdom_path_known = true;
    const char* chosen = getenv("BLADE_FFTW_WISDOM");
    const char* cache = getenv("XDG_CACHE_HOME");
    const char* home = getenv("HOME");
    if (chosen && chosen[0])
        snprintf(wisdom_path, sizeof wisdom_path, "%s", chosen);
    else if (cache && cache[0])
        snprintf(wisdom_path, sizeof wisdom_path, "%s/gr-blade/fftw3f.wisdom", cache);
    else if (home && home[0])
        snprintf(wisdom_path, sizeof wisdom_path, "%s/.cache/gr-blade/fftw3f.wisdom", home);
    return wisdom_path;
}

/* Read the file once per process. A missing file is the normal first run; a file
 * FFTW cannot read is reported and left for the next save to replace. */
static void import_wisdom(void)
{
    if (wisdom_imported)
        return;
    wisdom_imported = true;
    const char* path = blade_fftw_wisdom_path();
    if (!path[0] || access(path, F_OK) != 0)
        return;
    if (!fftwf_import_wisdom_from_filename(path))
        fprintf(stderr,
                "gr-blade: FFTW wisdom %s could not be read (ignored; plans are estimated)\n",
                path);
}

/* mkdir -p of the file's directory. */
static int make_parent(const char* path)
{
    char directory[sizeof wisdom_path];
    snprintf(directory, sizeof directory, "%s", path);
    char* slash = strrchr(directory, '/');
    if (slash == NULL || slash == directory)
        return 0;
    *slash = '\0';
    for (char* at = directory + 1; *at; at++)
        if (*at == '/') {
            *at = '\0';
            if (mkdir(directory, 0755) != 0 && errno != EEXIST)
                return -1;
            *at = '/';
        }
    return mkdir(directory, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write all wisdom to a temporary file beside the wisdom file, then rename it over
 * the file: a reader never sees half a file. Failures are reported once. */
static void export_wisdom(void)
{
    const char* path = blade_fftw_wisdom_path();
    if (!path[0])
        return;
    char temporary[sizeof wisdom_path + 32];
    snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
    const bool saved = make_parent(path) == 0 && fftwf_export_wisdom_to_filename(temporary) &&
                       rename(temporary, path) == 0;
    if (!saved) {
        const int error = errno;
        unlink(temporary);
        if (!write_failure_reported)
            fprintf(stderr,
                    "gr-blade: FFTW wisdom could not be saved to %s (%s; ignored)\n",
                    path,
                    strerror(error));
        write_failure_reported = true;
    }
}

/* The effort asked for with BLADE_FFTW_PLANNING (estimate when unset or unknown). */
static unsigned planning_effort(void)
{
    const char* effort = getenv("BLADE_FFTW_PLANNING");
    if (effort == NULL)
        return FFTW_ESTIMATE;
    if (!strcmp(effort, "measure"))
        return FFTW_MEASURE;
    if (!strcmp(effort, "patient"))
        return FFTW_PATIENT;
    if (!strcmp(effort, "exhaustive"))
        return FFTW_EXHAUSTIVE;
    return FFTW_ESTIMATE;
}

fftwf_plan blade_fftw_plan_forward_batch(int n, int howmany, fftwf_complex* data)
{
    blade_fftw_planner_lock();
    import_wisdom();
    /* Wisdom of any measured effort serves a MEASURE request. */
    fftwf_plan plan = fftwf_plan_many_dft(1,
                                          &n,
                                          howmany,
                                          data,
                                          NULL,
                                          1,
                                          n,
                                          data,
                                          NULL,
                                          1,
                                          n,
                                          FFTW_FORWARD,
                                          FFTW_MEASURE | FFTW_WISDOM_ONLY);
    if (plan == NULL) {
        const unsigned effort = planning_effort();
        plan = fftwf_plan_many_dft(
            1, &n, howmany, data, NULL, 1, n, data, NULL, 1, n, FFTW_FORWARD, effort);
        if (plan != NULL && effort != FFTW_ESTIMATE)
            export_wisdom();
    }
    blade_fftw_planner_unlock();
    return plan;
}
