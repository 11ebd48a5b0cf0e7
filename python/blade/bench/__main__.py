# SPDX-License-Identifier: MIT
"""python3 -m gnuradio.blade.bench: blade-bench."""
import sys

from .command import main

sys.exit(main())
