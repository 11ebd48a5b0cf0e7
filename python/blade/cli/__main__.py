# SPDX-License-Identifier: MIT
"""python3 -m gnuradio.blade.cli: blade-cli."""
import sys

from . import main

sys.exit(main())
