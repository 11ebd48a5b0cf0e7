#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Real recorders' conventions (issue 14): every recorder fixture (recorder_fixtures:
guppi_daq at the GBT and Parkes, hpguppi at MeerKAT and the ATA, PUPPI with OVERLAP)
and baseband's own sample files, read by gr-blade and checked against

* baseband (PyPI), an independent GUPPI RAW reader, in its own venv
  (tools/make-reader-venvs): times of every block to 1 us, block offsets, gaps and
  every sample, where baseband can read the file (it cannot open hpguppi's MeerKAT
  files, which have no PKTSIZE or PKTFMT, nor 4-bit data; it reads NPOL 2 as one
  polarization of twice the samples, which the test undoes; its times for ATA files
  use PKTSIZE, which there includes a packet header, so the ATA times are checked
  against the hpguppi formula instead);
* the fixtures' own truth (the stream and start time they were made from);
* numpy: Mode H spectra of baseband's voltages (channelizer_reference,
  detector_reference), and where each fixture's tone must land, for both signs of
  the channel width.
"""

import math
import os
import shutil
import tempfile

import numpy
from gnuradio import blocks, gr, gr_unittest

from gnuradio import blade

import blade_testing as bt
from channelizer_reference import channelize
from detector_reference import detect
from qa_filterbank_sink import parse_fil
from qa_never_lose_data import run_cli
from recorder_fixtures import FIXTURES

# Reads files with baseband: 'stream' (the files as one stream) or 'frames' (every
# frame of every file: its PKTIDX, time and samples). Prints one JSON line.
BASEBAND = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from baseband import guppi
mode, files = sys.argv[1], sys.argv[2:]
def pairs(x):
    return [[float(v.real), float(v.imag)] for v in x.ravel()]
if mode == "stream":
    with guppi.open(files if len(files) > 1 else files[0], "rs") as fh:
        data = fh.read()
        out = {"start": float(fh.start_time.unix), "shape": list(data.shape), "data": pairs(data),
               "samples_per_frame": int(fh.samples_per_frame), "overlap": int(fh.header0.overlap)}
else:
    frames = []
    for name in files:
        with guppi.open(name, "rb") as fb:
            size = fb.seek(0, 2)
            fb.seek(0)
            while fb.tell() < size:
                frame = fb.read_frame()
                frames.append({"file": name, "pktidx": int(frame.header["PKTIDX"]),
                               "time": float(frame.header.time.unix), "shape": list(frame.data.shape),
                               "data": pairs(frame.data)})
    out = {"frames": frames}
print(json.dumps(out))
"""

SAMPLES = r"""
import json, sys
import baseband.data as d
print(json.dumps({"puppi": d.SAMPLE_PUPPI, "blc": d.SAMPLE_BLC}))
"""


def from_pairs(pairs, shape):
    values = numpy.asarray(pairs, numpy.float64)
    return (values[:, 0] + 1j * values[:, 1]).reshape(shape)


def baseband_to_aftp(data, antennas, npol_card):
    """baseband's [time, pol, channel] (all antennas' channels in one axis) ->
    [A, F, T, P]. NPOL 2 it reads as one polarization of twice the samples."""
    if npol_card == 2:
        t2, _, nchan = data.shape
        data = data.reshape(t2 // 2, 2, nchan)
    t, p, nchan = data.shape
    return numpy.transpose(data, (2, 0, 1)).reshape(antennas, nchan // antennas, t, p)


def read_all(path, chunk_samples=0, single_file=False):
    """Every chunk gr-blade's reader gives (cf32), as one stream [A, F, samples, P],
    and its chunk times."""
    source = blade.guppi_source(path, chunk_samples, "cf32", single_file=single_file)
    shape = list(source.output_shape())
    sink = blocks.vector_sink_b(source.output_item_size())
    times = blocks.vector_sink_b(64)
    tb = gr.top_block()
    tb.connect((source, 0), sink)
    tb.connect((source, 1), times)
    tb.run()
    chunks = blade.unpack(sink.data(), shape, "cf32")
    stamps = numpy.frombuffer(bytes(times.data()), blade.CHUNK_TIME_DTYPE)
    return numpy.concatenate(list(chunks), axis=2), stamps


class qa_recorders(gr_unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_recorders")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def baseband(self, mode, files):
        return bt.run_in_reader_venv(self, "baseband", BASEBAND, mode, *files)

    def test_the_committed_fixtures_are_what_the_generator_makes(self):
        for name, fixture in FIXTURES.items():
            with self.subTest(fixture=name):
                written = fixture.write(self.dir)
                committed = fixture.paths()
                self.assertEqual([os.path.basename(p) for p in written], [os.path.basename(p) for p in committed])
                for mine, theirs in zip(written, committed):
                    with open(mine, "rb") as a, open(theirs, "rb") as b:
                        self.assertEqual(a.read(), b.read(), f"{theirs} differs from what the generator makes")

    def test_every_fixture_reads_as_its_recorder_wrote_it(self):
        # The stream (data, zero-filled gaps, overlaps read once) and the start time,
        # against each fixture's truth.
        for name, fixture in FIXTURES.items():
            with self.subTest(fixture=name):
                path = fixture.paths()[0]
                d = blade.guppi.describe(path)
                self.assertEqual(
                    (d["nants"], d["nchan"], d["npol"], d["nbits"]),
                    (fixture.antennas, fixture.channels, 2, fixture.nbits),
                )
                self.assertEqual(d["ntime"], fixture.samples)
                self.assertEqual(d["piperblk"], fixture.steps_per_block)
                self.assertEqual(d["missing_blocks"], fixture.blocks[-1] + 1 - len(fixture.blocks))
                self.assertAlmostEqual(d["unix_start"], fixture.unix_start, delta=1e-6)
                stream, stamps = read_all(path, chunk_samples=fixture.samples)
                truth = fixture.stream()
                whole = stream.shape[2]
                self.assertEqual(whole, (fixture.blocks[-1] + 1) * fixture.samples)  # whole chunks only
                numpy.testing.assert_array_equal(stream, truth[:, :, :whole, :])
                expected = fixture.unix_start + numpy.arange(len(stamps)) * fixture.samples * fixture.tbin
                numpy.testing.assert_allclose(stamps["unix_start"], expected, rtol=0, atol=1e-6)
                # Chunks that do not line up with blocks, to the very last sample (the
                # last block's overlap included).
                odd = fixture.stream_length // 7
                stream, _ = read_all(path, chunk_samples=odd)
                numpy.testing.assert_array_equal(stream, truth[:, :, : stream.shape[2], :])
                self.assertEqual(stream.shape[2], fixture.stream_length // odd * odd)

    def test_times_blocks_and_samples_agree_with_baseband(self):
        for name in ("gbt_guppi_daq", "parkes_guppi_daq", "puppi_overlap", "ata_hpguppi"):
            fixture = FIXTURES[name]
            with self.subTest(fixture=name):
                files = fixture.paths()
                got = self.baseband("frames", files)["frames"]
                self.assertEqual(len(got), len(fixture.blocks))
                header = blade.guppi.describe(files[0])
                ours = {}
                for b, frame in zip(fixture.blocks, got):
                    ours[b] = frame
                    self.assertEqual(frame["pktidx"], fixture.first_pktidx + b * fixture.steps_per_block)
                # Block b starts b * samples after the stream's start; baseband's time
                # of each frame (STT + PKTIDX * PKTSIZE * 8 / bits per sample) agrees to
                # 1 us, except for hpguppi's PKTSIZE (with a packet header).
                if name != "ata_hpguppi":
                    for b, frame in ours.items():
                        self.assertAlmostEqual(
                            frame["time"], header["unix_start"] + b * fixture.samples * fixture.tbin, delta=1e-6
                        )
                stream, _ = read_all(files[0], chunk_samples=fixture.samples)
                for b, frame in ours.items():
                    data = baseband_to_aftp(
                        from_pairs(frame["data"], frame["shape"]), fixture.antennas, fixture.npol_card
                    )
                    end = min(fixture.block_samples, stream.shape[2] - b * fixture.samples)
                    numpy.testing.assert_array_equal(
                        stream[:, :, b * fixture.samples : b * fixture.samples + end], data[:, :, :end]
                    )
                # The gap: zeros where the dropped block was, nothing shifted.
                for b in range(fixture.blocks[-1] + 1):
                    if b not in ours:
                        self.assertFalse(numpy.any(stream[:, :, b * fixture.samples : (b + 1) * fixture.samples]))

    def test_overlapping_blocks_are_one_stream_as_baseband_reads_them(self):
        fixture = FIXTURES["puppi_overlap"]
        got = self.baseband("stream", fixture.paths())
        self.assertEqual(got["overlap"], fixture.overlap)
        theirs = baseband_to_aftp(from_pairs(got["data"], got["shape"]), 1, 4)
        self.assertEqual(theirs.shape[2], fixture.stream_length)
        stream, _ = read_all(fixture.paths()[0], chunk_samples=fixture.stream_length)  # all in one chunk
        numpy.testing.assert_array_equal(stream, theirs)
        self.assertAlmostEqual(blade.guppi.describe(fixture.paths()[0])["unix_start"], got["start"], delta=1e-6)

    def test_baseband_sample_files(self):
        paths = bt.run_in_reader_venv(self, "baseband", SAMPLES)
        # PUPPI at Arecibo (edited by baseband's authors: its overlap samples do not
        # repeat, so only the times and the first frame's samples are compared).
        puppi = paths["puppi"]
        got = self.baseband("frames", [puppi])["frames"]
        d = blade.guppi.describe(puppi)
        self.assertEqual((d["nchan"], d["npol"], d["piperblk"], d["ntime"]), (4, 2, 15, 960))
        for b, frame in enumerate(got):
            self.assertAlmostEqual(frame["time"], d["unix_start"] + b * 960 * d["tbin"], delta=1e-6)
        stream, _ = read_all(puppi, chunk_samples=960)
        first = baseband_to_aftp(from_pairs(got[0]["data"], got[0]["shape"]), 1, 4)
        numpy.testing.assert_array_equal(stream[:, :, :960], first[:, :, :960])
        # The GBT's header without data: refused as a recording, shown by blade-cli
        # header with a warning.
        code, out, err = run_cli("header", paths["blc"])
        self.assertEqual(code, 0, err)
        self.assertIn("PKTIDX  = 27262976", out)
        self.assertIn("DIRECTIO= 1", out)  # quoted '1' in the file
        self.assertIn("warning: the first header of", err)
        self.assertIn("BLOCSIZE = 134217728 needs data", err)

    def test_mode_h_spectra_and_the_tone_for_either_sideband(self):
        # Spectra of each fixture equal numpy's of the voltages baseband (or, where it
        # cannot read the file, the fixture's truth) gives; the tone peaks at its sky
        # frequency whichever the sign of CHAN_BW.
        rate, integration = 16, 2
        for name, fixture in FIXTURES.items():
            with self.subTest(fixture=name):
                files = fixture.paths()
                code, out, err = run_cli(
                    "mode-h",
                    "-i",
                    files[0],
                    "-o",
                    self.dir,
                    "--name",
                    name,
                    "--chunk-samples",
                    fixture.samples,
                    "--channelizer-rate",
                    rate,
                    "--integration",
                    integration,
                    "--device",
                    "cpu",
                    "--no-progress",
                )
                self.assertEqual(code, 0, err)
                voltages = fixture.stream()[:, :, : (fixture.blocks[-1] + 1) * fixture.samples]
                if name in ("gbt_guppi_daq", "puppi_overlap"):
                    got = self.baseband("stream", files)
                    theirs = baseband_to_aftp(from_pairs(got["data"], got["shape"]), fixture.antennas, 4)
                    voltages = theirs[:, :, : voltages.shape[2]]
                chunks = numpy.moveaxis(
                    voltages.reshape(fixture.antennas, fixture.channels, -1, fixture.samples, 2), 2, 0
                )
                expected, _ = detect(channelize(chunks, rate), "I", integration)  # [C, A, F*N, T', 1]
                expected = numpy.concatenate(list(expected), axis=2)  # [A, F*N, spectra, 1]
                for a in range(fixture.antennas):
                    header, data = parse_fil(self.out(f"{name}.ant{a:04d}.fil"))
                    numpy.testing.assert_allclose(
                        data[:, 0, :], expected[a, :, :, 0].T, rtol=2e-5, atol=2e-5 * expected.max()
                    )
                    frequencies = header["fch1"] * 1e6 + header["foff"] * 1e6 * numpy.arange(header["nchans"])
                    peak = frequencies[numpy.argmax(data[:, 0, :].sum(axis=0))]
                    self.assertLessEqual(
                        abs(peak - fixture.tone_frequency),
                        abs(fixture.chan_bw) / rate,
                        f"tone at {peak / 1e6} MHz, expected {fixture.tone_frequency / 1e6}",
                    )
                    self.assertAlmostEqual(header["tstart"], fixture.unix_start / 86400 + 40587, delta=1e-6 / 86400)

    def out(self, name):
        return os.path.join(self.dir, name)

    def test_headers_carry_what_breakthrough_listen_tools_read(self):
        expected_ids = {
            "gbt_guppi_daq": 6,
            "parkes_guppi_daq": 4,
            "meerkat_hpguppi": 64,
            "ata_hpguppi": 9,
            "ata_hpguppi_4bit": 9,
            "puppi_overlap": 1,
        }
        for name, fixture in FIXTURES.items():
            with self.subTest(fixture=name):
                code, out, err = run_cli(
                    "mode-h",
                    "-i",
                    fixture.paths()[0],
                    "-o",
                    self.dir,
                    "--name",
                    name,
                    "--channelizer-rate",
                    8,
                    "--device",
                    "cpu",
                    "--no-progress",
                )
                self.assertEqual(code, 0, err)
                header, _ = parse_fil(self.out(f"{name}.ant0000.fil"))
                self.assertEqual(header["telescope_id"], expected_ids[name])
                self.assertEqual(header["machine_id"], 20)
                cards = fixture.cards
                self.assertAlmostEqual(header["az_start"], cards["AZ"], delta=1e-9)
                za = cards["ZA"] if "ZA" in cards else 90 - cards["EL"]
                self.assertAlmostEqual(header["za_start"], za, delta=1e-9)
                self.assertEqual(header["source_name"], cards["SRC_NAME"])

    def test_mode_b_on_the_arrays(self):
        # A beam on the boresight: the steering delays are zero and the calibration
        # one, so the beam is the antennas' sum; its file has the recording's times
        # and frequencies.
        for name in ("meerkat_hpguppi", "ata_hpguppi"):
            fixture = FIXTURES[name]
            with self.subTest(fixture=name):
                files = fixture.paths()
                d = blade.guppi.describe(files[0])
                header = d["header"]
                ra = math.radians(15 * blade.recording.parse_angle(header["RA_STR"]))
                dec = math.radians(blade.recording.parse_angle(header["DEC_STR"]))
                recipe = self.out(f"{name}.bfr5")
                rng = numpy.random.default_rng(7)
                total = header["SCHAN"] + fixture.channels
                freqs = (
                    fixture.obsfreq
                    + (numpy.arange(total) - header["SCHAN"] - (fixture.channels - 1) / 2) * fixture.chan_bw
                )
                blade.write_bfr5(
                    recipe,
                    reference=(math.radians(-121.47), math.radians(40.82), 1019.0),
                    antenna_positions=rng.uniform(-100, 100, (fixture.antennas, 3)),
                    frame="enu",
                    boresight=(ra, dec),
                    beams=[(ra, dec)],
                    source_names=["boresight"],
                    frequencies=freqs,
                    cal_all=numpy.ones((total, 2, fixture.antennas), complex),
                    antenna_names=header["ANTNMS00"].split(","),
                )
                code, out, err = run_cli(
                    "mode-b",
                    "-i",
                    files[0],
                    "-r",
                    recipe,
                    "-o",
                    self.dir,
                    "--name",
                    name,
                    "--chunk-samples",
                    fixture.samples,
                    "--device",
                    "cpu",
                    "--no-progress",
                )
                self.assertEqual(code, 0, err)
                beam_header, data = parse_fil(self.out(f"{name}.beam0000.fil"))
                voltages = fixture.stream()[:, :, : (fixture.blocks[-1] + 1) * fixture.samples]
                expected = numpy.sum(numpy.abs(voltages.sum(axis=0)) ** 2, axis=-1)  # [F, T]
                numpy.testing.assert_allclose(data[:, 0, :], expected.T, rtol=1e-5, atol=1e-5 * expected.max())
                self.assertAlmostEqual(beam_header["tstart"], fixture.unix_start / 86400 + 40587, delta=1e-6 / 86400)
                self.assertEqual(beam_header["fch1"], fixture.channel_centre(0) / 1e6)
                self.assertEqual(beam_header["source_name"], "boresight")

    def test_files_of_different_observations_are_not_joined(self):
        # The second file of a set from another observation (here another band and
        # source) was read as the same band.
        fixture = FIXTURES["gbt_guppi_daq"]
        first, second = fixture.paths()
        shutil.copy(first, self.out("mixed.0000.raw"))
        with open(second, "rb") as handle:
            data = handle.read()
        data = data.replace(b"1.5014648437500000E+03", b"1.6014648437500000E+03")  # OBSFREQ
        with open(self.out("mixed.0001.raw"), "wb") as handle:
            handle.write(data)
        with self.assertRaisesRegex(
            RuntimeError,
            "mixed.0001.raw: block header at byte offset 0: OBSFREQ = "
            "'1.6014648437500000E\\+03', but '1.5014648437500000E\\+03'",
        ):
            blade.guppi_source(self.out("mixed"))


if __name__ == "__main__":
    gr_unittest.main()
