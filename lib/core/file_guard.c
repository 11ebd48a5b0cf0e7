/* SPDX-License-Identifier: MIT */
/*
 * Inputs are never outputs (file_guard.h): a process-wide table of the files being
 * read, consulted by every writer before it creates a file.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup under -std=c11 */
#include "file_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct input_entry {
    blade_file_id id;
    int64_t readers; /* registrations not yet undone */
    char* name;      /* as the first reader named it */
} input_entry;

static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;
static input_entry* inputs;
static int64_t input_count, input_capacity;

static blade_file_id id_of(const struct stat* info)
{
    const blade_file_id id = { (uint64_t)info->st_dev, (uint64_t)info->st_ino };
    return id;
}

static input_entry* find_input(blade_file_id id)
{
    for (int64_t i = 0; i < input_count; i++)
        if (inputs[i].id.device == id.device && inputs[i].id.inode == id.inode)
            return &inputs[i];
    return NULL;
}

blade_status blade_input_register(int fd, const char* name, blade_file_id* id)
{
    struct stat info;
    if (fstat(fd, &info) != 0)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot stat: %s", name, strerror(errno));
    *id = id_of(&info);
    blade_status status = BLADE_OK;
    pthread_mutex_lock(&inputs_lock);
    input_entry* entry = find_input(*id);
    if (entry != NULL) {
        entry->readers++;
    } else {
        if (input_count == input_capacity) {
            const int64_t capacity = input_capacity ? 2 * input_capacity : 16;
            input_entry* grown = realloc(inputs, (size_t)capacity * sizeof *grown);
            if (grown == NULL)
                status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "the table of input files");
            else {
                inputs = grown;
                input_capacity = capacity;
            }
        }
        char* copy = status == BLADE_OK ? strdup(name) : NULL;
        if (status == BLADE_OK && copy == NULL)
            status = blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "the table of input files");
        if (status == BLADE_OK)
            inputs[input_count++] = (input_entry){ *id, 1, copy };
    }
    pthread_mutex_unlock(&inputs_lock);
    return status;
}

void blade_input_unregister(blade_file_id id)
{
    pthread_mutex_lock(&inputs_lock);
    input_entry* entry = find_input(id);
    if (entry != NULL && --entry->readers == 0) {
        free(entry->name);
        *entry = inputs[--input_count];
    }
    pthread_mutex_unlock(&inputs_lock);
}

/* The name under which a reader registered the file `id`, or "" if none did. */
static void input_name(blade_file_id id, char* name, size_t size)
{
    name[0] = '\0';
    pthread_mutex_lock(&inputs_lock);
    const input_entry* entry = find_input(id);
    if (entry != NULL)
        snprintf(name, size, "%s", entry->name);
    pthread_mutex_unlock(&inputs_lock);
}

static blade_status refuse_input(const char* what, const char* path, const char* input)
{
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "%s: %s is %s, which this process is reading: writing it would "
                      "destroy that input; choose another output name",
                      what,
                      path,
                      strcmp(input, path) == 0 ? "an input file" : input);
}

blade_status blade_output_check(const char* path, const char* what, bool* exists)
{
    struct stat info;
    *exists = false;
    if (stat(path, &info) != 0) /* nothing there (or unreachable: creating says why) */
        return BLADE_OK;
    *exists = true;
    if (S_ISDIR(info.st_mode))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: %s is a directory, not a file that can be written",
                          what,
                          path);
    char input[4096];
    input_name(id_of(&info), input, sizeof input);
    return input[0] != '\0' ? refuse_input(what, path, input) : BLADE_OK;
}

blade_status blade_output_create(const char* path, const char* what, int* fd, bool* created)
{
    bool exists;
    *fd = -1;
    *created = false;
    BLADE_TRY(blade_output_check(path, what, &exists));
    /* O_EXCL tells whether this call made the file; only then may it go again. */
    *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (*fd >= 0) {
        *created = true;
        return BLADE_OK;
    }
    if (errno != EEXIST)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot create %s: %s", what, path, strerror(errno));
    /* A previous output of that name: replaced, after checking what was opened (the
     * name may have changed hands since the check), and truncated only then. */
    *fd = open(path, O_WRONLY | O_CLOEXEC);
    if (*fd < 0)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot replace %s: %s", what, path, strerror(errno));
    struct stat info;
    char input[4096] = "";
    const bool known = fstat(*fd, &info) == 0;
    if (known)
        input_name(id_of(&info), input, sizeof input);
    /* (A device or a pipe has nothing to truncate.) */
    if (input[0] == '\0' && (!known || !S_ISREG(info.st_mode) || ftruncate(*fd, 0) == 0))
        return BLADE_OK;
    const int error = errno;
    close(*fd);
    *fd = -1;
    if (input[0] != '\0')
        return refuse_input(what, path, input);
    return blade_fail(BLADE_ERROR_IO, "%s: cannot replace %s: %s", what, path, strerror(error));
}

blade_status blade_output_directory_check(const char* path, const char* what)
{
    char directory[4096];
    const char* slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(directory, sizeof directory, ".");
    else if (slash == path)
        snprintf(directory, sizeof directory, "/");
    else
        snprintf(directory, sizeof directory, "%.*s", (int)(slash - path), path);
    struct stat info;
    const char* problem = NULL;
    if (stat(directory, &info) != 0)
        problem = strerror(errno);
    else if (!S_ISDIR(info.st_mode))
        problem = strerror(ENOTDIR);
    else if (access(directory, W_OK | X_OK) != 0)
        problem = strerror(errno);
    if (problem != NULL)
        return blade_fail(BLADE_ERROR_IO,
                          "%s: cannot write files in '%s' (%s): %s",
                          what,
                          directory,
                          path,
                          problem);
    return BLADE_OK;
}
