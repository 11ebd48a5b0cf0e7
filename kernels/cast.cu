// SPDX-License-Identifier: MIT
//
// Cast kernels. One templated element-wise kernel covers every supported pair,
// converting through float (complex family: exact for ci4..cf32) or double (real
// family: exact for f16..f64) and rounding once into the destination type, exactly
// as the CPU backend does. The ingest path ci8 -> cf32 has its own kernel with
// coalesced 4-byte loads and 16-byte stores, which is what keeps it memory bound;
// ci8 -> cf16, the half-precision chain's ingest, likewise (4-byte loads, 8-byte
// stores). A scale other than 1 multiplies each value first (in float for the
// complex family, in double for the real one), as the CPU does.

#include "cast_backend.h"
#include "cuda_check.h"

#include <cuda_fp16.h>
#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr unsigned kMaxBlocks = 65535u * 8u;

template <blade_dtype T>
struct is_complex_type {
    static constexpr bool value = T != BLADE_F16 && T != BLADE_F32 && T != BLADE_F64;
};

// NaN is written as the canonical quiet NaN, as the CPU backend does.
__device__ inline float canonical(float value)
{
    return isnan(value) ? __int_as_float(0x7fc00000) : value;
}
__device__ inline double canonical(double value)
{
    return isnan(value) ? __longlong_as_double(0x7ff8000000000000LL) : value;
}
__device__ inline __half canonical_half(__half value)
{
    return __hisnan(value) ? __ushort_as_half(0x7e00) : value;
}

__device__ inline int32_t round_saturate(float value, int32_t low, int32_t high)
{
    if (isnan(value))
        return 0;
    int32_t rounded = __float2int_rn(value); // ties to even; saturates at int32 limits
    return rounded < low ? low : (rounded > high ? high : rounded);
}

template <blade_dtype T>
__device__ inline float2 load_complex(const void* data, int64_t i)
{
    if constexpr (T == BLADE_CI4) {
        const int byte = static_cast<const uint8_t*>(data)[i];
        const int re = static_cast<int8_t>(byte & 0xf0) >> 4;
        const int im = static_cast<int8_t>(byte << 4) >> 4;
        return make_float2(static_cast<float>(re), static_cast<float>(im));
    } else if constexpr (T == BLADE_CI8) {
        const char2 v = static_cast<const char2*>(data)[i];
        return make_float2(v.x, v.y);
    } else if constexpr (T == BLADE_CI16) {
        const short2 v = static_cast<const short2*>(data)[i];
        return make_float2(v.x, v.y);
    } else if constexpr (T == BLADE_CF16) {
        const __half2 v = static_cast<const __half2*>(data)[i];
        return __half22float2(v);
    } else {
        return static_cast<const float2*>(data)[i];
    }
    // (NaN payloads are normalised when stored)
}

template <blade_dtype T>
__device__ inline void store_complex(void* data, int64_t i, float2 v)
{
    if constexpr (T == BLADE_CI4) {
        const int re = round_saturate(v.x, -8, 7), im = round_saturate(v.y, -8, 7);
        static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(((re & 0xf) << 4) | (im & 0xf));
    } else if constexpr (T == BLADE_CI8) {
        static_cast<char2*>(data)[i] =
            make_char2(static_cast<signed char>(round_saturate(v.x, INT8_MIN, INT8_MAX)),
                       static_cast<signed char>(round_saturate(v.y, INT8_MIN, INT8_MAX)));
    } else if constexpr (T == BLADE_CI16) {
        static_cast<short2*>(data)[i] =
            make_short2(static_cast<short>(round_saturate(v.x, INT16_MIN, INT16_MAX)),
                        static_cast<short>(round_saturate(v.y, INT16_MIN, INT16_MAX)));
    } else if constexpr (T == BLADE_CF16) {
        static_cast<__half2*>(data)[i] = __halves2half2(canonical_half(__float2half_rn(v.x)),
                                                        canonical_half(__float2half_rn(v.y)));
    } else {
        static_cast<float2*>(data)[i] = make_float2(canonical(v.x), canonical(v.y));
    }
}

template <blade_dtype T>
__device__ inline double load_real(const void* data, int64_t i)
{
    if constexpr (T == BLADE_F16)
        return __half2float(static_cast<const __half*>(data)[i]);
    else if constexpr (T == BLADE_F32)
        return static_cast<const float*>(data)[i];
    else
        return static_cast<const double*>(data)[i];
}

template <blade_dtype T>
__device__ inline void store_real(void* data, int64_t i, double v)
{
    if constexpr (T == BLADE_F16)
        static_cast<__half*>(data)[i] = canonical_half(__double2half(v));
    else if constexpr (T == BLADE_F32)
        static_cast<float*>(data)[i] = canonical(static_cast<float>(v));
    else
        static_cast<double*>(data)[i] = canonical(v);
}

// Element i of the input becomes element i of the output, and each thread reads its
// element before it writes it: between types of one size the cast may run in place
// (output == input). That call takes cast_in_place_kernel, the same body without
// __restrict__ (which promises the compiler that input and output never alias).
template <blade_dtype In, blade_dtype Out>
__device__ __forceinline__ void
cast_elements(const void* input, void* output, int64_t count, float scale)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        if constexpr (is_complex_type<In>::value) {
            float2 v = load_complex<In>(input, i);
            if (scale != 1.0f)
                v = make_float2(__fmul_rn(v.x, scale), __fmul_rn(v.y, scale));
            store_complex<Out>(output, i, v);
        } else {
            double v = load_real<In>(input, i);
            if (scale != 1.0f)
                v = __dmul_rn(v, static_cast<double>(scale));
            store_real<Out>(output, i, v);
        }
    }
}

template <blade_dtype In, blade_dtype Out>
__global__ void
cast_kernel(const void* __restrict__ input, void* __restrict__ output, int64_t count, float scale)
{
    cast_elements<In, Out>(input, output, count, scale);
}

template <blade_dtype In, blade_dtype Out>
__global__ void cast_in_place_kernel(void* data, int64_t count, float scale)
{
    cast_elements<In, Out>(data, data, count, scale);
}

constexpr int element_bits(blade_dtype type)
{
    return type == BLADE_CI4                                               ? 8
           : type == BLADE_CI8 || type == BLADE_F16                        ? 16
           : type == BLADE_CI16 || type == BLADE_CF16 || type == BLADE_F32 ? 32
                                                                           : 64;
}

// ci8 -> cf16, scaled: two samples (4 bytes) per thread and step into two __half2
// (8 bytes); a power-of-two scale is exact, so only the conversion rounds (and an
// 8-bit integer times 2^-k is a half exactly while it stays above 2^-24).
__device__ inline uint2 ci8_pair_to_half(char4 v, float scale)
{
    const __half2 a = __floats2half2_rn(__fmul_rn(v.x, scale), __fmul_rn(v.y, scale));
    const __half2 b = __floats2half2_rn(__fmul_rn(v.z, scale), __fmul_rn(v.w, scale));
    uint2 out;
    memcpy(&out.x, &a, sizeof a);
    memcpy(&out.y, &b, sizeof b);
    return out;
}

__global__ void cast_ci8_cf16_vector_kernel(const char4* __restrict__ input,
                                            uint2* __restrict__ output,
                                            int64_t pairs,
                                            float scale)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < pairs; i += 4 * stride) {
        char4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(&input[i + u * stride]);
#pragma unroll
        for (int u = 0; u < 4; u++)
            __stcs(&output[i + u * stride], ci8_pair_to_half(v[u], scale));
    }
    for (; i < pairs; i += stride)
        __stcs(&output[i], ci8_pair_to_half(__ldcs(&input[i]), scale));
}

// ci8 -> cf32: each thread turns 4 bytes (two samples) into one float4, so a
// warp loads 128 contiguous bytes and stores 512 contiguous bytes per step; four
// independent steps per thread keep enough loads in flight to saturate HBM.
constexpr int kVectorUnroll = 4;

__global__ void cast_ci8_cf32_vector_kernel(const char4* __restrict__ input,
                                            float4* __restrict__ output,
                                            int64_t pairs)
{
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + (kVectorUnroll - 1) * stride < pairs; i += kVectorUnroll * stride) {
        char4 v[kVectorUnroll];
#pragma unroll
        for (int u = 0; u < kVectorUnroll; u++)
            v[u] = __ldcs(&input[i + u * stride]);
#pragma unroll
        for (int u = 0; u < kVectorUnroll; u++)
            __stcs(&output[i + u * stride], make_float4(v[u].x, v[u].y, v[u].z, v[u].w));
    }
    for (; i < pairs; i += stride) {
        const char4 v = __ldcs(&input[i]);
        __stcs(&output[i], make_float4(v.x, v.y, v.z, v.w));
    }
}

template <blade_dtype In, blade_dtype Out>
blade_status
launch(const void* input, void* output, int64_t count, float scale, cudaStream_t stream)
{
    if constexpr (element_bits(In) == element_bits(Out)) {
        if (input == output) {
            cast_in_place_kernel<In, Out>
                <<<blade_grid_size(count, kThreads, kMaxBlocks), kThreads, 0, stream>>>(
                    output, count, scale);
            BLADE_CUDA_CHECK_LAUNCH("cast_in_place_kernel");
            return BLADE_OK;
        }
    }
    cast_kernel<In, Out><<<blade_grid_size(count, kThreads, kMaxBlocks), kThreads, 0, stream>>>(
        input, output, count, scale);
    BLADE_CUDA_CHECK_LAUNCH("cast_kernel");
    return BLADE_OK;
}

template <blade_dtype In>
blade_status dispatch_complex_output(blade_dtype out,
                                     const void* input,
                                     void* output,
                                     int64_t count,
                                     float scale,
                                     cudaStream_t stream)
{
    switch (out) {
    case BLADE_CI4:
        return launch<In, BLADE_CI4>(input, output, count, scale, stream);
    case BLADE_CI8:
        return launch<In, BLADE_CI8>(input, output, count, scale, stream);
    case BLADE_CI16:
        return launch<In, BLADE_CI16>(input, output, count, scale, stream);
    case BLADE_CF16:
        return launch<In, BLADE_CF16>(input, output, count, scale, stream);
    case BLADE_CF32:
        return launch<In, BLADE_CF32>(input, output, count, scale, stream);
    default:
        return blade_fail(BLADE_ERROR_UNSUPPORTED, "cast: no CUDA kernel for this pair");
    }
}

template <blade_dtype In>
blade_status dispatch_real_output(blade_dtype out,
                                  const void* input,
                                  void* output,
                                  int64_t count,
                                  float scale,
                                  cudaStream_t stream)
{
    switch (out) {
    case BLADE_F16:
        return launch<In, BLADE_F16>(input, output, count, scale, stream);
    case BLADE_F32:
        return launch<In, BLADE_F32>(input, output, count, scale, stream);
    case BLADE_F64:
        return launch<In, BLADE_F64>(input, output, count, scale, stream);
    default:
        return blade_fail(BLADE_ERROR_UNSUPPORTED, "cast: no CUDA kernel for this pair");
    }
}

} // namespace

extern "C" blade_status blade_cuda_cast(const void* input,
                                        blade_dtype input_type,
                                        void* output,
                                        blade_dtype output_type,
                                        int64_t count,
                                        float scale,
                                        void* stream_handle)
{
    cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
    if (count <= 0)
        return BLADE_OK;
    if (input_type == output_type && scale == 1.0f) {
        if (input == output)
            return BLADE_OK;
        BLADE_CUDA_TRY(
            cudaMemcpyAsync(output,
                            input,
                            static_cast<size_t>(count) * blade_dtype_bits(input_type) / 8,
                            cudaMemcpyDeviceToDevice,
                            stream));
        return BLADE_OK;
    }
    if (input_type == BLADE_CI8 && output_type == BLADE_CF16 &&
        reinterpret_cast<uintptr_t>(input) % 4 == 0 &&
        reinterpret_cast<uintptr_t>(output) % 8 == 0) {
        const int64_t pairs = count / 2;
        if (pairs > 0) {
            cast_ci8_cf16_vector_kernel<<<
                blade_grid_size(pairs / kVectorUnroll, kThreads, 8u * blade_cuda_multiprocessors()),
                kThreads,
                0,
                stream>>>(
                static_cast<const char4*>(input), static_cast<uint2*>(output), pairs, scale);
            BLADE_CUDA_CHECK_LAUNCH("cast_ci8_cf16_vector_kernel");
        }
        const int64_t done = pairs * 2;
        if (done < count)
            return launch<BLADE_CI8, BLADE_CF16>(static_cast<const int8_t*>(input) + 2 * done,
                                                 static_cast<uint16_t*>(output) + 2 * done,
                                                 count - done,
                                                 scale,
                                                 stream);
        return BLADE_OK;
    }
    if (input_type == BLADE_CI8 && output_type == BLADE_CF32 && scale == 1.0f &&
        reinterpret_cast<uintptr_t>(input) % 4 == 0 &&
        reinterpret_cast<uintptr_t>(output) % 16 == 0) {
        const int64_t pairs = count / 2;
        if (pairs > 0) {
            // about 8 resident blocks of 256 threads per SM, grid-striding
            cast_ci8_cf32_vector_kernel<<<
                blade_grid_size(pairs / kVectorUnroll, kThreads, 8u * blade_cuda_multiprocessors()),
                kThreads,
                0,
                stream>>>(static_cast<const char4*>(input), static_cast<float4*>(output), pairs);
            BLADE_CUDA_CHECK_LAUNCH("cast_ci8_cf32_vector_kernel");
        }
        const int64_t done = pairs * 2;
        if (done < count)
            return launch<BLADE_CI8, BLADE_CF32>(static_cast<const int8_t*>(input) + 2 * done,
                                                 static_cast<float*>(output) + 2 * done,
                                                 count - done,
                                                 1.0f,
                                                 stream);
        return BLADE_OK;
    }
    switch (input_type) {
    case BLADE_CI4:
        return dispatch_complex_output<BLADE_CI4>(output_type, input, output, count, scale, stream);
    case BLADE_CI8:
        return dispatch_complex_output<BLADE_CI8>(output_type, input, output, count, scale, stream);
    case BLADE_CI16:
        return dispatch_complex_output<BLADE_CI16>(
            output_type, input, output, count, scale, stream);
    case BLADE_CF16:
        return dispatch_complex_output<BLADE_CF16>(
            output_type, input, output, count, scale, stream);
    case BLADE_CF32:
        return dispatch_complex_output<BLADE_CF32>(
            output_type, input, output, count, scale, stream);
    case BLADE_F16:
        return dispatch_real_output<BLADE_F16>(output_type, input, output, count, scale, stream);
    case BLADE_F32:
        return dispatch_real_output<BLADE_F32>(output_type, input, output, count, scale, stream);
    case BLADE_F64:
        return dispatch_real_output<BLADE_F64>(output_type, input, output, count, scale, stream);
    default:
        return blade_fail(BLADE_ERROR_UNSUPPORTED, "cast: no CUDA kernel for this pair");
    }
}
