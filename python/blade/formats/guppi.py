# SPDX-License-Identifier: MIT
"""
GUPPI RAW recordings from Python: read headers, describe recordings, and write
synthetic ones.

* read_header(path, block=0): the cards of one block as a dict with typed values.
* read_file_header(path): the first header of one file, even of a recording that
  cannot be read (header only, cut short).
* describe(path): geometry, block count, gaps and axes of a whole recording.
* chunk_shape(path, ...): the [A, F, T, P] shape guppi_source would emit (GRC).
* write_raw(stem, blocks, header, ...): a synthetic recording, written by numpy
  alone (not by gr-blade's C writer), with the awkward features real files have:
  4-bit samples, DIRECTIO padding, quoted numbers, exponent forms, long headers,
  several files and PKTIDX gaps.
* random_blocks(...), tone_blocks(...): sample data for write_raw.

The readers go through gr-blade's C core (the same parser as blade.guppi_source);
the writer does not, so tests can check one against the other.
"""

import os

import numpy

from .. import blade_python as _core

# Keys whose values are text even when they look like numbers.
STRING_KEYS = {
    "SRC_NAME",
    "OBSID",
    "TELESCOP",
    "RA_STR",
    "DEC_STR",
    "PROJID",
    "OBSERVER",
    "BACKEND",
    "FRONTEND",
    "DATADIR",
    "DATATYPE",
    "INSTRUME",
    "FD_POLN",
    "TRK_MODE",
}

CARD_BYTES = 80


def _typed(card):
    text = card.value
    if card.key in STRING_KEYS or card.key.startswith("ANTNMS"):
        return text
    if card.kind == "integer":
        return int(text)
    if card.kind == "real":
        return float(text.replace("D", "E").replace("d", "e"))
    if card.kind == "logical":
        return text == "T"
    return text


def read_header(path, block=0, single_file=False):
    """
    The header cards of complete block `block` of a recording (a file, a stem, or any
    member of a stem.NNNN.raw sequence) as {keyword: value}: int, float, bool (FITS T
    and F) or str. Numbers written in quotes come back as numbers, except for keys
    that hold text (SRC_NAME, OBSID, ANTNMS00, ...). The first card of a repeated
    keyword wins. Raises RuntimeError naming the file and byte offset for a
    malformed recording.
    """
    header = {}
    for card in _core.read_guppi_header(os.fspath(path), block, single_file):
        header.setdefault(card.key, _typed(card))
    return header


def read_file_header(path):
    """
    The first header of the file `path` alone, as read_header gives it, whatever
    follows (no data, a block cut short, a recording the reader refuses): what a
    broken or header-only recording says.
    """
    header = {}
    for card in _core.read_guppi_file_header(os.fspath(path)):
        header.setdefault(card.key, _typed(card))
    return header


def describe(path, single_file=False, on_gap="zero-fill", max_gap=0.0):
    """
    What a recording holds: {"files", "blocks", "nants", "nchan" (per antenna),
    "npol", "nbits", "sample_type", "blocsize", "ntime" (new samples per block),
    "overlap" (samples each block repeats from the one before), "piperblk" (PKTIDX
    steps per block), "gaps", "missing_blocks", "first_pktidx", "tbin",
    "observation" (blade.Observation, the recording's axes over all its channels) and
    from it "unix_start", "freq_first" (Hz, centre of channel 0), "chan_bw" (Hz),
    "coarse_first"; "warnings", "header" (the first block's cards, typed)}. on_gap and max_gap are
    blade.guppi_source's (a gap longer than max_gap seconds is refused; 0: longer
    than the recording's data).
    """
    d = _core.describe_guppi(os.fspath(path), single_file, on_gap, float(max_gap))
    result = {
        name: getattr(d, name)
        for name in (
            "files",
            "blocks",
            "nants",
            "nchan",
            "npol",
            "nbits",
            "sample_type",
            "blocsize",
            "ntime",
            "overlap",
            "piperblk",
            "gaps",
            "missing_blocks",
            "first_pktidx",
            "tbin",
            "observation",
            "warnings",
        )
    }
    # The axes come from the one observation value the reader computed.
    observation = d.observation
    result.update(
        unix_start=observation.unix_start,
        freq_first=observation.freq_first,
        chan_bw=observation.chan_bw,
        coarse_first=observation.coarse_first,
    )
    result["files"] = list(result["files"])
    result["warnings"] = list(result["warnings"])
    result["header"] = read_header(path, 0, single_file)
    return result


def chunk_shape(path, chunk_samples=0, channel_start=0, channel_count=0, single_file=False):
    """The [A, F, T, P] chunks blade.guppi_source(path, chunk_samples, ...) emits."""
    d = _core.describe_guppi(os.fspath(path), single_file)
    channels = channel_count or d.nchan - channel_start
    return [d.nants, channels, chunk_samples or d.ntime, d.npol]


# --- writing synthetic recordings ----------------------------------------------


def _value_text(key, value, quoted):
    if isinstance(value, bool):
        text = "T" if value else "F"
    elif isinstance(value, (int, numpy.integer)):
        text = str(int(value))
    elif isinstance(value, (float, numpy.floating)):
        # 17 significant digits in exponent form, as recorders often write.
        text = "%.16E" % float(value)
    else:
        return "'" + str(value).replace("'", "''").ljust(8) + "'"
    if quoted:
        return "'" + text.ljust(8) + "'"
    return text.rjust(20)


def format_header(cards, quoted=(), directio=False):
    """
    Header bytes of `cards` ({keyword: value} in order): 80-byte cards, "= " in
    columns 9-10, strings in quotes, numbers right-aligned to column 30 (keys in
    `quoted` get their numbers in quotes), then END; padded with spaces to a
    multiple of 512 bytes when `directio`.
    """
    out = bytearray()
    for key, value in cards.items():
        if len(key) > 8:
            raise ValueError(f"GUPPI keyword {key!r} is longer than 8 characters")
        card = key.ljust(8) + "= " + _value_text(key, value, key in quoted)
        if len(card) > CARD_BYTES:
            raise ValueError(f"card {card!r} is longer than 80 characters")
        out += card.ljust(CARD_BYTES).encode("ascii")
    out += b"END".ljust(CARD_BYTES)
    if directio:
        out += b" " * (-len(out) % 512)
    return bytes(out)


def pack_samples(block, nbits):
    """
    Complex samples [A, F, T, P] as GUPPI RAW data bytes: int8 (re, im) for 8 bits,
    one byte (re high nibble, im low, two's complement) for 4, int16 little-endian
    for 16, float32 for 32. Integer types require integral values in range.
    """
    block = numpy.asarray(block)
    re, im = numpy.real(block), numpy.imag(block)
    if nbits == 32:
        pairs = numpy.stack([re, im], -1).astype("<f4")
        return pairs.tobytes()
    limit = {4: 8, 8: 128, 16: 32768}.get(nbits)
    if limit is None:
        raise ValueError(f"nbits must be 4, 8, 16 or 32, got {nbits}")
    # One pass to whole numbers and one comparison back: a value that is not an
    # integer (or NaN, or beyond int32) does not survive the round trip.
    pairs = numpy.stack([re, im], -1)
    with numpy.errstate(invalid="ignore"):
        whole = pairs.astype(numpy.int32)
    if not numpy.array_equal(whole, pairs) or whole.size and (whole.min() < -limit or whole.max() >= limit):
        raise ValueError(f"{nbits}-bit samples must be integers in [{-limit}, {limit - 1}]")
    if nbits == 4:
        return (((whole[..., 0] & 0xF) << 4) | (whole[..., 1] & 0xF)).astype(numpy.uint8).tobytes()
    return whole.astype(numpy.int8 if nbits == 8 else numpy.dtype("<i2")).tobytes()


def write_raw(
    stem,
    blocks,
    header,
    nbits=8,
    directio=False,
    blocks_per_file=0,
    pktidx=None,
    piperblk=None,
    npol_card=None,
    quoted=(),
    filler_cards=0,
    data_padding=None,
):
    """
    Write a synthetic GUPPI RAW recording and return the paths written.

    stem: files stem.0000.raw, stem.0001.raw, ... (a path ending in .raw with
        blocks_per_file 0 is written as that one file).
    blocks: complex samples, [n_blocks, A, F, T, P] (integral values for integer
        nbits), or an iterable of [A, F, T, P] blocks (a generator: written one at a
        time).
    header: other cards ({keyword: value}), e.g. OBSFREQ, CHAN_BW, TBIN, SYNCTIME,
        SRC_NAME; written after the geometry cards BLOCSIZE, NANTS, OBSNCHAN, NPOL,
        NBITS, DIRECTIO, PKTIDX (and PIPERBLK when given, DATATYPE 'FLOAT' for 32).
    pktidx: PKTIDX of each block (default 0, piperblk, 2 piperblk, ...): leave
        values out to make gaps.
    npol_card: the NPOL value to write (e.g. 4, the GBT convention for two
        polarizations); default P.
    quoted: keywords whose numbers are written in quotes ('1       ').
    filler_cards: extra COMMENT-style cards (FILL0001 = 'x' ...) to lengthen headers.
    data_padding: bytes of padding after each block's data (default: to 512 for
        DIRECTIO, none otherwise).
    """
    if isinstance(blocks, numpy.ndarray) or isinstance(blocks, (list, tuple)):
        blocks = numpy.asarray(blocks)
        if blocks.ndim != 5:
            raise ValueError("blocks must be [n_blocks, A, F, T, P]")
        if pktidx is not None and len(pktidx) != len(blocks):
            raise ValueError("pktidx needs one value per block")
    # Otherwise an iterable of [A, F, T, P] blocks, written as they come (a long
    # synthetic recording need not fit in memory).
    stem = os.fspath(stem)
    single = stem.endswith(".raw") and not blocks_per_file
    paths = []
    handle = None
    for b, block in enumerate(blocks):
        block = numpy.asarray(block)
        if block.ndim != 4:
            raise ValueError(f"block {b} must be [A, F, T, P], got {block.ndim} axes")
        A, F, T, P = block.shape
        step = piperblk if piperblk is not None else T
        if handle is None or (blocks_per_file and b % blocks_per_file == 0):
            if handle:
                handle.close()
            number = b // blocks_per_file if blocks_per_file else 0
            path = stem if single else f"{stem}.{number:04d}.raw"
            handle = open(path, "wb")
            paths.append(path)
        data = pack_samples(block, nbits)
        cards = {
            "BLOCSIZE": len(data),
            "NANTS": A,
            "OBSNCHAN": A * F,
            "NPOL": npol_card if npol_card is not None else P,
            "NBITS": nbits,
            "DIRECTIO": 1 if directio else 0,
            "PKTIDX": int(pktidx[b]) if pktidx is not None else b * step,
        }
        if piperblk is not None:
            cards["PIPERBLK"] = piperblk
        if nbits == 32:
            cards["DATATYPE"] = "FLOAT"
        cards.update(header)
        for i in range(filler_cards):
            cards[f"FILL{i:04d}"] = f"filler card {i}"
        handle.write(format_header(cards, quoted, directio))
        handle.write(data)
        pad = data_padding if data_padding is not None else (-len(data) % 512 if directio else 0)
        handle.write(b"\0" * pad)
    if handle:
        handle.close()
    return paths


def random_blocks(rng, n_blocks, nants, nchan, ntime, npol, nbits=8):
    """Random integral complex samples [n_blocks, A, F, T, P] covering the nbits range."""
    limit = {4: 8, 8: 128, 16: 32768, 32: 1000}[nbits]
    shape = (n_blocks, nants, nchan, ntime, npol)
    re = rng.integers(-limit, limit, size=shape)
    im = rng.integers(-limit, limit, size=shape)
    values = re + 1j * im
    return values if nbits != 32 else values + rng.uniform(-0.5, 0.5, size=shape)


def tone_blocks(
    rng, n_blocks, nants, nchan, ntime, npol, tone_channel, tone_offset=0.25, amplitude=20.0, noise=8.0, nbits=8
):
    """
    Gaussian noise with a tone in coarse channel `tone_channel`, `tone_offset` of
    the channel width from its centre, identical in every antenna and polarization
    (a source at boresight), quantized to nbits. For demos: channelized and
    detected, the tone stands out in one fine channel.
    """
    shape = (n_blocks, nants, nchan, ntime, npol)
    values = rng.normal(0, noise, shape) + 1j * rng.normal(0, noise, shape)
    n = numpy.arange(n_blocks * ntime).reshape(n_blocks, 1, 1, ntime, 1)
    values[:, :, tone_channel] += amplitude * numpy.exp(2j * numpy.pi * tone_offset * n)[:, :, 0]
    limit = {4: 8, 8: 128, 16: 32768}.get(nbits)
    if limit is None:
        return values
    clip = lambda part: numpy.clip(numpy.round(part), -limit, limit - 1)  # noqa: E731
    return clip(values.real) + 1j * clip(values.imag)
