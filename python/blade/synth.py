# SPDX-License-Identifier: MIT
"""
Synthetic observations for the demo, the tests and the examples: what an array of
antennas, phased to its boresight, records of a narrowband source elsewhere in its
field of view, in Gaussian noise. Written as a GUPPI RAW recording plus a BFR5
beamforming recipe with one beam on the source and one off it.

Signal model (the one the phasor module inverts; docs/blocks/phasor.md): after
phasing to the boresight, a source in direction s reaches antenna a earlier by the
steering delay tau_a(t) = tau_a(s) - tau_a(boresight), so in the channel holding the
tone the baseband voltage is

    x_a(t) = amplitude * exp(2 pi i (b t + s nu_s tau_a(t))) + n_a(t)

with b the tone's baseband frequency, nu_s its sky frequency, s = +1 in an upper
sideband band (CHAN_BW > 0) and -1 in a lower sideband one, whose recorded
voltages are the conjugates of the sky's (mirrored: b > 0 is a lower sky frequency,
and the geometric phase turns the other way), and n_a independent
complex Gaussian noise (sigma per real component), quantized to int8. tau_a(t) is
computed at every block's edges and interpolated linearly to each sample: the
Earth's rotation changes it by picoseconds per second, a tenth of a turn per second
of phase at 1.4 GHz on a 300 m baseline.

    obs = SyntheticObservation(antennas=8, channels=4, blocks=16)
    files = obs.write("out", "demo")       # out/demo.0000.raw ..., out/demo.bfr5
    obs.tone_fine_channel(rate)            # where the tone lands after a channelizer
"""

import math
import os

import numpy

#: Hat Creek Radio Observatory (the Allen Telescope Array): longitude, latitude
#: (degrees, WGS84, east-positive) and altitude (m).
HAT_CREEK = (-121.4733, 40.8173, 1019.2)

#: 3C 286 (ICRS): the demo's boresight.
BORESIGHT_3C286 = (math.radians(15 * (13 + 31 / 60 + 8.288 / 3600)), math.radians(30 + 30 / 60 + 32.96 / 3600))

UNIX_MJD0 = 40587.0  # MJD of 1970-01-01
UNIX_JD0 = 2440587.5


def sexagesimal(value, hours):
    """Radians as 'hh:mm:ss.ssss' (hours) or '+dd:mm:ss.sss' (degrees)."""
    units = math.degrees(value) / (15.0 if hours else 1.0)
    sign = "-" if units < 0 else ("" if hours else "+")
    units = abs(units)
    whole = int(units)
    minutes = int((units - whole) * 60)
    seconds = ((units - whole) * 60 - minutes) * 60
    digits = 4 if hours else 3
    if round(seconds, digits) >= 60:  # 59.99995 s rounds up into the next minute
        seconds, minutes = 0.0, minutes + 1
        if minutes == 60:
            minutes, whole = 0, whole + 1
    return f"{sign}{whole:02d}:{minutes:02d}:{seconds:0{3 + digits}.{digits}f}"


def hat_creek_layout(antennas, seed=42, radius=150.0):
    """East, north, up offsets (m) of `antennas` dishes scattered within `radius` m
    of the reference (antenna 0 at the reference), like the ATA's compact array."""
    rng = numpy.random.default_rng(seed)
    enu = numpy.column_stack(
        [
            rng.uniform(-radius, radius, antennas),
            rng.uniform(-radius, radius, antennas),
            rng.uniform(-2.0, 2.0, antennas),
        ]
    )
    enu[0] = 0.0
    return enu


class SyntheticObservation:
    """
    A synthetic observation: geometry, band, timing, noise and one tone.

    antennas, channels, polarizations: the recording's [A, F, *, P].
    block_samples, blocks: samples per GUPPI block and block count (the recording
        lasts blocks * block_samples / |chan_bw| seconds).
    obsfreq, chan_bw: OBSFREQ and CHAN_BW (Hz); schan: absolute channel of recorded
        channel 0; total_channels: channels of the F-engine (the recipe's nchan).
    start_unix: time of the first sample; dut1: UT1 - UTC (s).
    boresight, source, off_source: (ra, dec) radians: where the data are phased,
        where the tone comes from, and where the second beam points.
    tone_channel, tone_offset: recorded channel of the tone and its sky-frequency
        offset from that channel's centre as a fraction of chan_bw (13/64: the centre
        of a fine channel for every channelizer rate that 64 divides).
    tone_amplitude, noise: the tone's amplitude and the noise's standard deviation
        per real component, in int8 units.
    delay_model: None (blade.compute_delays) or a function (reference, positions
        [A, 3] ECEF, boresight, direction, jd, dut1) -> steering delays [A] (s), for
        tests that want an independent one.
    """

    def __init__(
        self,
        antennas=8,
        channels=4,
        polarizations=2,
        block_samples=65536,
        blocks=16,
        obsfreq=1420.0e6,
        chan_bw=0.5e6,
        schan=512,
        total_channels=1024,
        start_unix=1748757600.0,
        dut1=0.0,
        site=HAT_CREEK,
        layout_seed=42,
        boresight=BORESIGHT_3C286,
        source_offset=(0.012, 0.004),
        off_source_offset=(-0.012, -0.004),
        tone_channel=2,
        tone_offset=13 / 64,
        tone_amplitude=0.6,
        noise=8.0,
        seed=2026,
        source_name="3C286",
        beam_names=("tone-source", "off-source"),
        delay_model=None,
    ):
        if not 0 <= tone_channel < channels:
            raise ValueError(f"tone_channel {tone_channel}: the recording has channels 0..{channels - 1}")
        if schan + channels > total_channels:
            raise ValueError(f"schan {schan} + {channels} channels exceed the {total_channels} F-engine channels")
        self.antennas, self.channels, self.polarizations = antennas, channels, polarizations
        self.block_samples, self.blocks = block_samples, blocks
        self.obsfreq, self.chan_bw, self.schan, self.total_channels = obsfreq, chan_bw, schan, total_channels
        self.start_unix, self.dut1 = start_unix, dut1
        lon, lat, alt = site
        self.reference = (math.radians(lon), math.radians(lat), alt)
        self.enu = hat_creek_layout(antennas, layout_seed)
        self.antenna_names = [f"ant{a:02d}" for a in range(antennas)]
        self.boresight = tuple(boresight)
        self.source = (boresight[0] + source_offset[0], boresight[1] + source_offset[1])
        self.off_source = (boresight[0] + off_source_offset[0], boresight[1] + off_source_offset[1])
        self.tone_channel, self.tone_offset = tone_channel, tone_offset
        self.tone_amplitude, self.noise, self.seed = tone_amplitude, noise, seed
        self.source_name, self.beam_names = source_name, list(beam_names)
        self.delay_model = delay_model
        self._positions_ecef = None

    # --- axes -----------------------------------------------------------------

    @property
    def tbin(self):
        """Seconds per sample: 1 / |CHAN_BW| (critically sampled channels)."""
        return 1.0 / abs(self.chan_bw)

    @property
    def samples(self):
        return self.blocks * self.block_samples

    @property
    def duration(self):
        return self.samples * self.tbin

    def channel_centre(self, channel):
        """Sky frequency (Hz) of recorded channel `channel`: OBSFREQ + (c - (F-1)/2) CHAN_BW."""
        return self.obsfreq + (channel - (self.channels - 1) / 2) * self.chan_bw

    @property
    def tone_frequency(self):
        """The tone's sky frequency (Hz)."""
        return self.channel_centre(self.tone_channel) + self.tone_offset * self.chan_bw

    @property
    def tone_baseband(self):
        """The tone's frequency in its channel's complex baseband (Hz): positive
        offsets are higher sky frequencies for CHAN_BW > 0, lower for CHAN_BW < 0."""
        return self.tone_offset * abs(self.chan_bw)

    def tone_fine_channel(self, rate):
        """Index of the tone on the fine-channel axis after a channelizer of `rate`
        (fine channel k of coarse c is at c*rate + k; DC at k = rate // 2)."""
        offset = self.tone_offset * rate
        if abs(offset - round(offset)) > 1e-9:
            raise ValueError(f"the tone is not at a fine-channel centre for rate {rate}")
        return self.tone_channel * rate + rate // 2 + int(round(offset))

    def recipe_frequencies(self):
        """Centres (Hz) of the F-engine's absolute channels 0 .. total_channels - 1."""
        absolute = numpy.arange(self.total_channels)
        return self.obsfreq + (absolute - self.schan - (self.channels - 1) / 2) * self.chan_bw

    @property
    def positions_ecef(self):
        """Antenna positions [A, 3] (ECEF m) as the BFR5 reader converts the recipe's
        ENU offsets: what the phasor block will use. Without a recipe written yet,
        a temporary one is."""
        if self._positions_ecef is None:
            import tempfile

            with tempfile.TemporaryDirectory() as folder:
                self.write_recipe(os.path.join(folder, "array.bfr5"))
        return self._positions_ecef

    # --- delays ---------------------------------------------------------------

    def steering_delays(self, direction, unix):
        """Steering delays [A] (s) of `direction` relative to the boresight at `unix`."""
        jd = unix / 86400.0 + UNIX_JD0
        if self.delay_model is not None:
            return numpy.asarray(
                self.delay_model(self.reference, self.positions_ecef, self.boresight, direction, jd, self.dut1),
                numpy.float64,
            )
        from gnuradio import blade

        array = blade.array_geometry(
            reference=list(self.reference),
            antenna_positions=self.positions_ecef.tolist(),
            boresight=list(self.boresight),
            beams=[list(direction)],
        )
        return blade.compute_delays(array, jd, self.dut1)[0]

    # --- files ----------------------------------------------------------------

    def header(self):
        """The GUPPI cards of the recording besides the geometry ones."""
        syncs = math.floor(self.start_unix)
        mjd = self.start_unix / 86400.0 + UNIX_MJD0
        names = ",".join(self.antenna_names)
        cards = {
            "TELESCOP": "ATA",
            "OBSID": "gr-blade synthetic observation",
            "SRC_NAME": self.source_name,
            "RA_STR": sexagesimal(self.boresight[0], hours=True),
            "DEC_STR": sexagesimal(self.boresight[1], hours=False),
            "OBSFREQ": self.obsfreq / 1e6,
            "CHAN_BW": self.chan_bw / 1e6,
            "OBSBW": self.channels * self.chan_bw / 1e6,
            "TBIN": self.tbin,
            "SCHAN": self.schan,
            "SYNCTIME": syncs,
            "STT_IMJD": int(mjd),
            "STT_SMJD": int(round((mjd - int(mjd)) * 86400)) % 86400,
            "STT_OFFS": 0.0,
            "DUT1": self.dut1,
        }
        # Antenna names, 68 characters of value per card at most.
        for index in range(0, max(1, math.ceil(len(names) / 64))):
            cards[f"ANTNMS{index:02d}"] = names[64 * index : 64 * (index + 1)]
        return cards

    def write_recipe(self, path, delay_rows=None):
        """The BFR5 recipe: array, boresight, beams [source, off-source], unit
        calibration, frequencies, and (delay_rows > 0) a table of steering delays."""
        from gnuradio import blade

        kwargs = dict(
            reference=self.reference,
            antenna_positions=self.enu,
            frame="enu",
            boresight=self.boresight,
            beams=[self.source, self.off_source],
            nchan=self.total_channels,
            npol=self.polarizations,
            antenna_names=self.antenna_names,
            telescope_name="ATA",
            obsid="gr-blade synthetic observation",
            frequencies=self.recipe_frequencies(),
            source_names=self.beam_names,
            dut1=self.dut1,
        )
        blade.write_bfr5(path, **kwargs)
        # The reader turns the ENU offsets into ECEF exactly as the phasor block
        # sees them; the voltages are made from those positions.
        self._positions_ecef = numpy.asarray(blade.read_bfr5(path).antenna_positions_ecef)
        if delay_rows:
            # Precomputed delays (ns) one second apart, covering the recording, for
            # `--delays recipe`.
            times = self.start_unix + numpy.arange(delay_rows, dtype=numpy.float64)
            delays = (
                numpy.array([[self.steering_delays(beam, t) for beam in (self.source, self.off_source)] for t in times])
                * 1e9
            )
            blade.write_bfr5(path, **kwargs, delays=delays, rates=numpy.zeros_like(delays), time_array=times)
        return path

    def voltage_blocks(self):
        """The recording's blocks, complex64 [A, F, T, P] with integral int8 values,
        one at a time."""
        rng = numpy.random.default_rng(self.seed)
        A, F, T, P = self.antennas, self.channels, self.block_samples, self.polarizations
        edges = self.start_unix + numpy.arange(self.blocks + 1) * T * self.tbin
        delays = [self.steering_delays(self.source, t) for t in edges]  # [A] each
        fraction = numpy.arange(T) / T
        for b in range(self.blocks):
            pairs = rng.standard_normal((A, F, T, P, 2), numpy.float32)  # (re, im) last
            pairs *= numpy.float32(self.noise)
            tau = delays[b][:, None] + (delays[b + 1] - delays[b])[:, None] * fraction[None, :]  # [A, T]
            n = b * T + numpy.arange(T)
            sense = 1.0 if self.chan_bw > 0 else -1.0  # a lower sideband is the sky's mirror image
            cycles = (self.tone_baseband * self.tbin * n)[None, :] + sense * self.tone_frequency * tau
            tone = self.tone_amplitude * numpy.exp(2j * numpy.pi * numpy.mod(cycles, 1.0))  # [A, T]
            pairs[:, self.tone_channel, :, :, 0] += tone.real[:, :, None].astype(numpy.float32)
            pairs[:, self.tone_channel, :, :, 1] += tone.imag[:, :, None].astype(numpy.float32)
            numpy.rint(pairs, out=pairs)
            numpy.clip(pairs, -127, 127, out=pairs)
            values = pairs.view(numpy.complex64)[..., 0]
            yield values

    def write(self, directory, name="synthetic", blocks_per_file=8, delay_rows=None):
        """
        Write DIRECTORY/NAME.0000.raw, ... and DIRECTORY/NAME.bfr5. Returns
        {"stem", "raw" (paths), "recipe"}. delay_rows (default: enough rows one second
        apart to cover the recording) fills the recipe's delay table.
        """
        from .formats import guppi

        os.makedirs(directory, exist_ok=True)
        stem = os.path.join(directory, name)
        if delay_rows is None:
            delay_rows = int(math.ceil(self.duration)) + 2
        recipe = self.write_recipe(stem + ".bfr5", delay_rows)
        first = round((self.start_unix - math.floor(self.start_unix)) / self.tbin)
        pktidx = [first + b * self.block_samples for b in range(self.blocks)]
        raw = guppi.write_raw(
            stem,
            self.voltage_blocks(),
            self.header(),
            nbits=8,
            pktidx=pktidx,
            piperblk=self.block_samples,
            blocks_per_file=blocks_per_file,
        )
        return {"stem": stem, "raw": raw, "recipe": recipe}


def example_folder():
    """TMPDIR/gr-blade-examples, made if missing: where the examples write."""
    import tempfile

    folder = os.path.join(tempfile.gettempdir(), "gr-blade-examples")
    os.makedirs(folder, exist_ok=True)
    return folder


def example_recording(folder=None, name="example", blocks=16, block_samples=8192):
    """
    The stem of a small synthetic recording for the example flowgraphs (8 antennas,
    4 channels, `blocks` blocks of `block_samples` samples), with its recipe at
    stem + ".bfr5". Written into `folder` (default: TMPDIR/gr-blade-examples) the
    first time, found there afterwards.
    """
    import shutil
    import tempfile

    folder = folder or example_folder()
    stem = os.path.join(folder, name)
    if os.path.exists(stem + ".bfr5") and os.path.exists(stem + ".0000.raw"):
        return stem
    os.makedirs(folder, exist_ok=True)
    # Written aside and moved in, the recipe last: a flowgraph starting meanwhile
    # never finds half a recording.
    scratch = tempfile.mkdtemp(prefix=f".{name}-", dir=folder)
    try:
        files = SyntheticObservation(blocks=blocks, block_samples=block_samples).write(scratch, name)
        for path in files["raw"] + [files["recipe"]]:
            os.replace(path, os.path.join(folder, os.path.basename(path)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return stem
