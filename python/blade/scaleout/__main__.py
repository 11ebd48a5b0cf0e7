# SPDX-License-Identifier: MIT
"""python3 -m gnuradio.blade.scaleout: the reader and the workers of a scale-out run."""
import sys

from . import main

sys.exit(main())
