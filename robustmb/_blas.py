"""One BLAS thread around small dense LAPACK/SLICOT calls.

For matrices of a few tens of rows threaded BLAS gains nothing, and on a loaded machine
its thread hand-offs dominate: SLICOT's SB02MD on a 6-state plant takes about 0.4 ms with
one thread and 25-45 ms with two busy ones.  ``threadpoolctl.threadpool_limits`` rescans
the loaded libraries on every use (about 5 ms); a controller created once and reused
costs about 0.07 ms per limit.
"""

from __future__ import annotations

import contextlib

__all__ = ["single_blas_thread"]

_CONTROLLER = []


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
    return _CONTROLLER[0].limit(limits=1, user_api="blas")
