# SPDX-License-Identifier: MIT
"""
gr-blade's benchmarks (blade-bench; python3 -m gnuradio.blade.bench): command.py
keeps the records, modules.py runs the core modules' benchmark, flowgraphs.py,
multigpu.py and numpy_suite.py are the suites, workloads.py the synthetic inputs
they share. See docs/performance.md.
"""
