"""Norms, frequency responses and mu peaks of a family of same-size models, together.

A gridded or Monte-Carlo family is one stack ``A (N, n, n), B (N, n, m), C (N, p, n),
D (N, p, m)`` (:mod:`~robustmb.analysis.model_stack`) and every step is a batched numpy
operation over the models (:mod:`~robustmb.analysis.batched_norms` for the norms, the
modal form ``G(s) = (C V) diag(1 / (s - lambda)) (V^-1 B) + D`` for the responses, with
the points where that sum cancels solved by LU as in
:func:`~robustmb.analysis.freqresp.freqresp`).

Models the batched path does not cover (discrete or complex families, ill-conditioned
eigenvectors, ``gamma`` near ``sigma_max(D)``, a response zero at every start point) are
handed to the single-model routines, so each result is the one the single-model call
certifies: H-infinity within the same relative ``tol``, H2 to rounding.
"""

from __future__ import annotations

import numbers

import numpy as np

from robustmb.analysis._norm_common import _check_tol
from robustmb.analysis._separation import SEPARATION_GAP
from robustmb.analysis.batched_norms import (  # noqa: F401  (_balanced: used by tests)
    _MODAL_CONDITION_LIMIT,
    _balanced,
    _modal,
)
from robustmb.analysis.freqresp import (
    _ACCURACY_TOLERANCE,
    _BANDED_MIN_STATES,
    _BLOCK_ELEMENTS,
    _EPS,
    _ROUNDING_FACTOR,
    _cancelling,
    _direct_response,
    _sparse_for_lu,
    _warn_on_pole,
    freqresp,
)
from robustmb.analysis.freqresp import _balanced as _freqresp_balanced
from robustmb.analysis.model_stack import _models, as_statespace_stack, is_model_stack
from robustmb.analysis.refined_response import refined_response
from robustmb.errors import ArgumentError, DimensionError, IllPosedError

__all__ = [
    "as_statespace_stack",
    "freqresp_stack",
    "h2norm_stack",
    "hinfnorm_stack",
    "is_model_stack",
    "mu_peak_stack",
]


def h2norm_stack(models):
    """H2 norms of a family of same-size models (what ``h2norm`` returns for a list).

    Parameters
    ----------
    models : list of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
        See :func:`as_statespace_stack`.

    Returns
    -------
    numpy.ndarray
        ``h2norm`` of every model, shape ``(N,)``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> values = h2norm_stack([control.tf([1.0], [1.0, a]) for a in (1.0, 2.0)])
    >>> bool(np.allclose(values, np.sqrt([0.5, 0.25])))
    True
    """
    from robustmb.analysis._h2norm import _h2norm_family

    return _h2norm_family(models, argname="models")


def freqresp_stack(models, omega):
    """Frequency responses of a family of same-size models at common frequencies.

    Parameters
    ----------
    models : list of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
    omega : array_like of float
        Frequencies in rad/s (1-D).

    Returns
    -------
    numpy.ndarray
        Complex array ``(N, len(omega), p, m)``: entry ``k`` is ``freqresp(models[k],
        omega)`` to rounding, with the same accuracy and the same ``inf`` entries and
        ``RuntimeWarning`` at a frequency on a pole of a member.

    Raises
    ------
    DimensionError
        For an empty family or members of different sizes (see
        :func:`as_statespace_stack`) and for bad frequencies (see
        :func:`~robustmb.analysis.freqresp.freqresp`).

    Notes
    -----
    Continuous members with well-conditioned eigenvectors are evaluated together by their
    modal sums, with the point-by-point rounding estimate of ``freqresp``; the (member,
    frequency) pairs where the sum cancels beyond ``1e-12`` of the response are solved
    again by LU in the balanced coordinates of ``freqresp``, all in one batched call.  The
    other members go to ``freqresp`` one by one.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> H = freqresp_stack([control.tf([1.0], [1.0, a]) for a in (1.0, 2.0)], [0.0, 1.0])
    >>> H.shape
    (2, 2, 1, 1)
    >>> bool(np.allclose(H[1, :, 0, 0], 1 / (2 + np.array([0, 1j]))))
    True
    """
    from robustmb.analysis.freqresp import _validated_frequencies

    A, B, C, D, dt = as_statespace_stack(models)
    omega = _validated_frequencies(omega, dt=dt, what="freqresp_stack")
    N, n = A.shape[0], A.shape[1]
    if dt > 0 or n == 0:
        return np.array([freqresp(model, omega) for model in _models(A, B, C, D, dt)])
    out = np.empty((N, omega.size) + D.shape[1:], dtype=complex)
    out[:] = D[:, None]
    finite = np.flatnonzero(np.isfinite(omega))  # G(+-j inf) = D
    if finite.size == 0 or D.shape[1] == 0 or D.shape[2] == 0:
        return out
    lam, V, V_inv, condition = _modal(A)
    modal = condition <= _MODAL_CONDITION_LIMIT
    if n >= _BANDED_MIN_STATES:
        # sparse members are solved in band form by freqresp
        modal &= ~np.array([_sparse_for_lu(A[k], B[k], C[k])[0] for k in range(N)])
    members = np.flatnonzero(modal)
    # blocks of members: about _BLOCK_ELEMENTS complex numbers per array
    width = max(n, D.shape[1] * D.shape[2])
    block = max(1, _BLOCK_ELEMENTS // (finite.size * width))
    hit = np.zeros((N, omega.size), dtype=bool)
    for start in range(0, members.size, block):
        k = members[start : start + block]
        values, hit_k = _modal_stack(
            A[k], B[k], C[k], D[k], lam[k], V[k], V_inv[k], condition[k], 1j * omega[finite]
        )
        out[k[:, None], finite[None, :]] = values
        hit[k[:, None], finite[None, :]] = hit_k
    if np.any(hit):
        out[hit] = np.inf
        named = np.flatnonzero(np.any(hit, axis=1))
        names = ", ".join(str(k) for k in named[:5]) + (", ..." if named.size > 5 else "")
        plural = "s" if named.size > 1 else ""
        _warn_on_pole(omega[np.nonzero(hit)[1]], model=f"member{plural} {names} of the family")
    for j in np.flatnonzero(~modal):
        out[j] = freqresp((A[j], B[j], C[j], D[j]), omega)
    return out


def _modal_stack(A, B, C, D, lam, V, V_inv, condition, points):
    """Responses ``(N, K, p, m)`` of members by their modal sums, the cancelling (member,
    point) pairs solved by LU; and the ``(N, K)`` mask of points on a pole.

    The rounding estimate is :class:`~robustmb.analysis.freqresp.ResponseEvaluator`'s:
    ``10 eps (sum_i |r_i| / |s - lambda_i| + |D|)`` (largest entry), plus the eigenvalue
    term ``eps ||A||_1 ||V^-1||_F sum_i |r_i| / |s - lambda_i|^2`` for members whose
    eigenvalue moduli have a gap of ``SEPARATION_GAP`` or whose ``A`` is at least half
    zeros; a pair is solved again where it exceeds ``1e-12`` times the largest entry.
    """
    N, n = lam.shape
    p, m = D.shape[1:]
    K = points.size
    gap = points[None, :, None] - lam[:, None, :]  # (N, K, n)
    distance = np.abs(gap)
    # on a pole: the test of freqresp._on_pole
    on_pole = distance <= 4 * _EPS * np.maximum(
        np.abs(points)[None, :, None], np.abs(lam)[:, None, :]
    )
    hit = np.any(on_pole, axis=2)
    if np.any(hit):
        gap[on_pole] = distance[on_pole] = 1.0
    inverse = 1.0 / gap
    magnitude = 1.0 / distance
    CV = C @ V
    WB = V_inv @ B
    # residue of pole i of member k, flattened: outer(C v_i, w_i^T B)
    residues = (CV.transpose(0, 2, 1)[:, :, :, None] * WB[:, :, None, :]).reshape(N, n, p * m)
    values = inverse @ residues + D.reshape(N, 1, p * m)
    abs_residues = np.abs(residues)
    error = _ROUNDING_FACTOR * _EPS * (magnitude @ abs_residues + np.abs(D).reshape(N, 1, p * m))
    moduli = np.sort(np.abs(lam), axis=1)
    # as freqresp: below a modulus gap, and for a sparse A (members of fewer than
    # _BANDED_MIN_STATES states here, the others are not in the batch: at least half of
    # the entries of A zero)
    sparse = (2 * np.count_nonzero(A, axis=(1, 2)) <= n * n) & (n < _BANDED_MIN_STATES)
    gapped = np.any(moduli[:, 1:] >= SEPARATION_GAP * moduli[:, :-1], axis=1)
    checked = np.flatnonzero(gapped | sparse)
    if checked.size:
        norm_A = np.linalg.norm(A[checked], 1, axis=(1, 2))
        factor = _EPS * np.maximum(condition[checked], 1.0) * norm_A
        error[checked] += factor[:, None, None] * (magnitude[checked] ** 2 @ abs_residues[checked])
    scale = np.max(np.abs(values), axis=2)
    inaccurate = (np.max(error, axis=2) > _ACCURACY_TOLERANCE * scale) & ~hit
    values = values.reshape(N, K, p, m)
    rows, cols = np.nonzero(inaccurate)
    if rows.size:
        # LU in the balanced coordinates that freqresp solves in (see _direct_response)
        members, where = np.unique(rows, return_inverse=True)
        balanced = [_freqresp_balanced(A[k], B[k], C[k]) for k in members]
        Ab, Bb, Cb = (np.array([part[i] for part in balanced])[where] for i in range(3))
        solved, terms = _direct_response(Ab, Bb, Cb, points[cols], terms=True)
        values[rows, cols] = D[rows] + solved
        # LU keeps x accurate, not the sum D + C x (a high-pass far below its cut-off):
        # where that sum cancels, refine in double-double as freqresp does
        size = terms + np.max(np.abs(D[rows]), axis=(1, 2), initial=0.0)
        for i in np.flatnonzero(_cancelling(values[rows, cols], size)):
            member = int(np.searchsorted(members, rows[i]))
            Am, Bm, Cm = balanced[member]
            refined, _ = refined_response(Am, Bm, Cm, D[rows[i]], points[cols[i] : cols[i] + 1])
            values[rows[i], cols[i]] = refined[0]
    return values, hit


def hinfnorm_stack(models, *, tol: float = 1e-8):
    """H-infinity norms and peak frequencies of a family of same-size models.

    Parameters
    ----------
    models : list of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
    tol : float, optional
        Relative accuracy, as in :func:`~robustmb.analysis.norms.hinfnorm`.

    Returns
    -------
    gamma, fpeak : numpy.ndarray
        Shapes ``(N,)``: what ``hinfnorm`` returns for each model (within ``tol``).

    Raises
    ------
    ArgumentError
        For ``tol`` not a number in ``(0, 1)``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> zeta = np.array([0.05, 0.2])
    >>> family = [control.tf([1.0], [1.0, 2 * z, 1.0]) for z in zeta]
    >>> gamma, fpeak = hinfnorm_stack(family)
    >>> bool(np.allclose(gamma, 1 / (2 * zeta * np.sqrt(1 - zeta**2)), rtol=1e-8))
    True
    """
    from robustmb.analysis.norms import _hinfnorm_family

    return _hinfnorm_family(models, _check_tol(tol), argname="models")


def mu_peak_stack(responses, blk, *, candidates: int = 3, seed: int = 0):
    """Largest ``mussv`` upper bound over a frequency grid, for every model of a family.

    Parameters
    ----------
    responses : array_like, shape (N, nw, n, m)
        Frequency responses of ``N`` models on a common grid (e.g. from
        :func:`freqresp_stack`).
    blk : list of (r, c)
        Block structure, as for :func:`~robustmb.analysis.mussv.mussv`.
    candidates : int, optional
        Points per model optimised first (those with the largest Osborne-scaled
        ``sigma_max``); they give the level below which no other point matters.  A
        positive integer.
    seed : int, optional
        Seed of the optimiser's random starts, a non-negative integer (as for
        :func:`~robustmb.analysis.mussv.mussv`).

    Returns
    -------
    peak : numpy.ndarray, shape (N,)
        ``max_k upper_k``: a certified upper bound of ``mu`` at every grid point of the
        model, attained by the fast ``mussv`` bound at point ``index``.
    index : numpy.ndarray of int, shape (N,)

    Raises
    ------
    ArgumentError
        ``candidates`` is not a positive integer, or ``seed`` not a non-negative integer.

    Notes
    -----
    Every point's bound is a certified ``mussv`` upper bound.  The points outside the
    candidates are optimised only until their bound falls to the level found at the
    candidates: below it they cannot change the maximum, so the peak is the one that a
    full sweep would report (to the optimiser's stopping tolerance) at a fraction of the
    work when ``mu`` varies over the grid.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.array([[[[1.0, 2.0], [3.0, 4.0]], [[0.1, 0.0], [0.0, 0.1]]]])
    >>> peak, index = mu_peak_stack(R, [(1, 0), (1, 0)])
    >>> round(float(peak[0]), 4), int(index[0])
    (5.3723, 0)
    """
    from robustmb.analysis.mu_structure import BlockStructure
    from robustmb.analysis.mu_upper import (
        _scaled_matrix,
        _x_from_logd,
        osborne_scaling,
        scaling_parametrization,
    )
    from robustmb.analysis.mussv import mussv_stack

    if (
        isinstance(candidates, bool)
        or not isinstance(candidates, numbers.Integral)
        or candidates < 1
    ):
        raise ArgumentError(
            f"mu_peak_stack: candidates must be a positive integer, got {candidates!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ArgumentError(f"mu_peak_stack: seed must be a non-negative integer, got {seed!r}")
    candidates, seed = int(candidates), int(seed)
    R = np.asarray(responses)
    if R.ndim != 4:
        raise DimensionError(
            f"responses must have shape (models, frequencies, n, m); got shape {R.shape}"
        )
    N, nw = R.shape[:2]
    if nw == 0 and N > 0:
        raise DimensionError(
            f"mu_peak_stack: responses has no frequency points (shape {R.shape}); give at least one"
        )
    struct = BlockStructure(blk)
    struct.check_shape(R.shape[1:])
    bad = ~np.all(np.isfinite(R), axis=(1, 2, 3))
    if np.any(bad):
        # as mussv: mu of a non-finite matrix is undefined (an evaluation at a pole)
        raise IllPosedError(
            f"mu_peak_stack: responses of model(s) {np.flatnonzero(bad)[:8].tolist()} have "
            "non-finite entries (evaluated at a pole of the model?)"
        )
    flat = R.reshape((N * nw,) + R.shape[2:])
    # ranking and a first certified bound: sigma_max after Osborne balancing of the blocks
    param = scaling_parametrization(struct)
    x0 = _x_from_logd(osborne_scaling(flat, struct), struct, param)
    Dl, Dr, _ = param.matrices(x0)
    rough = np.linalg.norm(_scaled_matrix(flat, Dl, Dr), 2, axis=(-2, -1)).reshape(N, nw)
    k = min(candidates, nw)
    first = np.argsort(-rough, axis=1, kind="stable")[:, :k]
    rows = np.repeat(np.arange(N), k)
    first_flat = rows * nw + first.ravel()
    upper = np.full(N * nw, np.nan)
    upper[first_flat] = mussv_stack(flat[first_flat], blk, lower=False, seed=seed).upper
    level = np.max(upper[first_flat].reshape(N, k), axis=1)
    rest = np.setdiff1d(np.arange(N * nw), first_flat)
    # mu <= sigma_max(Dl M Dr^-1) for the (structure-commuting) Osborne scalings: points
    # already at or below their model's level need no optimisation at all
    flat_rough = rough.ravel()
    below = flat_rough[rest] <= level[rest // nw]
    upper[rest[below]] = flat_rough[rest[below]]
    rest = rest[~below]
    if rest.size:
        target = level[rest // nw]
        upper[rest] = mussv_stack(flat[rest], blk, lower=False, target=target, seed=seed).upper
    upper = upper.reshape(N, nw)
    index = np.argmax(upper, axis=1)
    return upper[np.arange(N), index], index
