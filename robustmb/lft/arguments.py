"""Argument checks at the public boundary: each failure names the function and the argument.

Public functions call these first, so bad input never reaches numpy, scipy or
python-control, whose messages name neither.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError


def real_number(x, name, what, *, positive=False, nonnegative=False, finite=True) -> float:
    """A real scalar (bools and strings refused), optionally positive / non-negative.

    Examples
    --------
    >>> real_number(2, "gamma", "robgain", positive=True)
    2.0
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf":
            x = x.item()
        else:
            raise ArgumentError(f"{what}: {name} must be a real number, got {x!r}")
    x = float(x)
    if math.isnan(x) or (finite and not math.isfinite(x)):
        raise ArgumentError(f"{what}: {name} must be finite, got {x!r}")
    if positive and not x > 0:
        raise ArgumentError(f"{what}: {name} must be positive, got {x!r}")
    if nonnegative and not x >= 0:
        raise ArgumentError(f"{what}: {name} must be >= 0, got {x!r}")
    return x


def integer(x, name, what, *, minimum=0) -> int:
    """An integer ``>= minimum`` (bools and non-integral floats refused).

    Examples
    --------
    >>> integer(3, "nu", "star")
    3
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise DimensionError(f"{what}: {name} must be an integer, got {x!r}")
    if x < minimum:
        raise DimensionError(f"{what}: {name} must be >= {minimum}, got {x!r}")
    return int(x)


def frequencies(omega, what, name="omega", *, dt=None):
    """A non-empty 1-D array of finite, non-negative frequencies (rad/s), or ``None``.

    With the sampling time ``dt > 0`` of a discrete-time model, frequencies above the
    Nyquist frequency ``pi / dt`` are refused (see :func:`below_nyquist`).

    Examples
    --------
    >>> frequencies([0.1, 1.0], "robstab")
    array([0.1, 1. ])
    >>> frequencies([0.1, 31.4], "wcgain", dt=0.1)
    array([ 0.1, 31.4])
    """
    if omega is None:
        return None
    if isinstance(omega, str | bytes):
        raise ArgumentError(f"{what}: {name} must be an array of frequencies, got {omega!r}")
    try:
        arr = np.asarray(omega, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(
            f"{what}: {name} must be an array of frequencies (rad/s), got {omega!r}"
        ) from None
    arr = np.atleast_1d(arr)
    if arr.ndim != 1:
        raise ArgumentError(f"{what}: {name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ArgumentError(f"{what}: {name} is empty; give at least one frequency")
    if not np.all(np.isfinite(arr)):
        raise ArgumentError(
            f"{what}: {name} has a non-finite entry at index {_first(~np.isfinite(arr))}"
        )
    if np.any(arr < 0):
        raise ArgumentError(
            f"{what}: {name} has a negative frequency {float(arr[arr < 0][0])!r} at index "
            f"{_first(arr < 0)}; frequencies are >= 0 rad/s"
        )
    return below_nyquist(arr, dt, what, name)


def below_nyquist(omega, dt, what, name="omega"):
    """Refuse a frequency above the Nyquist frequency ``pi / dt`` of a discrete-time model.

    The response of a sampled model at ``w`` and at ``w + 2 pi / dt`` is the same, so a
    frequency above ``pi / dt`` names an alias of one below it, never a new point.
    ``pi / dt`` itself is legal (a relative tolerance of ``1e-12`` admits it rounded up).
    ``dt`` of ``None``, ``0`` (continuous) or ``True`` (unspecified) checks nothing.

    Examples
    --------
    >>> import numpy as np
    >>> below_nyquist(np.array([0.0, np.pi / 0.1]), 0.1, "freqresp")
    array([ 0.        , 31.41592654])
    >>> try:
    ...     below_nyquist(np.array([40.0]), 0.1, "freqresp")
    ... except ArgumentError as exc:
    ...     print(str(exc)[:60])
    freqresp: omega has 40.0 rad/s at index 0, above the Nyquist
    """
    if dt is None or isinstance(dt, bool) or not dt > 0:
        return omega
    nyquist = math.pi / dt
    above = np.asarray(omega) > nyquist * (1 + 1e-12)
    if np.any(above):
        i = _first(above)
        raise ArgumentError(
            f"{what}: {name} has {float(np.ravel(omega)[i])!r} rad/s at index {i}, above the "
            f"Nyquist frequency pi/dt = {nyquist:g} rad/s of the discrete-time model "
            f"(dt = {dt:g})"
        )
    return omega


def sample_time(dt, what, name="dt"):
    """``0``/``None`` (continuous / unspecified), ``True`` or a positive finite sampling time.

    Examples
    --------
    >>> sample_time(0.01, "uss")
    0.01
    """
    if dt is None or dt is True:
        return dt
    if isinstance(dt, bool) or not isinstance(dt, numbers.Real):
        raise ArgumentError(f"{what}: {name} must be 0 (continuous) or a sampling time, got {dt!r}")
    if not math.isfinite(dt) or dt < 0:
        raise ArgumentError(
            f"{what}: {name} must be 0 (continuous) or a positive finite sampling time, got {dt!r}"
        )
    return dt


def finite_matrix(x, name, what, *, square=False):
    """A finite real or complex 2-D array.

    Examples
    --------
    >>> finite_matrix([[1.0]], "M", "modal_decouple").shape
    (1, 1)
    """
    try:
        arr = np.asarray(x)
    except ValueError:
        raise DimensionError(f"{what}: {name} is ragged (rows of different lengths)") from None
    if arr.dtype == object or arr.dtype.kind not in "biufc":
        raise ArgumentError(f"{what}: {name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise DimensionError(f"{what}: {name} must be 2-D, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ArgumentError(f"{what}: {name} has a non-finite entry at {bad}")
    if square and arr.shape[0] != arr.shape[1]:
        raise DimensionError(f"{what}: {name} must be square, got shape {arr.shape}")
    return arr


def _first(mask):
    return int(np.flatnonzero(np.ravel(mask))[0])
