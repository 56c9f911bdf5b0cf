"""Argument checks of :meth:`robustmb.tuning.tuning_problem.TuningProblem.solve`."""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError


def _number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def check_solve_options(polish, near, join, abandon, zero_tol):
    """Raise an ``ArgumentError`` naming the first invalid option of ``solve``.

    Examples
    --------
    >>> check_solve_options("deferred", 0.01, 1e-6, 10.0, 1e-6)
    >>> check_solve_options("sometimes", 0.01, 0.0, np.inf, 0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: solve: polish must be 'each', 'near' or 'deferred', got ...
    """
    if polish not in ("each", "near", "deferred"):
        raise ArgumentError(f"solve: polish must be 'each', 'near' or 'deferred', got {polish!r}")
    if not _number(near) or not near >= 0:
        raise ArgumentError(f"solve: near must be a number >= 0 (inf allowed), got {near!r}")
    if not _number(join) or not 0 <= join < np.inf:
        raise ArgumentError(f"solve: join must be a finite number >= 0, got {join!r}")
    if not _number(abandon) or not abandon >= 0:
        raise ArgumentError(f"solve: abandon must be a number >= 0 (inf allowed), got {abandon!r}")
    if not _number(zero_tol) or not 0 <= zero_tol < np.inf:
        raise ArgumentError(f"solve: zero_tol must be a finite number >= 0, got {zero_tol!r}")
