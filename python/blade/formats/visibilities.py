# SPDX-License-Identifier: MIT
"""
The correlator's visibilities as a plain dump, HDF5 (.h5) or numpy (.npz): the
output chunks as they are, with the axes that say what they are and nothing of
UVH5's conventions (no conjugation, no uvw), for numpy users and quick looks.

Contents (the same names in both):

| name | contents |
|---|---|
| `visibilities` | complex64 [N, B, F, P*P]: N integrations of the correlator's |
|  | V_ij = sum x_i conj(x_j), B = A(A+1)/2 baselines in its order (correlator.h) |
| `ant_1`, `ant_2` | int64 [B]: the antennas of each baseline (i <= j) |
| `antenna_names` | [A] strings; `antenna_positions` [A, 3] ITRS m (when known) |
| `time_jd` | float64 [N]: UTC Julian date of each integration's centre |
| `frequencies` | float64 [F]: channel centres (Hz); `channel_width` (Hz) |
| `products` | [P*P] strings: "XX", "XY", "YX", "YY" (or "XX") |
| `integration_time` | seconds per integration |

HDF5 files write each integration as it comes (resizable datasets); .npz files are
written at close(). Both are written as NAME.partial and renamed when complete.

    from gnuradio.blade.formats import visibilities
    with visibilities.VisibilityWriter("obs.vis.h5", antenna_names=names, frequencies=f,
                                       channel_width=w, integration_time=t) as writer:
        writer.append(chunk, jd)                 # [B, F, P*P]
    data = visibilities.read("obs.vis.h5")       # dict of numpy arrays
"""

import os

import numpy

from .partial_file import PartialFile

PRODUCTS = {1: ["XX"], 4: ["XX", "XY", "YX", "YY"]}
FORMATS = ("h5", "npz")


def baselines(antennas):
    """(ant_1, ant_2) of every baseline in the correlator's order: i <= j, row by row."""
    first, second = numpy.triu_indices(antennas)
    return first.astype(numpy.int64), second.astype(numpy.int64)


def format_of(path):
    """'h5' or 'npz' from a file name's extension."""
    extension = os.path.splitext(os.fspath(path))[1].lower()
    if extension in (".h5", ".hdf5"):
        return "h5"
    if extension == ".npz":
        return "npz"
    raise ValueError(f"{path}: expected a .h5 (HDF5) or .npz (numpy) file name")


class VisibilityWriter(PartialFile):
    """Writes integrations [B, F, P*P] one at a time (see the module's docstring)."""

    def __init__(
        self,
        path,
        *,
        antenna_names,
        frequencies,
        channel_width,
        integration_time,
        antenna_positions=None,
        overwrite=False,
    ):
        self.path = os.fspath(path)
        self.format = format_of(self.path)
        self.antenna_names = [str(n) for n in antenna_names]
        self.antennas = len(self.antenna_names)
        if self.antennas < 1:
            raise ValueError("no antennas: give at least one antenna name")
        self.first, self.second = baselines(self.antennas)
        self.frequencies = numpy.asarray(frequencies, numpy.float64).reshape(-1)
        self.channel_width = numpy.broadcast_to(
            numpy.asarray(channel_width, numpy.float64), self.frequencies.shape
        ).copy()
        self.integration_time = float(integration_time)
        self.positions = None if antenna_positions is None else numpy.asarray(antenna_positions, numpy.float64)
        if self.positions is not None and self.positions.shape != (self.antennas, 3):
            raise ValueError(f"antenna_positions must be [{self.antennas}, 3], given {self.positions.shape}")
        self._begin(self.path, overwrite)
        self.times = []
        self._chunks = []  # npz: kept until close()
        self._file = self._data = None
        if self.format == "h5":
            import h5py

            self._file = h5py.File(self._partial, "w")

    def append(self, visibilities, jd_utc):
        data = numpy.asarray(visibilities)
        if data.ndim == 4 and data.shape[2] == 1:
            data = data[:, :, 0, :]
        B, F = len(self.first), len(self.frequencies)
        if data.ndim != 3 or data.shape[:2] != (B, F) or data.shape[2] not in PRODUCTS:
            raise ValueError(
                f"visibilities of shape {list(data.shape)}: {self.antennas} antennas and {F} channels "
                f"need [{B}, {F}, 1 or 4]"
            )
        data = data.astype(numpy.complex64)
        if self.format == "npz":
            if self._chunks and data.shape[2] != self._chunks[0].shape[2]:
                raise ValueError(
                    f"{data.shape[2]} products per visibility, earlier ones had {self._chunks[0].shape[2]}"
                )
            self._chunks.append(data)
        else:
            if self._data is None:
                self._data = self._file.create_dataset(
                    "visibilities",
                    (0,) + data.shape,
                    numpy.complex64,
                    maxshape=(None,) + data.shape,
                    chunks=(1,) + data.shape,
                )
            elif data.shape != self._data.shape[1:]:
                raise ValueError(f"visibilities of shape {list(data.shape)}, earlier ones {list(self._data.shape[1:])}")
            n = self._data.shape[0]
            self._data.resize(n + 1, axis=0)
            self._data[n] = data
        self.times.append(float(jd_utc))

    @property
    def integrations(self):
        return len(self.times)

    def _axes(self, npols):
        axes = dict(
            ant_1=self.first,
            ant_2=self.second,
            antenna_names=numpy.array(self.antenna_names),
            time_jd=numpy.asarray(self.times, numpy.float64),
            frequencies=self.frequencies,
            channel_width=self.channel_width,
            products=numpy.array(PRODUCTS[npols]),
            integration_time=numpy.float64(self.integration_time),
        )
        if self.positions is not None:
            axes["antenna_positions"] = self.positions
        return axes

    def _has_data(self):
        return bool(self.times)

    def _empty_reason(self):
        return "no integration to write"

    def _finish(self):
        if self.format == "npz":
            axes = self._axes(self._chunks[0].shape[2])
            with open(self._partial, "wb") as f:
                numpy.savez(f, visibilities=numpy.stack(self._chunks), **axes)
        else:
            for name, value in self._axes(self._data.shape[3]).items():
                if value.dtype.kind == "U":
                    value = numpy.array([v.encode("utf8") for v in value.reshape(-1)])
                self._file[name] = value
            self._file.close()
            self._file = None
        self._chunks = None

    def _release(self):
        self._chunks = None
        if self._file is not None:
            try:
                self._file.close()
            finally:
                self._file = None


def read(path):
    """A dump as a dict of numpy arrays (strings as str)."""
    if format_of(path) == "npz":
        with numpy.load(path) as f:
            return {name: f[name] for name in f.files}
    import h5py

    with h5py.File(path, "r") as f:
        out = {}
        for name in f:
            value = f[name][()]
            if isinstance(value, numpy.ndarray) and value.dtype.kind == "S":
                value = numpy.array([v.decode("utf8") for v in value])
            out[name] = value
        return out
