"""Argument checks shared by the loop-shaping designs (:func:`mixsyn`, :func:`ncfsyn`).

A plant or weight is turned into a ``control.StateSpace`` only after it has been checked:
an uncertain system is refused (these designs are nominal), an improper transfer function
is named, and all systems must share one sampling time.  Every error names the argument
at fault.
"""

from __future__ import annotations

import control
import numpy as np

from robustmb.errors import ArgumentError, DimensionError, FreeTunableError, UncertainTypeError

__all__ = ["as_system", "common_sampling_time", "refuse_free_tunables", "refuse_uncertain"]


def refuse_free_tunables(x, name, func):
    """Raise :class:`~robustmb.errors.FreeTunableError` when ``x`` has free tunable
    parameters (``rmb.realp``, tunable blocks): a synthesis needs fixed plant data.

    Examples
    --------
    >>> import robustmb as rmb
    >>> refuse_free_tunables(2.0, "P", "hinfsyn")  # a number is fixed: nothing happens
    >>> try:
    ...     refuse_free_tunables(rmb.realp("a", 2.0) * 1.0, "P", "hinfsyn")
    ... except rmb.errors.FreeTunableError as err:
    ...     print(str(err)[:44])
    hinfsyn: P has free tunable parameters ['a']
    """
    tunables = getattr(x, "tunables", None)
    if tunables:
        raise FreeTunableError(
            f"{func}: {name} has free tunable parameters {sorted(tunables)}; substitute them "
            f"first ({name}.usubs({{name: value}})), or tune a fixed-structure controller "
            "with systune"
        )


def refuse_uncertain(x, name, func):
    """Raise :class:`~robustmb.errors.UncertainTypeError` when ``x`` is an uncertain system.

    A system with free tunable parameters gets :func:`refuse_free_tunables`'s error.

    Examples
    --------
    >>> refuse_uncertain(1.0, "W1", "mixsyn")  # a number is certain: nothing happens
    """
    refuse_free_tunables(x, name, func)
    if hasattr(x, "nominal") and hasattr(x, "blocks"):
        raise UncertainTypeError(
            f"{func}: {name} is an uncertain system; {func} designs for a certain plant: "
            f"use rmb.musyn for a robust design, or {name}.nominal() for a nominal one"
        )


def as_system(x, name, func, size=None):
    """``x`` as a ``control.StateSpace``: an LTI system, a gain matrix, or a number (that
    number times the identity of ``size``, or a 1 x 1 gain without ``size``).

    Raises
    ------
    UncertainTypeError
        For an uncertain system.
    DimensionError
        For an improper transfer function or a gain that is not a nonempty 2-D array.
    ArgumentError
        For anything else.

    Examples
    --------
    >>> import control
    >>> as_system(control.tf([1.0], [1.0, 1.0]), "W1", "mixsyn").nstates
    1
    >>> as_system(2.0, "W2", "mixsyn", size=2).D.tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    refuse_uncertain(x, name, func)
    if isinstance(x, control.StateSpace):
        return _finite(x, name, func)
    if isinstance(x, control.TransferFunction):
        for i in range(x.noutputs):
            for j in range(x.ninputs):
                num = np.trim_zeros(np.atleast_1d(x.num[i][j]), "f")
                den = np.trim_zeros(np.atleast_1d(x.den[i][j]), "f")
                if not (np.all(np.isfinite(num)) and np.all(np.isfinite(den))):
                    raise ArgumentError(
                        f"{func}: {name} has a non-finite coefficient (entry {i},{j})"
                    )
                if len(num) > len(den):
                    raise DimensionError(f"{func}: {name} is not proper (entry {i},{j})")
        return _finite(control.ss(x), name, func)
    if isinstance(x, control.LTI):
        return _finite(control.ss(x), name, func)
    if isinstance(x, (bool, np.bool_)):
        raise ArgumentError(f"{func}: {name} must be an LTI system or a real gain; got a bool")
    if isinstance(x, (int, float, np.integer, np.floating)):
        return control.ss([], [], [], float(x) * np.eye(1 if size is None else size))
    try:
        M = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(
            f"{func}: {name} must be an LTI system or a real gain matrix; got {type(x).__name__}"
        ) from None
    M = np.atleast_2d(M)
    if M.ndim != 2 or M.size == 0:
        raise DimensionError(f"{func}: {name} must be a nonempty 2-D gain; got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ArgumentError(f"{func}: {name} has a non-finite entry")
    return control.ss([], [], [], M)


def _finite(sys, name, func):
    """``sys`` if its state-space matrices are real and finite, else an ArgumentError
    naming the argument and the matrix."""
    for label in ("A", "B", "C", "D"):
        M = np.asarray(getattr(sys, label))
        if np.iscomplexobj(M) and np.any(np.imag(M) != 0):
            raise ArgumentError(f"{func}: {name} has complex entries in {label}")
        if not np.all(np.isfinite(M)):
            raise ArgumentError(f"{func}: {name} has a non-finite entry in {label}")
    return sys


def _dt(sys):
    # python-control: None for a static gain (any timebase), 0 continuous, True unspecified
    return None if sys.nstates == 0 else sys.dt


def common_sampling_time(func, G, **weights):
    """Check that every weight has the sampling time of ``G`` (static gains fit any).

    Raises
    ------
    ArgumentError
        Naming the first weight whose sampling time differs from ``G``'s.

    Examples
    --------
    >>> import control
    >>> G = control.ss(control.tf([1.0], [1.0, 1.0]))
    >>> common_sampling_time("mixsyn", G, W1=control.ss([], [], [], [[2.0]]))
    """
    dtg = _dt(G)

    def show(dt):
        return "continuous" if dt == 0 else "static" if dt is None else f"dt = {dt}"

    for name, W in weights.items():
        if W is None:
            continue
        dtw = _dt(W)
        try:
            dtg = control.common_timebase(dtg, dtw)
        except ValueError:
            raise ArgumentError(
                f"{func}: {name} is {show(dtw)} but G is {show(_dt(G))}"
                + ("" if dtg == _dt(G) else f" (and an earlier weight {show(dtg)})")
                + ": the weights must have the plant's sampling time"
            ) from None
