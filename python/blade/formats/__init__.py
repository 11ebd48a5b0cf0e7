# SPDX-License-Identifier: MIT
"""
The file formats in Python: GUPPI RAW (guppi: headers, descriptions of recordings,
synthetic writing), SIGPROC filterbank and FBH5 (filterbank: reading our products
back) and BFR5 beamformer recipes (bfr5: writing them). Reading GUPPI RAW and BFR5
for processing is the C core's (guppi_source, read_bfr5); these are the Python
views of the same files. Also reachable as blade.guppi, blade.filterbank, blade.bfr5.
"""
