"""Uniform access to a plant given as an LTI system, a matrix or a frequency-response stack.

The decoupling tools accept three kinds of plant:

* a python-control system (``StateSpace`` or ``TransferFunction``);
* a frequency-response array, either one ``(p, m)`` matrix or a ``(nw, p, m)`` stack;
* an uncertain system or matrix of :mod:`robustmb.lft` (anything with ``nominal()`` and
  ``uncertainty``).

This module evaluates frequency responses (vectorised over frequency: one batched
solve for every frequency at once) and applies constant input/output matrices to any of
the three kinds, returning the same kind.
"""

from __future__ import annotations

import control
import numpy as np

from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError

__all__ = [
    "is_uncertain",
    "is_lti",
    "frequency_response",
    "evaluate",
    "transform",
    "as_matrix_stack",
]


def is_uncertain(G) -> bool:
    """Return True when ``G`` is an uncertain object of :mod:`robustmb.lft`.

    Uncertain objects are recognised by their interface (``nominal()``, ``usubs()``
    and ``uncertainty``), so that this module does not depend on the classes' names.

    Examples
    --------
    >>> import numpy as np
    >>> is_uncertain(np.eye(2))
    False
    """
    return (
        hasattr(G, "uncertainty")
        and callable(getattr(G, "nominal", None))
        and callable(getattr(G, "usubs", None))
    )


def is_lti(G) -> bool:
    """Return True for python-control LTI systems (state space or transfer function).

    Examples
    --------
    >>> import control
    >>> is_lti(control.tf([1], [1, 1]))
    True
    """
    return isinstance(G, control.StateSpace | control.TransferFunction)


def _check_omega(omega) -> np.ndarray:
    w = np.atleast_1d(np.asarray(omega, dtype=float))
    if w.ndim != 1:
        raise DimensionError(f"omega must be a 1-D array of frequencies, got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        bad = int(np.flatnonzero(~np.isfinite(w))[0])
        raise ArgumentError(f"omega has a non-finite frequency {float(w[bad])!r} at index {bad}")
    return w


def frequency_response(G, omega) -> np.ndarray:
    """Complex frequency response ``G(j*omega)`` as a ``(len(omega), p, m)`` array.

    Parameters
    ----------
    G : control.StateSpace or control.TransferFunction
        Continuous-time LTI system.
    omega : array_like
        Frequencies in rad/s.

    Returns
    -------
    numpy.ndarray
        ``H[k] = G(j*omega[k])``.

    Raises
    ------
    ArgumentError
        A frequency of ``omega`` is a pole of ``G`` (the response is not finite there);
        the message names it and its index.

    Notes
    -----
    For a state-space model the resolvent is computed for all frequencies by one
    batched LU solve, ``C (jwI - A)^{-1} B + D``; there is no Python loop over frequency.

    Examples
    --------
    >>> import control, numpy as np
    >>> G = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])
    >>> H = frequency_response(G, [0.0, 1.0])
    >>> np.allclose(H[:, 0, 0], [1.0, 1 / (1j + 1)])
    True
    """
    w = _check_omega(omega)
    if isinstance(G, control.TransferFunction):
        if not G.isctime():
            raise ArgumentError(
                "frequency_response: G must be a continuous-time system, got a discrete-time "
                f"one (dt = {G.dt})"
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            H = np.asarray(G(1j * w, squeeze=False))  # (p, m, nw)
        return _finite_response(np.moveaxis(H, -1, 0), w)
    if not isinstance(G, control.StateSpace):
        raise UncertainTypeError(
            f"frequency_response expects a python-control StateSpace or TransferFunction, "
            f"got {type(G).__name__}"
        )
    if not G.isctime():
        raise ArgumentError(
            "frequency_response: G must be a continuous-time system, got a discrete-time "
            f"one (dt = {G.dt})"
        )
    A, B, C, D = (np.asarray(X) for X in (G.A, G.B, G.C, G.D))
    n = A.shape[0]
    if n == 0:
        return np.broadcast_to(D.astype(complex), (w.size, *D.shape)).copy()
    # Batched resolvent: (nw, n, n) stack of (jw I - A), one LAPACK call over the stack.
    R = 1j * w[:, None, None] * np.eye(n) - A
    try:
        X = np.linalg.solve(R, np.broadcast_to(B.astype(complex), (w.size, *B.shape)))
    except np.linalg.LinAlgError:
        # j w I - A is exactly singular at some frequency: j w is a pole of G
        bad = [k for k in range(w.size) if np.linalg.matrix_rank(R[k]) < n]
        _raise_at_pole(w, bad)
    return _finite_response(C @ X + D, w)


class PoleFrequencyError(ArgumentError):
    """A frequency of ``omega`` is a pole of the system on the imaginary axis."""


def _raise_at_pole(w, bad):
    raise PoleFrequencyError(
        f"omega: the frequency {float(w[bad[0]])!r} rad/s (index {bad[0]}"
        + (f", and {len(bad) - 1} more" if len(bad) > 1 else "")
        + ") is a pole of G on the imaginary axis, where its response is infinite; "
        "leave it out of omega"
    )


def _finite_response(H, w):
    """``H`` when every entry is finite; an ArgumentError naming the frequency otherwise."""
    ok = np.all(np.isfinite(H), axis=(-2, -1))
    if not np.all(ok):
        _raise_at_pole(w, np.flatnonzero(~ok).tolist())
    return H


def evaluate(G, omega=None) -> np.ndarray:
    """Return the complex matrix stack of a plant: LTI systems are evaluated on ``omega``.

    Parameters
    ----------
    G : LTI system, array_like ``(p, m)`` or ``(nw, p, m)``
        The plant.
    omega : array_like, optional
        Frequencies in rad/s; required for an LTI system, ignored (must be None) for arrays.

    Returns
    -------
    numpy.ndarray
        ``(nw, p, m)`` for a system or a stack, ``(p, m)`` for a single matrix.

    Examples
    --------
    >>> import numpy as np
    >>> evaluate(np.eye(2)).shape
    (2, 2)
    """
    if is_uncertain(G):
        raise UncertainTypeError(
            "an uncertain plant has no single frequency response: evaluate G.nominal(), "
            "samples from G.usample(n), or use worst_case_gershgorin() for a bound over the "
            "whole uncertainty set"
        )
    if is_lti(G):
        if omega is None:
            raise ArgumentError("omega (rad/s) is required to evaluate an LTI system")
        return frequency_response(G, omega)
    if omega is not None:
        raise ArgumentError(
            "omega must not be given with a frequency-response array (it is only used to "
            "evaluate an LTI system)"
        )
    H = np.asarray(G)
    if H.dtype == object:
        raise UncertainTypeError(f"cannot interpret a {type(G).__name__} as a numeric matrix")
    if H.ndim not in (2, 3):
        raise DimensionError(
            f"expected a (p, m) matrix or an (nw, p, m) stack, got an array of shape {H.shape}"
        )
    return H


def as_matrix_stack(H) -> tuple[np.ndarray, bool]:
    """Return ``(stack, was_single)``: a ``(nw, p, m)`` view of a matrix or a stack.

    Examples
    --------
    >>> import numpy as np
    >>> S, single = as_matrix_stack(np.eye(3))
    >>> S.shape, single
    ((1, 3, 3), True)
    """
    H = np.asarray(H)
    if H.ndim == 2:
        return H[None], True
    if H.ndim == 3:
        return H, False
    raise DimensionError(f"expected a (p, m) matrix or an (nw, p, m) stack, got shape {H.shape}")


def _constant_ss_product(T_out, G: control.StateSpace, T_in) -> control.StateSpace:
    A, B, C, D = (np.asarray(X, dtype=float) for X in (G.A, G.B, G.C, G.D))
    Bn = B if T_in is None else B @ T_in
    Cn = C if T_out is None else T_out @ C
    Dn = D
    if T_out is not None:
        Dn = T_out @ Dn
    if T_in is not None:
        Dn = Dn @ T_in
    return control.ss(A, Bn, Cn, Dn)


def transform(G, T_out=None, T_in=None, *, input_names=None, output_names=None):
    """Return ``T_out @ G @ T_in`` for a system, a matrix stack or an uncertain object.

    Parameters
    ----------
    G : LTI system, array_like ``(p, m)`` / ``(nw, p, m)``, or uncertain object
        The plant, with ``p`` outputs and ``m`` inputs.
    T_out : array_like ``(k, p)``, optional
        Constant output matrix (identity when omitted).
    T_in : array_like ``(m, r)``, optional
        Constant input matrix (identity when omitted).
    input_names, output_names : list of str, optional
        Signal names for an LTI result.

    Returns
    -------
    Same kind as ``G``
        A ``control.StateSpace`` for LTI input (same state vector), an array for arrays,
        an uncertain object for uncertain input.

    Raises
    ------
    DimensionError
        When the matrices do not conform with the plant.

    Examples
    --------
    >>> import numpy as np
    >>> transform(np.eye(2), np.array([[1.0, 1.0]]), np.eye(2))
    array([[1., 1.]])
    """
    p, m = _plant_shape(G)
    To = None if T_out is None else _real_or_complex(T_out, "T_out")
    Ti = None if T_in is None else _real_or_complex(T_in, "T_in")
    if To is not None and (To.ndim != 2 or To.shape[1] != p):
        raise DimensionError(
            f"T_out has shape {To.shape} but the plant has {p} outputs (need (k, {p}))"
        )
    if Ti is not None and (Ti.ndim != 2 or Ti.shape[0] != m):
        raise DimensionError(
            f"T_in has shape {Ti.shape} but the plant has {m} inputs (need ({m}, r))"
        )
    if is_uncertain(G):
        out = G
        if Ti is not None:
            out = out @ Ti
        if To is not None:
            out = _left_multiply_uncertain(To, out)
        if input_names is not None:
            out.input_names = list(input_names)
        if output_names is not None:
            out.output_names = list(output_names)
        return out
    if is_lti(G):
        if np.iscomplexobj(To) or np.iscomplexobj(Ti):
            raise UncertainTypeError(
                "T_out, T_in: a real LTI system can only be transformed by real matrices, "
                "got a complex one (decouple its frequency response instead)"
            )
        ss = G if isinstance(G, control.StateSpace) else control.ss(G)
        out = _constant_ss_product(To, ss, Ti)
        k, r = out.noutputs, out.ninputs
        out = control.ss(
            out.A,
            out.B,
            out.C,
            out.D,
            inputs=list(input_names) if input_names is not None else r,
            outputs=list(output_names) if output_names is not None else k,
        )
        return out
    H = evaluate(G)
    if To is not None:
        H = To @ H
    if Ti is not None:
        H = H @ Ti
    return H


def _left_multiply_uncertain(T, G):
    # numpy would try to broadcast an ndarray over an unknown object: ask the object first.
    rmatmul = getattr(G, "__rmatmul__", None)
    if rmatmul is not None:
        res = rmatmul(T)
        if res is not NotImplemented:
            return res
    return T @ G


def numeric_array(X, name, where=""):
    """``X`` as a numpy array; an uncertain object or a non-numeric array is refused with
    an UncertainTypeError naming ``name`` (numpy would raise a bare TypeError)."""
    if is_uncertain(X):
        raise UncertainTypeError(
            f"{where}{name} must be numeric, got an uncertain {type(X).__name__}; "
            "substitute values (usubs) or take its nominal value first"
        )
    try:
        A = np.asarray(X)
    except (TypeError, ValueError):
        A = np.asarray(X, dtype=object)
    if A.dtype == object or not (np.issubdtype(A.dtype, np.number) or A.dtype == bool):
        raise UncertainTypeError(f"{where}{name} must be a numeric matrix, got {X!r}")
    return A


def _real_or_complex(T, name):
    T = numeric_array(T, name)
    if T.dtype == object or not np.issubdtype(T.dtype, np.number):
        raise UncertainTypeError(f"{name} must be a numeric matrix, got dtype {T.dtype}")
    if not np.all(np.isfinite(T)):
        raise ArgumentError(f"{name} contains non-finite entries")
    return T.astype(complex) if np.iscomplexobj(T) else T.astype(float)


def _plant_shape(G) -> tuple[int, int]:
    if is_uncertain(G) or is_lti(G):
        shape = getattr(G, "shape", None)
        if shape is None or len(shape) != 2:
            shape = (G.noutputs, G.ninputs)
        return int(shape[0]), int(shape[1])
    H = evaluate(G)
    return H.shape[-2], H.shape[-1]
