/* SPDX-License-Identifier: MIT */
/*
 * The two backends of Permutation (permutation_cpu.c, kernels/permutation.cu) and
 * the reduced problem both execute. Not installed.
 *
 * A permutation is reduced before it runs: the tensor is viewed as bytes (an extra
 * innermost axis of the element's bytes, which never moves), axes of extent 1 are
 * dropped, input axes that stay adjacent and in order in the output are merged, and
 * the innermost axis (which is then the bytes that move together) becomes the
 * element, as wide as its size and the pointers' alignment allow (1 to 16 bytes).
 * What is left is one of:
 *
 *   COPY  : the memory layout does not change (identity): one contiguous copy.
 *   ROWS  : the innermost axis still does not move, but is wider than one element:
 *           rows of dims[rank-1] elements are copied to new places.
 *   TILED : the innermost axes differ: a (batched) 2-D transpose between input axis
 *           a = rank-1 (contiguous in the input) and input axis b = axes[rank-1]
 *           (contiguous in the output); the other axes are the batch.
 */
#ifndef BLADE_CORE_PERMUTATION_BACKEND_H
#define BLADE_CORE_PERMUTATION_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <blade/status.h>
#include <blade/tensor.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Widest element the reduction forms (a 16-byte vector load). */
#define BLADE_PERMUTATION_MAX_ELEMENT 16

typedef enum blade_permutation_kind {
    BLADE_PERMUTATION_COPY = 0,
    BLADE_PERMUTATION_ROWS = 1,
    BLADE_PERMUTATION_TILED = 2
} blade_permutation_kind;

typedef struct blade_permutation_layout {
    blade_permutation_kind kind;
    int rank;                                /* reduced rank (0 for COPY) */
    int64_t dims[BLADE_MAX_RANK + 1];        /* input extents, in elements */
    int axes[BLADE_MAX_RANK + 1];            /* output axis i is input axis axes[i] */
    int64_t in_strides[BLADE_MAX_RANK + 1];  /* elements between input neighbours */
    int64_t out_strides[BLADE_MAX_RANK + 1]; /* output stride of each *input* axis */
    int element_bytes;                       /* 1, 2, 4, 8 or 16 */
    size_t bytes;                            /* bytes of the whole tensor */
} blade_permutation_layout;

/* Reduce a permutation of `shape` (elements of `element_size` bytes; axes already
 * validated) with elements at most `max_element_bytes` wide (a power of two). */
void blade_permutation_reduce(const blade_shape* shape,
                              const int* axes,
                              size_t element_size,
                              int max_element_bytes,
                              blade_permutation_layout* layout);

/* Execute a reduced permutation on the CPU. */
void blade_cpu_permutation(const blade_permutation_layout* layout, const void* input, void* output);

#ifdef BLADE_HAVE_CUDA
/* The same on the GPU, queued on `stream` (a cudaStream_t). */
blade_status blade_cuda_permutation(const blade_permutation_layout* layout,
                                    const void* input,
                                    void* output,
                                    void* stream);
#endif

#ifdef __cplusplus
}
#endif

#endif
