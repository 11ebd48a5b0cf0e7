#!/bin/sh
# SPDX-License-Identifier: MIT
# Compile every examples/*.grc with grcc (blocks from this tree's grc/ folder) and
# run the generated flowgraphs that need no GUI; each must finish by itself.
set -u
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
command -v grcc >/dev/null 2>&1 || { echo "grcc not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GRC_BLOCKS_PATH="$source_dir/grc"
failed=0
for grc in "$source_dir"/examples/*.grc; do
    name=$(basename "$grc" .grc)
    if ! grcc -o "$work" "$grc" >"$work/$name.log" 2>&1; then
        echo "FAIL grcc $name:"; cat "$work/$name.log"; failed=1; continue
    fi
    if grep -q "generate_options: no_gui" "$grc"; then
        if (cd "$work" && timeout 300 /usr/bin/python3 "$name.py" >"$work/$name.run.log" 2>&1); then
            echo "ok   $name (compiled and ran)"
        else
            echo "FAIL running $name:"; tail -20 "$work/$name.run.log"; failed=1
        fi
    else
        echo "ok   $name (compiled; GUI flowgraph not run)"
    fi
done
exit $failed
