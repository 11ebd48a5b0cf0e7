# SPDX-License-Identifier: MIT
"""
Hit tables of the dedoppler search: turbo_seti's ``.dat`` and a CSV with the same
columns.

The ``.dat`` layout is turbo_seti 2.x's (FileWriter in its file_writers.py, read by
find_event.read_dat, which find_event_pipeline and plot_event_pipeline use): nine
comment lines (file ID, source, MJD/RA/DEC, DELTAT/DELTAF/max_drift_rate/obs_length,
the column names) and one tab-separated row per hit:

    Top_Hit_#  Drift_Rate  SNR  Uncorrected_Frequency  Corrected_Frequency  Index
    freq_start  freq_end  SEFD  SEFD_freq  Coarse_Channel_Number  Full_number_of_hits

Frequencies are in MHz: a hit's frequency is that of its start channel (spectrum 0),
fch1 + channel·foff; Index is the channel within its coarse channel; freq_start and
freq_end are the first and last channel of the top-hit window [Index − N, Index + N)
clipped to the coarse channel, as turbo_seti writes them. Corrected_Frequency equals
Uncorrected_Frequency (turbo_seti applies no barycentric correction either), SEFD and
SEFD_freq are 0. One difference, documented in docs/dedoppler.md:
Full_number_of_hits is turbo_seti's count of (channel, drift) pairs above the
threshold in the coarse channel, which gr-blade's search does not count; gr-blade
writes the number of its hits in that coarse channel instead.

Files are written whole to a temporary name and renamed, so a reader never sees a
half table.

    observation = hits.Observation.from_filterbank(header, "obs.fil", spectra, max_drift=4.0, nfpc=1 << 20)
    rows = hits.rows(found, observation, window)       # found: dedoppler_hit objects or dicts
    hits.write_dat("obs.dat", observation, rows)
    hits.write_csv("obs.csv", observation, rows)
    observation, rows = hits.read_dat("obs.dat")
"""

import csv
import dataclasses
import math
import os
import tempfile

# turbo_seti's column names, in its order.
COLUMNS = (
    "Top_Hit_#",
    "Drift_Rate",
    "SNR",
    "Uncorrected_Frequency",
    "Corrected_Frequency",
    "Index",
    "freq_start",
    "freq_end",
    "SEFD",
    "SEFD_freq",
    "Coarse_Channel_Number",
    "Full_number_of_hits",
)


def format_angle(value, hours):
    """A sexagesimal angle as astropy's str(Angle) writes it ('12h34m56.64s',
    '-30d00m00s'): seconds to 8 decimals without trailing zeros, as blimpy hands
    turbo_seti the header's src_raj (hours) and src_dej (degrees)."""
    sign = "-" if value < 0 else ""
    units = 1e8  # count in 1e-8 s so that rounding carries into minutes and hours
    total = round(abs(value) * 3600 * units)
    whole, seconds = divmod(total, 60 * int(units))
    degrees, minutes = divmod(whole, 60)
    second_text = f"{seconds // int(units):02d}"
    fraction = seconds % int(units)
    if fraction:
        second_text += ("." + f"{fraction:08d}").rstrip("0")
    return f"{sign}{degrees}{'h' if hours else 'd'}{minutes:02d}m{second_text}s"


def sigproc_angle(packed):
    """SIGPROC's packed [-]ddmmss.s (or hhmmss.s) as decimal degrees (or hours)."""
    magnitude = abs(packed)
    whole = math.floor(magnitude / 10000)
    minutes = math.floor((magnitude - 10000 * whole) / 100)
    seconds = magnitude - 10000 * whole - 100 * minutes
    value = whole + minutes / 60 + seconds / 3600
    return -value if packed < 0 else value


@dataclasses.dataclass
class Observation:
    """What a table's header says, and what rows() needs to place hits in frequency."""

    file_id: str  # turbo_seti writes the searched file's stem + ".h5"
    source: str
    mjd: float
    ra: str  # as format_angle() writes it
    dec: str
    tsamp: float  # s
    foff_hz: float  # signed
    max_drift: float  # Hz/s, as asked
    obs_length: float  # s: spectra × tsamp
    fch1_mhz: float
    nfpc: int

    @classmethod
    def from_filterbank(cls, header, path, spectra, max_drift, nfpc):
        """From a filterbank header (blade.formats.filterbank.read): .fil files hold
        src_raj/src_dej packed (hhmmss.s), FBH5 files in hours and degrees."""
        h5 = str(path).endswith(".h5")
        ra, dec = header.get("src_raj"), header.get("src_dej")
        if ra is not None and not h5:
            ra = sigproc_angle(ra)
        if dec is not None and not h5:
            dec = sigproc_angle(dec)
        stem = os.path.basename(str(path))
        for suffix in (".h5", ".fil"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
        return cls(
            file_id=stem + ".h5",
            source=str(header.get("source_name", "")),
            mjd=float(header.get("tstart", 0.0)),
            ra=format_angle(float(ra), True) if ra is not None else "0h00m00s",
            dec=format_angle(float(dec), False) if dec is not None else "0d00m00s",
            tsamp=float(header["tsamp"]),
            foff_hz=float(header["foff"]) * 1e6,
            max_drift=float(max_drift),
            obs_length=spectra * float(header["tsamp"]),
            fch1_mhz=float(header["fch1"]),
            nfpc=int(nfpc),
        )


@dataclasses.dataclass
class Row:
    """One hit as the table has it (frequencies in MHz)."""

    number: int
    drift_rate: float
    snr: float
    frequency: float
    index: int
    freq_start: float
    freq_end: float
    coarse_channel: int
    full_number_of_hits: int
    sefd: float = 0.0
    sefd_freq: float = 0.0

    def values(self):
        """The 12 columns, in COLUMNS' order."""
        return (
            self.number,
            self.drift_rate,
            self.snr,
            self.frequency,
            self.frequency,
            self.index,
            self.freq_start,
            self.freq_end,
            self.sefd,
            self.sefd_freq,
            self.coarse_channel,
            self.full_number_of_hits,
        )


def _field(hit, name):
    return hit[name] if isinstance(hit, dict) else getattr(hit, name)


def channel_frequency(observation, coarse_channel, index):
    """MHz of channel `index` of a coarse channel, by turbo_seti's arithmetic (the
    coarse channel's centre, then the offset from its middle), so that the printed
    digits match: fch1 + (coarse·nfpc + index)·foff up to rounding."""
    foff = observation.foff_hz * 1e-6
    width = foff * observation.nfpc
    start = observation.fch1_mhz + coarse_channel * width
    stop = observation.fch1_mhz + (coarse_channel + 1) * width
    centre = abs(stop - start) / 2.0 + min(start, stop)
    return centre + (index - observation.nfpc / 2) * foff


def rows(found, observation, window, padded_spectra=None):
    """Table rows of one beam's hits (dedoppler_hit objects or dicts with
    coarse_channel, channel_in_coarse, drift_index, drift_rate and snr), numbered 1,
    2, ... in the order given; `window` is the search's N. With `padded_spectra` (T')
    the drift rates are recomputed from the drift indices k with turbo_seti's
    arithmetic, (1e6·|foff| / ((T' − 1)·tsamp))·k, negated for a descending band, so
    that the printed digits match its; otherwise the search's rates are used."""
    per_coarse = {}
    for hit in found:
        coarse = int(_field(hit, "coarse_channel"))
        per_coarse[coarse] = per_coarse.get(coarse, 0) + 1
    table = []
    for number, hit in enumerate(found, start=1):
        coarse, index = int(_field(hit, "coarse_channel")), int(_field(hit, "channel_in_coarse"))
        low, high = max(0, index - window), min(observation.nfpc, index + window)
        rate = float(_field(hit, "drift_rate"))
        if padded_spectra is not None and padded_spectra > 1:
            resolution = abs(observation.foff_hz) / ((padded_spectra - 1) * observation.tsamp)
            rate = resolution * int(_field(hit, "drift_index")) * (1.0 if observation.foff_hz > 0 else -1.0)
        table.append(
            Row(
                number=number,
                drift_rate=rate,
                snr=float(_field(hit, "snr")),
                frequency=channel_frequency(observation, coarse, index),
                index=index,
                freq_start=channel_frequency(observation, coarse, low),
                freq_end=channel_frequency(observation, coarse, high - 1),
                coarse_channel=coarse,
                full_number_of_hits=per_coarse[coarse],
            )
        )
    return table


def _dat_text(observation, table):
    o = observation
    rule = "# -------------------------- o --------------------------\n"
    lines = [
        rule,
        f"# File ID: {o.file_id} \n",
        rule,
        f"# Source:{o.source}\n",
        f"# MJD: {o.mjd:18.12f}\tRA: {o.ra}\tDEC: {o.dec}\n",
        f"# DELTAT: {o.tsamp:10.6f}\tDELTAF(Hz): {o.foff_hz:10.6f}\tmax_drift_rate: {o.max_drift:10.6f}\t"
        f"obs_length: {o.obs_length:10.6f}\n",
        "# --------------------------\n",
        "# Top_Hit_# \t" + "".join(f"{name} \t" for name in COLUMNS[1:]) + "\n",
        "# --------------------------\n",
    ]
    for r in table:
        lines.append(
            f"{r.number:06d}\t{r.drift_rate:10.6f}\t{r.snr:10.6f}\t{r.frequency:14.6f}\t{r.frequency:14.6f}\t"
            f"{r.index:d}\t{r.freq_start:14.6f}\t{r.freq_end:14.6f}\t{r.sefd}\t{r.sefd_freq:14.6f}\t"
            f"{r.coarse_channel:d}\t{r.full_number_of_hits:d}\t\n"
        )
    return "".join(lines)


def _write_whole(path, write):
    """Write through `write(handle)` to a temporary file beside `path`, then rename."""
    path = str(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
    try:
        with os.fdopen(handle, "w", newline="") as f:
            write(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp's 0600 is not what open() would give
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def write_dat(path, observation, table):
    """turbo_seti's .dat hit table."""
    text = _dat_text(observation, table)
    _write_whole(path, lambda f: f.write(text))


def write_csv(path, observation, table):
    """The same columns as CSV (a header row of COLUMNS' names, full precision), plus
    the observation's fields in every row: file_id, source, mjd, ra, dec, tsamp,
    foff_hz, max_drift_rate, obs_length, so that rows of several files can be
    concatenated."""
    o = observation
    extra = ("file_id", "source", "mjd", "ra", "dec", "tsamp", "foff_hz", "max_drift_rate", "obs_length")
    constant = (o.file_id, o.source, repr(o.mjd), o.ra, o.dec, repr(o.tsamp), repr(o.foff_hz), repr(o.max_drift))
    constant += (repr(o.obs_length),)

    def write(f):
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS + extra)
        for r in table:
            out.writerow([repr(v) if isinstance(v, float) else v for v in r.values()] + list(constant))

    _write_whole(path, write)


def read_dat(path):
    """(Observation, rows) of a .dat file (ours or turbo_seti's); fch1_mhz and nfpc,
    which the .dat does not hold, are None. Raises ValueError naming the line of a
    malformed file."""
    with open(path) as f:
        lines = f.readlines()
    if len(lines) < 9 or not lines[1].startswith("# File ID:"):
        raise ValueError(f"{path}: not a turbo_seti .dat file (no '# File ID:' on line 2)")

    def after_colon(text):
        return text.split(":", 1)[1].strip()

    try:
        mjd, ra, dec = (after_colon(part) for part in lines[4][1:].strip().split("\t"))
        deltat, deltaf, max_drift, length = (float(after_colon(p)) for p in lines[5][1:].strip().split("\t"))
    except ValueError as error:
        raise ValueError(f"{path}: lines 5-6 are not turbo_seti's observation lines ({error})") from None
    observation = Observation(
        file_id=after_colon(lines[1]),
        source=lines[3][1:].split(":", 1)[1].strip(),
        mjd=float(mjd),
        ra=ra,
        dec=dec,
        tsamp=deltat,
        foff_hz=deltaf,
        max_drift=max_drift,
        obs_length=length,
        fch1_mhz=None,
        nfpc=None,
    )
    table = []
    for number, line in enumerate(lines[9:], start=10):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != len(COLUMNS):
            raise ValueError(f"{path}:{number}: {len(fields)} columns, expected {len(COLUMNS)}")
        table.append(
            Row(
                number=int(fields[0]),
                drift_rate=float(fields[1]),
                snr=float(fields[2]),
                frequency=float(fields[3]),
                index=int(fields[5]),
                freq_start=float(fields[6]),
                freq_end=float(fields[7]),
                sefd=float(fields[8]),
                sefd_freq=float(fields[9]),
                coarse_channel=int(fields[10]),
                full_number_of_hits=int(fields[11]),
            )
        )
    return observation, table
