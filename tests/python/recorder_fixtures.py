# SPDX-License-Identifier: MIT
"""
Small GUPPI RAW recordings whose headers follow, card for card, what each
Breakthrough Listen recorder writes (docs/formats.md, "Telescopes and recorders"):

    gbt_guppi_daq      GBT, guppi_daq (BL backend): NPOL 4, PKTIDX counts packets of
                       PKTSIZE bytes, no PIPERBLK, SYNCTIME, NANTS or SCHAN; DIRECTIO
                       '1' quoted; a scan not at its start (PKTIDX far from 0);
                       lower sideband (OBSBW, CHAN_BW < 0); two files
    parkes_guppi_daq   Parkes, the same backend: upper sideband, one block dropped
    meerkat_hpguppi    MeerKAT BLUSE, hpguppi: 4 antennas, PKTIDX counts SPEAD heaps
                       (PIPERBLK of them per block), SYNCTIME, SCHAN, STT_* of
                       PKTSTART (a negative STT_OFFS), EL instead of ZA, no PKTSIZE
    ata_hpguppi        ATA, hpguppi: 3 antennas, PKTIDX counts samples (PIPERBLK =
                       NTIME), PKTSIZE with the packet header (divides nothing)
    ata_hpguppi_4bit   the same at the ATA's default 4 bits
    puppi_overlap      Arecibo PUPPI: OVERLAP samples repeated from block to block,
                       PKTIDX counts packets of the new data

The recordings are written by this module alone (numpy, the header formatter of
gnuradio.blade.formats.guppi), not by gr-blade's C writer; tests/fixtures/recorders holds
them (make them again with tests/fixtures/make-recorder-fixtures). Each fixture
knows its truth: the continuous voltage stream a reader must deliver, the unix time
of its first sample, and where its tone is.

    fixture = FIXTURES["gbt_guppi_daq"]
    fixture.stream()        # complex [A, F, samples, P], zeros where blocks are missing
    fixture.unix_start, fixture.tone_frequency, fixture.tone_channel
"""

import math
import os

import numpy

from gnuradio.blade import guppi

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_DIR = os.path.join(HERE, "..", "fixtures", "recorders")

UNIX_MJD0 = 40587.0


def stt_cards(unix):
    """STT_IMJD, STT_SMJD, STT_OFFS of a unix time, as guppi_daq writes them (the
    whole second and the fraction)."""
    mjd = unix / 86400.0 + UNIX_MJD0
    imjd = math.floor(mjd)
    seconds = unix - (imjd - UNIX_MJD0) * 86400.0
    return {"STT_IMJD": int(imjd), "STT_SMJD": int(math.floor(seconds)), "STT_OFFS": seconds - math.floor(seconds)}


def stt_cards_rounded(unix):
    """STT_* as hpguppi writes them for PKTSTART: the nearest whole second, so that
    STT_OFFS lies in [-0.5, 0.5) and may be negative."""
    mjd = unix / 86400.0 + UNIX_MJD0
    imjd = math.floor(mjd)
    seconds = unix - (imjd - UNIX_MJD0) * 86400.0
    whole = round(seconds)
    return {"STT_IMJD": int(imjd), "STT_SMJD": int(whole), "STT_OFFS": seconds - whole}


class Fixture:
    """
    One recording. The recorder's geometry (antennas, channels, new samples per
    block, OVERLAP), the blocks written (by their index in the stream: missing
    indices are dropped blocks), how PKTIDX counts (steps per block, the first
    block's PKTIDX), the band and the header cards in the recorder's order.
    """

    def __init__(
        self,
        name,
        telescope,
        *,
        antennas,
        channels,
        samples,
        overlap=0,
        nbits=8,
        npol_card=2,
        blocks=(0, 1, 2),
        blocks_per_file=0,
        steps_per_block,
        first_pktidx,
        obsfreq,
        chan_bw,
        tbin=None,
        start_unix,
        directio=False,
        cards,
        quoted=(),
        tone_channel=1,
        tone_offset=0.3,
        seed=1,
    ):
        self.name, self.telescope = name, telescope
        self.antennas, self.channels, self.samples, self.overlap = antennas, channels, samples, overlap
        self.nbits, self.npol_card = nbits, npol_card
        self.blocks, self.blocks_per_file = list(blocks), blocks_per_file
        self.steps_per_block, self.first_pktidx = steps_per_block, first_pktidx
        self.obsfreq, self.chan_bw = obsfreq, chan_bw
        self.tbin = tbin if tbin is not None else 1.0 / abs(chan_bw)
        self.start_unix = start_unix  # time of PKTIDX 0
        self.directio, self.cards, self.quoted = directio, cards, set(quoted)
        self.tone_channel, self.tone_offset, self.seed = tone_channel, tone_offset, seed

    # --- the truth ------------------------------------------------------------------

    @property
    def block_samples(self):
        """Samples in a block's data, the overlap included."""
        return self.samples + self.overlap

    @property
    def unix_start(self):
        """Unix time of the stream's first sample: PKTIDX 0's time plus the first
        block's PKTIDX, each step worth samples / steps_per_block samples."""
        return self.start_unix + self.first_pktidx * self.tbin * self.samples / self.steps_per_block

    def channel_centre(self, c):
        return self.obsfreq + (c - (self.channels - 1) / 2) * self.chan_bw

    @property
    def tone_frequency(self):
        """Sky frequency of the tone: tone_offset channel widths above its channel's
        centre (towards higher frequencies whichever the sign of CHAN_BW)."""
        return self.channel_centre(self.tone_channel) + self.tone_offset * abs(self.chan_bw)

    @property
    def stream_length(self):
        """Samples a reader delivers: every stream block's new samples (dropped ones
        as zeros), and the last block's overlap."""
        return (self.blocks[-1] + 1) * self.samples + self.overlap

    def stream(self):
        """The voltages a reader must deliver, complex [A, F, stream_length, P]:
        noise and a tone, with zeros for dropped blocks. In a lower-sideband band
        (CHAN_BW < 0) the recorded baseband is the mirror image of the sky's: a tone
        above the channel centre turns at a negative baseband frequency."""
        rng = numpy.random.default_rng(self.seed)
        limit = 8 if self.nbits == 4 else 100
        A, F, P = self.antennas, self.channels, 2
        n = (self.blocks[-1] + 1) * self.samples + self.overlap
        data = rng.integers(-limit // 2, limit // 2, size=(A, F, n, P)) + 1j * rng.integers(
            -limit // 2, limit // 2, size=(A, F, n, P)
        )
        baseband = (self.tone_frequency - self.channel_centre(self.tone_channel)) * math.copysign(1, self.chan_bw)
        t = numpy.arange(n) * self.tbin
        tone = numpy.round((limit // 2 - 1) * numpy.exp(2j * math.pi * baseband * t))
        data[:, self.tone_channel, :, :] += tone[None, :, None]
        data.real = numpy.clip(data.real, -limit, limit - 1)
        data.imag = numpy.clip(data.imag, -limit, limit - 1)
        present = numpy.zeros(n, bool)
        for b in self.blocks:
            present[b * self.samples : (b + 1) * self.samples + self.overlap] = True
        data[:, :, ~present, :] = 0
        return data

    # --- the files --------------------------------------------------------------------

    def block_data(self, stream, b):
        """Block b's samples: `samples` new ones followed by `overlap` more, which
        the next block repeats first."""
        start = b * self.samples
        return stream[:, :, start : start + self.block_samples, :]

    def header(self, b):
        data_bytes = self.antennas * self.channels * self.block_samples * 2 * 2 * self.nbits // 8
        values = {
            "BLOCSIZE": data_bytes,
            "PKTIDX": self.first_pktidx + b * self.steps_per_block,
            "NPOL": self.npol_card,
            "NBITS": self.nbits,
            "OBSNCHAN": self.antennas * self.channels,
            "OVERLAP": self.overlap,
        }
        cards = {}
        for key, value in self.cards.items():
            cards[key] = values.get(key, value) if value is None else value
        return guppi.format_header(cards, self.quoted, self.directio)

    def write(self, directory=FIXTURE_DIR):
        """Write the recording into `directory`; returns the paths."""
        os.makedirs(directory, exist_ok=True)
        stream = self.stream()
        paths, handle = [], None
        for i, b in enumerate(self.blocks):
            if handle is None or (self.blocks_per_file and i % self.blocks_per_file == 0):
                if handle:
                    handle.close()
                number = i // self.blocks_per_file if self.blocks_per_file else 0
                path = os.path.join(directory, f"{self.name}.{number:04d}.raw")
                handle = open(path, "wb")
                paths.append(path)
            data = guppi.pack_samples(self.block_data(stream, b), self.nbits)
            handle.write(self.header(b))
            handle.write(data)
            if self.directio:
                handle.write(b"\0" * (-len(data) % 512))
        handle.close()
        return paths

    def paths(self, directory=FIXTURE_DIR):
        return sorted(
            os.path.join(directory, f)
            for f in os.listdir(directory)
            if f.startswith(self.name + ".") and f.endswith(".raw")
        )


# The cards of each recorder, in its order; None: filled per block (BLOCSIZE,
# PKTIDX, NPOL, NBITS, OBSNCHAN, OVERLAP).

GBT_START = 1583150400.0  # 2020-03-02T12:00:00 UTC: the scan's start (PKTIDX 0)
GBT_CARDS = {
    "BACKEND": "GUPPI",
    "TELESCOP": "GBT",
    "OBSERVER": "BL",
    "PROJID": "AGBT20A_999_01",
    "FRONTEND": "Rcvr1_2",
    "NRCVR": 2,
    "FD_POLN": "LIN",
    "BMAJ": 0.1,
    "BMIN": 0.1,
    "SRC_NAME": "HIP4436",
    "TRK_MODE": "TRACK",
    "RA_STR": "00:56:45.2100",
    "RA": 14.18838,
    "DEC_STR": "+38:29:57.6400",
    "DEC": 38.49934,
    "LST": 43210,
    "AZ": 41.2075,
    "ZA": 25.4518,
    "DAQCTRL": "start",
    "DAQPULSE": "Mon Mar  2 12:04:48 2020",
    "DAQSTATE": "running",
    "NBITS": None,
    "OFFSET0": 0.0,
    "OFFSET1": 0.0,
    "OFFSET2": 0.0,
    "OFFSET3": 0.0,
    "BANKNAM": "BLP00",
    "TFOLD": 0,
    "DS_FREQ": 1,
    "DS_TIME": 1,
    "FFTLEN": 32768,
    "CHAN_DM": 0.0,
    "BANKNUM": 0,
    "SCALE0": 1.0,
    "SCALE1": 1.0,
    "SCALE2": 1.0,
    "SCALE3": 1.0,
    "NPOL": None,
    "POL_TYPE": "AABBCRCI",
    "BANKNAM2": "BANKA",
    "OBSFREQ": 1501.4648437500,
    "OBSBW": -23.4375,
    "CHAN_BW": -2.9296875,
    "OBSNCHAN": None,
    "TBIN": 3.41333333333333e-07,
    "OBS_MODE": "RAW",
    "CAL_MODE": "OFF",
    "CAL_FREQ": 25.0,
    "CAL_DCYC": 0.5,
    "CAL_PHS": 0.0,
    "CAL_NPHS": 1,
    "STT_IMJD": None,
    "STT_SMJD": None,
    "STT_OFFS": None,
    "BLOCSIZE": None,
    "OVERLAP": None,
    "PKTFMT": "1SFA",
    "PKTSIZE": 1024,
    "NPKT": 32,
    "NDROP": 0,
    "DROPAVG": 0.0,
    "DROPTOT": 0.0,
    "DROPBLK": 0.0,
    "PKTSTOP": 1000000,
    "DIRECTIO": 1,
    "DATADIR": "/datax/dibas",
    "DATAHOST": "blr0-0-10-0.gb.nrao.edu",
    "DATAPORT": 60000,
    "NETSTAT": "receiving",
    "DISKSTAT": "writing",
    "PKTIDX": None,
}


def _gbt(
    name,
    telescope,
    *,
    start_unix,
    obsbw_sign,
    first_pktidx,
    blocks,
    blocks_per_file,
    seed,
    extra=None,
    quoted=(
        "DIRECTIO",
        "OFFSET0",
        "OFFSET1",
        "OFFSET2",
        "OFFSET3",
        "SCALE0",
        "SCALE1",
        "SCALE2",
        "SCALE3",
        "DS_FREQ",
        "CAL_DCYC",
    ),
):
    cards = dict(GBT_CARDS)
    cards.update(stt_cards(start_unix))
    cards["OBSBW"] = obsbw_sign * 23.4375
    cards["CHAN_BW"] = obsbw_sign * 2.9296875
    cards.update(extra or {})
    # 8 channels, 1024 samples of 2 pols: 32 KiB blocks of 32 packets of 1024 bytes,
    # each packet 32 samples of every channel.
    return Fixture(
        name,
        telescope,
        antennas=1,
        channels=8,
        samples=1024,
        npol_card=4,
        blocks=blocks,
        blocks_per_file=blocks_per_file,
        steps_per_block=32,
        first_pktidx=first_pktidx,
        obsfreq=cards["OBSFREQ"] * 1e6,
        chan_bw=cards["CHAN_BW"] * 1e6,
        tbin=cards["TBIN"],
        start_unix=start_unix,
        directio=True,
        cards=cards,
        quoted=quoted,
        seed=seed,
    )


def _meerkat():
    start = 1700000000.0  # SYNCTIME
    heap_samples, piperblk = 256, 2
    pktstart = 123456 * piperblk
    chan_bw = 0.208984375e6
    cards = {
        "BACKEND": "GUPPI",
        "DIRECTIO": 1,
        "BLOCSIZE": None,
        "NPOL": None,
        "NBITS": None,
        "OBSNCHAN": None,
        "NANTS": 4,
        "HNCHAN": 4,
        "HNTIME": heap_samples,
        "HCLOCKS": 2 * 4096 * heap_samples,
        "FENCHAN": 4096,
        "NSTRM": 1,
        "SCHAN": 2048,
        "CHAN_BW": chan_bw / 1e6,
        "OBSFREQ": 1284.0,
        "OBSBW": 4 * chan_bw / 1e6,
        "TBIN": 1.0 / chan_bw,
        "PIPERBLK": piperblk,
        "SYNCTIME": int(start),
        "PKTSTART": pktstart,
        "PKTSTOP": pktstart + 1000,
        "PKTIDX": None,
        "PKTFMT": "SPEAD",
        "TELESCOP": "MeerKAT",
        "SRC_NAME": "J0437-4715",
        "RA_STR": "04:37:15.8961",
        "DEC_STR": "-47:15:09.1109",
        "RA": 69.3162,
        "DEC": -47.2525,
        "AZ": 201.31,
        "EL": 63.12,
        "OBSID": "MeerKAT:array_1:2023-11-14T22:13:20Z",
        "ANTNMS00": "m000,m001,m002,m003",
        "DATADIR": "/buf0",
        "NDROP": 0,
    }
    cards.update(stt_cards_rounded(start + pktstart * heap_samples / chan_bw))
    return Fixture(
        "meerkat_hpguppi",
        "MeerKAT",
        antennas=4,
        channels=4,
        samples=heap_samples * piperblk,
        npol_card=2,
        blocks=(0, 1, 2),
        steps_per_block=piperblk,
        first_pktidx=pktstart,
        obsfreq=1284.0e6,
        chan_bw=chan_bw,
        start_unix=start,
        directio=True,
        cards=cards,
        seed=3,
    )


def _ata(nbits):
    start = 1748757600.0  # SYNCTIME
    samples = 256
    first = 16 * 77777  # a multiple of PKTNTIME
    cards = {
        "BLOCSIZE": None,
        "NPOL": None,
        "NBITS": None,
        "DIRECTIO": 1,
        "PIPERBLK": samples,
        "PKTIDX": None,
        "OBSNCHAN": None,
        "NANTS": 3,
        "PKTNTIME": 16,
        "PKTNCHAN": 4,
        "PKTSIZE": 8208,
        "PKTFMT": "ATASNAPV",
        "FENCHAN": 2048,
        "SCHAN": 1920,
        "OBSFREQ": 1420.0,
        "CHAN_BW": 0.5,
        "OBSBW": 2.0,
        "TBIN": 2e-06,
        "SYNCTIME": int(start),
        "PKTSTART": first,
        "PKTSTOP": first + 100000,
        "TELESCOP": "ATA",
        "SRC_NAME": "3C286",
        "RA_STR": "13:31:08.2880",
        "DEC_STR": "+30:30:32.960",
        "AZ": 298.5,
        "EL": 51.25,
        "ANTNMS00": "1cA,1fA,2aA",
        "DATATYPE": "INTEGER",
        "OBSID": "ata-3c286-0",
    }
    cards.update(stt_cards_rounded(start + first * 2e-6))
    return Fixture(
        f"ata_hpguppi{'_4bit' if nbits == 4 else ''}",
        "ATA",
        antennas=3,
        channels=4,
        samples=samples,
        nbits=nbits,
        npol_card=2,
        blocks=(0, 1, 2) if nbits == 8 else (0, 1),
        blocks_per_file=2 if nbits == 8 else 0,
        steps_per_block=samples,
        first_pktidx=first,
        obsfreq=1420.0e6,
        chan_bw=0.5e6,
        tbin=2e-6,
        start_unix=start,
        directio=True,
        cards=cards,
        seed=4 + nbits,
    )


def _puppi():
    start = 1515939093.0  # 2018-01-14T14:11:33
    # 4 channels, 224 new samples and 32 repeated per block; packets of 512 bytes
    # (16 samples of every channel, 2 pols): (256 - 32) * 16 / 512 = 7 per block.
    cards = {
        "BACKEND": "PUPPI",
        "TELESCOP": "Arecibo",
        "OBSERVER": "P2030",
        "SRC_NAME": "J1810+1744",
        "FRONTEND": "327",
        "OBS_MODE": "RAW",
        "FD_POLN": "LIN",
        "RA_STR": "18:10:37.2800",
        "RA": 272.6553,
        "DEC_STR": "+17:44:37.3800",
        "DEC": 17.7437,
        "AZ": 123.4,
        "ZA": 8.9,
        "OBSFREQ": 327.0,
        "OBSBW": -12.5,
        "CHAN_BW": -3.125,
        "OBSNCHAN": None,
        "NPOL": None,
        "POL_TYPE": "AABBCRCI",
        "NBITS": None,
        "TBIN": 3.2e-07,
        "BLOCSIZE": None,
        "OVERLAP": None,
        "PKTFMT": "1SFA",
        "PKTSIZE": 512,
        "STT_IMJD": None,
        "STT_SMJD": None,
        "STT_OFFS": None,
        "PKTIDX": None,
        "DROPBLK": 0.0,
    }
    cards.update(stt_cards(start))
    return Fixture(
        "puppi_overlap",
        "Arecibo",
        antennas=1,
        channels=4,
        samples=224,
        overlap=32,
        npol_card=4,
        blocks=(0, 1, 2, 3),
        steps_per_block=7,
        first_pktidx=0,
        obsfreq=327.0e6,
        chan_bw=-3.125e6,
        tbin=3.2e-07,
        start_unix=start,
        cards=cards,
        seed=5,
    )


FIXTURES = {
    f.name: f
    for f in (
        _gbt(
            "gbt_guppi_daq",
            "GBT",
            start_unix=GBT_START,
            obsbw_sign=-1,
            first_pktidx=1664 * 32,
            blocks=(0, 1, 2, 3),
            blocks_per_file=2,
            seed=1,
        ),
        _gbt(
            "parkes_guppi_daq",
            "Parkes",
            start_unix=1609459200.0,
            obsbw_sign=+1,
            first_pktidx=0,
            blocks=(0, 1, 3),
            blocks_per_file=0,
            seed=2,
            extra={"TELESCOP": "Parkes", "FRONTEND": "UWL", "DATAHOST": "blc00", "AZ": 135.0, "ZA": 40.0},
            quoted=("OFFSET0", "SCALE0"),
        ),
        _meerkat(),
        _ata(8),
        _ata(4),
        _puppi(),
    )
}
