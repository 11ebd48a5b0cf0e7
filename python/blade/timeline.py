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


def busy_summary(events):
    """Per (track, what): spans, total and mean duration, and the fraction of the
    timeline's extent the row was busy."""
    if not events:
        return []
    begin = min(e["start_us"] for e in events)
    end = max(e["start_us"] + e["duration_us"] for e in events)
    extent = max(end - begin, 1e-9)
    rows = {}
    for e in events:
        row = rows.setdefault((e["track"], e["what"]), [0, 0.0])
        row[0] += 1
        row[1] += e["duration_us"]
    return [
        dict(track=track, what=what, spans=n, total_us=total, mean_us=total / n, busy=total / extent)
        for (track, what), (n, total) in sorted(rows.items())
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
    """OUTPUT.json and OUTPUT.png; returns their paths."""
    events = spans(events)
    folder = os.path.dirname(os.path.abspath(output))
    os.makedirs(folder, exist_ok=True)
    with open(output + ".json", "w") as f:
        json.dump(chrome_trace(events), f)
    plot(events, output + ".png", title)
    return output + ".json", output + ".png"


def print_summary(events, out=sys.stdout):
    for row in busy_summary(spans(events)):
        print(
            f"  {row['track']}: {row['what']}: {row['spans']} spans, mean {row['mean_us'] / 1e3:.3f} ms, "
            f"busy {100 * row['busy']:.0f} %",
            file=out,
        )
