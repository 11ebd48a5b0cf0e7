#!/bin/sh
# SPDX-License-Identifier: MIT
# gr_modtool must keep working on this tree: in a scratch copy, `gr_modtool info`
# recognises the module and `gr_modtool add` inserts a block into every list and
# marker it maintains (sources, headers, bindings, GRC).
set -eu
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
command -v gr_modtool >/dev/null 2>&1 || { echo "gr_modtool not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$source_dir"
tar --exclude=./build --exclude='./build*' --exclude=./.git --exclude=./.devkit -cf - . | (cd "$work" && tar -xf -)
cd "$work"
gr_modtool info | grep -q "Module name: blade" || { gr_modtool info; echo "gr_modtool info does not see module 'blade'"; exit 1; }
yes n | gr_modtool add -t sync -l cpp probe --argument-list "int n" --add-python-qa >/dev/null
fail=0
check() { grep -q "$2" "$1" || { echo "gr_modtool add did not update $1 (no '$2')"; fail=1; }; }
test -f include/gnuradio/blade/probe.h || { echo "no include/gnuradio/blade/probe.h"; fail=1; }
test -f lib/probe_impl.cc || { echo "no lib/probe_impl.cc"; fail=1; }
check lib/CMakeLists.txt probe_impl.cc
check include/gnuradio/blade/CMakeLists.txt probe.h
check python/blade/bindings/CMakeLists.txt probe_python.cc
check python/blade/bindings/python_bindings.cc "bind_probe(m)"
check grc/CMakeLists.txt blade_probe.block.yml
check python/blade/bindings/probe_python.cc "BINDTOOL_HEADER_FILE_HASH"
[ $fail = 0 ] && echo "gr_modtool info and add work on the tree"
exit $fail
