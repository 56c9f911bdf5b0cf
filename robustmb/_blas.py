"""One BLAS thread around small dense LAPACK/SLICOT calls.

For matrices of a few tens of rows threaded BLAS gains nothing, and on a loaded machine
its thread hand-offs dominate: SLICOT's SB02MD on a 6-state plant takes about 0.4 ms with
one thread and 25-45 ms with two busy ones.  ``threadpoolctl.threadpool_limits`` rescans
the loaded libraries on every use (about 5 ms); a controller created once and reused
costs about 0.07 ms per limit, and reading the libraries' thread counts about 0.01 ms,
so when every BLAS already runs on one thread (a caller's own limit, or
``OPENBLAS_NUM_THREADS=1``) nothing is set or restored.
"""

from __future__ import annotations

import contextlib

__all__ = ["single_blas_thread"]

_CONTROLLER = []
_BLAS_LIBS = []


def single_blas_thread():
    """Context manager limiting BLAS to one thread (a no-op without ``threadpoolctl``).

    Examples
    --------
    >>> import numpy as np
    >>> with single_blas_thread():
    ...     x = np.linalg.solve(np.eye(3), np.ones(3))
    >>> x.tolist()
    [1.0, 1.0, 1.0]
    """
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - optional dependency
            return contextlib.nullcontext()
        # created on first use, after the callers' modules have loaded numpy, scipy and
        # slycot, so the BLAS libraries of all three are under its control
        _CONTROLLER.append(ThreadpoolController())
        _BLAS_LIBS.extend(c for c in _CONTROLLER[0].lib_controllers if c.user_api == "blas")
    if all(lib.num_threads == 1 for lib in _BLAS_LIBS):
        return contextlib.nullcontext()  # already pinned: nothing to set or restore
    return _CONTROLLER[0].limit(limits=1, user_api="blas")
