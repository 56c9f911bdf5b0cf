"""H2 norm: the modal sum, a Gramian, and a refined Gramian for stiff models.

``||G||_2^2 = trace(C P C^H)`` with ``A P + P A^H + B B^H = 0`` (continuous, ``D = 0``)
and ``trace(C P C^H + D D^H)`` with ``A P A^H - P + B B^H = 0`` (discrete, no factor of
the sampling time, as in MATLAB's ``norm``).

The modal sum keeps the relative accuracy of each computed pole, but a computed pole
carries an error of about ``eps ||A||``: for a stiff model (a fast pole at ``-1e9``)
with a slow, lightly damped pair (``Re p = -3.4e-5``) that is a relative error of
``1e-3`` in the slow mode's share of the norm.  There, in continuous time, the Gramian
is solved by Bartels-Stewart and then refined: the residual ``A P + P A^T + B B^T`` is
formed in about twice the working precision (the double-double products of
:mod:`~robustmb.analysis.refined_response`) and a correction solved from it, until the
correction is at rounding level (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed., ch. 12: each step divides the error by about ``eps`` times the
condition number of the Lyapunov operator, while that product is below 1).

Repeated poles are the other trap: the eigenvectors of a defective (or nearly
defective) pole are nearly parallel, the modal sum's error grows like
``eps ||V|| ||V^-1||^2`` (6e-6 relative for ``1/(s + 3e-5)^2``), and the computed poles
scatter by about ``eps^(1/m) ||A||``.  Such models go to the (refined) Gramian too.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

from robustmb.analysis._h2_exact import EXACT_H2_MAX_ORDER, exact_h2_squared
from robustmb.analysis._norm_common import (
    _EPS,
    _H2_MODAL_ACCURACY,
    _h2_modal_accurate,
    _unit_scaled,
    _unscaled,
)
from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.balancing import balance_realization, pole_bands
from robustmb.analysis.batched_norms import h2norm_batch
from robustmb.analysis.exact_stability import exact_stable
from robustmb.analysis.model_stack import _model_tuple, is_model_stack
from robustmb.analysis.norms_stability import (
    _beyond_widest_band,
    _resonance_sensitive,
    _similar_forms,
    _warn_not_proved,
    verified_stable_any,
)
from robustmb.analysis.refined_response import _Accumulator, _dot2, _two_sum
from robustmb.errors import warn

__all__ = ["h2norm"]

# Refinement steps at most: each divides the error by about 1 / (eps cond(L)), which is
# only ~1e3 for a defective lightly damped cluster (three identical oscillators in
# series, damping 1e-5, need ten); a non-contracting step ends the loop earlier.
_LYAPUNOV_STEPS = 30
# A plain Gramian whose estimated relative error exceeds this gets a RuntimeWarning (the
# estimate is pessimistic for non-normal A: random models at 1e-10 were accurate to 1e-13).
_H2_WARN_ACCURACY = 1e-8


def h2norm(sys) -> float:
    """H2 norm of an LTI model.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like or tuple
        Fixed LTI model, continuous or discrete time.  A family of same-size models (a
        list, or a tuple of 3-D arrays as in :func:`hinfnorm`) gives an array of norms,
        computed in one batch (:func:`~robustmb.analysis.model_family.h2norm_stack`).

    Returns
    -------
    float
        ``sqrt(trace(C P C^H))`` from the controllability Gramian ``P``; in discrete
        time ``D D^H`` is added inside the trace and no sampling-time factor is applied.
        ``inf`` when a continuous-time model has ``D != 0``, or for an eigenvalue of
        ``A`` on or beyond the stability boundary; poles within their rounding error
        of the boundary are decided as in :func:`~robustmb.analysis.hinfnorm` (a
        verified inclusion, then, up to 24 states, an exact integer test of the stored
        ``A``), and a model that neither decides gives ``inf`` with a
        ``RuntimeWarning`` that stability could not be proved.  A model proved stable
        that way whose norm is not computed to accuracy also gives ``inf`` with a
        ``RuntimeWarning`` (see Notes).

    Raises
    ------
    UncertainTypeError
        For uncertain objects (pass ``X.nominal()``).

    Warns
    -----
    RuntimeWarning
        When refinement could not bring the Gramian to rounding level, the better of
        the plain Gramian and the modal sum has an estimated relative error above
        ``1e-8`` and the model is too large for the exact Gramian (see Notes); the
        message gives the estimate.  Also with ``inf`` when
        stability could be neither proved nor disproved (see Returns), and with a
        value set by the rounding of a pole within ``16 eps ||A||_1`` of the boundary.

    Notes
    -----
    The modal sum is used when its relative error, about ``eps ||V|| ||V^-1||^2``
    (unit eigenvectors ``V``), is below ``1e-10`` and no pole lies closer to the
    boundary than ``1e10`` times its rounding (``eps ||A|| kappa``, about
    ``eps^(1/m) ||A||`` for ``m`` coalescing poles: repeated, defective poles such as
    identical modes in series).  Otherwise a continuous-time Gramian is solved and
    refined in double-double until the correction is at rounding level; if that fails
    (and in discrete time) a plain Bartels-Stewart Gramian is used, or the modal sum
    when its error estimate is the smaller one (the Gramian's:
    ``eps ||A|| ||P|| / ||B B^H||``).  When even that estimate exceeds ``1e-8``
    (identical lightly damped modes in series), a real model of up to 8 states gets
    the Gramian of its stored matrices in exact rational arithmetic
    (:func:`~robustmb.analysis._h2_exact.exact_h2_squared`); larger ones get the
    better estimate with a warning.  A model whose stability needed the verified
    inclusion or the exact test (a pole within rounding of the boundary) does not trust
    those estimates alone: the relative error is also taken to be at least
    ``eps ||L|| / (2 min |Re lambda|)`` (discrete: ``/ (1 - max |lambda|^2)``) over the
    computed poles, a bound of the Lyapunov operator ``L``'s conditioning; above
    ``1e-8`` such a model gets the exact Gramian (up to 8 real states) or, when that is
    not available, ``inf`` with a warning that the norm was not computed to accuracy.
    A finite value for a pole closer to the boundary than ``16 eps ||A||_1`` (a
    rounding-level change of ``A`` can make the model marginal) comes with a
    ``RuntimeWarning`` that the norm is set by the rounding of the realisation: it is
    the norm of the stored matrices, and differently rounded realisations of the same
    model give very different values, or ``inf``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> bool(np.isclose(h2norm(control.tf([1.0], [1.0, 1.0])), np.sqrt(0.5)))
    True
    >>> h2norm(control.tf([1.0, 0.0], [1.0, 1.0]))      # D = 1
    inf
    """
    if is_model_stack(sys):
        return _h2norm_family(sys)
    A, B, C, D, dt = as_statespace_data(sys)
    raw = A
    A, B, C = balance_realization(A, B, C)
    n = A.shape[0]
    discrete = dt > 0
    if not discrete and np.any(D != 0):
        return np.inf
    B, C, D, e = _unit_scaled(B, C, D)
    value = _h2_scaled(A, B, C, D, n, discrete, dt, raw)
    return value if not np.isfinite(value) else _unscaled(value, e, "H2 norm")


def _h2norm_family(models, argname="sys"):
    """``h2norm`` of every model of a family, as ``norms._hinfnorm_family``."""
    values = h2norm_batch(models, argname=argname)
    for k in np.flatnonzero(np.isnan(values)):
        values[k] = h2norm(_model_tuple(models, k))
    return values


def _h2_scaled(A, B, C, D, n, discrete, dt, raw=None):
    value, stiff = _h2_value(A, B, C, D, n, discrete, dt, raw)
    if stiff and np.isfinite(value) and _within_rounding_of_boundary(A, discrete):
        warn(
            "h2norm: a pole lies within rounding distance of the stability boundary "
            "(closer than eps ||A||, so stability rests on an exact or verified test of "
            "the stored matrices) and the norm is set by the rounding of the realisation: "
            "realisations of the same model that differ by rounding can give very "
            "different values, or inf",
            RuntimeWarning,
        )
    return value


def _within_rounding_of_boundary(A, discrete):
    """Whether a computed pole is closer to the boundary than ``16 eps ||A||_1``: a
    perturbation of ``A`` of that size (``-Re(lambda) I``, say) can put it on the boundary,
    whatever the conditioning of the eigenvalues."""
    poles = np.linalg.eigvals(A)
    distance = np.abs(1.0 - np.abs(poles)) if discrete else np.abs(poles.real)
    return bool(np.min(distance) <= 16.0 * np.finfo(float).eps * np.linalg.norm(A, 1))


def _h2_value(A, B, C, D, n, discrete, dt, raw=None):
    """``(value, stiff)``: the norm and whether a pole lies within its rounding band of
    the boundary (stability then rested on the verified inclusion or the exact test)."""
    feedthrough = float(np.sum(np.abs(D) ** 2)) if discrete else 0.0
    if n == 0:
        return float(np.sqrt(feedthrough)), False
    # one eigen-decomposition of the (already balanced) A serves the stability test and
    # the modal sum; the per-pole bands (left vectors too) only for poles near the boundary
    poles, vr = np.linalg.eig(A)
    # stiff: a pole within its rounding band of the boundary, so that stability needed
    # the verified inclusion or the exact test; there the Gramian's own error estimate
    # is computed from a solution that may be garbage and is not trusted
    stiff = False
    if not _beyond_widest_band(poles, A, dt):
        _, distance, band = pole_bands(A, dt, balanced=True)
        if not np.all(distance < -band):
            stiff = True
            if np.any(distance > band):
                return np.inf, stiff
            if not verified_stable_any(_similar_forms(A, raw), dt):
                # the exact test of the stored matrix, as in hinfnorm's verdict
                exact = exact_stable(A if raw is None else raw, dt)
                if exact is None:
                    _warn_not_proved("h2norm", n)
                if not exact:
                    return np.inf, stiff
    # the poles' rounding (eps ||A||, or about eps^(1/m) ||A|| for m coalescing poles)
    # against their distance to the boundary: the modal sum's relative error
    sensitive = _resonance_sensitive(A, dt if discrete else 0.0, _H2_MODAL_ACCURACY, poles=poles)
    eig = (poles.astype(complex), None, vr)
    if not sensitive:
        modal = _h2_modal(A, B, C, discrete, eig=eig)
        if modal is not None:
            return float(np.sqrt(max(modal, 0.0) + feedthrough)), stiff
    # a sensitive model, or eigenvectors too ill-conditioned for the modal sum (a
    # defective pole, even one computed exactly as in a triangular Jordan block)
    if not discrete:
        refined = _h2_refined(A, B, C)
        if refined is not None:
            return float(np.sqrt(max(refined, 0.0))), stiff
    value, error = _h2_gramian(A, B, C, discrete)
    if error > _H2_MODAL_ACCURACY:
        # the modal sum keeps each computed pole's relative accuracy (stiff models): the
        # smaller of the two error estimates decides
        modal = _h2_modal(A, B, C, discrete, eig=eig, accuracy=error)
        if modal is not None:
            value, error = modal, _h2_modal_error(A, eig)
    if stiff:
        # neither estimate sees the Lyapunov operator's conditioning when a pole sits
        # within rounding of the boundary: bound it from the computed poles
        error = max(error, _lyapunov_conditioning_error(A, poles, discrete))
    if error > _H2_WARN_ACCURACY and n <= EXACT_H2_MAX_ORDER and not _complex(A, B, C):
        # a few states: the Gramian of the stored matrices in exact arithmetic
        exact = exact_h2_squared(A, B, C, discrete)
        if exact is not None:
            return float(np.sqrt(max(float(exact), 0.0) + feedthrough)), stiff
    if error > _H2_WARN_ACCURACY and stiff:
        bound = (
            f"reach {error:.0e}"
            if np.isfinite(error)
            else "be unbounded (a computed pole is on it)"
        )
        warn(
            "h2norm: not computed to accuracy: a pole lies within rounding of the "
            "stability boundary, the Lyapunov equation's relative error may "
            f"{bound} and the exact Gramian is limited to {EXACT_H2_MAX_ORDER} real "
            "states; returning inf",
            RuntimeWarning,
        )
        return np.inf, stiff
    if error > _H2_WARN_ACCURACY:
        warn(
            "h2norm: neither the modal sum nor a Gramian refined to rounding level is "
            "available (a lightly damped, stiff or repeated pole); the value may be off by "
            f"about {error:.0e} relative (estimate)",
            RuntimeWarning,
        )
    return float(np.sqrt(max(value, 0.0) + feedthrough)), stiff


def _complex(*matrices):
    return any(np.iscomplexobj(M) for M in matrices)


def _h2_gramian(A, B, C, discrete):
    """``(||G||_2^2 - ||D||^2, error)`` from a Bartels-Stewart Gramian on the side with
    fewer channels (same value, smaller product); ``error`` estimates its relative error,
    ``eps ||A|| ||P|| / ||Q||`` (continuous; ``eps (1 + ||A||^2) ||P|| / ||Q||`` discrete),
    the backward error of the solve times the size of the inverse operator it reveals."""
    if B.shape[1] <= C.shape[0]:
        M, Q, H = A, B @ B.conj().T, C
    else:
        M, Q, H = A.conj().T, C.conj().T @ C, B.conj().T
    with warnings.catch_warnings():
        # scipy's note that it perturbed a nearly singular equation: the error estimate
        # below covers it
        warnings.simplefilter("ignore", RuntimeWarning)
        gram = _gramian(M, Q, discrete)
    value = float(np.trace(H @ gram @ H.conj().T).real)
    size = float(np.linalg.norm(M, 2)) if M.size else 0.0
    factor = 1.0 + size * size if discrete else 2.0 * size
    q = float(np.linalg.norm(Q))
    error = _EPS * factor * float(np.linalg.norm(gram)) / q if q > 0 else 0.0
    return value, error


def _lyapunov_conditioning_error(A, poles, discrete):
    """Relative error to expect from any double-precision Lyapunov solve of ``A``:
    ``eps`` times the operator's size over its smallest singular value, which is at most
    ``2 min |Re lambda|`` (continuous; ``1 - max |lambda|^2`` discrete) for the computed
    poles (equal for normal ``A``); ``inf`` when a computed pole is on or beyond the
    boundary."""
    size = float(np.linalg.norm(A, 2)) if A.size else 0.0
    if discrete:
        gap = 1.0 - float(np.max(np.abs(poles))) ** 2
        factor = 1.0 + size * size
    else:
        gap = -2.0 * float(np.max(poles.real))
        factor = 2.0 * size
    return _EPS * factor / gap if gap > 0 else np.inf


def _h2_modal_error(A, eig):
    """The modal sum's estimated relative error ``eps ||V|| ||V^-1||^2``."""
    try:
        V_inv = np.linalg.inv(eig[2])
    except np.linalg.LinAlgError:
        return np.inf
    return float(_EPS * np.sqrt(A.shape[0]) * np.linalg.norm(V_inv) ** 2)


def _h2_modal(A, B, C, discrete, eig=None, accuracy=_H2_MODAL_ACCURACY):
    """``||G||_2^2 - ||D||^2`` from the modal form, or None if ``A``'s eigenvectors are
    too ill-conditioned for it: an estimated relative error ``eps ||V|| ||V^-1||^2``
    above ``accuracy`` (:func:`._norm_common._h2_modal_accurate`).

    With ``A = V diag(l) V^-1``, ``W = V^-1 B`` and ``U = C V`` the Gramian is
    ``V X V^H`` with ``X_ij = -(W W^H)_ij / (l_i + conj(l_j))`` (discrete:
    ``(W W^H)_ij / (1 - l_i conj(l_j))``), so the norm is a sum over pole pairs.  Unlike a
    Bartels-Stewart solve, it keeps the relative accuracy of every pole: a stiff model
    whose slow poles are 1e-9 ||A|| from the axis still gets its slow modes right.
    ``eig = (lam, vl, vr)``: eigenvalues and unit eigenvectors of ``A`` when known (the
    left ones are not used: with repeated eigenvalues they need not be biorthogonal to
    the right ones, so ``V^-1`` is an inverse).
    """
    lam, V = np.linalg.eig(A) if eig is None else (eig[0], eig[2])
    try:
        V_inv = np.linalg.inv(V)
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(V_inv).all() or not _h2_modal_accurate(
        np.linalg.norm(V_inv), A.shape[0], accuracy
    ):
        return None
    W = V_inv @ B
    U = C @ V
    if discrete:
        denom = 1.0 - lam[:, None] * lam.conj()[None, :]
        X = (W @ W.conj().T) / denom
    else:
        denom = lam[:, None] + lam.conj()[None, :]
        X = -(W @ W.conj().T) / denom
    return float(np.real(np.sum(X * (U.conj().T @ U).T)))


def _gramian(A: np.ndarray, Q: np.ndarray, discrete: bool) -> np.ndarray:
    """Solution P of A P + P A^H + Q = 0, or of A P A^H - P + Q = 0 (discrete)."""
    if discrete:
        P = scipy.linalg.solve_discrete_lyapunov(A, Q)
    else:
        P = scipy.linalg.solve_continuous_lyapunov(A, -Q)
    return 0.5 * (P + P.conj().T)


def _h2_refined(A, B, C):
    """``||G||_2^2`` (continuous, ``D = 0``) from a refined Gramian, or None when the
    refinement does not reach rounding level (then the caller's routes decide).

    The Gramian on the side with fewer channels: ``A P + P A^T + B B^T = 0`` and
    ``trace(C P C^T)``, or the observability one with ``A^T``, ``C^T``.
    """
    if np.iscomplexobj(A) or np.iscomplexobj(B) or np.iscomplexobj(C):
        return None
    if B.shape[1] <= C.shape[0]:
        M, F, H = A, B, C
    else:
        M, F, H = A.T, C.T, B.T
    gram = refined_gramian(M, F)
    if gram is None:
        return None
    P_hi, P_lo = gram
    # trace(H P H^T) with H P formed in double-double, then each diagonal entry too
    HP, HP_err = _dot2(H, P_hi[None])
    HP_err = HP_err[0] + H @ P_lo
    diagonal, diagonal_err = _dot2(HP[0], H.T[None])
    total = np.trace(diagonal[0]) + (np.trace(diagonal_err[0]) + np.sum(HP_err * H))
    return float(total)


def refined_gramian(A, B):
    """Controllability Gramian ``P`` of a stable real ``(A, B)``, refined to rounding level.

    Solves ``A P + P A^T + B B^T = 0`` by Bartels-Stewart, then repeats: residual in
    about twice the working precision, correction from the same equation, ``P`` kept as
    an unevaluated sum ``P_hi + P_lo``.

    Parameters
    ----------
    A : numpy.ndarray
        Real ``(n, n)`` matrix with all eigenvalues in the open left half-plane.
    B : numpy.ndarray
        Real ``(n, m)`` matrix.

    Returns
    -------
    tuple of numpy.ndarray or None
        ``(P_hi, P_lo)``, both symmetric; None when the last correction is still above
        ``1e3 eps`` relative to ``P`` (the Lyapunov operator is too ill-conditioned for
        refinement in double-double) or the solve fails.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.diag([-1e9, -1e-3])
    >>> B = np.array([[1e4], [1.0]])
    >>> P_hi, P_lo = refined_gramian(A, B)
    >>> exact = np.array([[1e8 / 2e9, 1e4 / (1e9 + 1e-3)], [1e4 / (1e9 + 1e-3), 1 / 2e-3]])
    >>> bool(np.allclose(P_hi + P_lo, exact, rtol=1e-15, atol=0))
    True
    """
    BB, BB_err = _dot2(B, B.T[None])  # B B^T to about twice the working precision
    Q = BB[0] + BB_err[0]
    try:
        P_hi = _lyapunov(A, Q)
    except (np.linalg.LinAlgError, ValueError):
        return None
    P_hi = 0.5 * (P_hi + P_hi.T)
    P_lo = np.zeros_like(P_hi)
    previous = np.inf
    for _ in range(_LYAPUNOV_STEPS):
        if not np.all(np.isfinite(P_hi)):
            return None
        residual = _lyapunov_residual(A, BB, BB_err, P_hi, P_lo)
        try:
            E = _lyapunov(A, residual)
        except (np.linalg.LinAlgError, ValueError):
            return None
        E = 0.5 * (E + E.T)
        size = np.linalg.norm(P_hi)
        P_hi, P_lo = _two_sum(P_hi, P_lo + E)
        correction = np.linalg.norm(E)
        if size > 0 and correction <= 4 * _EPS * size:
            return P_hi, P_lo
        if correction >= previous:
            break  # not contracting: eps cond(L) is not below 1
        previous = correction
    if np.linalg.norm(E) <= 1e3 * _EPS * np.linalg.norm(P_hi):
        return P_hi, P_lo
    return None


def _lyapunov(A, Q):
    """``P`` with ``A P + P A^T + Q = 0``; scipy's warning that it perturbed a nearly
    singular equation is silenced: the refinement around it verifies the result (the
    correction must reach rounding level) or gives up."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return scipy.linalg.solve_continuous_lyapunov(A, -Q)


def _lyapunov_residual(A, BB, BB_err, P_hi, P_lo):
    """``A P + P A^T + B B^T`` for ``P = P_hi + P_lo`` (symmetric), to about twice the
    working precision: ``P A^T = (A P)^T`` for symmetric ``P``; ``BB + BB_err`` is
    ``B B^T`` from :func:`_dot2`."""
    n = A.shape[0]
    acc = _Accumulator((n, n))
    AP, AP_err = _dot2(A, P_hi[None])
    acc.add(AP[0])
    acc.add(AP[0].T)
    acc.add(BB[0])
    low = A @ P_lo
    acc.add_small(AP_err[0] + AP_err[0].T + BB_err[0] + low + low.T)
    return acc.value()
