#!/bin/sh
# SPDX-License-Identifier: MIT
# blade-bench must not rot: a seconds-long CPU run at tiny shapes, recorded twice
# into a scratch history, charted and compared; the numpy suite gives a gr-blade
# and a numpy time for each of its cases.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench="/usr/bin/python3 -m gnuradio.blade.bench"
for run in 1 2; do
    $bench run --device cpu --quick --repeat 2 --suite modules --suite overhead --suite numpy --record --history "$work/history.jsonl" \
        --output "$work/record$run.json" >"$work/run$run.log" 2>&1 || { cat "$work/run$run.log"; exit 1; }
done
/usr/bin/python3 - "$work/record1.json" <<'EOF'
import json, sys
figures = [f for f in json.load(open(sys.argv[1]))["figures"] if f["benchmark"].startswith("numpy-quick/")]
assert len(figures) == 6, f"expected 6 numpy figures, found {len(figures)}"
for f in figures:
    assert f["time_ms"] > 0 and f["numpy_ms"] > 0, f
    assert abs(f["speedup_vs_numpy"] - f["numpy_ms"] / f["time_ms"]) < 1e-9 * f["speedup_vs_numpy"], f
EOF
# One thread, one module and the bundles on the CPU: the figures are named
# module-quick-1t/... and flowgraph-cpu-quick-1t/... (the backend's threads reach the
# flowgraphs), the CPU limits measured with that thread are in the record.
$bench run --device cpu --quick --repeat 2 --threads 1 --module cast --suite modules --suite cpu-bundles \
    --output "$work/threads.json" >"$work/threads.log" 2>&1 || { cat "$work/threads.log"; exit 1; }
/usr/bin/python3 - "$work/threads.json" <<'EOF'
import json, sys
record = json.load(open(sys.argv[1]))
limits = record["limits"]
assert limits["threads"] == 1 and limits["stream_copy"] > 0 and limits["stream_triad"] > 0, limits
assert limits["fp32_peak"] > 0 and limits["copy_bandwidth"] == max(limits["stream_copy"], limits["stream_triad"]), limits
# the passes whose rates bound the cases that read or write more than a copy does
assert all(limits[k] > 0 for k in ("stream_read", "stream_write", "stream_widen")), limits
modules = [f for f in record["figures"] if f["benchmark"].startswith("module-quick-1t/")]
bundles = [f for f in record["figures"] if f["benchmark"].startswith("flowgraph-cpu-quick-1t/")]
assert modules and all(f["benchmark"].startswith("module-quick-1t/cast/") for f in modules), record
assert len(bundles) == 4 and len(modules) + len(bundles) == len(record["figures"]), record  # Mode B, Mode H; fp32, fp16
assert all(f["threads"] == 1 and f["real_time_factor"] > 0 and f["time_ms"] > 0 for f in bundles), bundles
assert limits["cpu_threads"] == 1, limits
EOF
# One case by its label.
$bench run --device cpu --quick --repeat 2 --threads 1 --case "ci8->cf32 [2, 192, 8192, 2]" --output "$work/case.json" \
    >"$work/case.log" 2>&1 || { cat "$work/case.log"; exit 1; }
/usr/bin/python3 - "$work/case.json" <<'EOF'
import json, sys
figures = json.load(open(sys.argv[1]))["figures"]
assert [f["benchmark"] for f in figures] == ["module-quick-1t/cast/ci8->cf32 [2, 192, 8192, 2]"], figures
EOF
$bench plot --history "$work/history.jsonl" --output "$work/charts"
test -s "$work/charts/README.md"
ls "$work/charts"/*.png >/dev/null
records=$(wc -l <"$work/history.jsonl")
[ "$records" = 2 ] || { echo "expected 2 records, found $records"; exit 1; }
# compare exits 1 when a figure got >10 % slower: noisy on a loaded CI machine, so
# only its report is checked here, not its verdict.
$bench compare --history "$work/history.jsonl" | grep -q "figures"
echo "blade-bench smoke run OK: $(grep -c '"benchmark"' "$work/record1.json" || true) record(s), $(ls "$work/charts"/*.png | wc -l) charts"
