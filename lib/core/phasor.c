/* SPDX-License-Identifier: MIT */
/*
 * Phasor plan: validation, geometry and table delays, phasor synthesis, upload.
 * The formulas are those of astrometry.md; see include/blade/modules/phasor.h.
 */
#include "cpu_threads_internal.h"
#include "cuda_backend.h"
#include "internal.h"
#include "phasor_synthesis.h"

#include <blade/astrometry.h>
#include <blade/memory.h>
#include <blade/modules/phasor.h>

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many threads synthesize a chunk's phasors. In a flowgraph the phasor
 * block shares the cores with GNU Radio's other block threads, several of them
 * spinning in CUDA synchronizations; a parallel region over every core waits for
 * its slowest thread, which is then often descheduled. Mode B at the ATA node on the
 * H200's 16-core host (device to device, three runs each): all 16 threads 0.61-1.73 ms
 * per chunk, the phasor block busy 72 % of the time; 4 threads 0.39-0.45 ms; 1 thread
 * 0.62-0.98 ms. The synthesis is 10^5 complex values a chunk: a few cores suffice. */
#define SYNTHESIS_THREADS 4

struct blade_phasor {
    blade_device device;
    blade_shape shape; /* [B, A, F, 1, P] */
    int64_t beams, antennas, coarse, rate, fine, pols;
    double longitude, latitude, altitude;
    int64_t reference_antenna;
    bool absolute_delays;
    double boresight_ra, boresight_dec;
    double* xyz;                   /* [A][3] metres along ECEF axes from the reference position */
    double* beam_ra;               /* [B] */
    double* beam_dec;              /* [B] */
    blade_observation observation; /* the channels' axis */
    double complex* cal;           /* [A][coarse][P]: the rows of this step's channels */
    blade_delay_mode mode;
    int64_t table_times;
    double* table_unix;   /* [times] */
    double* table_delays; /* [times][B][A] */
    double* table_rates;  /* [times][B][A] or NULL */
    double* delays;       /* [B][A] work */
    double* directions;   /* [2 (B + 1)] work: RA then Dec; then H then Dec */
    float* staging;       /* pinned host phasors for GPU-like devices (emulated) */
    /* The host's part of the synthesis ([B·A][anchors] anchors, [B·A] steps, and on
     * CUDA [A][coarse][P] calibration; pinned there) and its device copy on CUDA,
     * where the device expands it */
    phasor_complex* seeds;
    phasor_complex* device_seeds;
    bool upload_pending;
    blade_stream upload_stream;
    bool dubious_year;
};

/* Bytes of the seeds: anchors, steps, calibration. */
static size_t seed_bytes(const blade_phasor* plan)
{
    const int64_t pairs = plan->beams * plan->antennas;
    const int64_t count = phasor_anchor_count(plan->fine);
    return (size_t)(pairs * count + pairs + plan->antennas * plan->coarse * plan->pols) *
           sizeof(phasor_complex);
}

static const char* mode_name(blade_delay_mode mode)
{
    switch (mode) {
    case BLADE_DELAYS_GEOMETRY:
        return "geometry";
    case BLADE_DELAYS_TABLE_LINEAR:
        return "table (linear)";
    case BLADE_DELAYS_TABLE_RATES:
        return "table (rates)";
    }
    return "unknown";
}

/* ---- validation and creation ------------------------------------------------- */

static blade_status check_finite(const double* values, int64_t count, const char* what)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(values[i]))
            return blade_fail(
                BLADE_ERROR_INVALID_ARGUMENT, "phasor: %s[%lld] is not finite", what, (long long)i);
    return BLADE_OK;
}

static blade_status copy_array(const double* source, int64_t count, const char* what, double** copy)
{
    BLADE_TRY(blade_alloc_object((size_t)count * sizeof(double), what, (void**)copy));
    memcpy(*copy, source, (size_t)count * sizeof(double));
    return BLADE_OK;
}

/* The calibration rows of the step's coarse channels, or all ones. */
static blade_status select_calibration(blade_phasor* plan,
                                       const double* table,
                                       int64_t rows,
                                       int64_t first_row_channel,
                                       double complex* cal)
{
    const int64_t A = plan->antennas, C = plan->coarse, P = plan->pols;
    if (table == NULL) {
        for (int64_t i = 0; i < A * C * P; i++)
            cal[i] = 1.0;
        return BLADE_OK;
    }
    const int64_t step_first = plan->observation.coarse_first;
    const int64_t first = step_first - first_row_channel;
    if (rows < 1 || first < 0 || first + C > rows)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: the calibration covers absolute channels %lld..%lld but "
                          "the chunks need %lld..%lld (their F-engine channels)",
                          (long long)first_row_channel,
                          (long long)(first_row_channel + rows - 1),
                          (long long)step_first,
                          (long long)(step_first + C - 1));
    for (int64_t a = 0; a < A; a++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t p = 0; p < P; p++) {
                const double* z = table + 2 * ((a * rows + first + c) * P + p);
                if (!isfinite(z[0]) || !isfinite(z[1]))
                    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                                      "phasor: calibration of antenna %lld, absolute "
                                      "channel %lld, polarization %lld is not finite",
                                      (long long)a,
                                      (long long)(step_first + c),
                                      (long long)p);
                cal[(a * C + c) * P + p] = z[0] + I * z[1];
            }
    return BLADE_OK;
}

static blade_status validate_table(const blade_phasor_config* config)
{
    const blade_delay_table* table = &config->table;
    const int64_t minimum = config->delay_mode == BLADE_DELAYS_TABLE_LINEAR ? 2 : 1;
    if (table->times < minimum)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: %s delays need a table of at least %lld time(s), "
                          "%lld given",
                          mode_name(config->delay_mode),
                          (long long)minimum,
                          (long long)table->times);
    if (table->unix_times == NULL || table->delays == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: the delay table has no times or no delays");
    if (config->delay_mode == BLADE_DELAYS_TABLE_RATES && table->rates == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: table (rates) delays need the delay rates");
    BLADE_TRY(check_finite(table->unix_times, table->times, "table time"));
    for (int64_t i = 1; i < table->times; i++)
        if (!(table->unix_times[i] > table->unix_times[i - 1]))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "phasor: delay table times must increase strictly; time %lld "
                              "(%.6f) follows %.6f",
                              (long long)i,
                              table->unix_times[i],
                              table->unix_times[i - 1]);
    const int64_t count = table->times * config->beams * config->antennas;
    BLADE_TRY(check_finite(table->delays, count, "table delay"));
    if (config->delay_mode == BLADE_DELAYS_TABLE_RATES)
        BLADE_TRY(check_finite(table->rates, count, "table rate"));
    return BLADE_OK;
}

static blade_status validate(const blade_phasor_config* config)
{
    if (config == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "phasor: no configuration given");
    if (config->antennas < 1 || config->beams < 1 || config->polarizations < 1)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: antennas (%lld), beams (%lld) and polarizations (%lld) "
                          "must be >= 1",
                          (long long)config->antennas,
                          (long long)config->beams,
                          (long long)config->polarizations);
    BLADE_TRY(blade_observation_check_axis(&config->observation, "phasor"));
    const int64_t fine = config->observation.nchan;
    const int64_t dims[5] = { config->beams, config->antennas, fine, 1, config->polarizations };
    blade_shape shape;
    if (blade_shape_make(dims, 5, &shape) != BLADE_OK ||
        config->beams > INT64_MAX / config->antennas / fine / config->polarizations / 8)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: [%lld, %lld, %lld, 1, %lld] phasors are too many",
                          (long long)dims[0],
                          (long long)dims[1],
                          (long long)dims[2],
                          (long long)dims[4]);
    if (config->delay_mode == BLADE_DELAYS_GEOMETRY) {
        if (config->antenna_positions == NULL || config->beam_ra == NULL ||
            config->beam_dec == NULL)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "phasor: geometry delays need antenna positions and beam "
                              "directions");
        if (config->reference_antenna < 0 || config->reference_antenna >= config->antennas)
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "phasor: reference antenna %lld is not one of the %lld "
                              "antennas (0-based index)",
                              (long long)config->reference_antenna,
                              (long long)config->antennas);
        BLADE_TRY(
            check_finite(config->antenna_positions, 3 * config->antennas, "antenna position"));
        BLADE_TRY(check_finite(config->beam_ra, config->beams, "beam RA"));
        BLADE_TRY(check_finite(config->beam_dec, config->beams, "beam Dec"));
        if (!isfinite(config->boresight_ra) || !isfinite(config->boresight_dec))
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "phasor: boresight (%g, %g) rad is not finite",
                              config->boresight_ra,
                              config->boresight_dec);
        double ecef[3];
        if (blade_geodetic_to_ecef(config->longitude, config->latitude, config->altitude, ecef) !=
            BLADE_OK)
            return blade_fail_context(BLADE_ERROR_INVALID_ARGUMENT,
                                      "phasor: array reference position");
    } else if (config->delay_mode == BLADE_DELAYS_TABLE_LINEAR ||
               config->delay_mode == BLADE_DELAYS_TABLE_RATES) {
        BLADE_TRY(validate_table(config));
    } else {
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT, "phasor: unknown delay mode %d", (int)config->delay_mode);
    }
    return BLADE_OK;
}

blade_status
blade_phasor_create(blade_phasor** result, const blade_phasor_config* config, blade_device device)
{
    *result = NULL;
    BLADE_TRY(validate(config));
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    blade_phasor* plan;
    BLADE_TRY(blade_alloc_object(sizeof *plan, "phasor", (void**)&plan));
    plan->device = device;
    plan->beams = config->beams;
    plan->antennas = config->antennas;
    plan->rate = config->observation.nfpc;
    plan->fine = config->observation.nchan;
    plan->coarse = plan->fine / plan->rate;
    plan->pols = config->polarizations;
    const int64_t dims[5] = { plan->beams, plan->antennas, plan->fine, 1, plan->pols };
    blade_shape_make(dims, 5, &plan->shape);
    plan->observation = config->observation;
    plan->mode = config->delay_mode;
    plan->longitude = config->longitude;
    plan->latitude = config->latitude;
    plan->altitude = config->altitude;
    plan->reference_antenna = config->reference_antenna;
    plan->absolute_delays = config->absolute_delays;
    plan->boresight_ra = config->boresight_ra;
    plan->boresight_dec = config->boresight_dec;

    const int64_t A = plan->antennas, B = plan->beams;
    blade_status status = BLADE_OK;
#define STEP(expression)        \
    do {                        \
        status = (expression);  \
        if (status != BLADE_OK) \
            goto failed;        \
    } while (0)

    STEP(blade_alloc_object(
        (size_t)(B * A) * sizeof(double), "phasor delays", (void**)&plan->delays));
    STEP(blade_alloc_object((size_t)(A * plan->coarse * plan->pols) * sizeof(double complex),
                            "phasor calibration",
                            (void**)&plan->cal));
    STEP(select_calibration(plan,
                            config->calibration,
                            config->calibration_channels,
                            config->calibration_first_channel,
                            plan->cal));
    if (plan->mode == BLADE_DELAYS_GEOMETRY) {
        double reference[3];
        blade_geodetic_to_ecef(plan->longitude, plan->latitude, plan->altitude, reference);
        STEP(blade_alloc_object(
            (size_t)(3 * A) * sizeof(double), "phasor antenna frame", (void**)&plan->xyz));
        for (int64_t a = 0; a < A; a++)
            for (int i = 0; i < 3; i++)
                plan->xyz[3 * a + i] = config->antenna_positions[3 * a + i] - reference[i];
        STEP(copy_array(config->beam_ra, B, "phasor beams", &plan->beam_ra));
        STEP(copy_array(config->beam_dec, B, "phasor beams", &plan->beam_dec));
        STEP(blade_alloc_object((size_t)(4 * (B + 1)) * sizeof(double),
                                "phasor directions",
                                (void**)&plan->directions));
    } else {
        const blade_delay_table* table = &config->table;
        plan->table_times = table->times;
        STEP(copy_array(table->unix_times, table->times, "phasor delay table", &plan->table_unix));
        STEP(copy_array(
            table->delays, table->times * B * A, "phasor delay table", &plan->table_delays));
        if (plan->mode == BLADE_DELAYS_TABLE_RATES)
            STEP(copy_array(
                table->rates, table->times * B * A, "phasor delay table", &plan->table_rates));
    }
    STEP(blade_host_alloc(device, seed_bytes(plan), (void**)&plan->seeds));
    if (device.kind == BLADE_DEVICE_CUDA)
        STEP(blade_device_alloc(device, seed_bytes(plan), (void**)&plan->device_seeds));
    else if (blade_device_is_gpu_like(device))
        STEP(blade_host_alloc(
            device, blade_tensor_bytes(BLADE_CF32, &plan->shape), (void**)&plan->staging));
#undef STEP
    *result = plan;
    return BLADE_OK;

failed:
    blade_phasor_destroy(plan);
    return status;
}

blade_shape blade_phasor_output_shape(const blade_phasor* plan) { return plan->shape; }

bool blade_phasor_dubious_year(const blade_phasor* plan) { return plan->dubious_year; }

void blade_phasor_destroy(blade_phasor* plan)
{
    if (plan == NULL)
        return;
    /* The caller has synchronized the upload stream (its stream may be gone). */
    blade_host_free(plan->device, plan->staging);
    blade_host_free(plan->device, plan->seeds);
    blade_device_free(plan->device, plan->device_seeds);
    free(plan->xyz);
    free(plan->beam_ra);
    free(plan->beam_dec);
    free(plan->cal);
    free(plan->table_unix);
    free(plan->table_delays);
    free(plan->table_rates);
    free(plan->delays);
    free(plan->directions);
    free(plan);
}

/* ---- run-time updates -------------------------------------------------------- */

blade_status
blade_phasor_set_beams(blade_phasor* plan, int64_t beams, const double* ra, const double* dec)
{
    if (plan->mode != BLADE_DELAYS_GEOMETRY)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: beams cannot change in %s mode (the delays come from "
                          "the table)",
                          mode_name(plan->mode));
    if (beams != plan->beams || ra == NULL || dec == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: %lld beam directions given, the plan has %lld beams",
                          (long long)beams,
                          (long long)plan->beams);
    BLADE_TRY(check_finite(ra, beams, "beam RA"));
    BLADE_TRY(check_finite(dec, beams, "beam Dec"));
    memcpy(plan->beam_ra, ra, (size_t)beams * sizeof(double));
    memcpy(plan->beam_dec, dec, (size_t)beams * sizeof(double));
    return BLADE_OK;
}

blade_status blade_phasor_set_boresight(blade_phasor* plan, double ra, double dec)
{
    if (plan->mode != BLADE_DELAYS_GEOMETRY)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: the boresight cannot change in %s mode",
                          mode_name(plan->mode));
    if (!isfinite(ra) || !isfinite(dec))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT, "phasor: boresight (%g, %g) rad is not finite", ra, dec);
    plan->boresight_ra = ra;
    plan->boresight_dec = dec;
    return BLADE_OK;
}

blade_status blade_phasor_set_calibration(blade_phasor* plan,
                                          const double* calibration,
                                          int64_t channels,
                                          int64_t first_channel)
{
    const size_t bytes =
        (size_t)(plan->antennas * plan->coarse * plan->pols) * sizeof(double complex);
    double complex* cal;
    BLADE_TRY(blade_alloc_object(bytes, "phasor calibration", (void**)&cal));
    const blade_status status = select_calibration(plan, calibration, channels, first_channel, cal);
    if (status != BLADE_OK) {
        free(cal);
        return status;
    }
    free(plan->cal);
    plan->cal = cal;
    return BLADE_OK;
}

/* ---- delays ------------------------------------------------------------------ */

static blade_status geometry_delays(blade_phasor* plan, double unix_time, double dut1)
{
    const int64_t A = plan->antennas, B = plan->beams, n = B + 1;
    /* Direction 0 is the boresight, 1..B the beams. */
    double* ra = plan->directions;
    double* dec = ra + n;
    double* hour_angle = dec + n;
    double* observed_dec = hour_angle + n;
    ra[0] = plan->boresight_ra;
    dec[0] = plan->boresight_dec;
    memcpy(ra + 1, plan->beam_ra, (size_t)B * sizeof(double));
    memcpy(dec + 1, plan->beam_dec, (size_t)B * sizeof(double));
    double jd_day, jd_fraction;
    blade_unix_to_jd_split(unix_time, &jd_day, &jd_fraction);
    if (blade_observed_hadec(plan->longitude,
                             plan->latitude,
                             plan->altitude,
                             jd_day,
                             jd_fraction,
                             dut1,
                             n,
                             ra,
                             dec,
                             hour_angle,
                             observed_dec,
                             &plan->dubious_year) != BLADE_OK)
        return blade_fail_context(BLADE_ERROR_INVALID_ARGUMENT, "phasor");

    const double* ref = plan->xyz + 3 * plan->reference_antenna;
    const double ref_boresight =
        blade_projection_w(plan->longitude, hour_angle[0], observed_dec[0], ref);
    for (int64_t b = 0; b < B; b++) {
        const double h = hour_angle[b + 1], d = observed_dec[b + 1];
        const double ref_beam = blade_projection_w(plan->longitude, h, d, ref);
        for (int64_t a = 0; a < A; a++) {
            const double* x = plan->xyz + 3 * a;
            const double beam = blade_projection_w(plan->longitude, h, d, x) - ref_beam;
            const double boresight =
                plan->absolute_delays
                    ? 0.0
                    : blade_projection_w(plan->longitude, hour_angle[0], observed_dec[0], x) -
                          ref_boresight;
            /* Differences of W first, one division: the reference antenna gets an
             * exact zero. */
            plan->delays[b * A + a] = (beam - boresight) / BLADE_SPEED_OF_LIGHT;
        }
    }
    return BLADE_OK;
}

static blade_status table_delays(blade_phasor* plan, double t)
{
    /* Times converted from Julian dates carry ~40 us of rounding: tolerate 1 ms
     * at the table ends. */
    const double slack = 1e-3;
    const int64_t n = plan->table_times, count = plan->beams * plan->antennas;
    const double* times = plan->table_unix;
    if (!isfinite(t))
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT, "phasor: step time is not finite");

    double margin = slack;
    if (plan->mode == BLADE_DELAYS_TABLE_RATES) {
        margin = n == 1 ? INFINITY : slack;
        for (int64_t i = 1; i < n; i++)
            margin = fmax(margin, times[i] - times[i - 1]);
    }
    if (t < times[0] - margin || t > times[n - 1] + margin)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "phasor: step time %.3f (unix s) is outside the delay table's "
                          "%.3f .. %.3f%s",
                          t,
                          times[0],
                          times[n - 1],
                          plan->mode == BLADE_DELAYS_TABLE_RATES
                              ? " (rates extrapolate one row spacing at most)"
                              : "");

    if (plan->mode == BLADE_DELAYS_TABLE_LINEAR) {
        const double clamped = fmin(fmax(t, times[0]), times[n - 1]);
        int64_t i = 0;
        while (i < n - 2 && clamped > times[i + 1])
            i++;
        const double w = (clamped - times[i]) / (times[i + 1] - times[i]);
        const double* lo = plan->table_delays + i * count;
        const double* hi = lo + count;
        for (int64_t k = 0; k < count; k++)
            plan->delays[k] = lo[k] + w * (hi[k] - lo[k]);
    } else {
        int64_t nearest = 0;
        for (int64_t i = 1; i < n; i++)
            if (fabs(times[i] - t) < fabs(times[nearest] - t))
                nearest = i;
        const double dt = t - times[nearest];
        const double* delay = plan->table_delays + nearest * count;
        const double* rate = plan->table_rates + nearest * count;
        for (int64_t k = 0; k < count; k++)
            plan->delays[k] = delay[k] + rate[k] * dt;
    }
    return BLADE_OK;
}

static blade_status step_delays(blade_phasor* plan, double unix_time, double dut1)
{
    plan->dubious_year = false;
    if (plan->mode == BLADE_DELAYS_GEOMETRY)
        return geometry_delays(plan, unix_time, dut1);
    return table_delays(plan, unix_time);
}

blade_status blade_phasor_delays(blade_phasor* plan, double unix_time, double dut1, double* delays)
{
    BLADE_TRY(step_delays(plan, unix_time, dut1));
    memcpy(delays, plan->delays, (size_t)(plan->beams * plan->antennas) * sizeof(double));
    return BLADE_OK;
}

/* ---- phasors ----------------------------------------------------------------- */

/* exp(-2 pi i x) with x reduced to [-0.5, 0.5] cycles first, so that large
 * delay x frequency products keep their fractional part exactly. */
static double complex turn(double cycles)
{
    const double fraction = cycles - nearbyint(cycles);
    const double angle = -2.0 * BLADE_PI * fraction;
    return cos(angle) + I * sin(angle);
}

static int synthesis_threads(void)
{
    const int threads = blade_cpu_threads();
    return threads < SYNTHESIS_THREADS ? threads : SYNTHESIS_THREADS;
}

/* Anchors between exact ones are reached by rotation, as the channels between anchors
 * are: one sine and cosine per EXACT_ANCHOR anchors. Mode B x1024 at the ATA node has
 * 48 384 anchors per chunk: 0.66 ms of sines and cosines on one core of the H200's
 * host, in the phasor block's path every chunk; the rotations add at most
 * EXACT_ANCHOR roundings (~2e-15) to the anchors' phases. */
#define EXACT_ANCHOR 16

/* The host's part of the synthesis: the phase of every PHASOR_ANCHOR-th channel (exact
 * at every EXACT_ANCHOR-th of those) and one channel's rotation, per (beam, antenna)
 * pair. */
static void phasor_seeds(const blade_phasor* plan, phasor_complex* anchors, phasor_complex* steps)
{
    const int64_t pairs = plan->beams * plan->antennas, F = plan->fine;
    const int64_t count = phasor_anchor_count(F);
    const double first = blade_observation_frequency(&plan->observation, 0);
    const double spacing = plan->observation.chan_bw;
    /* A lower-sideband band (CHAN_BW < 0) is recorded as the mirror image of the sky:
     * its complex voltages are the conjugates of the sky signal's, geometric phase
     * included, so the phase that undoes a delay turns the other way. (The
     * calibration was measured on the voltages as recorded: it stays as it is.) */
    const double sense = plan->observation.chan_bw < 0 ? -1.0 : 1.0;
#pragma omp parallel for num_threads(synthesis_threads()) schedule(static) if (pairs * count > 4096)
    for (int64_t pair = 0; pair < pairs; pair++) {
        const double delay = sense * plan->delays[pair];
        const double complex step = turn(delay * spacing);
        steps[pair].re = creal(step);
        steps[pair].im = cimag(step);
        const double complex jump = turn(delay * (double)PHASOR_ANCHOR * spacing);
        const phasor_complex jump_pair = { creal(jump), cimag(jump) };
        for (int64_t m = 0; m < count; m++) {
            phasor_complex* anchor = &anchors[pair * count + m];
            if (m % EXACT_ANCHOR == 0) {
                const double complex exact =
                    turn(delay * (first + (double)(m * PHASOR_ANCHOR) * spacing));
                anchor->re = creal(exact);
                anchor->im = cimag(exact);
            } else {
                *anchor = phasor_multiply(anchor[-1], jump_pair);
            }
        }
    }
}

static void synthesize(const blade_phasor* plan, float* out)
{
    const int64_t B = plan->beams, A = plan->antennas, C = plan->coarse;
    const int64_t F = plan->fine, P = plan->pols;
    const int64_t count = phasor_anchor_count(F);
    phasor_complex* anchors = plan->seeds;
    phasor_complex* steps = anchors + B * A * count;
    phasor_seeds(plan, anchors, steps);
    const phasor_complex* cal = (const phasor_complex*)plan->cal;

#pragma omp parallel for num_threads(synthesis_threads()) \
    schedule(static) if (B * A * F * P > 65536)
    for (int64_t pair = 0; pair < B * A; pair++) {
        const int64_t a = pair % A;
        float* row = out + 2 * pair * F * P;
        for (int64_t m = 0; m < count; m++) {
            const int64_t first = m * PHASOR_ANCHOR;
            const int64_t end = first + PHASOR_ANCHOR < F ? first + PHASOR_ANCHOR : F;
            phasor_expand(anchors[pair * count + m],
                          steps[pair],
                          cal + a * C * P,
                          plan->rate,
                          P,
                          first,
                          end,
                          row);
        }
    }
}

blade_status blade_phasor_compute(blade_phasor* plan,
                                  double unix_time,
                                  double dut1,
                                  double* delays,
                                  blade_tensor* phasors,
                                  blade_stream stream)
{
    if (phasors != NULL) {
        BLADE_TRY(blade_check_tensor("phasor", "output", phasors, BLADE_CF32, &plan->shape));
        if (!blade_device_equal(phasors->device, plan->device)) {
            char given[32], expected[32];
            return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                              "phasor: output tensor is on %s, the plan on %s",
                              blade_device_format(phasors->device, given, sizeof given),
                              blade_device_format(plan->device, expected, sizeof expected));
        }
    }
    BLADE_TRY(step_delays(plan, unix_time, dut1));
    if (delays != NULL)
        memcpy(delays, plan->delays, (size_t)(plan->beams * plan->antennas) * sizeof(double));
    if (phasors == NULL)
        return BLADE_OK;

    if (!blade_device_is_gpu_like(plan->device)) {
        synthesize(plan, phasors->data);
        return BLADE_OK;
    }
    if (plan->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        /* The host takes the sines and cosines (a few per PHASOR_ANCHOR channels), the
         * device expands them: a chunk's phasors (700 MB for 8 beams × 28 antennas ×
         * 196 608 channels) never cross PCIe. */
        if (plan->upload_pending) {
            BLADE_TRY(blade_stream_synchronize(plan->device, plan->upload_stream));
            plan->upload_pending = false;
        }
        const int64_t pairs = plan->beams * plan->antennas;
        const int64_t count = phasor_anchor_count(plan->fine);
        const int64_t cal_values = plan->antennas * plan->coarse * plan->pols;
        phasor_seeds(plan, plan->seeds, plan->seeds + pairs * count);
        memcpy(plan->seeds + pairs * count + pairs,
               plan->cal,
               (size_t)cal_values * sizeof(phasor_complex));
        /* Not a DMA copy: those wait behind every upload queued before them (a chunk
         * of voltages takes milliseconds), and the beamformer waits for its phasors. */
        BLADE_TRY(blade_upload_small(
            plan->device, plan->device_seeds, plan->seeds, seed_bytes(plan), stream));
        BLADE_TRY(blade_cuda_phasor_expand(plan->device_seeds,
                                           plan->beams,
                                           plan->antennas,
                                           plan->coarse,
                                           plan->rate,
                                           plan->fine,
                                           plan->pols,
                                           phasors->data,
                                           stream));
        plan->upload_pending = true;
        plan->upload_stream = stream;
        return BLADE_OK;
#endif
    }
    /* The previous upload may still be reading the staging memory. */
    if (plan->upload_pending) {
        BLADE_TRY(blade_stream_synchronize(plan->device, plan->upload_stream));
        plan->upload_pending = false;
    }
    synthesize(plan, plan->staging);
    /* Not a DMA copy: those wait behind every upload queued before them (a chunk of
     * voltages takes milliseconds), and the beamformer waits for its phasors. */
    BLADE_TRY(blade_upload_small(plan->device,
                                 phasors->data,
                                 plan->staging,
                                 blade_tensor_bytes(BLADE_CF32, &plan->shape),
                                 stream));
    plan->upload_pending = true;
    plan->upload_stream = stream;
    return BLADE_OK;
}
