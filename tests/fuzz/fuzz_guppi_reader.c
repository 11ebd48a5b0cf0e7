/* SPDX-License-Identifier: MIT */
/*
 * Whole GUPPI RAW recordings from arbitrary bytes (lib/core/guppi_reader.c,
 * guppi_files.c, guppi_header.c), read through the public reader API exactly as
 * the guppi_source block does.
 *
 * Input: 8 option bytes, then the bytes of up to four files separated by the
 * marker "=NEXTFILE=" (written as rec.0000.raw, rec.0001.raw, ... in a private
 * tmpfs directory). Options: how the recording is named (stem, first member,
 * last member, single file), chunk_samples, channel selection, output type, gap
 * policy, read-ahead.
 *
 * Properties checked:
 * - open fails with a message, or accepts a recording whose geometry and axes are
 *   sane: finite, positive sample time, a nonzero channel width, a finite start
 *   time and pointing;
 * - an accepted recording delivers exactly the chunks it announced, then
 *   END_OF_DATA: open scans everything, so a read never fails on files that did
 *   not change;
 * - chunk descriptions count up and time does not run backwards;
 * - every block header can be read again.
 */
#include "fuzz_support.h"

#include <math.h>

#define MARKER "=NEXTFILE="
#define MAX_FILES 4
/* Bound the work per input: a few chunks of at most a few MiB. */
#define MAX_CHUNKS 24
#define MAX_CHUNK_BYTES ((size_t)4 << 20)

static const blade_dtype output_types[] = { BLADE_CI8,  BLADE_CF32, BLADE_CI16,
                                            BLADE_CF16, BLADE_CI4,  BLADE_F32 };

/* Split the data into files at the marker; return how many were written. */
static int write_files(const uint8_t* data, size_t size)
{
    fuzz_scratch_clear();
    const size_t marker = strlen(MARKER);
    int files = 0;
    size_t start = 0;
    while (files < MAX_FILES) {
        size_t end = start;
        while (end + marker <= size && memcmp(data + end, MARKER, marker) != 0)
            end++;
        const bool last = end + marker > size || files == MAX_FILES - 1;
        if (last)
            end = size;
        char name[32];
        snprintf(name, sizeof name, "rec.%04d.raw", files);
        fuzz_write_file(name, data + start, end - start);
        files++;
        if (last)
            break;
        start = end + marker;
    }
    return files;
}

static void check_recording(const blade_guppi_reader* reader,
                            const blade_guppi_reader_config* config)
{
    const blade_guppi_recording* rec = blade_guppi_reader_recording(reader);
    FUZZ_REQUIRE(rec->nants >= 1 && rec->nchan >= 1 && (rec->npol == 1 || rec->npol == 2) &&
                     rec->ntime >= 1 && rec->blocsize >= 1 && rec->piperblk >= 1,
                 "geometry nants %lld nchan %lld npol %lld ntime %lld blocsize %lld",
                 (long long)rec->nants,
                 (long long)rec->nchan,
                 (long long)rec->npol,
                 (long long)rec->ntime,
                 (long long)rec->blocsize);
    FUZZ_REQUIRE(
        (int64_t)blade_bytes(rec->file_type, rec->nants * rec->nchan * rec->ntime * rec->npol) ==
            rec->blocsize,
        "BLOCSIZE %lld is not the block's samples",
        (long long)rec->blocsize);
    FUZZ_REQUIRE(rec->nblocks >= 1 && rec->nfiles >= 1 && rec->stream_blocks >= 1 &&
                     rec->stream_samples == rec->stream_blocks * rec->ntime,
                 "blocks %lld, stream blocks %lld",
                 (long long)rec->nblocks,
                 (long long)rec->stream_blocks);
    if (config->gap_policy == BLADE_GUPPI_GAP_ZERO_FILL)
        FUZZ_REQUIRE(rec->stream_blocks == rec->nblocks + rec->missing_blocks,
                     "stream %lld != %lld blocks + %lld missing",
                     (long long)rec->stream_blocks,
                     (long long)rec->nblocks,
                     (long long)rec->missing_blocks);
    const blade_observation* obs = &rec->observation;
    FUZZ_REQUIRE(
        isfinite(rec->tbin) && rec->tbin > 0 && obs->tsamp == rec->tbin, "TBIN %g", rec->tbin);
    FUZZ_REQUIRE(isfinite(obs->chan_bw) && obs->chan_bw != 0 && isfinite(obs->freq_first),
                 "frequency axis %g + c * %g",
                 obs->freq_first,
                 obs->chan_bw);
    FUZZ_REQUIRE(isfinite(obs->unix_start) && isfinite(obs->dut1),
                 "start %g, DUT1 %g",
                 obs->unix_start,
                 obs->dut1);
    if (obs->has_position)
        FUZZ_REQUIRE(isfinite(obs->ra) && isfinite(obs->dec) && fabs(obs->dec) <= M_PI / 2,
                     "pointing %g, %g",
                     obs->ra,
                     obs->dec);
    const blade_shape shape = blade_guppi_reader_output_shape(reader);
    FUZZ_REQUIRE(shape.rank == 4 && shape.dims[0] == rec->nants && shape.dims[3] == rec->npol &&
                     shape.dims[1] >= 1 && shape.dims[1] <= rec->nchan,
                 "shape rank %d",
                 shape.rank);
    for (int64_t i = 0; i < blade_guppi_reader_warning_count(reader); i++)
        FUZZ_REQUIRE(blade_guppi_reader_warning(reader, i) != NULL, "warning %lld", (long long)i);
    for (int64_t f = 0; f < rec->nfiles; f++)
        FUZZ_REQUIRE(blade_guppi_reader_file_name(reader, f) != NULL, "file %lld", (long long)f);
    const int64_t blocks = rec->nblocks < 4 ? rec->nblocks : 4;
    for (int64_t b = 0; b < blocks; b++) {
        blade_guppi_header* header = NULL;
        FUZZ_REQUIRE(blade_guppi_reader_block_header(reader, b, &header) == BLADE_OK,
                     "block %lld's header no longer parses",
                     (long long)b);
        blade_guppi_header_destroy(header);
    }
}

static void read_chunks(blade_guppi_reader* reader, const blade_guppi_reader_config* config)
{
    const blade_guppi_recording* rec = blade_guppi_reader_recording(reader);
    const blade_shape shape = blade_guppi_reader_output_shape(reader);
    const size_t bytes = blade_tensor_bytes(config->output_type, &shape);
    if (bytes > MAX_CHUNK_BYTES)
        return;
    void* memory = malloc(bytes > 0 ? bytes : 1);
    FUZZ_REQUIRE(memory != NULL, "%zu bytes", bytes);
    blade_tensor chunk = blade_tensor_make(config->output_type, &shape, blade_device_cpu(), memory);
    double previous = -INFINITY;
    int64_t read = 0;
    for (; read < rec->chunks && read < MAX_CHUNKS; read++) {
        blade_guppi_chunk info;
        const blade_status status = blade_guppi_reader_read(reader, &chunk, &info);
        FUZZ_REQUIRE(status == BLADE_OK,
                     "chunk %lld of %lld failed",
                     (long long)read,
                     (long long)rec->chunks);
        FUZZ_REQUIRE(info.index == read && info.zero_filled_samples >= 0 &&
                         info.zero_filled_samples <= shape.dims[2],
                     "chunk %lld: index %lld, %lld zero-filled samples",
                     (long long)read,
                     (long long)info.index,
                     (long long)info.zero_filled_samples);
        FUZZ_REQUIRE(isfinite(info.unix_start) && info.unix_start >= previous,
                     "chunk %lld starts at %.17g after %.17g",
                     (long long)read,
                     info.unix_start,
                     previous);
        FUZZ_REQUIRE(info.file_index >= 0 && info.file_index < rec->nfiles,
                     "file %lld",
                     (long long)info.file_index);
        previous = info.unix_start;
    }
    if (read == rec->chunks) {
        const blade_status status = blade_guppi_reader_read(reader, &chunk, NULL);
        FUZZ_REQUIRE(status == BLADE_ERROR_END_OF_DATA,
                     "after the last chunk: %s",
                     blade_status_name(status));
        const blade_guppi_reader_stats stats = blade_guppi_reader_get_stats(reader);
        FUZZ_REQUIRE(stats.chunks == rec->chunks && stats.samples_left >= 0 &&
                         stats.samples_left < shape.dims[2],
                     "stats: %lld chunks, %lld samples left",
                     (long long)stats.chunks,
                     (long long)stats.samples_left);
    }
    free(memory);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fuzz_bytes options = { data, size < 8 ? size : 8, 0 };
    const unsigned naming = fuzz_choice(&options, 4);
    const uint8_t samples = fuzz_u8(&options);
    const uint8_t channel_start = fuzz_u8(&options);
    const uint8_t channel_count = fuzz_u8(&options);
    const unsigned type = fuzz_choice(&options, sizeof output_types / sizeof *output_types);
    const uint8_t gap = fuzz_u8(&options);
    const uint8_t readahead = fuzz_u8(&options);
    const size_t skip = size < 8 ? size : 8;
    const int files = write_files(data + skip, size - skip);

    char path[600];
    blade_guppi_reader_config config;
    memset(&config, 0, sizeof config);
    switch (naming) {
    case 0: /* the stem: every member */
        snprintf(path, sizeof path, "%s/rec", fuzz_scratch());
        break;
    case 1: /* the first member: the run it starts */
        snprintf(path, sizeof path, "%s/rec.0000.raw", fuzz_scratch());
        break;
    case 2: /* the last member: the run it belongs to */
        snprintf(path, sizeof path, "%s/rec.%04d.raw", fuzz_scratch(), files - 1);
        break;
    default: /* that file only */
        snprintf(path, sizeof path, "%s/rec.%04d.raw", fuzz_scratch(), files - 1);
        config.single_file = true;
        break;
    }
    config.path = path;
    config.chunk_samples = samples % 65 == 64 ? -1 : samples % 65;
    config.channel_start = channel_start % 5;
    config.channel_count = channel_count % 5;
    config.output_type = output_types[type];
    config.gap_policy = (blade_guppi_gap_policy)(gap % 3);
    config.readahead_blocks = readahead % 5 - 1;

    blade_guppi_reader* reader = NULL;
    blade_clear_error();
    const blade_status status = blade_guppi_reader_open(&reader, &config);
    FUZZ_REQUIRE_MESSAGE(status);
    if (status != BLADE_OK) {
        FUZZ_REQUIRE(reader == NULL, "a failed open returned a reader");
        return 0;
    }
    check_recording(reader, &config);
    read_chunks(reader, &config);
    blade_guppi_reader_close(reader);
    return 0;
}
