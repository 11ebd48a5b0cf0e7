/* SPDX-License-Identifier: MIT */
/*
 * blade-module-bench: module timings as fractions of the device's limits.
 *
 *   blade-module-bench [--device cuda:0|cpu] [--module NAME]... [--case LABEL]...
 *                      [--repeat N] [--quick] [--threads N] [--json FILE]
 *
 * --module keeps the cases of the modules named, --case the cases whose label (as
 * --list prints it) is one of those given; both filters apply when both are given.
 *
 * Every case is warmed up, then timed --repeat times with device events (3 times
 * with the host clock on the CPU); the median is reported. On a GPU the
 * memory-bandwidth limit is a device-to-device copy timed in the same run (bytes
 * read + bytes written), the compute limit the GPU's nominal FP32 peak. On the CPU
 * both are measured in the same run with the threads the modules use (--threads,
 * default every core): the better of a STREAM copy and triad, read-only, write-only
 * and widening passes, and an FMA loop (cpu_limits.c). A CPU case that reads more
 * than it writes (or writes more than it reads) is held to the rate at its own mix,
 * interpolated between the passes whose mixes surround it (rate_at_mix).
 *
 * Where OpenBLAS picked kernels narrower than the CPU as the program loaded, it starts
 * again once with OPENBLAS_CORETYPE set (blade_cpu_blas_better_core), so that the CPU
 * beamformer and correlator are timed with the kernels a user gets from gnuradio.blade;
 * an OPENBLAS_CORETYPE already set is left as it is.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "cpu_limits.h"

#include <blade/cpu_threads.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const bench_register_fn registries[] = {
    bench_register_cast,        bench_register_beamformer, bench_register_polarizer,
    bench_register_detector,    bench_register_correlator, bench_register_gather,
    bench_register_channelizer, bench_register_duplicate,  bench_register_permutation,
    bench_register_dedoppler,
};

void bench_add(bench_case** cases, int* count, const bench_case* one)
{
    bench_case* grown = realloc(*cases, (size_t)(*count + 1) * sizeof **cases);
    if (grown == NULL) {
        fprintf(stderr, "blade-module-bench: out of memory\n");
        exit(1);
    }
    *cases = grown;
    (*cases)[(*count)++] = *one;
}

/* Upload `bytes` of host memory to new device memory. */
static blade_status upload_new(blade_device device, const void* host, size_t bytes, void** out)
{
    blade_status status = blade_device_alloc(device, bytes, out);
    if (status == BLADE_OK)
        status = blade_memcpy(device,
                              *out,
                              host,
                              bytes,
                              device.kind == BLADE_DEVICE_CUDA ? BLADE_COPY_HOST_TO_DEVICE
                                                               : BLADE_COPY_HOST_TO_HOST,
                              NULL);
    if (status == BLADE_OK)
        status = blade_stream_synchronize(device, NULL);
    return status;
}

blade_status bench_random_device(blade_device device, size_t bytes, unsigned seed, void** out)
{
    *out = NULL;
    unsigned char* host = malloc(bytes ? bytes : 1);
    if (host == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    unsigned state = seed * 2654435761u + 1;
    for (size_t i = 0; i < bytes; i++) {
        state = state * 1664525u + 1013904223u;
        host[i] = (unsigned char)(state >> 24);
    }
    const blade_status status = upload_new(device, host, bytes, out);
    free(host);
    return status;
}

blade_status
bench_random_floats(blade_device device, size_t count, float scale, unsigned seed, void** out)
{
    *out = NULL;
    float* host = malloc((count ? count : 1) * sizeof *host);
    if (host == NULL)
        return BLADE_ERROR_OUT_OF_MEMORY;
    unsigned state = seed * 2654435761u + 1;
    for (size_t i = 0; i < count; i++) {
        state = state * 1664525u + 1013904223u;
        host[i] = scale * ((float)(state >> 8) / 8388608.0f - 1.0f);
    }
    const blade_status status = upload_new(device, host, count * sizeof *host, out);
    free(host);
    return status;
}

static int compare_doubles(const void* a, const void* b)
{
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Reads a buffer twice the size of the last level cache the system reports, and at
 * least 192 MiB, so that a CPU case starts with none of its data cached: its figure is
 * then one of memory, as its bound is (a case of 50 MB, half of it still in a 32 MiB
 * cache from the run before, measured 107 % of the bound; a gather step of 63 MB
 * measured 106-116 % with the former fixed 192 MiB on a VM reporting a 300 MiB L3).
 * Ordinary loads, one per line: a memset would stream past the cache and evict
 * nothing. */
static void evict_caches(void)
{
    static unsigned char* buffer;
    static size_t evict_bytes = (size_t)192 << 20;
    if (buffer == NULL) {
#ifdef _SC_LEVEL3_CACHE_SIZE
        const long last_level = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (last_level > 0 && 2 * (size_t)last_level > evict_bytes)
            evict_bytes = 2 * (size_t)last_level;
#endif
        buffer = malloc(evict_bytes);
        if (buffer == NULL)
            return;
        memset(buffer, 1, evict_bytes);
    }
    unsigned sum = 0;
    for (size_t i = 0; i < evict_bytes; i += 64)
        sum += buffer[i];
    volatile unsigned sink = sum; /* keeps the loads */
    (void)sink;
}

/* Median milliseconds of `repeat` timed calls of `one`, after `warmup` untimed ones
 * (on the CPU each from caches emptied by evict_caches). */
static blade_status time_case(bench_case* one,
                              blade_device device,
                              blade_stream stream,
                              int warmup,
                              int repeat,
                              double* median_ms)
{
    blade_event *start = NULL, *stop = NULL;
    double* times = calloc((size_t)repeat, sizeof *times);
    blade_status status = times ? BLADE_OK : BLADE_ERROR_OUT_OF_MEMORY;
    if (status == BLADE_OK)
        status = blade_event_create(device, &start);
    if (status == BLADE_OK)
        status = blade_event_create(device, &stop);
    for (int i = 0; i < warmup && status == BLADE_OK; i++)
        status = one->run(one, stream);
    if (status == BLADE_OK)
        status = blade_stream_synchronize(device, stream);
    for (int i = 0; i < repeat && status == BLADE_OK; i++) {
        if (device.kind == BLADE_DEVICE_CPU)
            evict_caches();
        status = blade_event_record(start, stream);
        if (status == BLADE_OK)
            status = one->run(one, stream);
        if (status == BLADE_OK)
            status = blade_event_record(stop, stream);
        if (status == BLADE_OK)
            status = blade_event_elapsed_ms(start, stop, &times[i]);
    }
    if (status == BLADE_OK) {
        qsort(times, (size_t)repeat, sizeof *times, compare_doubles);
        *median_ms = times[repeat / 2];
    }
    blade_event_destroy(start);
    blade_event_destroy(stop);
    free(times);
    return status;
}

typedef struct copy_state {
    void *source, *destination;
    size_t bytes;
    blade_device device;
    blade_copy_kind kind;
} copy_state;

static blade_status copy_run(bench_case* self, blade_stream stream)
{
    copy_state* state = self->state;
    return blade_memcpy(
        state->device, state->destination, state->source, state->bytes, state->kind, stream);
}

/* Bytes/s of pinned host -> device copies (the PCIe upload the bundles are bound
 * by), counting the bytes once. 0 on the CPU. */
static blade_status
measure_upload_bandwidth(blade_device device, blade_stream stream, int shrink, double* bandwidth)
{
    *bandwidth = 0;
    if (device.kind != BLADE_DEVICE_CUDA)
        return BLADE_OK;
    copy_state state = {
        NULL, NULL, ((size_t)1 << 30) / (size_t)shrink, device, BLADE_COPY_HOST_TO_DEVICE
    };
    bench_case copy = { 0 };
    copy.state = &state;
    copy.run = copy_run;
    blade_status status = blade_host_alloc(device, state.bytes, &state.source);
    if (status == BLADE_OK) {
        memset(state.source, 0x5a, state.bytes);
        status = blade_device_alloc(device, state.bytes, &state.destination);
    }
    double ms = 0;
    if (status == BLADE_OK)
        status = time_case(&copy, device, stream, 2, 10, &ms);
    *bandwidth = status == BLADE_OK ? (double)state.bytes / (ms * 1e-3) : 0;
    blade_host_free(device, state.source);
    blade_device_free(device, state.destination);
    return status;
}

/* Bytes/s of a large device-to-device copy, counting bytes read plus written. */
static blade_status
measure_copy_bandwidth(blade_device device, blade_stream stream, int shrink, double* bandwidth)
{
    copy_state state = { NULL,
                         NULL,
                         ((size_t)1 << 30) / (size_t)shrink,
                         device,
                         device.kind == BLADE_DEVICE_CUDA ? BLADE_COPY_DEVICE_TO_DEVICE
                                                          : BLADE_COPY_HOST_TO_HOST };
    if (device.kind != BLADE_DEVICE_CUDA)
        state.bytes /= 4;
    bench_case copy = { 0 };
    copy.state = &state;
    copy.run = copy_run;
    blade_status status = bench_random_device(device, state.bytes, 7, &state.source);
    if (status == BLADE_OK)
        status = blade_device_alloc(device, state.bytes, &state.destination);
    double ms = 0;
    if (status == BLADE_OK)
        status = time_case(&copy, device, stream, 2, 10, &ms);
    *bandwidth = status == BLADE_OK ? 2.0 * (double)state.bytes / (ms * 1e-3) : 0;
    blade_device_free(device, state.source);
    blade_device_free(device, state.destination);
    return status;
}

/* True when `name` is one of `names`, or when no names were given. */
static bool selected(const char* name, char** names, int count)
{
    if (count == 0)
        return true;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: blade-module-bench [--device auto|cpu|cuda:N] [--module NAME]... "
            "[--case LABEL]... [--repeat N] [--quick] [--threads N] [--json FILE] [--list] "
            "[--limits]\n");
}

/* A CPU's memory rates (bytes read plus written per second): `copy` the better of
 * STREAM copy and triad, `read` a read-only pass's, `write` a write-only pass's,
 * `widen` a pass that reads one byte per four written. Zero: not measured (a GPU). */
typedef struct memory_rates {
    double copy, read, write, widen;
} memory_rates;

static double better(double a, double b) { return a > b ? a : b; }

static memory_rates rates_of(const cpu_limits* cpu)
{
    return (memory_rates){ better(cpu->copy, cpu->triad), cpu->read, cpu->write, cpu->widen };
}

/* The CPU's memory rates measured now over 256 MiB, or zeros when they cannot be. */
static memory_rates memory_rates_now(const cpu_limits* cpu, int shrink)
{
    cpu_limits now = *cpu;
    if (cpu_limits_measure_memory(blade_cpu_threads(), (256LL << 20) / shrink, &now) != 0)
        return (memory_rates){ 0, 0, 0, 0 };
    return rates_of(&now);
}

static memory_rates better_rates(memory_rates a, memory_rates b)
{
    return (memory_rates){ better(a.copy, b.copy),
                           better(a.read, b.read),
                           better(a.write, b.write),
                           better(a.widen, b.widen) };
}

/* The memory rate at a case's mix of reads and writes (`written`: the share of its
 * bytes written): linear in that share between the measured passes whose shares
 * surround it, reads alone (0), copy (1/2), widen (4/5) and writes alone (1). A case
 * that writes as much as it reads is held to the copy; a detector, which writes 1/9
 * to 1/65 of its bytes, mostly to the read-only rate. The copy alone where the other
 * passes were not measured. */
static double rate_at_mix(memory_rates rates, double written)
{
    if (rates.read <= 0 || rates.write <= 0 || rates.widen <= 0)
        return rates.copy;
    const double share[4] = { 0, 0.5, 0.8, 1 };
    const double rate[4] = { rates.read, rates.copy, rates.widen, rates.write };
    int k = 0;
    while (k < 2 && written > share[k + 1])
        k++;
    const double t = (written - share[k]) / (share[k + 1] - share[k]);
    return rate[k] + t * (rate[k + 1] - rate[k]);
}

int main(int argc, char** argv)
{
    const char* better_core = blade_cpu_blas_better_core();
    if (better_core != NULL && getenv("OPENBLAS_CORETYPE") == NULL) {
        setenv("OPENBLAS_CORETYPE", better_core, 1);
        execv("/proc/self/exe", argv); /* returns only if it failed: go on as we are */
    }
    const char* device_name = "auto";
    const char* json_path = NULL;
    char *modules[32], *labels[64];
    int nmodules = 0, nlabels = 0, repeat = 20, shrink = 1, threads = 0;
    bool list = false, limits_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            device_name = argv[++i];
        else if (!strcmp(argv[i], "--module") && i + 1 < argc && nmodules < 32)
            modules[nmodules++] = argv[++i];
        else if (!strcmp(argv[i], "--case") && i + 1 < argc && nlabels < 64)
            labels[nlabels++] = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
        else if (!strcmp(argv[i], "--quick"))
            shrink = 64;
        else if (!strcmp(argv[i], "--list"))
            list = true;
        else if (!strcmp(argv[i], "--limits"))
            limits_only = true;
        else {
            usage();
            return 2;
        }
    }
    if (repeat < 1)
        repeat = 1;

    bench_case* cases = NULL;
    int ncases = 0;
    for (size_t r = 0; r < sizeof registries / sizeof registries[0]; r++)
        registries[r](&cases, &ncases);
    if (list) {
        for (int i = 0; i < ncases; i++)
            printf("%-12s %s\n", cases[i].module, cases[i].label);
        return 0;
    }

    blade_device device;
    if (blade_device_parse(device_name, &device) != BLADE_OK) {
        fprintf(stderr, "blade-module-bench: %s\n", blade_last_error());
        return 1;
    }
    char device_text[32], gpu_name[256] = "CPU";
    blade_device_format(device, device_text, sizeof device_text);
    double fp32_peak = 0;
    if (device.kind == BLADE_DEVICE_CUDA) {
        blade_gpu_info info;
        if (blade_gpu_info_get(device.index, &info) == BLADE_OK) {
            snprintf(gpu_name, sizeof gpu_name, "%s", info.name);
            fp32_peak = info.fp32_peak;
        }
    }
    /* Timed runs per case: --repeat on a GPU; 3 on the CPU, whose runs are long. */
    const int runs = device.kind == BLADE_DEVICE_CUDA ? repeat : 3;
    blade_stream stream = NULL;
    double bandwidth = 0, upload = 0;
    cpu_limits cpu = { 0 };
    if (device.kind == BLADE_DEVICE_CPU) {
        /* The modules' threads and the limits' threads are the same. */
        blade_cpu_threads_set(threads);
        if (cpu_limits_measure(blade_cpu_threads(), (256LL << 20) / shrink, &cpu) != 0) {
            fprintf(stderr, "blade-module-bench: no memory for the STREAM arrays\n");
            return 1;
        }
        bandwidth = rates_of(&cpu).copy;
        fp32_peak = cpu.fp32;
    }
    if (blade_stream_create(device, &stream) != BLADE_OK ||
        (device.kind != BLADE_DEVICE_CPU &&
         measure_copy_bandwidth(device, stream, shrink, &bandwidth) != BLADE_OK) ||
        measure_upload_bandwidth(device, stream, shrink, &upload) != BLADE_OK) {
        fprintf(stderr, "blade-module-bench: %s\n", blade_last_error());
        return 1;
    }
    /* The CPU's limits as JSON members (empty on a GPU). */
    char cpu_json[512] = "";
    if (device.kind == BLADE_DEVICE_CPU)
        snprintf(cpu_json,
                 sizeof cpu_json,
                 ", \"threads\": %d, \"stream_copy\": %.6g, \"stream_triad\": %.6g, "
                 "\"stream_read\": %.6g, \"stream_write\": %.6g, \"stream_widen\": %.6g, "
                 "\"fma_kind\": \"%s\", \"blas\": \"%s\"",
                 cpu.threads,
                 cpu.copy,
                 cpu.triad,
                 cpu.read,
                 cpu.write,
                 cpu.widen,
                 cpu.fma_kind,
                 blade_cpu_blas());
    if (limits_only) {
        /* The limits alone, as JSON, for blade-bench's flowgraph suites. */
        printf("{\"device\": \"%s\", \"device_name\": \"%s\", \"copy_bandwidth\": %.6g, "
               "\"upload_bandwidth\": %.6g, \"fp32_peak\": %.6g%s}\n",
               device_text,
               gpu_name,
               bandwidth,
               upload,
               fp32_peak,
               cpu_json);
        return 0;
    }
    printf("gr-blade %s (%s) on %s (%s)%s\n",
           blade_version(),
           blade_build_commit(),
           device_text,
           gpu_name,
           shrink > 1 ? ", quick shapes (T / 64)" : "");
    if (device.kind == BLADE_DEVICE_CPU) {
        printf("%d thread(s); memory bound (read + write): %.1f GB/s (STREAM copy %.1f, triad "
               "%.1f), reads alone %.1f, writes alone %.1f, 1:4 widening %.1f; FP32 peak: %.1f "
               "GFLOP/s (%s FMA loop); BLAS: %s\n",
               cpu.threads,
               bandwidth / 1e9,
               cpu.copy / 1e9,
               cpu.triad / 1e9,
               cpu.read / 1e9,
               cpu.write / 1e9,
               cpu.widen / 1e9,
               fp32_peak / 1e9,
               cpu.fma_kind,
               blade_cpu_blas());
        printf("median of %d runs after warm-up, each from emptied caches; a memory-bound case's "
               "fraction is of the better of the bounds measured right before and after it (the "
               "rate at its mix of reads and writes)\n\n",
               runs);
    } else {
        printf("copy bandwidth (read + write): %.1f GB/s", bandwidth / 1e9);
        if (upload > 0)
            printf("; pinned upload: %.1f GB/s", upload / 1e9);
        if (fp32_peak > 0)
            printf("; FP32 peak: %.1f TFLOP/s", fp32_peak / 1e12);
        printf("; median of %d runs after warm-up\n\n", runs);
    }
    printf("%-12s %-40s %10s %11s %10s %8s %10s %10s\n",
           "module",
           "case",
           "time ms",
           "Gsamples/s",
           "GB/s",
           "of bound",
           "upstream",
           "target");

    FILE* json = json_path ? fopen(json_path, "w") : NULL;
    if (json_path && json == NULL) {
        fprintf(stderr, "blade-module-bench: cannot write %s\n", json_path);
        return 1;
    }
    if (json)
        fprintf(json,
                "{\"device\": \"%s\", \"device_name\": \"%s\", \"version\": \"%s\", \"commit\": "
                "\"%s\", "
                "\"copy_bandwidth\": %.6g, \"upload_bandwidth\": %.6g, \"fp32_peak\": %.6g, "
                "\"quick\": %s, "
                "\"repeat\": %d%s, \"cases\": [",
                device_text,
                gpu_name,
                blade_version(),
                blade_build_commit(),
                bandwidth,
                upload,
                fp32_peak,
                shrink > 1 ? "true" : "false",
                runs,
                cpu_json);

    int failures = 0, written = 0;
    for (int i = 0; i < ncases; i++) {
        bench_case* one = &cases[i];
        if (!selected(one->module, modules, nmodules) || !selected(one->label, labels, nlabels))
            continue;
        double ms = 0;
        blade_status status = one->setup(one, device, stream, shrink);
        if (status == BLADE_OK && one->skipped != NULL) {
            one->teardown(one, device);
            printf("%-12s %-40s skipped: %s\n", one->module, one->label, one->skipped);
            continue;
        }
        /* On the CPU the bound is whichever measured limit the case would take longer
         * under (its roofline); the cases' own choice is made at the H200's rates,
         * whose ratio of FLOP/s to bytes/s is twice a CPU's. */
        if (device.kind == BLADE_DEVICE_CPU && one->flops > 0 && fp32_peak > 0)
            one->bound =
                one->flops / fp32_peak > one->bytes / bandwidth ? BENCH_FP32 : BENCH_MEMORY;
        /* A memory-bound CPU case against the bandwidth measured right before and right
         * after it, the better of the two: a VM's moved between 40 and 81 GB/s from one
         * minute to the next on the CI machine, so the run's first figure could be a
         * moment other than the case's, and one measurement beside it a slow moment
         * (a case once measured 104 % of the bandwidth taken after it alone). */
        const bool memory_case =
            status == BLADE_OK && device.kind == BLADE_DEVICE_CPU && one->bound == BENCH_MEMORY;
        memory_rates case_rates =
            memory_case ? memory_rates_now(&cpu, shrink) : (memory_rates){ 0, 0, 0, 0 };
        if (status == BLADE_OK)
            status = time_case(one, device, stream, 3, runs, &ms);
        if (memory_case && status == BLADE_OK)
            case_rates = better_rates(case_rates, memory_rates_now(&cpu, shrink));
        if (case_rates.copy <= 0) /* a GPU (its copy rate alone), or no memory to measure */
            case_rates = device.kind == BLADE_DEVICE_CPU ? rates_of(&cpu)
                                                         : (memory_rates){ bandwidth, 0, 0, 0 };
        const double case_bandwidth =
            rate_at_mix(case_rates, one->written > 0 ? one->written / one->bytes : 0.5);
        one->teardown(one, device);
        if (status != BLADE_OK) {
            printf("%-12s %-40s failed: %s\n", one->module, one->label, blade_last_error());
            failures++;
            continue;
        }
        /* performance.md's upstream and target times are for the H200 at full size */
        const bool h200_reference = device.kind == BLADE_DEVICE_CUDA && shrink == 1;
        const double seconds = ms * 1e-3;
        const double rate = one->bytes / seconds;
        double fraction = 0;
        if (one->bound == BENCH_MEMORY)
            fraction = rate / case_bandwidth;
        else if (one->bound == BENCH_FP32 && fp32_peak > 0)
            fraction = one->flops / seconds / fp32_peak;
        else if (one->bound == BENCH_TENSOR && one->tensor_peak > 0 &&
                 device.kind == BLADE_DEVICE_CUDA)
            fraction = one->flops / seconds / one->tensor_peak;
        char upstream[32] = "", target[32] = "";
        if (one->upstream_ms > 0 && h200_reference)
            snprintf(
                upstream, sizeof upstream, "%.3f x%.2f", one->upstream_ms, one->upstream_ms / ms);
        if (one->target_ms > 0 && h200_reference)
            snprintf(target,
                     sizeof target,
                     "%.3f %s",
                     one->target_ms,
                     ms <= one->target_ms ? "met" : "MISSED");
        char beside[48] = "";
        if (device.kind == BLADE_DEVICE_CPU && one->bound == BENCH_MEMORY)
            snprintf(beside, sizeof beside, " of %.1f GB/s", case_bandwidth / 1e9);
        printf("%-12s %-40s %10.4f %11.2f %10.1f %7.1f%% %10s %10s%s\n",
               one->module,
               one->label,
               ms,
               one->samples / seconds / 1e9,
               rate / 1e9,
               100 * fraction,
               upstream,
               target,
               beside);
        if (one->macs > 0 && one->macs / seconds >= 1e11)
            printf("%-12s %-40s %10s %.3f T complex MAC/s (%.1f TFLOP/s)\n",
                   "",
                   "",
                   "",
                   one->macs / seconds / 1e12,
                   one->flops / seconds / 1e12);
        else if (one->macs > 0) /* a CPU: T would print as 0.001 */
            printf("%-12s %-40s %10s %.3f G complex MAC/s (%.2f GFLOP/s)\n",
                   "",
                   "",
                   "",
                   one->macs / seconds / 1e9,
                   one->flops / seconds / 1e9);
        if (one->duration_s > 0)
            printf("%-12s %-40s %10s %.3gx real time", "", "", "", one->duration_s / seconds);
        if (one->duration_s > 0 && one->tensor_peak > 0 && device.kind == BLADE_DEVICE_CUDA)
            printf("; %.1f %% of the FP32 peak, %.1f %% of the tensor-core peak (%.0f TFLOP/s)",
                   100 * one->flops / seconds / (fp32_peak > 0 ? fp32_peak : 67e12),
                   100 * one->flops / seconds / one->tensor_peak,
                   one->tensor_peak / 1e12);
        if (one->duration_s > 0)
            printf("\n");
        if (one->note[0])
            printf("%-12s %-40s %10s %s\n", "", "", "", one->note);
        if (json)
            fprintf(
                json,
                "%s\n  {\"module\": \"%s\", \"case\": \"%s\", \"time_ms\": %.6g, "
                "\"samples_per_s\": %.6g, "
                "\"bytes\": %.6g, \"bytes_per_s\": %.6g, \"flops\": %.6g, \"macs_per_s\": %.6g, "
                "\"bound\": \"%s\", \"fraction_of_bound\": %.6g, \"upstream_ms\": %.6g, "
                "\"target_ms\": %.6g, "
                "\"realtime\": %.6g, \"memory_bound\": %.6g}",
                written++ ? "," : "",
                one->module,
                one->label,
                ms,
                one->samples / seconds,
                one->bytes,
                rate,
                one->flops,
                one->macs / seconds,
                one->bound == BENCH_MEMORY ? "memory"
                                           : (one->bound == BENCH_FP32 ? "fp32" : "tensor"),
                fraction,
                h200_reference ? one->upstream_ms : 0.0,
                h200_reference ? one->target_ms : 0.0,
                one->duration_s > 0 ? one->duration_s / seconds : 0.0,
                case_bandwidth);
    }
    if (json) {
        fprintf(json, "\n]}\n");
        fclose(json);
    }
    blade_stream_destroy(device, stream);
    free(cases);
    return failures ? 1 : 0;
}
