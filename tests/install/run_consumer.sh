#!/bin/sh
# SPDX-License-Identifier: MIT
# Configure, build and run tests/install against the installed gr-blade.
# Exit 77 (skipped) when gr-blade is not installed under the prefix.
set -eu
prefix=$1
source_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$(find "$prefix"/lib* -path '*/cmake/gnuradio-blade/gnuradio-bladeConfig.cmake' 2>/dev/null | head -1)" ]; then
    echo "gr-blade is not installed under $prefix: skipped"
    exit 77
fi
cmake -S "$source_dir" -B "$work" -DCMAKE_PREFIX_PATH="$prefix" >"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
cmake --build "$work" >>"$work.log" 2>&1 || { cat "$work.log"; exit 1; }
rm -f "$work.log"
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
"$work/core_consumer"
"$work/block_consumer"
