"""Benchmarks: each prints a table and compares against the raw parts it is built on.

Run as ``python -m benchmarks.<name>``. When numpy is not loaded yet, BLAS is limited to one thread
(``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``, unless already set), as the product's embedder runs by default: on
a shared or small machine a multi-threaded matrix-vector product mostly measures thread contention.
"""

import os as _os
import sys as _sys

if "numpy" not in _sys.modules:
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        _os.environ.setdefault(_name, "1")
