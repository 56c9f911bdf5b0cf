"""Constants and exact power-of-2 scalings shared by the single-model and batched norms.

:mod:`~robustmb.analysis.norms` and :mod:`~robustmb.analysis.batched_norms` run the same
level-set iteration and the same scaling ``G = 2^e G'`` (``B', C', D'`` of unit size, so
that the squares inside the algorithms neither overflow nor underflow); both import the
thresholds and the scaling from here so that they cannot drift apart.  This module sits
below both and imports neither.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from robustmb.analysis.balancing import _BOUNDARY_FACTOR  # noqa: F401  (re-exported)
from robustmb.errors import ArgumentError, FloatRangeError

_EPS = np.finfo(float).eps
# Eigenvalues within _AXIS_RTOL * |lambda| + _AXIS_SQRT_FACTOR * sqrt(eps) * ||H|| of the
# imaginary axis (or the unit circle) are candidate level crossings.  Generous on purpose: a
# false candidate only costs an evaluation of sigma_max, while a missed crossing would
# under-estimate the norm.  The sqrt(eps) term covers the pair of nearly double eigenvalues
# that appears when gamma is just below a peak: rounding moves them off the axis by about
# sqrt(eps) * ||H||, not eps * ||H||.
_AXIS_RTOL = 1e-4
_AXIS_SQRT_FACTOR = 10.0
# Use the Hamiltonian matrix while 1 / (1 - sigma_max(D)^2 / gamma^2) stays below this.
_HAMILTONIAN_AMPLIFICATION_LIMIT = 100.0
_MAX_ITERATIONS = 100
# The modal H2 sum is used while its estimated relative error is below
# _H2_MODAL_ACCURACY (below): see _h2_modal_accurate.
# Continuous-time modal H2 sums whose estimated relative error eps ||A|| / min |Re p|
# exceeds this go to the refined Gramian of the single-model routine.
_H2_MODAL_ACCURACY = 1e-10


def _h2_modal_accurate(condition, n, accuracy=None):
    """Whether a modal H2 sum with ``||V^-1||_F = condition`` (unit eigenvectors, ``n``
    states) keeps a relative error below ``accuracy`` (``_H2_MODAL_ACCURACY`` by
    default).

    The sum is formed from ``V^-1 B`` twice and ``C V``: its rounding error is about
    ``eps ||V|| ||V^-1||^2`` relative, with ``||V||_F = sqrt(n)``; a nearly defective
    pole makes ``||V^-1||`` about ``eps^(-(m-1)/m)`` and the sum useless.
    """
    limit = _H2_MODAL_ACCURACY if accuracy is None else accuracy
    return _EPS * np.sqrt(max(n, 1)) * np.square(condition) <= limit


def _check_tol(tol) -> float:
    """``tol`` as a float, or :class:`~robustmb.errors.ArgumentError` unless in ``(0, 1)``."""
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not 0.0 < tol < 1.0:
        raise ArgumentError(f"tol must be a number in (0, 1); got {tol!r}")
    return float(tol)


def _pow2(X, k):
    """``X * 2^k`` exactly, per model of a stack (``k`` one exponent per leading index);
    in two steps, so that ``2^k`` itself stays representable."""
    k = np.asarray(k)
    h = k // 2
    shape = (-1,) + (1,) * (np.ndim(X) - 1)
    return X * (2.0**h).reshape(shape) * (2.0 ** (k - h)).reshape(shape)


def _exponents(X):
    """``e`` with ``||X[k]||_F`` in ``[2^(e-1), 2^e)`` per model (0 for a zero or empty
    model).  The largest entry is scaled to 1 first: the norm of huge or tiny entries
    would itself over- or underflow."""
    flat = np.abs(X.reshape(X.shape[0], -1))
    top = flat.max(axis=1) if flat.shape[1] else np.zeros(X.shape[0])
    e0 = np.frexp(top)[1]
    e = e0 + np.frexp(np.linalg.norm(_pow2(flat, -e0), axis=1))[1]
    return np.where(top == 0.0, 0, e)


def _unit_scaled_stack(B, C, D):
    """``(B', C', D', e)`` with ``G_k = 2^e_k G'_k`` and ``B', C', D'`` of size about 1,
    for a stack of models; powers of 2 make the scaling exact."""
    eb, ec, ed = _exponents(B), _exponents(C), _exponents(D)
    dynamic = np.any(B != 0, axis=(1, 2)) & np.any(C != 0, axis=(1, 2))
    has_d = np.any(D != 0, axis=(1, 2))
    e_dyn = eb + ec
    e = np.where(dynamic, np.where(has_d, np.maximum(e_dyn, ed), e_dyn), np.where(has_d, ed, 0))
    Bs = np.where(dynamic[:, None, None], _pow2(B, -eb), B)
    Cs = np.where(dynamic[:, None, None], _pow2(C, -ec + (e_dyn - e)), C)
    return Bs, Cs, _pow2(D, -e), e


def _unit_scaled(B, C, D):
    """:func:`_unit_scaled_stack` for one model: ``(B', C', D', e)``, ``G = 2^e G'``.

    Norms of models with gains like 1e200 or 1e-200 would otherwise overflow or underflow
    in the squares inside the algorithms.  The same steps as the stack version, on
    scalars (a few microseconds instead of tens on small models).
    """
    eb, ec, ed = _exponent(B), _exponent(C), _exponent(D)
    dynamic = bool(B.any() and C.any())
    has_d = bool(D.any())
    e_dyn = eb + ec
    if dynamic:
        e = max(e_dyn, ed) if has_d else e_dyn
        B, C = _pow2_one(B, -eb), _pow2_one(C, -ec + (e_dyn - e))
    else:
        e = ed if has_d else 0
    return B, C, _pow2_one(D, -e), int(e)


def _pow2_one(X, k):
    """:func:`_pow2` for one matrix and one exponent."""
    h = k // 2
    return X * np.float64(2.0) ** h * np.float64(2.0) ** (k - h)


def _exponent(X):
    """:func:`_exponents` of one matrix."""
    if X.size == 0:
        return 0
    a = np.abs(X).ravel()
    top = float(a.max())
    if top == 0.0:
        return 0
    e0 = math.frexp(top)[1]
    # sqrt(a.a) of the scaled magnitudes: what np.linalg.norm computes for a real vector
    v = _pow2_one(a, -e0)
    return e0 + math.frexp(math.sqrt(float(v @ v)))[1]


def _unscaled(value, e, what):
    """``value * 2^e``; a result beyond the float range is an error, not ``inf``."""
    if value == 0.0 or not np.isfinite(value):
        return float(value)
    try:
        return math.ldexp(float(value), int(e))
    except OverflowError:
        decimal = (math.log2(value) + e) * math.log10(2.0)
        raise FloatRangeError(
            f"the {what} of sys is about 1e{decimal:.0f}, beyond the range of double "
            "precision floats (about 1.8e308); rescale the model's inputs or outputs"
        ) from None


def _unscaled_upper(value, e):
    """``value * 2^e`` for an upper bound: ``inf`` beyond the float range (still a bound)."""
    if value == 0.0 or not np.isfinite(value):
        return float(value)
    try:
        return math.ldexp(float(value), int(e))
    except OverflowError:
        return np.inf
