# SPDX-License-Identifier: MIT
"""
UVH5 round trip through pyuvdata: the synthesized point source (correlator_synthetic.py)
correlated by the C core and written by gnuradio.blade.formats.uvh5 in GNU Radio's Python,
then read by pyuvdata in its own venv ($BLADE_READER_VENVS/pyuvdata, made by
tools/make-reader-venvs), where:

* UVData.check() must pass with the strict uvw check (uvw within 1 m of what pyuvdata
  computes from the antenna positions) and with the autocorrelation check;
* the visibilities (the conjugates of the correlator's, see python/blade/formats/uvh5.py),
  uvw, times, frequencies, baselines, polarization numbers and integration time must
  come back as written (bit for bit), and the uvw within 5 mm of pyuvdata's own
  recomputation from the antenna positions (DUT1 from its IERS tables is the
  difference);
* after pyuvdata rephases the data from the boresight to the tone's direction, every
  cross-correlation of the tone's channel must have a phase near zero (noise: 0.04
  rad RMS): the file's conjugation and uvw conventions are the ones pyuvdata phases
  with. (With the correlator's V_ij written unconjugated the phases come out random,
  at twice the geometric ones.)

Exits 77 (skipped) without libblade or without the venv.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy

UVW_TOLERANCE = 0.005  # m, against pyuvdata's recomputation (DUT1 from its IERS tables)
PHASE_TOLERANCE = 0.25  # rad, after rephasing to the source (noise: 0.04 RMS)
RMS_TOLERANCE = 0.08


def read_with_pyuvdata(path, out):
    """Runs in the venv: read, check, recompute, rephase; save what the writer's side
    compares."""
    import warnings

    from astropy.utils import iers

    iers.conf.auto_download = False  # no network: the bundled tables cover the dates
    from pyuvdata import UVData

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        uv = UVData.from_file(path)
        uv.check(strict_uvw_antpos_check=True, check_autos=True, fix_autos=False)
    recomputed = uv.copy()
    recomputed.set_uvws_from_antenna_positions()
    with open(out + ".json", "w") as f:
        json.dump(
            dict(
                meta=dict(source=os.environ["SOURCE"]),
                warnings=[str(w.message) for w in caught],
                antenna_names=list(uv.telescope.antenna_names),
                Nbls=int(uv.Nbls),
                Ntimes=int(uv.Ntimes),
                pol_convention=str(uv.pol_convention),
                vis_units=str(uv.vis_units),
            ),
            f,
        )
    ra, dec = (float(v) for v in os.environ["SOURCE"].split(","))
    rephased = uv.copy()
    rephased.phase(ra=ra, dec=dec, cat_name="tone source")
    numpy.savez(
        out,
        data=uv.data_array,
        uvw=uv.uvw_array,
        recomputed_uvw=recomputed.uvw_array,
        times=uv.time_array,
        freqs=uv.freq_array,
        widths=uv.channel_width,
        ant1=uv.ant_1_array,
        ant2=uv.ant_2_array,
        pols=uv.polarization_array,
        integration=uv.integration_time,
        rephased=rephased.data_array,
        positions=uv.telescope.antenna_positions,
    )


def main():
    venvs = os.environ.get(
        "BLADE_READER_VENVS", os.path.join(os.path.dirname(__file__), "..", "..", "build", "reader-venvs")
    )
    python = os.path.join(venvs, "pyuvdata", "bin", "python")
    if not os.path.exists(python):
        print(f"no pyuvdata venv at {python} (run tools/make-reader-venvs): skipped")
        return 77
    import correlator_synthetic as cs

    result = cs.observe()
    if result is None:
        print("libblade not built: skipped")
        return 77
    obs, visibilities, times = result
    failures = []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "point_source.uvh5")
        frequencies = numpy.array([obs.channel_centre(c) for c in range(obs.channels)])
        cs.uvh5_writer.write_uvh5(
            path,
            visibilities,
            antenna_names=obs.antenna_names,
            antenna_positions=obs.positions_ecef,
            site=obs.reference,
            times=times,
            integration_time=obs.block_samples * obs.tbin,
            frequencies=frequencies,
            channel_width=abs(obs.chan_bw),
            phase_centre=obs.boresight,
            phase_centre_name=obs.source_name,
            antenna_diameters=6.1,
            dut1=obs.dut1,
        )
        out = os.path.join(folder, "read")
        environment = dict(os.environ, SOURCE=f"{obs.source[0]!r},{obs.source[1]!r}")
        run = subprocess.run(
            [python, "-B", os.path.abspath(__file__), "--read", path, out],
            env=environment,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            print(run.stdout, run.stderr)
            print("correlator UVH5: 0 passed, 1 failed (pyuvdata could not read or check the file)")
            return 1
        with open(out + ".json") as f:
            info = json.load(f)
        read = dict(numpy.load(out + ".npz"))

    ntimes, nbls = visibilities.shape[:2]
    i, j = cs.uvh5_writer.baselines(obs.antennas)
    written_uvw = numpy.concatenate(
        [cs.uvh5_writer.uvw(obs.positions_ecef, t, obs.boresight, obs.reference, obs.dut1) for t in times]
    )

    def expect(condition, message):
        if not condition:
            failures.append(message)

    expect(
        numpy.array_equal(read["data"], numpy.conj(visibilities).reshape(ntimes * nbls, obs.channels, 4)),
        "visibilities differ from the conjugates of the correlator's",
    )
    expect(numpy.array_equal(read["uvw"], written_uvw), "uvw differ from those written")
    uvw_error = numpy.max(numpy.abs(read["recomputed_uvw"] - written_uvw))
    expect(uvw_error <= UVW_TOLERANCE, f"uvw {uvw_error:.4f} m from pyuvdata's recomputation")
    expect(numpy.array_equal(read["times"], numpy.repeat(times, nbls)), "times differ")
    expect(numpy.array_equal(read["freqs"].reshape(-1), frequencies), "frequencies differ")
    expect(numpy.all(read["widths"] == abs(obs.chan_bw)), "channel widths differ")
    expect(
        numpy.array_equal(read["ant1"], numpy.tile(i, ntimes))
        and numpy.array_equal(read["ant2"], numpy.tile(j, ntimes)),
        "baselines differ",
    )
    expect(list(read["pols"]) == [-5, -7, -8, -6], f"polarization numbers {list(read['pols'])}")
    expect(
        numpy.allclose(read["integration"], obs.block_samples * obs.tbin, rtol=0, atol=1e-12),
        "integration time differs",
    )
    expect(info["antenna_names"] == obs.antenna_names, "antenna names differ")
    expect(info["Nbls"] == nbls and info["Ntimes"] == ntimes, "Nbls or Ntimes differ")
    bad_warnings = [w for w in info["warnings"] if "uvw" in w.lower() or "conjugat" in w.lower()]
    expect(not bad_warnings, f"pyuvdata warned: {bad_warnings}")
    # After rephasing to the source, the tone's cross-correlations have zero phase.
    tone = read["rephased"][:, obs.tone_channel, :].reshape(ntimes, nbls, 4)[:, i != j, :]
    phases = numpy.angle(tone)
    worst = numpy.max(numpy.abs(phases))
    before = numpy.max(numpy.abs(numpy.angle(visibilities[:, i != j, obs.tone_channel, :])))
    rms = numpy.sqrt(numpy.mean(phases**2))
    expect(
        worst <= PHASE_TOLERANCE and rms <= RMS_TOLERANCE,
        f"after pyuvdata rephased to the source, phases up to {worst:.3f} rad, RMS {rms:.3f}",
    )
    print(f"pyuvdata {len(info['warnings'])} warning(s) while reading and checking: {info['warnings']}")
    print(
        f"uvw within {uvw_error * 100:.2f} cm of pyuvdata's; tone phases up to {before:.2f} rad at the boresight, "
        f"{worst:.3f} rad (RMS {numpy.sqrt(numpy.mean(phases ** 2)):.3f}) after pyuvdata rephased to the source"
    )
    for failure in failures:
        print("FAILED:", failure)
    print(f"correlator UVH5 round trip: {0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--read":
        read_with_pyuvdata(sys.argv[2], sys.argv[3])
        sys.exit(0)
    sys.exit(main())
