# SPDX-License-Identifier: MIT
"""
numpy views of gr-blade tensor items.

Complex integer types have no numpy equivalent; they are represented with a
trailing axis of length 2 (real, imaginary): ci8 as int8 [..., 2], ci16 as int16
[..., 2], cf16 as float16 [..., 2]. ci4 is one uint8 per sample, the real part in the
high nibble. cf32/cf64 are numpy complex64/complex128; f16/f32/f64 are real.
"""

import numpy

# name -> (numpy scalar type, values per element, bytes per element)
DTYPES = {
    "ci4": (numpy.uint8, 1, 1),
    "ci8": (numpy.int8, 2, 2),
    "ci16": (numpy.int16, 2, 4),
    "cf16": (numpy.float16, 2, 4),
    "cf32": (numpy.complex64, 1, 8),
    "cf64": (numpy.complex128, 1, 16),
    "f16": (numpy.float16, 1, 2),
    "f32": (numpy.float32, 1, 4),
    "f64": (numpy.float64, 1, 8),
}

ITEM_ALIGNMENT = 4096


def numpy_dtype(dtype):
    """numpy scalar type used for a gr-blade element type name."""
    try:
        return DTYPES[dtype.lower()][0]
    except KeyError:
        raise ValueError(f"unknown element type {dtype!r}; expected one of {', '.join(DTYPES)}") from None


def _item_size(shape, dtype):
    nbytes = int(numpy.prod(shape)) * DTYPES[dtype][2]
    return max(1, -(-nbytes // ITEM_ALIGNMENT)) * ITEM_ALIGNMENT


def _element_view_shape(shape, dtype):
    values = DTYPES[dtype][1]
    return tuple(shape) + ((values,) if values > 1 else ())


def pack(chunks, dtype):
    """
    Turn an array of chunks into the bytes of GNU Radio items.

    `chunks` has shape [n_chunks, *tensor_shape] (plus a trailing axis of 2 for
    ci8, ci16 and cf16). Returns a uint8 array of n_chunks * item_size bytes, each
    chunk padded with zeros to its item size.
    """
    dtype = dtype.lower()
    scalar = numpy_dtype(dtype)
    chunks = numpy.ascontiguousarray(chunks, dtype=scalar)
    values = DTYPES[dtype][1]
    tensor_shape = chunks.shape[1:-1] if values > 1 else chunks.shape[1:]
    size = _item_size(tensor_shape, dtype)
    flat = chunks.reshape(chunks.shape[0], -1).view(numpy.uint8)
    items = numpy.zeros((chunks.shape[0], size), dtype=numpy.uint8)
    items[:, : flat.shape[1]] = flat
    return items.reshape(-1)


def unpack(data, shape, dtype):
    """
    Inverse of pack(): bytes of GNU Radio items -> array [n_chunks, *shape(, 2)].
    `data` is anything numpy can view as bytes (a list of ints from a vector sink,
    a bytes object, an array).
    """
    dtype = dtype.lower()
    scalar = numpy_dtype(dtype)
    if isinstance(data, (bytes, bytearray, memoryview)):  # asarray would parse bytes as text
        raw = numpy.frombuffer(data, dtype=numpy.uint8)
    else:
        raw = numpy.asarray(data, dtype=numpy.uint8).reshape(-1)
    size = _item_size(shape, dtype)
    if raw.size % size:
        raise ValueError(f"{raw.size} bytes is not a whole number of {size}-byte items of {dtype} {list(shape)}")
    nbytes = int(numpy.prod(shape)) * DTYPES[dtype][2]
    items = raw.reshape(-1, size)[:, :nbytes]
    return numpy.ascontiguousarray(items).view(scalar).reshape((items.shape[0],) + _element_view_shape(shape, dtype))


# One item of a chunk-time stream (gr::blade::chunk_time, 64 bytes).
CHUNK_TIME_DTYPE = numpy.dtype(
    [
        ("unix_start", "<f8"),
        ("unix_mid", "<f8"),
        ("jd_start", "<f8"),
        ("jd_mid", "<f8"),
        ("dut1", "<f8"),
        ("tsamp", "<f8"),
        ("step", "<i8"),
        ("flags", "<i8"),
    ]
)
