# SPDX-License-Identifier: MIT
"""
A GUPPI RAW recording's axes as the bundles need them, and whether a BFR5 recipe
fits it.

    rec = Recording("obs.0000.raw", channels=(16, 32))   # stem or any member; a channel subset
    rec.observation                # blade.Observation of the channels read: the axes
    rec.observation.frequencies()  # their centres (Hz)
    problems, warnings = rec.check_recipe(blade.read_bfr5("obs.bfr5"), beams=[0, 2])

The axes come from the one value the C reader computes (blade.Observation): the
frequency of recorded channel c is OBSFREQ + (c - (NCHAN - 1)/2) CHAN_BW
(docs/formats.md), its absolute (F-engine) channel, which indexes the recipe's
calibration, SCHAN + c; nothing here computes them again.
"""

import math
import os

import numpy

from .formats import guppi


def parse_angle(text):
    """'[+-]a:b:c' or 'a b c' (hours or degrees) as a number of those units."""
    text = str(text).strip()
    negative = text.startswith("-")
    parts = [float(p) for p in text.lstrip("+-").replace(":", " ").split()]
    value = sum(p / 60.0**i for i, p in enumerate(parts))
    return -value if negative else value


def angular_separation(a, b):
    """Angle (rad) between two (ra, dec) directions in radians."""
    (ra1, dec1), (ra2, dec2) = a, b
    cos = math.sin(dec1) * math.sin(dec2) + math.cos(dec1) * math.cos(dec2) * math.cos(ra1 - ra2)
    return math.acos(max(-1.0, min(1.0, cos)))


def _antenna_names(header):
    """ANTNMS00, ANTNMS01, ... joined and split at commas (None when absent)."""
    parts = [str(header[key]) for key in sorted(k for k in header if k.startswith("ANTNMS"))]
    if not parts:
        return None
    return [name.strip() for name in "".join(parts).split(",") if name.strip()]


class Recording:
    """
    What the bundles need to know of a recording (opened as guppi_source opens it).

    path: a .raw file, a stem, or any member of stem.NNNN.raw.
    channels: (start, count) of the channels to process (count None: to the end), or None.
    on_gap, max_gap: how gaps are read (blade.guppi_source).
    """

    def __init__(self, path, channels=None, single_file=False, on_gap="zero-fill", max_gap=0.0):
        self.path = os.fspath(path)
        d = guppi.describe(self.path, single_file, on_gap, max_gap)
        self.description = d
        self.header = d["header"]
        self.files = d["files"]
        self.blocks = d["blocks"]
        self.nants, self.nchan, self.npol = d["nants"], d["nchan"], d["npol"]
        self.nbits, self.sample_type = d["nbits"], d["sample_type"]
        self.ntime, self.tbin = d["ntime"], d["tbin"]
        self.overlap = d["overlap"]
        self.missing_blocks = d["missing_blocks"]
        self.gaps = d["gaps"]
        self.warnings = list(d["warnings"])
        recording = d["observation"]  # all the recording's channels
        self.unix_start = recording.unix_start
        self.chan_bw = recording.chan_bw
        if "OBSFREQ" not in self.header:
            raise ValueError(f"{self.path}: the header gives no OBSFREQ: the frequency axis is unknown")
        self.schan = recording.coarse_first
        start, count = channels or (0, None)
        if start < 0 or start >= self.nchan:
            raise ValueError(f"channels {start}:{count}: the recording has channels 0..{self.nchan - 1} per antenna")
        count = self.nchan - start if count is None else count
        if count < 1 or start + count > self.nchan:
            raise ValueError(
                f"channels {start}:{count}: the recording has channels 0..{self.nchan - 1} per antenna "
                f"({self.nchan} channels)"
            )
        self.channel_start, self.channel_count = start, count
        #: blade.Observation of the channels read (what the bundles take)
        self.observation = recording.channels(start, count)
        self.source_name = str(self.header.get("SRC_NAME", ""))
        self.telescope = str(self.header.get("TELESCOP", ""))
        self.antenna_names = _antenna_names(self.header)
        self.pointing = None
        if "RA_STR" in self.header and "DEC_STR" in self.header:
            try:
                self.pointing = (
                    math.radians(15 * parse_angle(self.header["RA_STR"])),
                    math.radians(parse_angle(self.header["DEC_STR"])),
                )
            except ValueError:
                pass

    def __repr__(self):
        return (
            f"Recording({os.path.basename(self.files[0])}: {self.nants} antennas x {self.channel_count} "
            f"channels, {self.channel_centres()[0] / 1e6:g} .. {self.channel_centres()[-1] / 1e6:g} MHz)"
        )

    # --- axes -------------------------------------------------------------------

    @property
    def samples(self):
        """Time samples per antenna and channel (missing blocks counted: they are zero-filled)."""
        return (self.blocks + self.missing_blocks) * self.ntime

    @property
    def duration(self):
        return self.samples * self.tbin

    def channel_centres(self):
        """Sky frequencies (Hz) of the selected channels' centres."""
        return numpy.asarray(self.observation.frequencies())

    @property
    def absolute_channels(self):
        """(first, last) absolute (F-engine) channel of the selection."""
        first = self.observation.coarse_first
        return first, first + self.channel_count - 1

    def chunk_shape(self, chunk_samples):
        return [self.nants, self.channel_count, chunk_samples or self.ntime, self.npol]

    def chunk_bytes(self, chunk_samples):
        """Bytes of one chunk as stored in the file."""
        return self.nants * self.channel_count * (chunk_samples or self.ntime) * self.npol * 2 * self.nbits // 8

    def describe(self):
        """One line: files, blocks, geometry and duration."""
        others = len(self.files) - 1
        more = f" (+{others} file{'s' if others > 1 else ''})" if others else ""
        gaps = f", {self.missing_blocks} missing" if self.missing_blocks else ""

        def count(n, word):
            return f"{n} {word}{'' if n == 1 else 's'}"

        overlap = f" (+{self.overlap} repeated)" if self.overlap else ""
        return (
            f"{os.path.basename(self.files[0])}{more}: {count(self.blocks, 'block')}{gaps} of {self.ntime} "
            f"samples{overlap}, {count(self.nants, 'antenna')} x {count(self.nchan, 'channel')} x "
            f"{count(self.npol, 'pol')}, {self.nbits}-bit, {self.duration:.6g} s"
        )

    def describe_band(self):
        centres = self.channel_centres()
        subset = (
            ""
            if self.channel_count == self.nchan
            else f", channels {self.channel_start}..{self.channel_start + self.channel_count - 1} of {self.nchan}"
        )
        return (
            f"band {centres[0] / 1e6:.6f} .. {centres[-1] / 1e6:.6f} MHz (channel centres), "
            f"{self.channel_count} x {self.chan_bw / 1e6:g} MHz{subset}, absolute channels "
            f"{self.absolute_channels[0]}..{self.absolute_channels[1]} (SCHAN {self.schan})"
        )

    # --- the recipe ---------------------------------------------------------------

    def check_recipe(self, recipe, beams=None):
        """
        Whether `recipe` (blade.read_bfr5) fits this recording: returns (problems,
        warnings), lists of sentences. Problems (the beams would be wrong): antenna
        or polarization counts, calibration rows that do not cover the selected
        channels, recipe frequencies that differ from the recording's, beam indices
        beyond the recipe's. Warnings: antenna names in a different order, a
        boresight away from the recording's pointing.
        """
        name = os.path.basename(recipe.path)
        problems, warnings = [], []
        if recipe.antennas != self.nants:
            problems.append(
                f"{name} is for {recipe.antennas} antennas (/diminfo/nants), the recording has " f"{self.nants} (NANTS)"
            )
        if recipe.polarizations != self.npol:
            problems.append(
                f"{name} calibrates {recipe.polarizations} polarizations (/diminfo/npol), the "
                f"recording has {self.npol} (NPOL)"
            )
        first, last = self.absolute_channels
        if last >= recipe.channels:
            problems.append(
                f"{name} covers absolute channels 0..{recipe.channels - 1} (/diminfo/nchan), the "
                f"recording's channels are {first}..{last} (SCHAN {self.schan} + channels "
                f"{self.channel_start}..{self.channel_start + self.channel_count - 1})"
            )
        elif recipe.frequencies is not None and len(recipe.frequencies) == recipe.channels:
            mine = self.channel_centres()
            theirs = numpy.asarray(recipe.frequencies)[first : last + 1]
            wrong = numpy.nonzero(numpy.abs(theirs - mine) > 0.01 * abs(self.chan_bw))[0]
            if wrong.size:
                c = int(wrong[0])
                others = f" (and {wrong.size - 1} more)" if wrong.size > 1 else ""
                problems.append(
                    f"{name} puts absolute channel {first + c} at {theirs[c] / 1e6:.6f} MHz "
                    f"(/obsinfo/freq_array), the recording at {mine[c] / 1e6:.6f} MHz (OBSFREQ, CHAN_BW, "
                    f"SCHAN){others}: they describe different bands"
                )
        for b in beams or []:
            if not 0 <= b < recipe.beams:
                problems.append(f"beam {b} selected, {name} has beams 0..{recipe.beams - 1}")
        names = list(recipe.antenna_names or [])
        if self.antenna_names and names and len(names) == len(self.antenna_names) and names != self.antenna_names:
            a = next(i for i, (x, y) in enumerate(zip(names, self.antenna_names)) if x != y)
            warnings.append(
                f"antenna {a} is {names[a]!r} in {name} but {self.antenna_names[a]!r} in the "
                f"recording (ANTNMS): the recipe must list antennas in the recording's order"
            )
        if self.pointing is not None:
            apart = angular_separation(self.pointing, tuple(recipe.boresight))
            if apart > math.radians(1 / 60):
                warnings.append(
                    f"the recording points at RA_STR/DEC_STR {math.degrees(apart) * 60:.1f} arcmin "
                    f"from {name}'s phase centre: delays are computed from the recipe's"
                )
        return problems, warnings
