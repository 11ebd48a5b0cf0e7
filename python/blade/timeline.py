# SPDX-License-Identifier: MIT
"""
A flowgraph's timeline (runtime.h: timeline_start / timeline_stop) written as a Chrome
trace (chrome://tracing, ui.perfetto.dev) and as a picture: one row per block and kind
of span: host work calls ("work"), each chunk's device work from CUDA events on the
block's stream ("device"), and the copies into and out of device buffers ("upload",
"download"). `busy_summary` says how busy each row was between the first span and the
last: the row near 100 % is the wall, the others show what overlaps it.

Used by `blade-bench timeline` (bench/timeline.py) and by any blade-cli run with
BLADE_TIMELINE=OUTPUT set (pipeline.py), which write OUTPUT.json and OUTPUT.png.
"""

import json
import os
import sys

COLOURS = {"work": "#4c72b0", "device": "#dd8452", "upload": "#55a868", "download": "#c44e52"}


def spans(events):
    """The recorded events as plain dicts (also accepts dicts)."""
    out = []
    for e in events:
        if isinstance(e, dict):
            out.append(dict(e))
        else:
            out.append(dict(track=e.track, what=e.what, start_us=e.start_us, duration_us=e.duration_us, count=e.count))
    return out


def chrome_trace(events):
    """A Chrome trace (the JSON object format): one thread per track, complete events."""
    tracks = sorted({e["track"] for e in events})
    thread = {track: i + 1 for i, track in enumerate(tracks)}
    trace = [{"name": "thread_name", "ph": "M", "pid": 1, "tid": thread[t], "args": {"name": t}} for t in tracks]
    for e in events:
        trace.append(
            {
                "name": e["what"],
                "cat": e["what"],
                "ph": "X",
                "pid": 1,
                "tid": thread[e["track"]],
                "ts": e["start_us"],
                "dur": max(e["duration_us"], 0.0),
                "args": {"count": e["count"]},
            }
        )
    return {"traceEvents": trace, "displayTimeUnit": "ms"}


def busy_summary(events, steady=0.5):
    """Per (track, what): spans, their mean duration over the steady part of the run,
    and the fraction of that part the row was busy. The steady part is the last
    `steady` of the timeline's extent: the first chunks carry one-time work (plans,
    the first phasors, first touches of pinned memory) that is not the pipeline's."""
    if not events:
        return []
    begin = min(e["start_us"] for e in events)
    end = max(e["start_us"] + e["duration_us"] for e in events)
    since = end - steady * (end - begin)
    extent = max(end - since, 1e-9)
    rows = {}
    for e in events:
        row = rows.setdefault((e["track"], e["what"]), [0, 0.0, 0.0])
        stop = e["start_us"] + e["duration_us"]
        if stop <= since:
            continue
        row[0] += 1
        row[1] += e["duration_us"]
        row[2] += stop - max(e["start_us"], since)
    return [
        dict(track=track, what=what, spans=n, total_us=total, mean_us=total / n, busy=inside / extent)
        for (track, what), (n, total, inside) in sorted(rows.items())
        if n
    ]


def plot(events, path, title):
    """One row per (track, what), spans as bars, time in milliseconds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted({(e["track"], e["what"]) for e in events})
    begin = min(e["start_us"] for e in events) if events else 0.0
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(rows) + 1.6))
    for y, (track, what) in enumerate(rows):
        bars = [
            ((e["start_us"] - begin) / 1e3, max(e["duration_us"], 1.0) / 1e3)
            for e in events
            if e["track"] == track and e["what"] == what
        ]
        ax.broken_barh(bars, (y - 0.35, 0.7), facecolors=COLOURS.get(what, "#8172b2"))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{track}: {what}" for track, what in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ms since the timeline started")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(events, output, title):
    """OUTPUT.json and OUTPUT.png; returns the paths written. Without matplotlib only
    the trace is written (`python3 -m gnuradio.blade.timeline OUTPUT.json` draws the
    picture where matplotlib is)."""
    events = spans(events)
    folder = os.path.dirname(os.path.abspath(output))
    os.makedirs(folder, exist_ok=True)
    with open(output + ".json", "w") as f:
        json.dump(dict(chrome_trace(events), title=title), f)
    try:
        plot(events, output + ".png", title)
    except ImportError:
        print(f"timeline: matplotlib is not installed: {output}.png not drawn", file=sys.stderr)
        return (output + ".json",)
    return output + ".json", output + ".png"


def print_summary(events, out=sys.stdout):
    for row in busy_summary(spans(events)):
        print(
            f"  {row['track']}: {row['what']}: {row['spans']} spans, mean {row['mean_us'] / 1e3:.3f} ms, "
            f"busy {100 * row['busy']:.0f} % (last half of the run)",
            file=out,
        )


def read_trace(path):
    """(spans, title) of a trace written by write()."""
    with open(path) as f:
        trace = json.load(f)
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    events = [
        dict(track=names[e["tid"]], what=e["name"], start_us=e["ts"], duration_us=e["dur"], count=e["args"]["count"])
        for e in trace["traceEvents"]
        if e["ph"] == "X"
    ]
    return events, trace.get("title", os.path.basename(path))


def main(argv=None):
    """python3 -m gnuradio.blade.timeline TRACE.json...: draw TRACE.png, print the rows."""
    for path in sys.argv[1:] if argv is None else argv:
        events, title = read_trace(path)
        plot(events, os.path.splitext(path)[0] + ".png", title)
        print(f"{path}: {title}")
        print_summary(events)
    return 0


if __name__ == "__main__":
    sys.exit(main())
