/* SPDX-License-Identifier: MIT */
/*
 * blade-guppi-read-rate: how fast the core's GUPPI reader delivers chunks from a
 * recording, to compare with a plain cat or dd of the same files
 * (tools/bench-guppi-read runs all three).
 *
 *   blade-guppi-read-rate PATH [CHUNK_SAMPLES [OUTPUT_TYPE [READAHEAD_BLOCKS]]]
 *
 * Prints one line: bytes of file data read, seconds, GB/s (10^9 bytes/s).
 */
#define _GNU_SOURCE /* clock_gettime under -std=c11 */
#include <blade/blade.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(
            stderr, "usage: %s PATH [CHUNK_SAMPLES [OUTPUT_TYPE [READAHEAD_BLOCKS]]]\n", argv[0]);
        return 2;
    }
    blade_guppi_reader_config config = { 0 };
    config.path = argv[1];
    config.chunk_samples = argc > 2 ? atoll(argv[2]) : 0;
    config.output_type = BLADE_CI8;
    if (argc > 3 && blade_dtype_parse(argv[3], &config.output_type) != BLADE_OK) {
        fprintf(stderr, "%s\n", blade_last_error());
        return 2;
    }
    config.readahead_blocks = argc > 4 ? atoi(argv[4]) : 0;

    const double opened = now();
    blade_guppi_reader* reader;
    if (blade_guppi_reader_open(&reader, &config) != BLADE_OK) {
        fprintf(stderr, "%s\n", blade_last_error());
        return 1;
    }
    const blade_shape shape = blade_guppi_reader_output_shape(reader);
    void* chunk;
    if (blade_host_alloc(blade_device_cpu(),
                         blade_tensor_bytes(config.output_type, &shape),
                         &chunk) != BLADE_OK) {
        fprintf(stderr, "%s\n", blade_last_error());
        return 1;
    }
    blade_tensor tensor = blade_tensor_make(config.output_type, &shape, blade_device_cpu(), chunk);
    const double start = now();
    blade_status status;
    while ((status = blade_guppi_reader_read(reader, &tensor, NULL)) == BLADE_OK) {
    }
    const double end = now();
    if (status != BLADE_ERROR_END_OF_DATA) {
        fprintf(stderr, "%s\n", blade_last_error());
        return 1;
    }
    const blade_guppi_reader_stats stats = blade_guppi_reader_get_stats(reader);
    printf("%lld bytes in %lld chunks: open (header scan) %.4f s, read %.4f s, %.3f GB/s\n",
           (long long)stats.bytes_read,
           (long long)stats.chunks,
           start - opened,
           end - start,
           (double)stats.bytes_read / (end - start) / 1e9);
    blade_host_free(blade_device_cpu(), chunk);
    blade_guppi_reader_close(reader);
    return 0;
}
