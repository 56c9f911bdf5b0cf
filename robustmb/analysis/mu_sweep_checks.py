"""Argument checks of :func:`~robustmb.analysis.mu_sweep.certified_mu_peak`."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError, IllPosedError, UncertainTypeError

__all__ = ["check_sweep_data"]


def check_sweep_data(sysdata, dt):
    """Refuse state-space data or a sample time the sweep cannot use, naming the culprit.

    Parameters
    ----------
    sysdata : tuple (A, B, C, D)
        Numeric arrays, all entries finite.
    dt : float or None
        Sample time: 0 or None for continuous time, else finite and positive.

    Raises
    ------
    DimensionError
        ``sysdata`` is not four arrays.
    UncertainTypeError
        An array is not numeric.
    IllPosedError
        An array has a non-finite entry.
    ArgumentError
        ``dt`` is negative, nan or infinite.

    Examples
    --------
    >>> check_sweep_data((-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1))), 0.0)
    >>> try:
    ...     check_sweep_data((-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1))), -1.0)
    ... except ArgumentError as err:
    ...     print(str(err)[:30])
    dt must be 0 (continuous time)
    """
    if not isinstance(sysdata, tuple | list) or len(sysdata) != 4:
        raise DimensionError(f"sysdata must be a tuple (A, B, C, D), got {type(sysdata).__name__}")
    for name, x in zip("ABCD", sysdata, strict=True):
        arr = np.asarray(x)
        if arr.dtype.kind not in "biufc":
            raise UncertainTypeError(
                f"sysdata {name} must be a numeric array, got dtype {arr.dtype}"
            )
        if not np.all(np.isfinite(arr)):
            raise IllPosedError(f"sysdata {name} has non-finite entries")
    if dt is not None and isinstance(dt, numbers.Real) and not (np.isfinite(dt) and dt >= 0):
        raise ArgumentError(
            f"dt must be 0 (continuous time) or a finite positive sample time, got {dt!r}"
        )
