"""Tunable static gain: one matrix realp as a static system."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError
from ..lft.model import UncertainSystem, uss
from .realp import realp


def _block_name(where, name):
    """``name`` of a tunable block: an identifier (dotted identifiers allowed), else
    :class:`~robustmb.errors.ArgumentError` naming the function.

    Examples
    --------
    >>> _block_name("tunable_pid", "C")
    'C'
    >>> _block_name("tunable_pid", None)
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: tunable_pid: name must be an identifier such as 'C', got None
    """
    if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
        raise ArgumentError(f"{where}: name must be an identifier such as 'C', got {name!r}")
    return name


def _positive(name, what, n, minimum=1):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < minimum:
        raise DimensionError(f"{name}: {what} must be an integer >= {minimum}, got {n!r}")
    return int(n)


def _block_dt(where, name, dt):
    """Sample time of a tunable block: ``0.0`` for ``dt=None`` (continuous), else a
    positive finite number; anything else is an :class:`~robustmb.errors.ArgumentError`.

    Examples
    --------
    >>> _block_dt("tunable_pid", "C", None), _block_dt("tunable_pid", "C", 0.1)
    (0.0, 0.1)
    >>> _block_dt("tunable_pid", "C", 0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: tunable_pid 'C': dt must be None (continuous) or a ...
    """
    if dt is None:
        return 0.0
    if (
        isinstance(dt, bool | np.bool_)
        or not isinstance(dt, numbers.Real)
        or not np.isfinite(dt)
        or not dt > 0
    ):
        raise ArgumentError(
            f"{where} '{name}': dt must be None (continuous) or a positive finite sample "
            f"time, got {dt!r}"
        )
    return float(dt)


def tunable_gain(name, ny, nu, *, value=None) -> UncertainSystem:
    """Tunable static gain ``u = K y`` with ``K`` an ``ny x nu`` realp named ``name``.

    Parameters
    ----------
    name : str
        Name of the block and of its parameter.
    ny, nu : int
        Numbers of outputs and inputs of the gain.
    value : array_like, optional
        Initial value (default zero).

    Returns
    -------
    UncertainSystem
        A static system (0 states) whose ``tunables`` is ``{name: realp}``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> K = rmb.tunable_gain("K", 1, 2)
    >>> K.shape, list(K.tunables)
    ((1, 2), ['K'])
    >>> K.usubs({"K": [[1.0, 2.0]]}).D
    array([[1., 2.]])
    """
    name = _block_name("tunable_gain", name)
    ny = _positive(name, "ny", ny)
    nu = _positive(name, "nu", nu)
    try:
        v = np.zeros((ny, nu)) if value is None else np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(
            f"tunable_gain '{name}': value must be numeric, got {value!r}"
        ) from None
    if v.shape != (ny, nu):
        raise DimensionError(
            f"tunable_gain '{name}': value has shape {v.shape}, expected {(ny, nu)}"
        )
    k = realp(name, v)
    sys = uss(k._to_model())
    sys.input_names = [f"u[{i}]" for i in range(nu)] if nu > 1 else ["u"]
    sys.output_names = [f"y[{i}]" for i in range(ny)] if ny > 1 else ["y"]
    sys.name = name
    return sys
