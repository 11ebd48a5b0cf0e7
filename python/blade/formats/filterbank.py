# SPDX-License-Identifier: MIT
"""
Reading the filterbank files gr-blade writes (SIGPROC .fil and FBH5 .h5), for the
demo's figure, the CLI's summaries and quick looks from Python:

    header, data = blade.filterbank.read("obs.beam0000.fil")   # data [spectra, IFs, channels]
    blade.filterbank.frequencies(header)   # Hz, channel centres fch1 + j foff
    blade.filterbank.times(header, n)      # unix seconds of the n spectra

Only what filterbank_sink writes is understood: 32-bit samples, the standard keys.
"""

import os
import struct

import numpy

# SIGPROC keys by value type; every other key holds a float64.
_INTEGER_KEYS = {
    "telescope_id",
    "machine_id",
    "data_type",
    "nbits",
    "nchans",
    "nifs",
    "nbeams",
    "ibeam",
    "barycentric",
    "pulsarcentric",
    "nsamples",
}
_TEXT_KEYS = {"source_name", "rawdatafile"}


class _Cursor:
    """Little-endian values read one after another from a bytes object."""

    def __init__(self, raw, path):
        self.raw, self.path, self.offset = raw, path, 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.raw):
            raise ValueError(f"{self.path}: header ends at byte {len(self.raw)} inside a value at byte {self.offset}")
        value = struct.unpack_from(fmt, self.raw, self.offset)[0]
        self.offset += size
        return value

    def text(self):
        length = self.take("<i")
        if not 0 <= length <= 4096 or self.offset + length > len(self.raw):
            raise ValueError(f"{self.path}: bad string length {length} at byte {self.offset - 4}")
        value = self.raw[self.offset : self.offset + length].decode("ascii", "replace")
        self.offset += length
        return value


def read_fil_header(path):
    """The header of a SIGPROC .fil file as {key: value}, plus "header_bytes"."""
    with open(path, "rb") as handle:
        raw = handle.read(65536)
    cursor = _Cursor(raw, path)
    if cursor.text() != "HEADER_START":
        raise ValueError(f"{path}: not a SIGPROC filterbank file (no HEADER_START)")
    header = {}
    while True:
        key = cursor.text()
        if key == "HEADER_END":
            break
        if key in _TEXT_KEYS:
            header[key] = cursor.text()
        else:
            header[key] = cursor.take("<i" if key in _INTEGER_KEYS else "<d")
    header["header_bytes"] = cursor.offset
    return header


def read(path):
    """(header, data) of a .fil or .h5 file; data float32 [spectra, IFs, channels]."""
    path = str(path)
    if path.endswith(".h5"):
        import h5py

        with h5py.File(path, "r") as f:
            dataset = f["data"]
            header = {
                key: (value.decode() if isinstance(value, bytes) else value)
                for key, value in dataset.attrs.items()
                if key != "DIMENSION_LABELS"
            }
            return header, dataset[...]
    header = read_fil_header(path)
    if header.get("nbits") != 32:
        raise ValueError(f"{path}: nbits {header.get('nbits')}, only 32-bit filterbanks are read here")
    data = numpy.fromfile(path, "<f4", offset=header["header_bytes"])
    per_spectrum = header["nifs"] * header["nchans"]
    whole = len(data) // per_spectrum * per_spectrum
    return header, data[:whole].reshape(-1, header["nifs"], header["nchans"])


def frequencies(header):
    """Channel centres (Hz): fch1 + j foff (MHz in the header)."""
    return (header["fch1"] + numpy.arange(header["nchans"]) * header["foff"]) * 1e6


def times(header, spectra):
    """Unix seconds of spectra 0 .. spectra - 1: tstart (MJD) + i tsamp."""
    return (header["tstart"] - 40587.0) * 86400.0 + numpy.arange(spectra) * header["tsamp"]


def open_spectra(path):
    """(header, spectra) of a .fil or .h5 file without reading its data: spectra is
    indexable as [spectrum, IF, channel] (a read-only memory map of a .fil file, the
    h5py dataset of an .h5 file, which must stay open: close it with
    spectra.file.close() when done). For searches of files larger than memory.
    Raises ValueError naming the file and the problem: not a filterbank, samples that
    are not 32-bit floats, a header without the keys a search needs, no whole
    spectrum."""
    path = str(path)
    if path.endswith(".h5"):
        import h5py

        try:  # registers the compression filters blimpy's files use, where installed
            import hdf5plugin  # noqa: F401
        except ImportError:
            pass
        try:
            f = h5py.File(path, "r")
        except OSError as error:
            raise ValueError(f"{path}: not an HDF5 file ({error})") from None
        if "data" not in f or len(f["data"].shape) != 3:
            f.close()
            raise ValueError(f"{path}: not a filterbank HDF5 file (no 3-dimensional 'data' dataset)")
        dataset = f["data"]
        header = {
            key: (value.decode() if isinstance(value, bytes) else value)
            for key, value in dataset.attrs.items()
            if key != "DIMENSION_LABELS"
        }
        if dataset.dtype != numpy.float32:
            f.close()
            raise ValueError(f"{path}: samples are {dataset.dtype}, only 32-bit floats are searched")
        try:  # compressed data need their HDF5 filter (blimpy writes bitshuffle)
            dataset[:1, :1, :1]
        except OSError as error:
            f.close()
            raise ValueError(
                f"{path}: its data cannot be read ({str(error).strip()}): compressed with an HDF5 filter "
                "that is not installed (blimpy's files use bitshuffle: Debian's hdf5-filter-plugin or "
                "python3-hdf5plugin provides it)"
            ) from None
        spectra = dataset
    else:
        with open(path, "rb") as f:
            if f.read(16) != struct.pack("<i", 12) + b"HEADER_START":
                raise ValueError(f"{path}: not a SIGPROC filterbank file (no HEADER_START at byte 0)")
        header = read_fil_header(path)
        if header.get("nbits") != 32:
            raise ValueError(f"{path}: nbits {header.get('nbits')}, only 32-bit filterbanks are read here")
        for key in ("nchans", "nifs"):
            if not isinstance(header.get(key), int) or header[key] < 1:
                raise ValueError(f"{path}: header has no valid {key} ({header.get(key)})")
        per_spectrum = header["nifs"] * header["nchans"] * 4
        size = os.path.getsize(path) - header["header_bytes"]
        count = size // per_spectrum
        if count < 1:
            raise ValueError(
                f"{path}: no whole spectrum after the {header['header_bytes']}-byte header "
                f"({size} bytes, a spectrum is {per_spectrum})"
            )
        spectra = numpy.memmap(
            path, "<f4", "r", offset=header["header_bytes"], shape=(count, header["nifs"], header["nchans"])
        )
        header["partial_spectrum_bytes"] = size - count * per_spectrum
    for key in ("fch1", "foff", "tsamp"):
        if key not in header:
            raise ValueError(f"{path}: header has no {key}")
    return header, spectra
