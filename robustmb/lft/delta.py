"""The normalised Delta block at given element values, and nominal well-posedness.

A realization's Delta is block-diagonal, one block ``I_reps kron delta`` per
element in normalised units.  :func:`delta_at` builds those blocks from
physical values; :func:`check_nominal_well_posed` refuses an interconnection
whose uncertainty loop ``I - M11 Delta`` is singular at the nominal values.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla

from ..errors import ArgumentError, IllPosedError, SignalError, UncertainElementError
from . import realization as rz


def normalized_block(el, reps, value):
    """``I_reps kron delta`` for a static physical value of ``el``."""
    if isinstance(value, bool | np.bool_) or (
        isinstance(value, np.ndarray) and value.dtype == bool
    ):
        # True would pass for 1.0: a flag given for a value is a mistake, not a number.
        raise ArgumentError(
            f"usubs: the value for uncertain element '{el.name}' is the boolean {value!r}, "
            "not a number"
        )
    if el.kind in ("real", "complex"):
        if isinstance(value, str | bytes) or (
            not isinstance(value, numbers.Number)
            and not (isinstance(value, np.ndarray | np.generic) and value.dtype.kind in "biufc")
        ):
            raise UncertainElementError(
                f"value for {el.kind} parameter '{el.name}' must be a number, got {value!r}"
            )
        if np.ndim(value) != 0:
            raise UncertainElementError(
                f"value for {el.kind} parameter '{el.name}' must be a scalar, got shape "
                f"{np.shape(value)}"
            )
        delta = complex(el.normalize(value)) if el.kind == "complex" else float(el.normalize(value))
        return delta * np.eye(reps)
    val = np.asarray(value)
    if val.dtype == object or not np.issubdtype(val.dtype, np.number):
        raise UncertainElementError(f"value for ultidyn '{el.name}' must be numeric")
    val = np.atleast_2d(val)
    if val.shape != el.shape:
        raise UncertainElementError(
            f"value for ultidyn '{el.name}' must have shape {el.shape}, got {val.shape}"
        )
    if not np.all(np.isfinite(val)):
        raise UncertainElementError(f"value for ultidyn '{el.name}' must be finite")
    return np.kron(np.eye(reps), val / el.bound)


def delta_at(real: rz.Realization, values: dict):
    """Block-diagonal normalised Delta for static values of every element."""
    mats = []
    for name, el, reps, _, _ in real.block_slices():
        if name not in values:
            raise SignalError(f"no value given for uncertain element '{name}'")
        mats.append(normalized_block(el, reps, values[name]))
    return mats


def check_nominal_well_posed(model, what: str):
    """Raise :class:`IllPosedError` when ``I - D11 Delta`` is singular at the nominal values."""
    real = model._real
    if not real.blocks:
        return
    nomv = {
        n: (el.nominal if el.is_scalar else np.zeros(el.shape))
        for n, (el, _) in real.blocks.items()
    }
    delta = sla.block_diag(*delta_at(real, nomv))
    d11 = real.d[: real.nz, : real.nw]
    if rz.singular_loop(d11 @ delta) is not None:
        raise IllPosedError(
            f"{what} is ill-posed at the nominal values of {list(real.blocks)}: "
            "the uncertainty loop I - M11 Delta is singular there"
        )
