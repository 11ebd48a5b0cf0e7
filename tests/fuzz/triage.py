#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Sort the findings of a fuzz run by whose code they are in.

    triage.py TARGET ARTIFACT...

Each artifact (crash-, leak-, oom-, timeout-) is run again alone; the first stack
frame of the report outside the sanitizer runtime, libFuzzer and libc decides:
HDF5 (in libhdf5: report upstream), OURS (gr-blade's code: a bug to fix), or NOT
REPRODUCED (typically libFuzzer's leak heuristic, which counts memory libhdf5 keeps
in its free lists after an error as leaked). Prints one line per class and exits 1
if any finding is ours. Used by tools/hostile-input bfr5-bytes.
"""

import collections
import os
import re
import subprocess
import sys

RUNTIME = re.compile(
    r"__sanitizer|__asan|__lsan|__ubsan|__interceptor|fuzzer::|^(malloc|calloc|realloc|free)$"
    r"|operator new|__mem(cpy|move|set|cmp)|^str\w+$|abort|raise|pthread_kill"
)
FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ in (\S+) (.*)$")
FRAME_NO_NAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ +\((.*)\)")


def owner(report):
    """(class, where) of one report."""
    if not re.search(r"ERROR: |runtime error|property failed", report):
        return "NOT REPRODUCED", ""
    for line in report.splitlines():
        match = FRAME.match(line)
        if match:
            function, location = match.groups()
        else:
            match = FRAME_NO_NAME.match(line)
            if not match:
                continue
            function, location = "?", match.group(1)
        if RUNTIME.search(function) or "libc.so" in location or "sysdeps" in location:
            continue
        if function == "?" and "libhdf5" not in location:
            continue  # an unsymbolized frame of the fuzzer binary's runtime
        if "libhdf5" in location:
            return "HDF5", function
        return "OURS", f"{function} {location.split(' (BuildId')[0]}"
    return "HDF5" if "libhdf5" in report else "OURS", "?"


def main():
    target, artifacts = sys.argv[1], sys.argv[2:]
    classes = collections.Counter()
    ours = []
    for artifact in artifacts:
        if artifact.endswith(".log"):
            continue
        result = subprocess.run(
            [target, "-timeout=10", "-rss_limit_mb=2048", artifact], capture_output=True, text=True, errors="replace"
        )
        report = result.stdout + result.stderr
        with open(artifact + ".log", "w") as handle:
            handle.write(report)
        kind = os.path.basename(artifact).split("-")[0]
        who, where = owner(report)
        error = re.search(r"(ERROR: \S+: [\w-]+|runtime error|property failed)", report)
        classes[(who, kind, where if who != "OURS" else where)] += 1
        if who == "OURS":
            ours.append(f"{artifact}: {error.group(1) if error else '?'} at {where}")
    for (who, kind, where), count in sorted(classes.items(), key=lambda item: -item[1]):
        print(f"   {count:4d}  {who:14s} {kind:8s} {where}")
    for line in ours:
        print("   OURS:", line)
    hdf5 = sum(n for (who, _, _), n in classes.items() if who == "HDF5")
    print(
        f"   {hdf5} in libhdf5, {len(ours)} in our code, "
        f"{sum(n for (who, _, _), n in classes.items() if who == 'NOT REPRODUCED')} not reproduced"
    )
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
