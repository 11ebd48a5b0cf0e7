// SPDX-License-Identifier: MIT
#include "cuda_library.h"
#include "cufft_loader.h"
#include "internal.h"

#include <mutex>
#include <string>

namespace {

struct loaded {
    blade_cufft_api api{};
    blade_status status = BLADE_OK;
    std::string error;
};

template <typename Function>
blade_status resolve(void* handle, const char* name, Function* function)
{
    void* address = nullptr;
    BLADE_TRY(blade_cuda_library_symbol(handle, name, "cuFFT", &address));
    *function = reinterpret_cast<Function>(address);
    return BLADE_OK;
}

loaded load_once()
{
    loaded result;
    // cuFFT 12 ships with CUDA 13, cuFFT 11 with CUDA 12; the kernels' ABI is the same.
    static const char* const candidates[] = {
        "libcufft.so.12", "libcufft.so.11", "libcufft.so", nullptr
    };
    void* handle = nullptr;
    blade_status status = blade_cuda_library_open(candidates, "cuFFT", &handle);
    if (status == BLADE_OK)
        status = resolve(handle, "cufftCreate", &result.api.create);
    if (status == BLADE_OK)
        status = resolve(handle, "cufftMakePlanMany64", &result.api.make_plan_many64);
    if (status == BLADE_OK)
        status = resolve(handle, "cufftSetStream", &result.api.set_stream);
    if (status == BLADE_OK)
        status = resolve(handle, "cufftExecC2C", &result.api.exec_c2c);
    if (status == BLADE_OK)
        status = resolve(handle, "cufftDestroy", &result.api.destroy);
    result.status = status;
    if (status != BLADE_OK)
        result.error = blade_last_error();
    return result;
}

} // namespace

blade_status blade_cufft_load(const blade_cufft_api** api)
{
    static std::once_flag once;
    static loaded library;
    std::call_once(once, [] { library = load_once(); });
    *api = nullptr;
    if (library.status != BLADE_OK)
        return blade_fail(library.status, "%s", library.error.c_str());
    *api = &library.api;
    return BLADE_OK;
}

const char* blade_cufft_result_name(cufftResult result)
{
    switch (result) {
    case CUFFT_SUCCESS:
        return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
        return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA:
        return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE:
        return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
        return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
        return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "cuFFT error";
    }
}
