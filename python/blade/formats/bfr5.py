# SPDX-License-Identifier: MIT
"""
Writing BFR5 beamformer recipes (read them with blade.read_bfr5).

write_bfr5() writes every dataset of the format as docs/bfr5.md describes it, in
the units the format uses (latitude/longitude in degrees, frequencies in GHz,
delays in ns). It needs h5py, imported only when called.
"""

import numpy


def _string_dataset(group, name, values, kind):
    """Write a string or a list of strings, variable-length or fixed-length."""
    import h5py

    scalar = isinstance(values, (str, bytes))
    items = [values] if scalar else list(values)
    encoded = [v.encode() if isinstance(v, str) else bytes(v) for v in items]
    if kind == "variable":
        data = numpy.array([e.decode() for e in encoded], dtype=object)
        dtype = h5py.string_dtype("utf-8")
    elif kind == "fixed":
        width = max(1, max(len(e) for e in encoded)) if encoded else 1
        data = numpy.array(encoded, dtype=f"S{width}")
        dtype = data.dtype
    else:
        raise ValueError(f"string kind {kind!r}: expected 'variable' or 'fixed'")
    group.create_dataset(name, data=data[0] if scalar else data, dtype=dtype)


def _complex_dataset(group, name, values, complex_dtype):
    """Complex values as the compound {r, i} that BFR5 (and h5py) use."""
    component = numpy.float32 if numpy.dtype(complex_dtype) == numpy.complex64 else numpy.float64
    values = numpy.asarray(values)
    compound = numpy.empty(values.shape, dtype=[("r", component), ("i", component)])
    compound["r"] = values.real
    compound["i"] = values.imag
    group.create_dataset(name, data=compound)


def write_bfr5(
    path,
    *,
    reference,
    antenna_positions,
    boresight,
    beams,
    cal_all=None,
    nchan=None,
    npol=2,
    frame="ecef",
    antenna_names=None,
    antenna_numbers=None,
    antenna_diameters=None,
    telescope_name="gr-blade",
    obsid="gr-blade",
    instrument_name="gr-blade",
    frequencies=None,
    source_names=None,
    refant=None,
    cal_k=None,
    cal_b=None,
    cal_g=None,
    delays=None,
    rates=None,
    time_array=None,
    jds=None,
    dut1=0.0,
    strings="variable",
    complex_dtype=numpy.complex128,
):
    """
    Write a BFR5 recipe.

    reference: (longitude rad, latitude rad, altitude m) of the array reference
        (stored as degrees, as the format wants).
    antenna_positions: [A, 3] metres in `frame`: "ecef" (absolute), "xyz" (ECEF
        axes, origin at the reference) or "enu" (east, north, up from it).
    boresight: (ra, dec) rad. beams: [B, 2] (ra, dec) rad.
    cal_all: complex [nchan, npol, A], rows = absolute channels; default all ones
        of shape [nchan, npol, A] (then nchan is required).
    frequencies: [nchan] channel centres in Hz (stored in GHz), optional.
    delays, rates: [ntimes, B, A] in ns and ns/s; time_array: [ntimes] unix s;
        jds: [ntimes] (default from time_array). Omit all for a recipe without
        /delayinfo delays.
    strings: "variable" or "fixed" length strings; complex_dtype: complex64
        (float32 members) or complex128 (float64 members).
    """
    import h5py

    positions = numpy.asarray(antenna_positions, dtype=numpy.float64)
    beams = numpy.asarray(beams, dtype=numpy.float64).reshape(-1, 2)
    nants, nbeams = positions.shape[0], beams.shape[0]
    if cal_all is None:
        if nchan is None:
            raise ValueError("write_bfr5: give cal_all or nchan")
        cal_all = numpy.ones((nchan, npol, nants), numpy.complex128)
    cal_all = numpy.asarray(cal_all)
    nchan, npol = cal_all.shape[0], cal_all.shape[1]
    ntimes = 0 if time_array is None else len(time_array)
    names = antenna_names or [f"ant{a:03d}" for a in range(nants)]

    with h5py.File(path, "w") as f:
        diminfo = f.create_group("diminfo")
        for key, value in (("nants", nants), ("npol", npol), ("nchan", nchan), ("nbeams", nbeams), ("ntimes", ntimes)):
            diminfo.create_dataset(key, data=numpy.int64(value))

        telinfo = f.create_group("telinfo")
        telinfo.create_dataset("antenna_positions", data=positions)
        _string_dataset(telinfo, "antenna_position_frame", frame, strings)
        telinfo.create_dataset("longitude", data=numpy.degrees(reference[0]))
        telinfo.create_dataset("latitude", data=numpy.degrees(reference[1]))
        telinfo.create_dataset("altitude", data=numpy.float64(reference[2]))
        _string_dataset(telinfo, "antenna_names", names, strings)
        telinfo.create_dataset(
            "antenna_numbers",
            data=numpy.asarray(antenna_numbers if antenna_numbers is not None else range(nants), numpy.int64),
        )
        telinfo.create_dataset(
            "antenna_diameters",
            data=numpy.asarray(antenna_diameters if antenna_diameters is not None else [6.1] * nants, numpy.float64),
        )
        _string_dataset(telinfo, "telescope_name", telescope_name, strings)

        obsinfo = f.create_group("obsinfo")
        obsinfo.create_dataset("phase_center_ra", data=numpy.float64(boresight[0]))
        obsinfo.create_dataset("phase_center_dec", data=numpy.float64(boresight[1]))
        _string_dataset(obsinfo, "obsid", obsid, strings)
        _string_dataset(obsinfo, "instrument_name", instrument_name, strings)
        if frequencies is not None:
            obsinfo.create_dataset("freq_array", data=numpy.asarray(frequencies, numpy.float64) * 1e-9)

        calinfo = f.create_group("calinfo")
        _complex_dataset(calinfo, "cal_all", cal_all, complex_dtype)
        _string_dataset(calinfo, "refant", refant or names[0], strings)
        if cal_k is not None:
            calinfo.create_dataset("cal_K", data=numpy.asarray(cal_k, numpy.float64))
        if cal_b is not None:
            _complex_dataset(calinfo, "cal_B", cal_b, complex_dtype)
        if cal_g is not None:
            _complex_dataset(calinfo, "cal_G", cal_g, complex_dtype)

        beaminfo = f.create_group("beaminfo")
        beaminfo.create_dataset("ras", data=beams[:, 0])
        beaminfo.create_dataset("decs", data=beams[:, 1])
        _string_dataset(beaminfo, "src_names", source_names or [f"beam{b}" for b in range(nbeams)], strings)

        delayinfo = f.create_group("delayinfo")
        if time_array is not None:
            times = numpy.asarray(time_array, numpy.float64)
            delayinfo.create_dataset("time_array", data=times)
            delayinfo.create_dataset(
                "jds", data=numpy.asarray(jds, numpy.float64) if jds is not None else times / 86400.0 + 2440587.5
            )
            if delays is not None:
                delayinfo.create_dataset("delays", data=numpy.asarray(delays, numpy.float64))
            if rates is not None:
                delayinfo.create_dataset("rates", data=numpy.asarray(rates, numpy.float64))
        delayinfo.create_dataset("dut1", data=numpy.float64(dut1))
