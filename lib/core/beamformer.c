/* SPDX-License-Identifier: MIT */
/*
 * Beamformer plan: validation of types and shapes at creation (every misfit of the
 * phasors is named by axis), the path decision, the device workspace, and dispatch
 * to the CPU or CUDA backend.
 */
#include "beamformer_backend.h"
#include "cuda_backend.h"
#include "internal.h"

#include <blade/memory.h>
#include <blade/modules/beamformer.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct blade_beamformer {
    blade_beamformer_config config;
    blade_shape input_shape;  /* [A, F, T, P] */
    blade_shape phasor_shape; /* [B, A, F, 1, P] or [B, A] */
    blade_shape output_shape; /* [B (+1), F, T, P] */
    blade_device device;
    blade_beamformer_path path;     /* resolved */
    blade_beamformer_kernel kernel; /* resolved (DEFAULT off the GPU) */
    void* workspace;                /* device memory (tensor-core paths) */
    size_t workspace_bytes;
};

static const char* const path_names[BLADE_BEAMFORMER_PATH_COUNT] = {
    "auto", "fp32", "tf32", "tf32x3", "fp16"
};

static const char* const kernel_names[BLADE_BEAMFORMER_KERNEL_COUNT] = {
    "default", "direct", "staged1", "staged2", "tensor"
};

/* The kernels `default` runs on a GPU, per kind of path, from the H200 benchmark
 * (docs/blocks/beamformer.md, "Kernels"): staged2 was the fastest CUDA-core kernel
 * at every benchmark shape, from (B, A) = (1, 20) (on par with staged1, 1.2x direct)
 * to (64, 64) (5.3x direct). */
static const blade_beamformer_kernel default_cuda_core_kernel = BLADE_BEAMFORMER_KERNEL_STAGED2;
static const blade_beamformer_kernel default_tensor_kernel = BLADE_BEAMFORMER_KERNEL_TENSOR;

/* Auto picks the tensor cores only where the FP32 kernel is compute bound and a
 * time tile of the matrix product is well filled (see docs/blocks/beamformer.md). */
enum { AUTO_TENSOR_MIN_ANTENNAS = 32, AUTO_TENSOR_MIN_BEAMS = 32, AUTO_TENSOR_MIN_TIMES = 64 };

blade_beamformer_config blade_beamformer_config_default(void)
{
    blade_beamformer_config config = {
        BLADE_CF32, BLADE_CF32, false, false, BLADE_BEAMFORMER_AUTO, BLADE_BEAMFORMER_KERNEL_DEFAULT
    };
    return config;
}

const char* blade_beamformer_path_name(blade_beamformer_path path)
{
    if ((int)path < 0 || path >= BLADE_BEAMFORMER_PATH_COUNT)
        return "unknown";
    return path_names[path];
}

/* Index of `name` (case-insensitive) in names[0 .. count), or -1. */
static int find_name(const char* const* names, int count, const char* name)
{
    for (int i = 0; name != NULL && i < count; i++)
        if (strcasecmp(name, names[i]) == 0)
            return i;
    return -1;
}

blade_status blade_beamformer_path_parse(const char* name, blade_beamformer_path* path)
{
    const int found = find_name(path_names, BLADE_BEAMFORMER_PATH_COUNT, name);
    if (found >= 0) {
        *path = (blade_beamformer_path)found;
        return BLADE_OK;
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "beamformer: unknown path '%s' (expected auto, fp32, tf32, tf32x3 or fp16)",
                      name ? name : "(null)");
}

const char* blade_beamformer_kernel_name(blade_beamformer_kernel kernel)
{
    if ((int)kernel < 0 || kernel >= BLADE_BEAMFORMER_KERNEL_COUNT)
        return "unknown";
    return kernel_names[kernel];
}

blade_status blade_beamformer_kernel_parse(const char* name, blade_beamformer_kernel* kernel)
{
    const int found = find_name(kernel_names, BLADE_BEAMFORMER_KERNEL_COUNT, name);
    if (found >= 0) {
        *kernel = (blade_beamformer_kernel)found;
        return BLADE_OK;
    }
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "beamformer: unknown kernel '%s' (expected default, direct, staged1, staged2 "
                      "or tensor)",
                      name ? name : "(null)");
}

static bool path_uses_tensor_cores(blade_beamformer_path path)
{
    return path == BLADE_BEAMFORMER_TF32 || path == BLADE_BEAMFORMER_TF32X3 ||
           path == BLADE_BEAMFORMER_FP16;
}

static bool kernel_uses_tensor_cores(blade_beamformer_kernel kernel)
{
    return kernel == BLADE_BEAMFORMER_KERNEL_TENSOR;
}

/* An explicit kernel must compute the explicit path (auto adapts to the kernel). */
static blade_status check_kernel(const blade_beamformer_config* config)
{
    if ((int)config->kernel < 0 || config->kernel >= BLADE_BEAMFORMER_KERNEL_COUNT)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: unknown kernel code %d (expected default, direct, staged1, "
                          "staged2 or tensor)",
                          (int)config->kernel);
    if (config->kernel == BLADE_BEAMFORMER_KERNEL_DEFAULT || config->path == BLADE_BEAMFORMER_AUTO)
        return BLADE_OK;
    if (kernel_uses_tensor_cores(config->kernel) != path_uses_tensor_cores(config->path))
        return blade_fail(
            BLADE_ERROR_INVALID_ARGUMENT,
            "beamformer: kernel %s runs on %s, path %s on %s (CUDA-core kernels: "
            "direct, staged1, staged2 for fp32; tensor-core kernels: tensor for tf32, "
            "tf32x3 and fp16)",
            blade_beamformer_kernel_name(config->kernel),
            kernel_uses_tensor_cores(config->kernel) ? "tensor cores" : "CUDA cores",
            blade_beamformer_path_name(config->path),
            path_uses_tensor_cores(config->path) ? "tensor cores" : "CUDA cores");
    return BLADE_OK;
}

static blade_status check_types(const blade_beamformer_config* config)
{
    if (config->input_type != BLADE_CF32 && config->input_type != BLADE_CF16 &&
        config->input_type != BLADE_CI8)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: voltages must be cf32, cf16 or ci8 (cf16 and ci8 are "
                          "converted while loading), given %s; cast other types to cf32 first",
                          blade_dtype_name(config->input_type));
    if (config->output_type != BLADE_CF32 && config->output_type != BLADE_CF16)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: beams are written as cf32 or cf16, given %s",
                          blade_dtype_name(config->output_type));
    if ((int)config->path < 0 || config->path >= BLADE_BEAMFORMER_PATH_COUNT)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: unknown path code %d (expected auto, fp32, tf32, tf32x3 "
                          "or fp16)",
                          (int)config->path);
    BLADE_TRY(check_kernel(config));
    if (config->incoherent_sqrt && !config->incoherent)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: incoherent_sqrt asks for the square root of an "
                          "incoherent beam that is not enabled (set incoherent too)");
    return BLADE_OK;
}

static blade_status check_input_shape(const blade_shape* input)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(input, "beamformer voltages"));
    if (input->rank != 4)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: voltages must be [A, F, T, P] (rank 4), given %s "
                          "(rank %d)",
                          blade_shape_format(input, text, sizeof text),
                          input->rank);
    if (input->dims[3] != 1 && input->dims[3] != 2)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: P (polarizations, axis 3 of the voltages %s) must be 1 "
                          "or 2, given %lld",
                          blade_shape_format(input, text, sizeof text),
                          (long long)input->dims[3]);
    return BLADE_OK;
}

/* One axis of the phasors against the value the voltages imply. */
static blade_status check_phasor_axis(const blade_shape* phasors,
                                      const blade_shape* input,
                                      int axis,
                                      const char* name,
                                      int64_t expected)
{
    if (phasors->dims[axis] == expected)
        return BLADE_OK;
    char given_text[128], input_text[128];
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "beamformer: phasors %s do not fit the voltages %s: %s (axis %d) is "
                      "%lld, expected %lld",
                      blade_shape_format(phasors, given_text, sizeof given_text),
                      blade_shape_format(input, input_text, sizeof input_text),
                      name,
                      axis,
                      (long long)phasors->dims[axis],
                      (long long)expected);
}

static blade_status check_phasor_shape(const blade_shape* phasors, const blade_shape* input)
{
    char text[128];
    BLADE_TRY(blade_shape_validate(phasors, "beamformer phasors"));
    const int64_t A = input->dims[0], F = input->dims[1], P = input->dims[3];
    if (phasors->rank == 5) {
        BLADE_TRY(check_phasor_axis(phasors, input, 1, "A (antennas)", A));
        BLADE_TRY(check_phasor_axis(phasors, input, 2, "F (channels)", F));
        BLADE_TRY(check_phasor_axis(phasors, input, 3, "the time axis (one phasor per chunk)", 1));
        BLADE_TRY(check_phasor_axis(phasors, input, 4, "P (polarizations)", P));
        return BLADE_OK;
    }
    if (phasors->rank == 2)
        return check_phasor_axis(phasors, input, 1, "A (antennas)", A);
    return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                      "beamformer: phasors must be [B, A, F, 1, P] = [B, %lld, %lld, 1, %lld] "
                      "or, one weight per beam and antenna, [B, A] = [B, %lld]; given %s "
                      "(rank %d)",
                      (long long)A,
                      (long long)F,
                      (long long)P,
                      (long long)A,
                      blade_shape_format(phasors, text, sizeof text),
                      phasors->rank);
}

static blade_beamformer_path resolve_path(const blade_beamformer_config* config,
                                          const blade_shape* input,
                                          int64_t beams,
                                          blade_device device)
{
    if (device.kind != BLADE_DEVICE_CUDA) /* float32 sums for every path; fp16 emulated */
        return config->path == BLADE_BEAMFORMER_FP16 ? BLADE_BEAMFORMER_FP16
                                                     : BLADE_BEAMFORMER_FP32;
    if (config->path != BLADE_BEAMFORMER_AUTO)
        return config->path;
    if (config->kernel != BLADE_BEAMFORMER_KERNEL_DEFAULT) /* auto follows an explicit kernel */
        return kernel_uses_tensor_cores(config->kernel) ? BLADE_BEAMFORMER_TF32X3
                                                        : BLADE_BEAMFORMER_FP32;
    const bool large = input->dims[0] >= AUTO_TENSOR_MIN_ANTENNAS &&
                       beams >= AUTO_TENSOR_MIN_BEAMS && input->dims[2] >= AUTO_TENSOR_MIN_TIMES;
    blade_gpu_info info;
    if (!large || blade_gpu_info_get(device.index, &info) != BLADE_OK || info.compute_major < 8)
        return BLADE_BEAMFORMER_FP32; /* tensor cores with TF32 need Ampere or newer */
    return BLADE_BEAMFORMER_TF32X3;
}

static blade_beamformer_kernel resolve_kernel(const blade_beamformer_config* config,
                                              blade_beamformer_path path,
                                              blade_device device)
{
    if (device.kind != BLADE_DEVICE_CUDA)
        return BLADE_BEAMFORMER_KERNEL_DEFAULT; /* no GPU kernel */
    if (config->kernel != BLADE_BEAMFORMER_KERNEL_DEFAULT)
        return config->kernel;
    return path_uses_tensor_cores(path) ? default_tensor_kernel : default_cuda_core_kernel;
}

/* The job of a plan, without tensors. */
static blade_beamformer_job plan_job(const blade_beamformer* plan)
{
    blade_beamformer_job job;
    memset(&job, 0, sizeof job);
    const int64_t A = plan->input_shape.dims[0], F = plan->input_shape.dims[1];
    const int64_t P = plan->input_shape.dims[3];
    job.input_type = plan->config.input_type;
    job.output_type = plan->config.output_type;
    job.antennas = A;
    job.channels = F;
    job.times = plan->input_shape.dims[2];
    job.pols = P;
    job.beams = plan->phasor_shape.dims[0];
    if (plan->phasor_shape.rank == 5) {
        job.stride_beam = A * F * P;
        job.stride_antenna = F * P;
        job.stride_channel = P;
        job.stride_pol = 1;
    } else {
        job.stride_beam = A;
        job.stride_antenna = 1;
        job.stride_channel = 0;
        job.stride_pol = 0;
    }
    job.incoherent = plan->config.incoherent;
    job.incoherent_sqrt = plan->config.incoherent_sqrt;
    job.path = plan->path;
    job.kernel = plan->kernel;
    job.workspace = plan->workspace;
    job.workspace_bytes = plan->workspace_bytes;
    return job;
}

blade_status blade_beamformer_create(blade_beamformer** plan,
                                     const blade_beamformer_config* config,
                                     const blade_shape* input_shape,
                                     const blade_shape* phasor_shape,
                                     blade_device device)
{
    *plan = NULL;
    if (config == NULL || input_shape == NULL || phasor_shape == NULL)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: configuration, voltage shape and phasor shape are all "
                          "required");
    BLADE_TRY(check_types(config));
    BLADE_TRY(check_input_shape(input_shape));
    BLADE_TRY(check_phasor_shape(phasor_shape, input_shape));
    const int64_t beams = phasor_shape->dims[0];
    const int64_t aspects = beams + (config->incoherent ? 1 : 0);
    if (aspects > INT32_MAX || input_shape->dims[0] > INT32_MAX)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: at most %d beams and antennas, given B = %lld, A = %lld",
                          INT32_MAX,
                          (long long)beams,
                          (long long)input_shape->dims[0]);
    if (device.kind == BLADE_DEVICE_CUDA)
        BLADE_TRY(blade_device_activate(device));

    blade_beamformer* made = NULL;
    BLADE_TRY(blade_alloc_object(sizeof *made, "beamformer", (void**)&made));
    made->config = *config;
    made->input_shape = *input_shape;
    made->phasor_shape = *phasor_shape;
    made->output_shape =
        blade_shape_aftp(aspects, input_shape->dims[1], input_shape->dims[2], input_shape->dims[3]);
    made->device = device;
    made->path = resolve_path(config, input_shape, beams, device);
    made->kernel = resolve_kernel(config, made->path, device);
    if (device.kind == BLADE_DEVICE_CUDA && path_uses_tensor_cores(made->path)) {
        /* mma.sync with TF32 operands (m16n8k8) or f16 operands (m16n8k16) and cp.async
         * need Ampere (8.0) or newer. */
        blade_gpu_info info;
        const blade_status status = blade_gpu_info_get(device.index, &info);
        if (status != BLADE_OK) {
            free(made);
            return status;
        }
        if (info.compute_major < 8) {
            free(made);
            char text[32];
            return blade_fail(
                BLADE_ERROR_UNSUPPORTED,
                "beamformer: path %s uses tensor-core instructions (mma.sync with TF32 or "
                "f16 operands, cp.async) that need compute capability 8.0 or newer; %s is "
                "%d.%d (use path fp32 or auto)",
                blade_beamformer_path_name(made->path),
                blade_device_format(device, text, sizeof text),
                info.compute_major,
                info.compute_minor);
        }
    }

#ifdef BLADE_HAVE_CUDA
    if (device.kind == BLADE_DEVICE_CUDA) {
        const blade_beamformer_job job = plan_job(made);
        made->workspace_bytes = blade_cuda_beamformer_workspace(&job);
        if (made->workspace_bytes > 0) {
            const blade_status status =
                blade_device_alloc(device, made->workspace_bytes, &made->workspace);
            if (status != BLADE_OK) {
                const size_t bytes = made->workspace_bytes;
                free(made);
                return blade_fail_context(
                    status, "beamformer: tensor-core workspace of %zu bytes", bytes);
            }
        }
    }
#endif
    *plan = made;
    return BLADE_OK;
}

blade_shape blade_beamformer_output_shape(const blade_beamformer* plan)
{
    return plan->output_shape;
}

blade_shape blade_beamformer_phasor_shape(const blade_beamformer* plan)
{
    return plan->phasor_shape;
}

int64_t blade_beamformer_beams(const blade_beamformer* plan) { return plan->phasor_shape.dims[0]; }

blade_beamformer_path blade_beamformer_path_used(const blade_beamformer* plan)
{
    return plan->path;
}

blade_beamformer_kernel blade_beamformer_kernel_used(const blade_beamformer* plan)
{
    return plan->kernel;
}

/* The output must not share memory with what is read while it is written. */
static blade_status
check_disjoint(const blade_tensor* output, const blade_tensor* other, const char* role)
{
    const char* out_begin = output->data;
    const char* out_end = out_begin + blade_tensor_bytes(output->dtype, &output->shape);
    const char* begin = other->data;
    const char* end = begin + blade_tensor_bytes(other->dtype, &other->shape);
    if (out_begin < end && begin < out_end)
        return blade_fail(BLADE_ERROR_INVALID_ARGUMENT,
                          "beamformer: the output tensor overlaps the %s tensor (in-place "
                          "beamforming is not possible)",
                          role);
    return BLADE_OK;
}

blade_status blade_beamformer_process(blade_beamformer* plan,
                                      const blade_tensor* input,
                                      const blade_tensor* phasors,
                                      blade_tensor* output,
                                      blade_stream stream)
{
    BLADE_TRY(blade_check_tensor(
        "beamformer", "voltage", input, plan->config.input_type, &plan->input_shape));
    BLADE_TRY(blade_check_tensor("beamformer", "phasor", phasors, BLADE_CF32, &plan->phasor_shape));
    BLADE_TRY(blade_check_tensor(
        "beamformer", "output", output, plan->config.output_type, &plan->output_shape));
    BLADE_TRY(check_disjoint(output, input, "voltage"));
    BLADE_TRY(check_disjoint(output, phasors, "phasor"));

    blade_beamformer_job job = plan_job(plan);
    job.input = input->data;
    job.phasors = phasors->data;
    job.output = output->data;

    if (plan->device.kind == BLADE_DEVICE_CUDA) {
#ifdef BLADE_HAVE_CUDA
        BLADE_TRY(blade_device_activate(plan->device));
        return blade_cuda_beamformer(&job, stream);
#else
        (void)stream;
        return blade_fail(BLADE_ERROR_NO_DEVICE, "beamformer: built without CUDA");
#endif
    }
    blade_cpu_beamformer(&job);
    return BLADE_OK;
}

void blade_beamformer_destroy(blade_beamformer* plan)
{
    if (plan == NULL)
        return;
    if (plan->workspace != NULL)
        blade_device_free(plan->device, plan->workspace);
    free(plan);
}
