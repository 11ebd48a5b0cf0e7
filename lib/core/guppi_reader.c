/* SPDX-License-Identifier: MIT */
/*
 * GUPPI RAW reader: scan at open, read ahead on a thread, assemble chunks.
 *
 * Opening reads every block header of every file once and builds an index of the
 * blocks (file, data offset, PKTIDX). Everything that can be wrong with a
 * recording is therefore found before the first sample is delivered, and the
 * stream's length, gaps and time axis are known up front.
 *
 * The stream is a sequence of "stream blocks" numbered by PKTIDX: real blocks, and
 * (with zero-fill) the blocks missing between them.
 *
 * Reading costs memory bandwidth, not parsing: a block is one contiguous run of
 * [antenna][channel] rows of [time][pol] samples. The caller's thread reads each
 * row it needs straight from the file into the chunk (one copy, from the page
 * cache), or through a small staging row when the type changes. A read-ahead
 * thread asks the kernel for the next readahead_blocks blocks ahead of the caller
 * (posix_fadvise WILLNEED), so that when the disk is the limit its reads overlap
 * the caller's copies. The thread never runs behind the caller: it skips what was
 * consumed.
 */
#define _GNU_SOURCE /* POSIX files, threads, strdup, M_PI under -std=c11 */
#include "cast_backend.h"
#include "file_guard.h"
#include "file_io.h"
#include "guppi_files.h"
#include "internal.h"
#include "observation_check.h"
#include "string_list.h"

#include <blade/io/guppi_reader.h>
#include <blade/memory.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest PKTIDX believed (2^53: exact as a double, far from overflowing). */
#define MAX_PKTIDX (INT64_C(1) << 53)
/* First guess of a header's size; real headers are 10 to 30 KiB. */
#define HEADER_READ_BYTES 32768
/* Elements converted per call (below the cast's threading threshold). */
#define CAST_PIECE ((int64_t)1 << 15)
/* Default read-ahead budget. */
#define READAHEAD_BYTES (512LL << 20)

typedef struct block_entry {
    int64_t file;          /* index into files */
    int64_t header_offset; /* byte offset of the header */
    int64_t data_offset;   /* byte offset of the data */
    int64_t pktidx;
    bool has_pktidx;      /* PKTIDX was in the header (else counted on from the last) */
    int64_t stream_block; /* (pktidx - first pktidx) / piperblk */
} block_entry;

/* What one block header says about the block's layout. ntime counts every sample
 * of the block, the OVERLAP samples that repeat the previous block's last ones
 * included; piperblk and pktsize are 0 when the header does not give them. */
typedef struct geometry {
    int64_t blocsize, nants, obsnchan, npol, nbits, ntime, overlap, piperblk, pktsize, pktidx;
    bool has_pktidx, directio;
    blade_dtype type;
} geometry;


struct blade_guppi_reader {
    blade_guppi_reader_config config;
    blade_string_list files;
    blade_file_id* file_ids; /* registered as inputs (file_guard.h): files.count */
    int64_t registered;      /* how many of them */
    blade_string_list warnings;
    blade_guppi_header* header; /* first block's */
    blade_guppi_recording rec;
    geometry first;
    blade_shape shape;
    int64_t channel_start, channel_count, chunk_samples;
    const char* step_source; /* where the PKTIDX step per block came from */

    block_entry* blocks;
    int64_t capacity;
    int64_t readable_blocks; /* real blocks inside the stream */
    double time_base;        /* unix seconds at PKTIDX 0 */
    double obsfreq_hz;

    /* caller's side */
    int64_t cursor;          /* first real block not yet finished */
    int64_t last_zero_block; /* last zero-filled stream block counted */
    blade_status failure;    /* sticky run-time failure */
    char failure_message[1024];
    int fd; /* open file of the caller, or -1 */
    int64_t fd_file;
    char* staging;           /* one row segment of the file type (conversions) */
    int64_t bytes_read_here; /* bytes read by the caller, not yet in stats */
    size_t staging_bytes;

    /* read-ahead thread */
    int ahead; /* blocks kept ahead of the caller */
    bool thread_started;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool stopping;
    blade_guppi_reader_stats stats; /* under lock */
};

/* ---- small helpers ---------------------------------------------------------- */

static int64_t round_up_512(int64_t bytes) { return (bytes + 511) / 512 * 512; }

static double sample_time(const blade_guppi_reader* r, int64_t stream_block, int64_t sample);

/* What one PKTIDX step stands for: a block's new samples over its steps. */
static double seconds_per_pktidx(const blade_guppi_recording* rec)
{
    return rec->tbin * (double)rec->ntime / (double)rec->piperblk;
}

/* Samples of stream block `block` in the stream: its new ones, and for the last
 * block of the stream its overlap too. */
static int64_t stream_block_samples(const blade_guppi_recording* rec, int64_t block)
{
    return rec->ntime + (block == rec->stream_blocks - 1 ? rec->overlap : 0);
}

/* Read and parse the header at `offset`, growing the read until END is found. */
static blade_status read_header_at(int fd,
                                   const char* name,
                                   int64_t offset,
                                   int64_t file_size,
                                   blade_guppi_header** header,
                                   size_t* consumed)
{
    size_t want = HEADER_READ_BYTES;
    const size_t most =
        (size_t)BLADE_GUPPI_MAX_CARDS * BLADE_GUPPI_CARD_BYTES + BLADE_GUPPI_CARD_BYTES;
    for (;;) {
        const int64_t left = file_size - offset;
        size_t bytes = want < (size_t)left ? want : (size_t)left;
        char* buffer = malloc(bytes);
        if (buffer == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "%s: reading a header", name);
        blade_status status = blade_read_fully(fd, buffer, bytes, offset, name);
        if (status == BLADE_OK)
            status = blade_guppi_header_parse(buffer, bytes, name, offset, header, consumed);
        free(buffer);
        if (status != BLADE_ERROR_END_OF_DATA || bytes == (size_t)left || want >= most)
            return status;
        want *= 4;
    }
}

/* Note something the caller should log; reading goes on. */
#define warn(reader, ...) blade_string_list_append(&(reader)->warnings, __VA_ARGS__)

/* ---- header interpretation -------------------------------------------------- */

/* Prefix the current message with the block's place. */
static blade_status at_block(blade_status status, const char* name, int64_t offset)
{
    return blade_fail_context(
        status, "%s: block header at byte offset %lld", name, (long long)offset);
}

static blade_status positive_int(
    const blade_guppi_header* h, const char* key, int64_t fallback, int64_t largest, int64_t* value)
{
    if (!blade_guppi_header_has(h, key) && fallback > 0) {
        *value = fallback;
        return BLADE_OK;
    }
    BLADE_TRY(blade_guppi_header_get_int(h, key, value));
    if (*value < 1 || *value > largest)
        return blade_fail(BLADE_ERROR_FORMAT,
                          "%s = %lld is out of range (1 .. %lld)",
                          key,
                          (long long)*value,
                          (long long)largest);
    return BLADE_OK;
}

static blade_status read_geometry(const blade_guppi_header* h, geometry* g)
{
    memset(g, 0, sizeof *g);
    BLADE_TRY(positive_int(h, "BLOCSIZE", 0, (int64_t)1 << 40, &g->blocsize));
    BLADE_TRY(positive_int(h, "OBSNCHAN", 0, (int64_t)1 << 24, &g->obsnchan));
    BLADE_TRY(positive_int(h, "NANTS", 1, (int64_t)1 << 16, &g->nants));
    int64_t npol, nbits;
    BLADE_TRY(blade_guppi_header_get_int(h, "NPOL", &npol));
    BLADE_TRY(blade_guppi_header_get_int(h, "NBITS", &nbits));
    if (g->obsnchan % g->nants != 0)
        return blade_fail(BLADE_ERROR_FORMAT,
                          "OBSNCHAN = %lld is not a multiple of NANTS = %lld (OBSNCHAN counts "
                          "the channels of all antennas together)",
                          (long long)g->obsnchan,
                          (long long)g->nants);
    if (npol != 1 && npol != 2 && npol != 4)
        return blade_fail(BLADE_ERROR_FORMAT,
                          "NPOL = %lld is not supported (1, 2, or 4 meaning two polarizations "
                          "of re and im)",
                          (long long)npol);
    g->npol = npol == 1 ? 1 : 2;
    const char* datatype = "";
    if (blade_guppi_header_has(h, "DATATYPE"))
        BLADE_TRY(blade_guppi_header_get_string(h, "DATATYPE", &datatype));
    const bool is_float = strcmp(datatype, "FLOAT") == 0;
    switch (nbits) {
    case 4:
        g->type = BLADE_CI4;
        break;
    case 8:
        g->type = BLADE_CI8;
        break;
    case 16:
        g->type = BLADE_CI16;
        break;
    case 32:
        g->type = BLADE_CF32;
        break;
    default:
        return blade_fail(
            BLADE_ERROR_FORMAT, "NBITS = %lld is not supported (4, 8, 16 or 32)", (long long)nbits);
    }
    if (is_float != (nbits == 32))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "NBITS = %lld with DATATYPE = '%s' is not supported (integers of 4, "
                          "8 or 16 bits, or 32-bit floats with DATATYPE = 'FLOAT')",
                          (long long)nbits,
                          datatype);
    g->nbits = nbits;
    /* Bytes of one time sample of every channel and polarization. */
    const int64_t sample_bytes = g->obsnchan * g->npol * 2 * nbits / 8;
    if (g->blocsize % sample_bytes != 0)
        return blade_fail(BLADE_ERROR_FORMAT,
                          "BLOCSIZE = %lld is not a whole number of time samples of %lld bytes "
                          "(OBSNCHAN %lld x NPOL %lld x 2 x NBITS %lld / 8)",
                          (long long)g->blocsize,
                          (long long)sample_bytes,
                          (long long)g->obsnchan,
                          (long long)g->npol,
                          (long long)nbits);
    g->ntime = g->blocsize / sample_bytes;
    if (blade_guppi_header_has(h, "PIPERBLK"))
        BLADE_TRY(positive_int(h, "PIPERBLK", 0, (int64_t)1 << 40, &g->piperblk));
    if (blade_guppi_header_has(h, "PKTSIZE"))
        BLADE_TRY(positive_int(h, "PKTSIZE", 0, (int64_t)1 << 40, &g->pktsize));
    /* PUPPI/GUPPI coherent-dedispersion recorders repeat the last OVERLAP samples of
     * each block at the start of the next one. */
    if (blade_guppi_header_has(h, "OVERLAP")) {
        BLADE_TRY(blade_guppi_header_get_int(h, "OVERLAP", &g->overlap));
        if (g->overlap < 0 || g->overlap >= g->ntime)
            return blade_fail(BLADE_ERROR_FORMAT,
                              "OVERLAP = %lld is not a number of samples a block of %lld "
                              "can repeat (0 .. %lld)",
                              (long long)g->overlap,
                              (long long)g->ntime,
                              (long long)(g->ntime - 1));
    }
    int64_t directio = 0;
    if (blade_guppi_header_has(h, "DIRECTIO"))
        BLADE_TRY(blade_guppi_header_get_int(h, "DIRECTIO", &directio));
    g->directio = directio != 0;
    g->has_pktidx = blade_guppi_header_has(h, "PKTIDX");
    if (g->has_pktidx) {
        BLADE_TRY(blade_guppi_header_get_int(h, "PKTIDX", &g->pktidx));
        /* A packet counter: never negative, and small enough that differences,
         * sums and the times made from it stay exact. */
        if (g->pktidx < 0 || g->pktidx > MAX_PKTIDX)
            return blade_fail(
                BLADE_ERROR_FORMAT, "PKTIDX = %lld is outside 0 .. 2^53", (long long)g->pktidx);
    }
    return BLADE_OK;
}

static bool same_geometry(const geometry* a, const geometry* b)
{
    return a->blocsize == b->blocsize && a->obsnchan == b->obsnchan && a->nants == b->nants &&
           a->npol == b->npol && a->nbits == b->nbits && a->piperblk == b->piperblk &&
           a->overlap == b->overlap && a->pktsize == b->pktsize;
}

static blade_status
optional_real(const blade_guppi_header* h, const char* key, double* value, bool* found)
{
    *found = blade_guppi_header_has(h, key);
    if (*found)
        BLADE_TRY(blade_guppi_header_get_real(h, key, value));
    return BLADE_OK;
}

static void copy_name(char* out, const blade_guppi_header* h, const char* key)
{
    const char* text = "";
    if (blade_guppi_header_has(h, key))
        blade_guppi_header_get_string(h, key, &text);
    snprintf(out, BLADE_OBSERVATION_NAME_SIZE, "%s", text);
}

/* Axes and pointing from the first block's header. */
static blade_status read_observation(blade_guppi_reader* r, const char* name)
{
    const blade_guppi_header* h = r->header;
    blade_guppi_recording* rec = &r->rec;
    blade_observation* obs = &rec->observation;
    bool found;
    double obsfreq = 0, chan_bw = 0, obsbw = 0, tbin = 0;
    BLADE_TRY(optional_real(h, "OBSFREQ", &obsfreq, &found));
    if (!found)
        BLADE_TRY(warn(r, "%s: no OBSFREQ in the header: frequencies are offsets from 0 Hz", name));
    bool has_chan_bw, has_obsbw, has_tbin;
    BLADE_TRY(optional_real(h, "CHAN_BW", &chan_bw, &has_chan_bw));
    BLADE_TRY(optional_real(h, "OBSBW", &obsbw, &has_obsbw));
    BLADE_TRY(optional_real(h, "TBIN", &tbin, &has_tbin));
    /* Each value that is there must mean something: name the one that does not. */
    if (found && !(obsfreq > 0 && isfinite(obsfreq)))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "OBSFREQ = %g MHz is not a sky frequency (the centre of the "
                          "band, a positive number of MHz)",
                          obsfreq);
    if (has_tbin && !(tbin > 0 && isfinite(tbin)))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "TBIN = %g s is not a sample time (a positive number of seconds)",
                          tbin);
    if (has_chan_bw && !(chan_bw != 0 && isfinite(chan_bw)))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "CHAN_BW = %g MHz is not a channel width (non-zero; negative "
                          "for descending frequencies)",
                          chan_bw);
    if (has_obsbw && !has_chan_bw && !(obsbw != 0 && isfinite(obsbw)))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "OBSBW = %g MHz is not a bandwidth, and there is no CHAN_BW "
                          "(non-zero; negative for descending frequencies)",
                          obsbw);
    if (has_chan_bw && has_obsbw && (chan_bw < 0) != (obsbw < 0))
        BLADE_TRY(warn(r,
                       "%s: CHAN_BW = %g MHz and OBSBW = %g MHz disagree in sign: the channel "
                       "width's is used (rawspec would use OBSBW's), so check which "
                       "sideband the band is",
                       name,
                       chan_bw,
                       obsbw));
    if (!has_chan_bw && has_obsbw)
        chan_bw = obsbw / (double)rec->nchan;
    if (!has_chan_bw && !has_obsbw && has_tbin && tbin > 0)
        chan_bw = 1e-6 / tbin;
    if (!has_tbin && chan_bw != 0)
        tbin = 1e-6 / fabs(chan_bw);
    if (chan_bw == 0 || !(tbin > 0) || !isfinite(chan_bw) || !isfinite(tbin))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "the header needs TBIN (s per sample) or CHAN_BW (MHz per channel); "
                          "found TBIN %s, CHAN_BW %s, OBSBW %s",
                          has_tbin ? "invalid" : "absent",
                          has_chan_bw ? "invalid" : "absent",
                          has_obsbw ? "present" : "absent");
    if (!has_tbin)
        BLADE_TRY(warn(r,
                       "%s: no TBIN in the header: assuming critically sampled channels, "
                       "TBIN = 1/|CHAN_BW|",
                       name));
    rec->tbin = tbin;
    r->obsfreq_hz = obsfreq * 1e6;
    obs->tsamp = tbin;
    obs->chan_bw = chan_bw * 1e6;
    obs->nfpc = 1;

    double synctime = 0, imjd = 0, smjd = 0, offs = 0, dut1 = 0;
    bool has_sync, has_imjd, has_smjd, has_offs, has_dut1;
    BLADE_TRY(optional_real(h, "SYNCTIME", &synctime, &has_sync));
    BLADE_TRY(optional_real(h, "STT_IMJD", &imjd, &has_imjd));
    BLADE_TRY(optional_real(h, "STT_SMJD", &smjd, &has_smjd));
    BLADE_TRY(optional_real(h, "STT_OFFS", &offs, &has_offs));
    BLADE_TRY(optional_real(h, "DUT1", &dut1, &has_dut1));
    rec->has_time = true;
    if (has_sync)
        r->time_base = synctime;
    else if (has_imjd)
        r->time_base = (imjd - BLADE_MJD_OF_UNIX_EPOCH) * 86400.0 + smjd + offs;
    else {
        rec->has_time = false;
        r->time_base = 0;
        BLADE_TRY(
            warn(r, "%s: neither SYNCTIME nor STT_IMJD in the header: times count from 0", name));
    }
    obs->dut1 = dut1;

    if (!isfinite(dut1) || fabs(dut1) > 1.0)
        return blade_fail(
            BLADE_ERROR_FORMAT, "DUT1 = %g s is not UT1 - UTC (always within +-0.9 s)", dut1);

    int64_t schan = 0;
    if (blade_guppi_header_has(h, "SCHAN"))
        BLADE_TRY(blade_guppi_header_get_int(h, "SCHAN", &schan));
    if (schan < 0 || schan > INT32_MAX)
        return blade_fail(BLADE_ERROR_FORMAT,
                          "SCHAN = %lld is not a first coarse channel (0 .. 2^31-1)",
                          (long long)schan);
    obs->coarse_first = schan;
    copy_name(obs->source_name, h, "SRC_NAME");
    copy_name(obs->telescope, h, "TELESCOP");

    const char *ra_text, *dec_text;
    double ra_hours, dec_degrees;
    if (blade_guppi_header_has(h, "RA_STR") && blade_guppi_header_has(h, "DEC_STR")) {
        blade_guppi_header_get_string(h, "RA_STR", &ra_text);
        blade_guppi_header_get_string(h, "DEC_STR", &dec_text);
        BLADE_TRY(blade_parse_sexagesimal(ra_text, &ra_hours));
        BLADE_TRY(blade_parse_sexagesimal(dec_text, &dec_degrees));
        if (fabs(ra_hours) > 24.0 || fabs(dec_degrees) > 90.0)
            return blade_fail(BLADE_ERROR_FORMAT,
                              "RA_STR = '%s', DEC_STR = '%s' is not a direction (RA within "
                              "24 h, Dec within +-90 degrees)",
                              ra_text,
                              dec_text);
        obs->ra = ra_hours * M_PI / 12.0;
        obs->dec = dec_degrees * M_PI / 180.0;
        obs->has_position = true;
    } else {
        double ra_deg, dec_deg;
        bool has_ra, has_dec;
        BLADE_TRY(optional_real(h, "RA", &ra_deg, &has_ra));
        BLADE_TRY(optional_real(h, "DEC", &dec_deg, &has_dec));
        if (has_ra && has_dec) {
            if (!(fabs(ra_deg) <= 360.0 && fabs(dec_deg) <= 90.0))
                return blade_fail(BLADE_ERROR_FORMAT,
                                  "RA = %g, DEC = %g is not a direction in degrees (RA "
                                  "within 360, Dec within +-90)",
                                  ra_deg,
                                  dec_deg);
            obs->ra = ra_deg * M_PI / 180.0;
            obs->dec = dec_deg * M_PI / 180.0;
            obs->has_position = true;
        }
    }
    /* Where the telescope pointed at the start (SIGPROC's az_start, za_start):
     * AZ with ZA (GBT, Parkes) or with EL (MeerKAT, ATA), in degrees. */
    double az, za, el;
    bool has_az, has_za, has_el;
    BLADE_TRY(optional_real(h, "AZ", &az, &has_az));
    BLADE_TRY(optional_real(h, "ZA", &za, &has_za));
    BLADE_TRY(optional_real(h, "EL", &el, &has_el));
    if (has_az && (has_za || has_el)) {
        if (!has_za)
            za = 90.0 - el;
        if (!(fabs(az) <= 720.0 && za >= -90.0 && za <= 180.0))
            return blade_fail(BLADE_ERROR_FORMAT,
                              "AZ = %g, %s = %g is not a telescope's direction in degrees",
                              az,
                              has_za ? "ZA" : "EL",
                              has_za ? za : el);
        obs->az = az * M_PI / 180.0;
        obs->za = za * M_PI / 180.0;
        obs->has_horizontal = true;
    }
    return BLADE_OK;
}

/* ---- scanning ------------------------------------------------------------- */

static blade_status append_block(blade_guppi_reader* r, const block_entry* entry)
{
    if (r->rec.nblocks == r->capacity) {
        const int64_t capacity = r->capacity ? 2 * r->capacity : 64;
        block_entry* grown = realloc(r->blocks, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "GUPPI reader: block index");
        r->blocks = grown;
        r->capacity = capacity;
    }
    r->blocks[r->rec.nblocks++] = *entry;
    return BLADE_OK;
}

/* The cards that say which observation a block belongs to: a file of the set whose
 * first block differs in one of them is another observation's. */
static const char* const observation_keys[] = { "OBSFREQ",  "CHAN_BW",  "OBSBW",    "TBIN",
                                                "SCHAN",    "SRC_NAME", "TELESCOP", "SYNCTIME",
                                                "STT_IMJD", "STT_SMJD", "OBSID" };

static bool same_card(const blade_guppi_header* a, const blade_guppi_header* b, const char* key)
{
    const bool in_a = blade_guppi_header_has(a, key), in_b = blade_guppi_header_has(b, key);
    if (!in_a || !in_b)
        return in_a == in_b;
    double x, y;
    if (blade_guppi_header_get_real(a, key, &x) == BLADE_OK &&
        blade_guppi_header_get_real(b, key, &y) == BLADE_OK)
        return x == y;
    const char *s, *t;
    if (blade_guppi_header_get_string(a, key, &s) != BLADE_OK ||
        blade_guppi_header_get_string(b, key, &t) != BLADE_OK)
        return false;
    return strcmp(s, t) == 0;
}

static blade_status same_observation(const blade_guppi_reader* r,
                                     const blade_guppi_header* h,
                                     const char* name,
                                     int64_t offset)
{
    for (size_t i = 0; i < sizeof observation_keys / sizeof observation_keys[0]; i++) {
        const char* key = observation_keys[i];
        if (same_card(r->header, h, key))
            continue;
        const char *mine = "(absent)", *theirs = "(absent)";
        if (blade_guppi_header_has(h, key))
            blade_guppi_header_get_string(h, key, &mine);
        if (blade_guppi_header_has(r->header, key))
            blade_guppi_header_get_string(r->header, key, &theirs);
        return blade_fail(BLADE_ERROR_FORMAT,
                          "%s: block header at byte offset %lld: %s = '%s', but '%s' in "
                          "%s: the files are of different observations; read them apart "
                          "(name one file with --single-file)",
                          name,
                          (long long)offset,
                          key,
                          mine,
                          theirs,
                          r->files.items[0]);
    }
    return BLADE_OK;
}

/* Take the first block's header and geometry as the recording's. */
static blade_status adopt_first_block(blade_guppi_reader* r,
                                      blade_guppi_header* h,
                                      const geometry* g,
                                      const char* name,
                                      int64_t offset)
{
    r->header = h;
    r->first = *g;
    blade_guppi_recording* rec = &r->rec;
    rec->nants = g->nants;
    rec->nchan = g->obsnchan / g->nants;
    rec->npol = g->npol;
    rec->nbits = g->nbits;
    rec->file_type = g->type;
    rec->blocsize = g->blocsize;
    rec->block_samples = g->ntime;
    rec->overlap = g->overlap;
    rec->ntime = g->ntime - g->overlap; /* the samples each block adds to the stream */
    rec->pktsize = g->pktsize;
    const blade_status status = read_observation(r, name);
    return status == BLADE_OK ? BLADE_OK : at_block(status, name, offset);
}

static blade_status scan_blocks(blade_guppi_reader* r, int64_t file, int fd, int64_t size)
{
    const char* name = r->files.items[file];
    int64_t offset = 0;
    bool first_in_file = true;
    while (offset < size) {
        if (size - offset < BLADE_GUPPI_CARD_BYTES) {
            BLADE_TRY(warn(r,
                           "%s: %lld bytes after the last block (from byte offset %lld) "
                           "are too few for a header: ignored",
                           name,
                           (long long)(size - offset),
                           (long long)offset));
            return BLADE_OK;
        }
        blade_guppi_header* h = NULL;
        size_t consumed = 0;
        blade_status status = read_header_at(fd, name, offset, size, &h, &consumed);
        if (status == BLADE_ERROR_END_OF_DATA) {
            if (r->rec.nblocks == 0) {
                char message[1024];
                snprintf(message, sizeof message, "%s", blade_last_error());
                return blade_fail(BLADE_ERROR_FORMAT, "%s (is the END card missing?)", message);
            }
            return warn(r,
                        "%s: the header at byte offset %lld is cut off by the end of the "
                        "file: ignored (a truncated last block)",
                        name,
                        (long long)offset);
        }
        BLADE_TRY(status);
        geometry g;
        status = read_geometry(h, &g);
        if (status != BLADE_OK) {
            blade_guppi_header_destroy(h);
            return at_block(status, name, offset);
        }
        if (r->header == NULL) {
            BLADE_TRY(adopt_first_block(r, h, &g, name, offset));
        } else {
            /* Another file of the set: the same observation, or the files of two
             * were put together. */
            status = first_in_file ? same_observation(r, h, name, offset) : BLADE_OK;
            blade_guppi_header_destroy(h);
            BLADE_TRY(status);
            if (!same_geometry(&g, &r->first))
                return blade_fail(
                    BLADE_ERROR_FORMAT,
                    "%s: block header at byte offset %lld: the block geometry "
                    "changed (BLOCSIZE %lld, OBSNCHAN %lld, NANTS %lld, NPOL %lld, "
                    "NBITS %lld, PIPERBLK %lld, OVERLAP %lld, PKTSIZE %lld; the first "
                    "block has %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld; 0: "
                    "absent)",
                    name,
                    (long long)offset,
                    (long long)g.blocsize,
                    (long long)g.obsnchan,
                    (long long)g.nants,
                    (long long)g.npol,
                    (long long)g.nbits,
                    (long long)g.piperblk,
                    (long long)g.overlap,
                    (long long)g.pktsize,
                    (long long)r->first.blocsize,
                    (long long)r->first.obsnchan,
                    (long long)r->first.nants,
                    (long long)r->first.npol,
                    (long long)r->first.nbits,
                    (long long)r->first.piperblk,
                    (long long)r->first.overlap,
                    (long long)r->first.pktsize);
        }
        const int64_t header_bytes =
            g.directio ? round_up_512((int64_t)consumed) : (int64_t)consumed;
        const int64_t data_offset = offset + header_bytes;
        if (data_offset + g.blocsize > size) {
            if (r->rec.nblocks == 0)
                return blade_fail(BLADE_ERROR_FORMAT,
                                  "%s: block header at byte offset %lld: BLOCSIZE = %lld needs "
                                  "data up to byte %lld, but the file has only %lld bytes",
                                  name,
                                  (long long)offset,
                                  (long long)g.blocsize,
                                  (long long)(data_offset + g.blocsize),
                                  (long long)size);
            return warn(r,
                        "%s: the last block (header at byte offset %lld) is truncated: "
                        "%lld of its %lld data bytes are present; it is ignored",
                        name,
                        (long long)offset,
                        (long long)(size - data_offset > 0 ? size - data_offset : 0),
                        (long long)g.blocsize);
        }
        /* Without PKTIDX the block follows the last one: its counter is set once
         * the recording's PKTIDX step per block is known (place_blocks). */
        const block_entry entry = { file, offset, data_offset, g.pktidx, g.has_pktidx, 0 };
        BLADE_TRY(append_block(r, &entry));
        first_in_file = false;
        offset = data_offset + (g.directio ? round_up_512(g.blocsize) : g.blocsize);
    }
    return BLADE_OK;
}

static blade_status scan_file(blade_guppi_reader* r, int64_t file)
{
    const char* name = r->files.items[file];
    BLADE_TRY(blade_check_regular_file(name, "GUPPI RAW recording"));
    const int fd = open(name, O_RDONLY);
    if (fd < 0)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot open: %s", name, strerror(errno));
    struct stat info;
    if (fstat(fd, &info) != 0) {
        const int error = errno;
        close(fd);
        return blade_fail(BLADE_ERROR_IO, "%s: cannot stat: %s", name, strerror(error));
    }
    blade_status status = blade_input_register(fd, name, &r->file_ids[file]);
    if (status != BLADE_OK) {
        close(fd);
        return status;
    }
    r->registered++;
    if (info.st_size == 0)
        status = blade_fail(BLADE_ERROR_FORMAT,
                            "%s: byte offset 0: the file is empty, not a GUPPI RAW recording",
                            name);
    else
        status = scan_blocks(r, file, fd, (int64_t)info.st_size);
    close(fd);
    return status;
}

/* Refuse to zero-fill a gap of `missing` blocks before block `i` if it is longer
 * than the configured bound (by default: all the data the recording holds). One
 * corrupt PKTIDX must not turn a small file into terabytes of zeros. */
static blade_status check_gap(const blade_guppi_reader* r, int64_t i, int64_t missing)
{
    const blade_guppi_recording* rec = &r->rec;
    const double block_seconds = (double)rec->ntime * rec->tbin;
    const double bound = r->config.max_gap_seconds;
    const int64_t most_by_time = bound == 0 ? rec->nblocks
                                 : bound >= (double)BLADE_GUPPI_MOST_MISSING_BLOCKS * block_seconds
                                     ? BLADE_GUPPI_MOST_MISSING_BLOCKS
                                     : (int64_t)floor(bound / block_seconds + 1e-9);
    const int64_t most = most_by_time < BLADE_GUPPI_MOST_MISSING_BLOCKS
                             ? most_by_time
                             : BLADE_GUPPI_MOST_MISSING_BLOCKS;
    if (missing <= most)
        return BLADE_OK;
    const block_entry* block = &r->blocks[i];
    const block_entry* before = &r->blocks[i - 1];
    char limit[160];
    if (bound == 0)
        snprintf(limit,
                 sizeof limit,
                 "longer than all the %lld blocks (%.6g s) the recording holds",
                 (long long)rec->nblocks,
                 (double)rec->nblocks * block_seconds);
    else
        snprintf(limit,
                 sizeof limit,
                 "longer than the %.6g s allowed (%lld blocks)",
                 bound,
                 (long long)most);
    return blade_fail(
        BLADE_ERROR_FORMAT,
        "%s: block %lld (header at byte offset %lld): PKTIDX jumps from %lld to %lld, "
        "%lld missing blocks (%.6g s), %s: a corrupt PKTIDX or two recordings put "
        "together? Zero-filling it would emit %.3g GB. To read it anyway allow a longer "
        "gap (blade-cli --max-gap SECONDS; max_gap_seconds), or end the stream at the "
        "gap (--on-gap stop)",
        r->files.items[block->file],
        (long long)i,
        (long long)block->header_offset,
        (long long)before->pktidx,
        (long long)block->pktidx,
        (long long)missing,
        (double)missing * block_seconds,
        limit,
        (double)missing * (double)rec->blocsize / 1e9);
}

/* Place blocks in the stream by PKTIDX; find gaps; size the stream. */
/*
 * How far PKTIDX advances from one block to the next. Recorders count differently:
 * hpguppi (ATA, MeerKAT) says so in PIPERBLK; guppi_daq (GBT, Parkes) and PUPPI
 * count packets of PKTSIZE bytes, so a block's new data (all but its OVERLAP
 * samples) is BLOCSIZE/PKTSIZE steps; without either, the recording shows it: the
 * smallest advance between consecutive blocks that carry PKTIDX (rawspec learns it
 * from the first pair, which a dropped block there would spoil). One block alone
 * and no card: its new samples.
 */
static blade_status find_pktidx_step(blade_guppi_reader* r)
{
    blade_guppi_recording* rec = &r->rec;
    const geometry* g = &r->first;
    if (g->piperblk > 0) {
        rec->piperblk = g->piperblk;
        r->step_source = "PIPERBLK";
        return BLADE_OK;
    }
    const int64_t sample_bytes = g->blocsize / g->ntime;
    const int64_t new_bytes = g->blocsize - g->overlap * sample_bytes;
    if (g->pktsize > 0 && new_bytes % g->pktsize == 0) {
        rec->piperblk = new_bytes / g->pktsize;
        r->step_source = g->overlap > 0 ? "(BLOCSIZE - OVERLAP) / PKTSIZE" : "BLOCSIZE / PKTSIZE";
        return BLADE_OK;
    }
    int64_t smallest = 0;
    for (int64_t i = 1; i < rec->nblocks; i++) {
        const block_entry *a = &r->blocks[i - 1], *b = &r->blocks[i];
        const int64_t delta = b->pktidx - a->pktidx;
        if (a->has_pktidx && b->has_pktidx && delta > 0 && (smallest == 0 || delta < smallest))
            smallest = delta;
    }
    rec->piperblk = smallest > 0 ? smallest : rec->ntime;
    r->step_source = smallest > 0 ? "the recording's PKTIDX values" : "the block's samples";
    if (smallest > 0)
        BLADE_TRY(warn(r,
                       "%s: no PIPERBLK, and no PKTSIZE that divides a block: PKTIDX "
                       "advances by %lld per block, as the recording's own PKTIDX values "
                       "show",
                       r->files.items[0],
                       (long long)smallest));
    return BLADE_OK;
}

/* Place blocks in the stream by PKTIDX; find gaps; size the stream. */
static blade_status place_blocks(blade_guppi_reader* r)
{
    blade_guppi_recording* rec = &r->rec;
    BLADE_TRY(find_pktidx_step(r));
    const int64_t step = rec->piperblk;
    /* Blocks without PKTIDX follow the block before. */
    for (int64_t i = 0; i < rec->nblocks; i++) {
        block_entry* block = &r->blocks[i];
        if (!block->has_pktidx)
            block->pktidx = i == 0 ? 0 : r->blocks[i - 1].pktidx + step;
        if (block->pktidx > MAX_PKTIDX)
            return blade_fail(BLADE_ERROR_FORMAT,
                              "%s: block header at byte offset %lld: the block counter "
                              "reaches %lld, beyond 2^53",
                              r->files.items[block->file],
                              (long long)block->header_offset,
                              (long long)block->pktidx);
    }
    rec->first_pktidx = r->blocks[0].pktidx;
    r->readable_blocks = rec->nblocks;
    bool stopped = false;
    for (int64_t i = 1; i < rec->nblocks; i++) {
        const block_entry* before = &r->blocks[i - 1];
        block_entry* block = &r->blocks[i];
        const int64_t delta = block->pktidx - before->pktidx;
        if (delta <= 0 || delta % step != 0)
            return blade_fail(BLADE_ERROR_FORMAT,
                              "%s: block header at byte offset %lld: PKTIDX = %lld follows "
                              "PKTIDX = %lld (%s, byte offset %lld); expected %lld, or a later "
                              "multiple of %lld (the PKTIDX step per block, from %s) after dropped "
                              "blocks",
                              r->files.items[block->file],
                              (long long)block->header_offset,
                              (long long)block->pktidx,
                              (long long)before->pktidx,
                              r->files.items[before->file],
                              (long long)before->header_offset,
                              (long long)(before->pktidx + step),
                              (long long)step,
                              r->step_source);
        const int64_t missing = delta / step - 1;
        if (r->config.gap_policy == BLADE_GUPPI_GAP_ZERO_FILL)
            BLADE_TRY(check_gap(r, i, missing));
        block->stream_block = before->stream_block + delta / step;
        if (missing > 0) {
            rec->gaps++;
            rec->missing_blocks += missing;
            char what[64];
            snprintf(what,
                     sizeof what,
                     "%s",
                     r->config.gap_policy == BLADE_GUPPI_GAP_STOP
                         ? (stopped ? "after the stop" : "the stream stops here")
                         : "zero-filled");
            BLADE_TRY(blade_string_list_append(&r->warnings,
                                               "%s: %lld blocks missing before the block "
                                               "at byte offset %lld (PKTIDX jumps "
                                               "from %lld to %lld): %s",
                                               r->files.items[block->file],
                                               (long long)missing,
                                               (long long)block->header_offset,
                                               (long long)before->pktidx,
                                               (long long)block->pktidx,
                                               what));
            if (r->config.gap_policy == BLADE_GUPPI_GAP_STOP && !stopped) {
                stopped = true;
                r->readable_blocks = i;
            }
        }
    }
    rec->stream_blocks = r->blocks[r->readable_blocks - 1].stream_block + 1;
    /* Each block brings its new samples; the last one's overlap, which no later
     * block repeats, is kept too. */
    rec->stream_samples = rec->stream_blocks * rec->ntime + rec->overlap;
    return BLADE_OK;
}

/* ---- configuration -------------------------------------------------------- */

/* Output types that hold every value of the file's type exactly. */
static bool lossless(blade_dtype from, blade_dtype to)
{
    switch (from) {
    case BLADE_CI4:
        return to == BLADE_CI4 || to == BLADE_CI8 || to == BLADE_CI16 || to == BLADE_CF16 ||
               to == BLADE_CF32;
    case BLADE_CI8:
        return to == BLADE_CI8 || to == BLADE_CI16 || to == BLADE_CF16 || to == BLADE_CF32;
    case BLADE_CI16:
        return to == BLADE_CI16 || to == BLADE_CF32;
    case BLADE_CF32:
        return to == BLADE_CF32;
    default:
        return false;
    }
}

static blade_status configure_chunks(blade_guppi_reader* r)
{
    const blade_guppi_reader_config* c = &r->config;
    blade_guppi_recording* rec = &r->rec;
    const char* name = r->files.items[0];
    if (c->channel_start < 0 || c->channel_start >= rec->nchan)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: channel_start %lld is outside the recording's %lld channels "
                          "per antenna",
                          name,
                          (long long)c->channel_start,
                          (long long)rec->nchan);
    r->channel_start = c->channel_start;
    r->channel_count = c->channel_count == 0 ? rec->nchan - c->channel_start : c->channel_count;
    if (r->channel_count < 1 || r->channel_start + r->channel_count > rec->nchan)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: channels %lld .. %lld (channel_start %lld, channel_count %lld) "
                          "are not within the recording's %lld channels per antenna",
                          name,
                          (long long)c->channel_start,
                          (long long)(c->channel_start + r->channel_count - 1),
                          (long long)c->channel_start,
                          (long long)c->channel_count,
                          (long long)rec->nchan);
    if (c->chunk_samples < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: chunk_samples must be >= 1 (or 0 for one block), got %lld",
                          (long long)c->chunk_samples);
    r->chunk_samples = c->chunk_samples == 0 ? rec->ntime : c->chunk_samples;
    if (!lossless(rec->file_type, c->output_type))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "%s: cannot deliver %d-bit samples (%s) as %s without losing "
                          "values; choose %s",
                          name,
                          (int)rec->nbits,
                          blade_dtype_name(rec->file_type),
                          blade_dtype_name(c->output_type),
                          rec->file_type == BLADE_CI4    ? "ci4, ci8, ci16, cf16 or cf32"
                          : rec->file_type == BLADE_CI8  ? "ci8, ci16, cf16 or cf32"
                          : rec->file_type == BLADE_CI16 ? "ci16 or cf32"
                                                         : "cf32");
    if (c->readahead_blocks < 0)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: readahead_blocks must be >= 0, got %d",
                          c->readahead_blocks);
    const int64_t dims[4] = { rec->nants, r->channel_count, r->chunk_samples, rec->npol };
    BLADE_TRY(blade_shape_make(dims, 4, &r->shape));
    rec->chunks = rec->stream_samples / r->chunk_samples;

    int64_t ahead = c->readahead_blocks;
    if (ahead == 0) {
        ahead = READAHEAD_BYTES / rec->blocsize;
        ahead = ahead < 2 ? 2 : (ahead > 8 ? 8 : ahead);
    }
    r->ahead = (int)(ahead > 64 ? 64 : ahead);

    /* Axes of the whole recording: channel 0, first sample. */
    blade_observation* obs = &rec->observation;
    /* The frequency axis, computed here once: every later stage derives its own from
     * this (io/observation.h). */
    blade_observation_set_band(obs, r->obsfreq_hz, obs->chan_bw, rec->nchan);
    obs->unix_start = r->time_base + (double)rec->first_pktidx * seconds_per_pktidx(rec);
    /* Every number a chunk's tags will carry must be finite and mean something:
     * writers downstream turn them into MJD days, packed angles and PKTIDX. */
    const double unix_end = sample_time(r, rec->stream_blocks, 0);
    if (!(fabs(obs->unix_start) < BLADE_MOST_UNIX_SECONDS &&
          fabs(unix_end) < BLADE_MOST_UNIX_SECONDS))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "%s: the time axis runs from %g to %g unix seconds (from "
                          "SYNCTIME or STT_IMJD/STT_SMJD/STT_OFFS, PKTIDX and TBIN): not "
                          "dates",
                          name,
                          obs->unix_start,
                          unix_end);
    const double freq_last = obs->freq_first + (double)(rec->nchan - 1) * obs->chan_bw;
    if (!isfinite(obs->freq_first) || !isfinite(freq_last))
        return blade_fail(BLADE_ERROR_FORMAT,
                          "%s: the channel frequencies (OBSFREQ %g MHz, CHAN_BW %g MHz, "
                          "%lld channels) are not finite",
                          name,
                          r->obsfreq_hz / 1e6,
                          obs->chan_bw / 1e6,
                          (long long)rec->nchan);
    return BLADE_OK;
}

blade_status blade_guppi_reader_open(blade_guppi_reader** reader,
                                     const blade_guppi_reader_config* config)
{
    *reader = NULL;
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "GUPPI reader: no configuration given");
    if (config->gap_policy != BLADE_GUPPI_GAP_ZERO_FILL &&
        config->gap_policy != BLADE_GUPPI_GAP_STOP)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: unknown gap policy %d (zero-fill or stop)",
                          (int)config->gap_policy);
    if (!(config->max_gap_seconds >= 0)) /* NaN too */
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: max_gap_seconds %g: expected seconds >= 0 (0: "
                          "as long as the recording's data, infinity: no bound)",
                          config->max_gap_seconds);
    blade_guppi_reader* r;
    BLADE_TRY(blade_alloc_object(sizeof *r, "GUPPI reader", (void**)&r));
    r->config = *config;
    r->config.path = NULL; /* not kept: the caller owns it */
    r->last_zero_block = -1;
    r->fd = -1;
    r->fd_file = -1;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->changed, NULL);

    blade_status status =
        blade_guppi_find_files(config->path, config->single_file, &r->files, &r->warnings);
    r->rec.nfiles = r->files.count;
    if (status == BLADE_OK)
        status =
            blade_alloc_object((size_t)(r->files.count ? r->files.count : 1) * sizeof *r->file_ids,
                               "GUPPI reader: file list",
                               (void**)&r->file_ids);
    for (int64_t f = 0; status == BLADE_OK && f < r->files.count; f++)
        status = scan_file(r, f);
    if (status == BLADE_OK && r->rec.nblocks == 0)
        status = blade_fail(BLADE_ERROR_FORMAT, "%s: no complete block found", r->files.items[0]);
    if (status == BLADE_OK)
        status = place_blocks(r);
    if (status == BLADE_OK)
        status = configure_chunks(r);
    if (status != BLADE_OK) {
        blade_guppi_reader_close(r);
        return status;
    }
    *reader = r;
    return BLADE_OK;
}

/* ---- queries -------------------------------------------------------------- */

const blade_guppi_recording* blade_guppi_reader_recording(const blade_guppi_reader* reader)
{
    return &reader->rec;
}

blade_shape blade_guppi_reader_output_shape(const blade_guppi_reader* reader)
{
    return reader->shape;
}

const char* blade_guppi_reader_file_name(const blade_guppi_reader* reader, int64_t index)
{
    return index >= 0 && index < reader->files.count ? reader->files.items[index] : NULL;
}

const blade_guppi_header* blade_guppi_reader_header(const blade_guppi_reader* reader)
{
    return reader->header;
}

int64_t blade_guppi_reader_warning_count(const blade_guppi_reader* reader)
{
    return reader->warnings.count;
}

const char* blade_guppi_reader_warning(const blade_guppi_reader* reader, int64_t index)
{
    return index >= 0 && index < reader->warnings.count ? reader->warnings.items[index] : NULL;
}

blade_status blade_guppi_reader_block_header(const blade_guppi_reader* reader,
                                             int64_t block,
                                             blade_guppi_header** header)
{
    *header = NULL;
    if (block < 0 || block >= reader->rec.nblocks)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: block %lld does not exist (the recording has %lld "
                          "complete blocks)",
                          (long long)block,
                          (long long)reader->rec.nblocks);
    const block_entry* entry = &reader->blocks[block];
    const char* name = reader->files.items[entry->file];
    const int fd = open(name, O_RDONLY);
    if (fd < 0)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot open: %s", name, strerror(errno));
    struct stat info;
    blade_status status = BLADE_OK;
    if (fstat(fd, &info) != 0)
        status = blade_fail(BLADE_ERROR_IO, "%s: cannot stat: %s", name, strerror(errno));
    size_t consumed;
    if (status == BLADE_OK)
        status = read_header_at(
            fd, name, entry->header_offset, (int64_t)info.st_size, header, &consumed);
    close(fd);
    return status;
}

blade_status blade_guppi_file_header(const char* path, blade_guppi_header** header)
{
    *header = NULL;
    BLADE_TRY(blade_check_regular_file(path, "GUPPI RAW recording"));
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return blade_fail(BLADE_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat info;
    blade_status status = BLADE_OK;
    if (fstat(fd, &info) != 0)
        status = blade_fail(BLADE_ERROR_IO, "%s: cannot stat: %s", path, strerror(errno));
    else if (info.st_size == 0)
        status = blade_fail(BLADE_ERROR_FORMAT, "%s: byte offset 0: the file is empty", path);
    size_t consumed;
    if (status == BLADE_OK)
        status = read_header_at(fd, path, 0, (int64_t)info.st_size, header, &consumed);
    if (status == BLADE_ERROR_END_OF_DATA)
        status = blade_fail(
            BLADE_ERROR_FORMAT, "%s: no END card: the header runs to the end of the file", path);
    close(fd);
    return status;
}

blade_guppi_reader_stats blade_guppi_reader_get_stats(const blade_guppi_reader* reader)
{
    blade_guppi_reader* r = (blade_guppi_reader*)reader;
    pthread_mutex_lock(&r->lock);
    const blade_guppi_reader_stats stats = r->stats;
    pthread_mutex_unlock(&r->lock);
    return stats;
}

/* ---- read-ahead thread ---------------------------------------------------- */

static void* read_ahead(void* argument)
{
    blade_guppi_reader* r = argument;
    int fd = -1;
    int64_t open_file = -1;
    for (int64_t b = 0; b < r->readable_blocks; b++) {
        pthread_mutex_lock(&r->lock);
        while (!r->stopping && b >= r->cursor + r->ahead)
            pthread_cond_wait(&r->changed, &r->lock);
        if (b < r->cursor) /* the caller got there first */
            b = r->cursor;
        const bool stopping = r->stopping || b >= r->readable_blocks;
        pthread_mutex_unlock(&r->lock);
        if (stopping)
            break;
        const block_entry* entry = &r->blocks[b];
        if (entry->file != open_file) {
            if (fd >= 0)
                close(fd);
            open_file = entry->file;
            fd = open(r->files.items[entry->file], O_RDONLY | O_CLOEXEC);
#ifdef POSIX_FADV_SEQUENTIAL
            if (fd >= 0)
                posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
        }
        if (fd < 0)
            continue; /* the caller's own open reports the problem */
        /* The kernel reads the block into the page cache in the background while
         * the caller copies earlier blocks. (Reading it here as well would make
         * sure, but costs a pass over memory that slows a cached recording.) */
        posix_fadvise(fd, (off_t)entry->data_offset, (off_t)r->rec.blocsize, POSIX_FADV_WILLNEED);
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static blade_status start_thread(blade_guppi_reader* r)
{
    const int error = pthread_create(&r->thread, NULL, read_ahead, r);
    if (error != 0)
        return blade_fail(BLADE_ERROR_IO,
                          "GUPPI reader: cannot start the read-ahead thread: %s",
                          strerror(error));
    r->thread_started = true;
    return BLADE_OK;
}

/* The caller finished real block `cursor`: let the thread go further. */
static void advance_cursor(blade_guppi_reader* r)
{
    pthread_mutex_lock(&r->lock);
    r->cursor++;
    r->stats.blocks_read++;
    pthread_cond_broadcast(&r->changed);
    pthread_mutex_unlock(&r->lock);
}

/* ---- chunk assembly ------------------------------------------------------- */

static blade_status open_for_caller(blade_guppi_reader* r, int64_t file)
{
    if (r->fd_file == file && r->fd >= 0)
        return BLADE_OK;
    if (r->fd >= 0)
        close(r->fd);
    r->fd_file = file;
    r->fd = open(r->files.items[file], O_RDONLY | O_CLOEXEC);
    if (r->fd < 0)
        return blade_fail(
            BLADE_ERROR_IO, "%s: cannot open: %s", r->files.items[file], strerror(errno));
    posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a larger kernel read-ahead window */
    return BLADE_OK;
}

/* Threads that read a chunk's rows at once, and the least a chunk must hold for them. */
#define READ_THREADS 4
#define PARALLEL_READ_BYTES (4 << 20)

/* pread until `bytes` are in (0), or -1 on an error or a short file (the caller
 * reads again with blade_read_fully(), which says which). */
static int pread_all(int fd, char* buffer, size_t bytes, int64_t offset)
{
    while (bytes > 0) {
        const ssize_t got = pread(fd, buffer, bytes, (off_t)offset);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        buffer += got;
        bytes -= (size_t)got;
        offset += got;
    }
    return 0;
}

/* Copy `count` samples from `first` on of every selected row of real block `b`
 * into the chunk at sample `at`; b < 0: zeros. */
static blade_status
copy_rows(blade_guppi_reader* r, int64_t b, int64_t first, int64_t count, char* out, int64_t at)
{
    const int64_t F = r->rec.nchan, Fs = r->channel_count, P = r->rec.npol;
    const int64_t NT = r->rec.block_samples, T = r->chunk_samples; /* a row's samples */
    const blade_dtype from = r->rec.file_type, to = r->config.output_type;
    const size_t row_bytes = blade_bytes(from, count * P);
    if (b >= 0) {
        BLADE_TRY(open_for_caller(r, r->blocks[b].file));
        if (from != to && row_bytes > r->staging_bytes) {
            char* grown = realloc(r->staging, row_bytes);
            if (grown == NULL)
                return blade_fail(BLADE_ERROR_OUT_OF_MEMORY, "GUPPI reader: staging row");
            r->staging = grown;
            r->staging_bytes = row_bytes;
        }
    }
    /* Rows of the file's own type land in the chunk directly; several threads read
     * them at once (one thread's copies from the page cache run at about 60 % of
     * cat's rate on the H200's host, which streams through a small cache-resident
     * buffer instead). A failed row is read again on this thread, for its message. */
    const int64_t rows = r->rec.nants * Fs;
    if (b >= 0 && from == to) {
        int64_t failed = -1;
#pragma omp parallel for schedule(static) \
    num_threads(READ_THREADS) if (rows * (int64_t)row_bytes >= PARALLEL_READ_BYTES && rows > 1)
        for (int64_t row = 0; row < rows; row++) {
            const int64_t a = row / Fs, f = row % Fs;
            char* target = out + blade_bytes(to, (row * T + at) * P);
            const int64_t sample = ((a * F + r->channel_start + f) * NT + first) * P;
            const int64_t offset = r->blocks[b].data_offset + (int64_t)blade_bytes(from, sample);
            if (pread_all(r->fd, target, row_bytes, offset) != 0) {
#pragma omp critical(guppi_failed_row)
                if (failed < 0 || row < failed)
                    failed = row;
            }
        }
        if (failed >= 0) {
            const int64_t a = failed / Fs, f = failed % Fs;
            const int64_t sample = ((a * F + r->channel_start + f) * NT + first) * P;
            return blade_read_fully(r->fd,
                                    out + blade_bytes(to, (failed * T + at) * P),
                                    row_bytes,
                                    r->blocks[b].data_offset + (int64_t)blade_bytes(from, sample),
                                    r->files.items[r->blocks[b].file]);
        }
        r->bytes_read_here += rows * (int64_t)row_bytes;
        return BLADE_OK;
    }
    for (int64_t a = 0; a < r->rec.nants; a++) {
        for (int64_t f = 0; f < Fs; f++) {
            char* target = out + blade_bytes(to, ((a * Fs + f) * T + at) * P);
            if (b < 0) {
                memset(target, 0, blade_bytes(to, count * P));
                continue;
            }
            const int64_t sample = ((a * F + r->channel_start + f) * NT + first) * P;
            const int64_t offset = r->blocks[b].data_offset + (int64_t)blade_bytes(from, sample);
            char* landing = from == to ? target : r->staging;
            BLADE_TRY(blade_read_fully(
                r->fd, landing, row_bytes, offset, r->files.items[r->blocks[b].file]));
            r->bytes_read_here += (int64_t)row_bytes;
            /* Pieces small enough that the cast stays on this thread: a thread team
             * per row costs more than the conversion. */
            for (int64_t done = 0; from != to && done < count * P; done += CAST_PIECE) {
                const int64_t n = count * P - done < CAST_PIECE ? count * P - done : CAST_PIECE;
                blade_cpu_cast(landing + blade_bytes(from, done),
                               from,
                               target + blade_bytes(to, done),
                               to,
                               n,
                               1.0f);
            }
        }
    }
    return BLADE_OK;
}

static double sample_time(const blade_guppi_reader* r, int64_t stream_block, int64_t sample)
{
    const blade_guppi_recording* rec = &r->rec;
    const int64_t pktidx = rec->first_pktidx + stream_block * rec->piperblk;
    return r->time_base + (double)pktidx * seconds_per_pktidx(rec) + (double)sample * rec->tbin;
}

static void describe_chunk(blade_guppi_reader* r, int64_t index, blade_guppi_chunk* chunk)
{
    const blade_guppi_recording* rec = &r->rec;
    const int64_t start = index * r->chunk_samples;
    const int64_t block =
        start / rec->ntime < rec->stream_blocks ? start / rec->ntime : rec->stream_blocks - 1;
    const int64_t sample = start - block * rec->ntime;
    memset(chunk, 0, sizeof *chunk);
    chunk->index = index;
    chunk->unix_start = sample_time(r, block, sample);
    chunk->unix_mid = chunk->unix_start + 0.5 * (double)r->chunk_samples * rec->tbin;
    chunk->jd_start = blade_unix_to_jd(chunk->unix_start);
    chunk->jd_mid = blade_unix_to_jd(chunk->unix_mid);
    chunk->block_index = block;
    int64_t real = r->cursor < r->readable_blocks ? r->cursor : r->readable_blocks - 1;
    while (real + 1 < r->readable_blocks && r->blocks[real].stream_block < block)
        real++;
    chunk->file_index = r->blocks[real].file;
    /* (The selection was checked at open: it cannot fail.) */
    blade_observation_select_channels(
        &rec->observation, r->channel_start, r->channel_count, &chunk->observation);
    chunk->observation.unix_start = chunk->unix_start;
}

blade_status
blade_guppi_reader_read(blade_guppi_reader* r, blade_tensor* output, blade_guppi_chunk* chunk)
{
    BLADE_TRY(
        blade_check_tensor("GUPPI reader", "output", output, r->config.output_type, &r->shape));
    if (output->device.kind == BLADE_DEVICE_CUDA)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "GUPPI reader: the output chunk must be in host memory");
    if (r->failure != BLADE_OK)
        return blade_fail(r->failure, "%s", r->failure_message);
    const blade_guppi_recording* rec = &r->rec;
    const int64_t index = r->stats.chunks; /* only this thread writes it */
    if (index >= rec->chunks) {
        pthread_mutex_lock(&r->lock);
        r->stats.samples_left = rec->stream_samples - rec->chunks * r->chunk_samples;
        r->stats.stopped_at_gap = r->readable_blocks < rec->nblocks;
        pthread_mutex_unlock(&r->lock);
        return blade_fail(BLADE_ERROR_END_OF_DATA, "the end of the recording");
    }
    if (!r->thread_started)
        BLADE_TRY(start_thread(r));

    blade_guppi_chunk info;
    describe_chunk(r, index, &info);
    const int64_t NT = rec->ntime, T = r->chunk_samples;
    int64_t position = index * T, filled = 0;
    int64_t zero_blocks = 0, zero_samples = 0, new_zero_blocks = 0;
    while (filled < T) {
        /* The last block's overlap lies beyond the last whole block of new samples. */
        const int64_t block =
            position / NT < rec->stream_blocks ? position / NT : rec->stream_blocks - 1;
        const int64_t sample = position - block * NT;
        const int64_t length = stream_block_samples(rec, block);
        const int64_t take = T - filled < length - sample ? T - filled : length - sample;
        const bool real =
            r->cursor < r->readable_blocks && r->blocks[r->cursor].stream_block == block;
        const blade_status status =
            copy_rows(r, real ? r->cursor : -1, sample, take, output->data, filled);
        if (status != BLADE_OK) {
            r->failure = status;
            snprintf(r->failure_message, sizeof r->failure_message, "%s", blade_last_error());
            return status;
        }
        if (real && sample + take == length)
            advance_cursor(r);
        if (!real) {
            zero_blocks++;
            zero_samples += take;
            if (block != r->last_zero_block) {
                r->last_zero_block = block;
                new_zero_blocks++;
            }
        }
        filled += take;
        position += take;
    }
    info.zero_filled_blocks = zero_blocks;
    info.zero_filled_samples = zero_samples;
    pthread_mutex_lock(&r->lock);
    r->stats.bytes_read += r->bytes_read_here;
    r->bytes_read_here = 0;
    r->stats.chunks++;
    r->stats.zero_filled_blocks += new_zero_blocks;
    pthread_mutex_unlock(&r->lock);
    if (chunk != NULL)
        *chunk = info;
    return BLADE_OK;
}

/* ---- closing -------------------------------------------------------------- */

void blade_guppi_reader_close(blade_guppi_reader* r)
{
    if (r == NULL)
        return;
    if (r->thread_started) {
        pthread_mutex_lock(&r->lock);
        r->stopping = true;
        pthread_cond_broadcast(&r->changed);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->thread, NULL);
    }
    if (r->fd >= 0)
        close(r->fd);
    for (int64_t f = 0; f < r->registered; f++)
        blade_input_unregister(r->file_ids[f]);
    free(r->file_ids);
    free(r->staging);
    free(r->blocks);
    blade_guppi_header_destroy(r->header);
    blade_string_list_clear(&r->files);
    blade_string_list_clear(&r->warnings);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->changed);
    free(r);
}
