#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
blade-rawspec against rawspec's behaviour written from its documentation and
source (docs/user-guide.md#rawspec): file names (plain, per antenna, incoherent
sum, -a, -o, -d, -j), every header value (fch1 from OBSFREQ, OBSBW and the DC bin
at floor(N/2), foff = OBSBW/Ncpa/N, tsamp = TBIN N I, nbeams 1, ibeam BEAM_ID or -1,
machine 20, rawspec's telescope ids, rawdatafile), and the spectra computed here
with numpy from the samples written: v/127 for 8- and 4-bit samples, unnormalised
FFTs, fftshift, sums of I spectra, -p 1 = XX + YY, -p 4 = XX, YY, Re XY*, Im XY*,
-p -4 = I, Q, Re XY*, Im XY* (the imaginary terms negated for a negative OBSBW),
the weighted incoherent sum, and the headers file of -H. Bad options are refused.
"""

import os
import shutil
import tempfile

import numpy
from gnuradio import gr_unittest

from gnuradio.blade.formats import guppi

import blade_testing
from qa_filterbank_sink import parse_fil

TBIN, OBSFREQ, NCHAN, NTIME, BLOCKS = 1e-6, 1420.0, 4, 1024, 6


def rawspec_cli(*argv):
    return blade_testing.run_cli_main("rawspec", "--no-progress", *[str(a) for a in argv])


def write_recording(path, nants, npol=2, nbits=8, obsbw=4.0, telescope="ATA", seed=1, extra=None):
    """A recording of random samples; returns them [n, A, F, T, P] (complex)."""
    rng = numpy.random.default_rng(seed)
    blocks = guppi.random_blocks(rng, BLOCKS, nants, NCHAN, NTIME, npol, nbits)
    header = {
        "OBSFREQ": OBSFREQ,
        "OBSBW": obsbw,
        "CHAN_BW": obsbw / NCHAN,
        "TBIN": TBIN,
        "SYNCTIME": 1700000000,
        "STT_IMJD": 60261,  # the same instant as SYNCTIME
        "STT_SMJD": 166400,
        "SRC_NAME": "VOYAGER1",
        "TELESCOP": telescope,
        "RA_STR": "17:10:03.9",
        "DEC_STR": "+12:03:25.0",
        **(extra or {}),
    }
    guppi.write_raw(path, blocks, header, nbits=nbits, blocks_per_file=4)
    return blocks


def reference(blocks, nfft, nint, pol, weights=None, negative_bw=False, scale=1 / 127.0):
    """rawspec's spectra from its definition: [spectra, IFs, A or 1, F * N]."""
    x = blocks.astype(numpy.complex128) * scale  # [n, A, F, T, P]
    n, A, F, T, P = x.shape
    stream = numpy.moveaxis(x, 0, 2).reshape(A, F, n * T, P)  # blocks joined in time
    ffts = stream.shape[2] // nfft
    segments = stream[:, :, : ffts * nfft].reshape(A, F, ffts, nfft, P)
    spectra = numpy.fft.fftshift(numpy.fft.fft(segments, axis=3), axes=3)  # [A, F, S, N, P]
    X = spectra[..., 0]
    Y = spectra[..., 1] if P > 1 else None
    if pol == 1:
        ifs = [numpy.abs(X) ** 2 + (numpy.abs(Y) ** 2 if Y is not None else 0)]
    else:
        cross = X * numpy.conj(Y)
        imag = -cross.imag if negative_bw else cross.imag
        if pol == 4:
            ifs = [numpy.abs(X) ** 2, numpy.abs(Y) ** 2, cross.real, imag]
        else:
            ifs = [numpy.abs(X) ** 2 + numpy.abs(Y) ** 2, numpy.abs(X) ** 2 - numpy.abs(Y) ** 2, cross.real, imag]
    power = numpy.stack(ifs)  # [IF, A, F, S, N]
    out = power.shape[3] // nint
    power = power[:, :, :, : out * nint].reshape(len(ifs), A, F, out, nint, nfft).sum(axis=4)
    power = numpy.moveaxis(power, 3, 0).reshape(out, len(ifs), A, F * nfft)  # channels: coarse-major
    if weights is not None:
        power = numpy.tensordot(power, numpy.asarray(weights, float), axes=([2], [0]))[:, :, None, :]
    return power


class qa_rawspec(gr_unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="qa_rawspec")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def run_ok(self, *argv):
        code, out, err = rawspec_cli(*argv)
        self.assertEqual(code, 0, err)
        return out

    def assert_spectra(self, path, expected, rtol=2e-6):
        header, data = parse_fil(path)
        self.assertEqual(data.shape, expected.shape)
        scale = numpy.abs(expected).max()
        self.assertLess(numpy.abs(data - expected).max() / scale, rtol)
        return header

    def test_one_antenna_three_products_names_headers_values(self):
        blocks = write_recording(self.path("obs"), nants=1, extra={"BEAM_ID": 3})
        out = self.run_ok(
            "-f", "256,8,64", "-t", "2,16,4", "-p", "1,4,-4", "-o", 5, "--device", "cpu", self.path("obs")
        )
        self.assertIn("output product 5: 12 spectra", out)  # 6 blocks x 1024 / (256 x 2)
        for k, (nfft, nint, pol) in enumerate([(256, 2, 1), (8, 16, 4), (64, 4, -4)]):
            path = self.path(f"obs.rawspec.{5 + k:04d}.fil")
            header = self.assert_spectra(path, reference(blocks, nfft, nint, pol)[:, :, 0, :])
            foff = 4.0 / NCHAN / nfft
            centre0 = OBSFREQ - 4.0 * (NCHAN - 1) / (2 * NCHAN)
            self.assertAlmostEqual(header["foff"], foff, delta=1e-15)
            self.assertAlmostEqual(header["fch1"], centre0 - (nfft // 2) * foff, delta=1e-9)
            self.assertAlmostEqual(header["tsamp"], TBIN * nfft * nint, delta=1e-15)
            self.assertEqual((header["nchans"], header["nifs"], header["nbits"]), (NCHAN * nfft, abs(pol), 32))
            self.assertEqual((header["nbeams"], header["ibeam"], header["machine_id"]), (1, 3, 20))
            self.assertEqual((header["telescope_id"], header["data_type"]), (9, 1))
            self.assertEqual((header["source_name"], header["rawdatafile"]), ("VOYAGER1", "obs.0000.raw"))
            self.assertAlmostEqual(header["src_raj"], 171003.9, delta=1e-6)
            self.assertAlmostEqual(header["src_dej"], 120325.0, delta=1e-6)
            self.assertAlmostEqual(header["tstart"], 60261 + 166400 / 86400, delta=1e-9)

    def test_antennas_split_sum_select_and_lower_sideband(self):
        blocks = write_recording(self.path("ata"), nants=3, obsbw=-4.0, telescope="Unknown scope")
        self.run_ok("-f", "64", "-t", "4", "-p", "-4", "-d", self.path("out"), "--device", "emulated", self.path("ata"))
        expected = reference(blocks, 64, 4, -4, negative_bw=True)
        for a in range(3):
            header = self.assert_spectra(self.path("out", f"ata-ant{a:03d}.rawspec.0000.fil"), expected[:, :, a])
            self.assertEqual((header["telescope_id"], header["ibeam"]), (-1, -1))
            self.assertLess(header["foff"], 0)
        weights = [0.5, 2.0, 1.0]
        self.run_ok("-f", "64", "-t", "4", "-i", "0.5,2,1", "-d", self.path("out"), "--device", "cpu", self.path("ata"))
        self.assert_spectra(self.path("out", "ata-ics.rawspec.0000.fil"), reference(blocks, 64, 4, 1, weights)[:, :, 0])
        self.run_ok(
            "-f", "64", "-t", "4", "-i", "2", "-o", 1, "-d", self.path("out"), "--device", "cpu", self.path("ata")
        )
        self.assert_spectra(
            self.path("out", "ata-ics.rawspec.0001.fil"), reference(blocks, 64, 4, 1, [2, 2, 2])[:, :, 0]
        )
        self.run_ok(
            "-f", "64", "-t", "4", "-a", 2, "-o", 2, "-d", self.path("out"), "--device", "cpu", self.path("ata")
        )
        self.assert_spectra(self.path("out", "ata-ant002.rawspec.0002.fil"), reference(blocks, 64, 4, 1)[:, :, 2])
        self.assertFalse(os.path.exists(self.path("out", "ata-ant000.rawspec.0002.fil")))

    def test_channel_selection_4_bit_fbh5_and_headers(self):
        blocks = write_recording(self.path("four"), nants=1, nbits=4)
        out_dir = self.path("h5")
        os.mkdir(out_dir)
        self.run_ok(
            "-f", "32", "-t", "8", "-s", 1, "-n", 2, "-j", "-H", "-d", out_dir, "--device", "cpu", self.path("four")
        )
        import h5py

        with h5py.File(os.path.join(out_dir, "four.rawspec.0000.h5"), "r") as f:
            data = f["data"][()]
            foff, fch1 = f["data"].attrs["foff"], f["data"].attrs["fch1"]
        expected = reference(blocks[:, :, 1:3], 32, 8, 1)[:, :, 0]
        self.assertLess(numpy.abs(data - expected).max() / expected.max(), 2e-6)
        centre0 = OBSFREQ - 4.0 * (NCHAN - 1) / (2 * NCHAN)
        self.assertAlmostEqual(fch1, centre0 - 16 * foff + 1 * 4.0 / NCHAN, delta=1e-9)
        # -H: each block's header cards through END, in order, from both files.
        with open(os.path.join(out_dir, "four.rawspec.headers"), "rb") as f:
            saved = f.read()
        expected_headers = b""
        for name in ("four.0000.raw", "four.0001.raw"):
            with open(self.path(name), "rb") as raw:
                content = raw.read()
            at = 0
            while at < len(content):
                end = content.index(b"END" + b" " * 77, at) + 80
                expected_headers += content[at:end]
                blocsize = NCHAN * NTIME * 2  # 4-bit complex, 2 pols: one byte per sample and pol
                at = end + blocsize
        self.assertEqual(saved, expected_headers)
        self.assertEqual(saved.count(b"END" + b" " * 77), BLOCKS)

    def test_bad_options_are_refused(self):
        write_recording(self.path("obs"), nants=1)
        for argv, message in [
            (["-f", "64"], "same number of FFT and integration lengths"),
            (["-f", "64,8", "-t", "4"], "same number of FFT and integration lengths"),
            (["-f", "64", "-t", "4", "-p", "3"], "must be 1 or \\+/- 4"),
            (["-s", "1"], "nchan must be non-zero if schan is non-zero"),
            (["-d", "host:1234"], "network output"),
            (["-f", "64", "-t", "4", "-i", "1,2"], "2 antenna-weights for the 1 antennas"),
        ]:
            code, _, err = rawspec_cli(*argv, "--device", "cpu", self.path("obs"))
            self.assertEqual(code, 1, err)
            self.assertRegex(err, message)


if __name__ == "__main__":
    gr_unittest.run(qa_rawspec)
