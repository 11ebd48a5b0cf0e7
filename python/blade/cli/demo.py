# SPDX-License-Identifier: MIT
"""
The gr-blade demo: an eight-antenna observation with a narrowband source off the
boresight, synthesized (gnuradio.blade.synth), written as GUPPI RAW plus a BFR5
recipe with one beam on the source and one off it, then beamformed by Mode B and
channelized per antenna by Mode H through the real blocks, exactly as
`blade-cli mode-b` and `blade-cli mode-h` run them. It measures the tone in each
beam, draws a figure, and says where everything is.

Expected: the beam on the source adds the eight antennas' tone coherently, so its
tone-to-noise ratio is A = 8 times that of the incoherent sum (which is that of one
antenna); the beam pointed elsewhere sees the tone only through its sidelobes.
"""

import os
import time

import numpy

MODE_B_RATE, MODE_B_INTEGRATION = 64, 64
MODE_H_RATE, MODE_H_INTEGRATION = 1024, 64


def time_averaged(path):
    """(header, Stokes I spectrum averaged over time) of a filterbank file."""
    from ..formats import filterbank

    header, data = filterbank.read(path)
    return header, data[:, 0, :].mean(axis=0)


def tone_to_noise(spectrum, channel):
    """(P[channel] - floor) / floor with the floor the median of the spectrum."""
    floor = numpy.median(spectrum)
    return (spectrum[channel] - floor) / floor


def run(output="blade-demo", device="auto", quiet=False, figure=True, observation=None):
    """Run the demo into folder `output`; `observation` (a synth.SyntheticObservation)
    replaces the demo's own (tests run a shorter one). Returns the exit status."""
    from .. import synth
    from ..formats import filterbank
    from ..pipeline import Job, Options, report_run
    from ..recording import angular_separation

    say = (lambda *a, **k: None) if quiet else print
    began = time.perf_counter()
    obs = observation or synth.SyntheticObservation()
    A = obs.antennas
    say(
        f"gr-blade demo: {A} antennas at Hat Creek phased to {obs.source_name}, "
        f"{obs.channels} x {obs.chan_bw / 1e6:g} MHz channels around {obs.obsfreq / 1e6:g} MHz, "
        f"{obs.duration:.2f} s; a tone at {obs.tone_frequency / 1e6:.6f} MHz from "
        f"{numpy.degrees(angular_separation(obs.boresight, obs.source)) * 60:.1f} arcmin off the boresight"
    )
    files = obs.write(output, "demo")
    recording_bytes = sum(os.path.getsize(p) for p in files["raw"])
    say(
        f"synthesized {', '.join(files['raw'])} ({recording_bytes / 2**20:.0f} MiB, GUPPI RAW, 8-bit) and "
        f"{files['recipe']} (beams: {', '.join(obs.beam_names)}) in {time.perf_counter() - began:.1f} s"
    )

    # The jobs blade-cli mode-b and mode-h build from the commands shown.
    say(
        f"\n$ blade-cli mode-b --input {files['stem']} --recipe {files['recipe']} --output {output} "
        f"--channelizer-rate {MODE_B_RATE} --integration {MODE_B_INTEGRATION}"
    )
    job_b = Job(
        "b",
        Options(
            input=files["stem"],
            recipe=files["recipe"],
            output=output,
            device=device,
            channelizer_rate=MODE_B_RATE,
            integration=MODE_B_INTEGRATION,
        ),
    )
    summary_b = report_run(job_b, "blade-cli mode-b", quiet=quiet, progress=False if quiet else None)
    if summary_b.exit_status:
        return summary_b.exit_status
    say(
        f"\n$ blade-cli mode-h --input {files['stem']} --output {output} "
        f"--channelizer-rate {MODE_H_RATE} --integration {MODE_H_INTEGRATION}"
    )
    job_h = Job(
        "h",
        Options(
            input=files["stem"],
            output=output,
            device=device,
            channelizer_rate=MODE_H_RATE,
            integration=MODE_H_INTEGRATION,
        ),
    )
    summary_h = report_run(job_h, "blade-cli mode-h", quiet=quiet, progress=False if quiet else None)
    if summary_h.exit_status:
        return summary_h.exit_status

    # The tone in each beam, against that beam's own noise floor.
    tone_b = obs.tone_fine_channel(MODE_B_RATE)
    beams = [(label, *time_averaged(path)) for path, label, _ in summary_b.files]
    ratios = {label: tone_to_noise(spectrum, tone_b) for label, _, spectrum in beams}
    on, off = obs.beam_names
    gain = ratios[on] / ratios["incoherent"]
    tone_h = obs.tone_fine_channel(MODE_H_RATE)
    antenna_path, antenna_label, _ = summary_h.files[0]
    header_h, spectrum_h = time_averaged(antenna_path)
    peak_h = int(numpy.argmax(spectrum_h))

    if figure:
        figure_path = os.path.join(output, "demo.png")
        draw(
            figure_path,
            obs,
            [(label, filterbank.read(path)) for path, label, _ in summary_b.files[:2]],
            beams,
            tone_b,
            (antenna_label, header_h, spectrum_h),
            tone_h,
        )

    print()
    print(
        f"tone at {obs.tone_frequency / 1e6:.6f} MHz: Mode B fine channel {tone_b} of {beams[0][2].size}, "
        f"Mode H fine channel {tone_h} of {spectrum_h.size}"
    )
    print("tone / noise floor in the time-averaged Mode B spectra:")
    for label, value in ratios.items():
        note = {on: "on the source", off: "pointed elsewhere", "incoherent": "= one antenna's"}.get(label, "")
        print(f"  {label:<12} {value:7.3f}   {note}")
    print(f"coherent gain on the source: {gain:.2f} (expected A = {A})")
    print(
        f"Mode H, antenna {antenna_label}: strongest channel {peak_h} "
        f"({filterbank.frequencies(header_h)[peak_h] / 1e6:.6f} MHz), "
        f"tone / noise {tone_to_noise(spectrum_h, tone_h):.2f}"
    )
    print(
        f"files in {output}/: the recording, the recipe, {len(summary_b.files)} Mode B beam files "
        f"(demo.mode_b.beam*.fil), {len(summary_h.files)} Mode H antenna files (demo.mode_h.ant*.fil)"
        + (", demo.png (the figure)" if figure else "")
    )
    say(f"try: blade-cli header {files['raw'][0]} --summary")
    say(
        f"     blade-cli mode-b --input {files['stem']} --recipe {files['recipe']} --output {output}/mine "
        f"--channelizer-rate 256 --integration 16 --beams 0 --format h5"
    )
    if not (0.7 * A < gain < 1.3 * A) or peak_h != tone_h:
        print(f"demo FAILED: the tone is not where the synthesis put it (gain {gain:.2f}, peak {peak_h})")
        return 1
    print(f"demo OK in {time.perf_counter() - began:.1f} s")
    return 0


def draw(path, obs, waterfalls, beams, tone_b, antenna, tone_h):
    """Waterfalls of the first two beams, the beams' spectra, one antenna's fine spectrum."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..formats import filterbank

    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(2, 2, figsize=(12, 8), constrained_layout=True)
    # Each beam relative to its own noise floor, on one colour scale: the tone
    # stands out in the beam on the source and hardly shows in the other.
    powers = [data[:, 0, :] / numpy.median(data[:, 0, :]) for _, (_, data) in waterfalls]
    low = min(numpy.percentile(p, 1) for p in powers)
    high = max(numpy.percentile(p, 99.9) for p in powers)
    for ax, (label, (header, _)), power in zip(axes[0], waterfalls, powers):
        freqs = filterbank.frequencies(header) / 1e6
        seconds = power.shape[0] * header["tsamp"]
        half = abs(header["foff"]) / 2
        image = ax.imshow(
            power,
            aspect="auto",
            extent=[freqs[0] - half, freqs[-1] + half, seconds, 0],
            cmap="viridis",
            vmin=low,
            vmax=high,
            interpolation="nearest",
        )
        ax.set_title(f"Mode B beam '{label}' (Stokes I)")
        ax.set_xlabel("frequency (MHz)")
        ax.set_ylabel("time (s)")
        ax.xaxis.set_major_locator(MaxNLocator(5))
        fig.colorbar(image, ax=ax, label="power / noise floor")
    ax = axes[1, 0]
    for label, header, spectrum in beams:
        ax.plot(filterbank.frequencies(header) / 1e6, spectrum / numpy.median(spectrum) - 1, lw=1, label=label)
    ax.axvline(obs.tone_frequency / 1e6, color="grey", ls=":", lw=1)
    ax.set_title(f"time-averaged Mode B spectra ({obs.duration:.1f} s)")
    ax.set_xlabel("frequency (MHz)")
    ax.set_ylabel("power / noise floor - 1")
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ax.legend()
    ax = axes[1, 1]
    label, header, spectrum = antenna
    offsets = (filterbank.frequencies(header) - obs.tone_frequency) / 1e3
    window = slice(max(tone_h - 40, 0), tone_h + 41)
    ax.plot(offsets[window], spectrum[window] / numpy.median(spectrum) - 1, lw=1, drawstyle="steps-mid")
    ax.set_title(f"Mode H, antenna {label}: {abs(header['foff']) * 1e6:.0f} Hz channels around the tone")
    ax.set_xlabel(f"frequency - {obs.tone_frequency / 1e6:.6f} MHz (kHz)")
    ax.set_ylabel("power / noise floor - 1")
    fig.suptitle(
        f"gr-blade demo: {obs.antennas} antennas phased to {obs.source_name}, a tone from "
        f"'{obs.beam_names[0]}' off the boresight, beams on it and elsewhere"
    )
    fig.savefig(path, dpi=100)
    plt.close(fig)
