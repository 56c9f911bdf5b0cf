"""Norms, frequency responses and mu peaks of a family of same-size models, together.

A gridded or Monte-Carlo family is one stack ``A (N, n, n), B (N, n, m), C (N, p, n),
D (N, p, m)`` (:mod:`~robustmb.analysis.model_stack`) and every step is a batched numpy
operation over the models (:mod:`~robustmb.analysis.batched_norms` for the norms, the
modal form ``G(s) = (C V) diag(1 / (s - lambda)) (V^-1 B) + D`` for the responses).

Models the batched path does not cover (discrete or complex families, ill-conditioned
eigenvectors, ``gamma`` near ``sigma_max(D)``, a response zero at every start point) are
handed to the single-model routines, so each result is the one the single-model call
certifies: H-infinity within the same relative ``tol``, H2 to rounding.
"""

from __future__ import annotations

import numpy as np

from robustmb.analysis._norm_common import _check_tol
from robustmb.analysis.batched_norms import (  # noqa: F401  (_balanced: used by tests)
    _MODAL_CONDITION_LIMIT,
    _balanced,
    _modal,
    _modal_response,
)
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.model_stack import _models, as_statespace_stack, is_model_stack
from robustmb.errors import DimensionError

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

    return _h2norm_family(models)


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
        omega)``.

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
    omega = _validated_frequencies(omega, discrete=dt > 0)
    N, n = A.shape[0], A.shape[1]
    if dt > 0 or n == 0 or N == 0 or not np.all(np.isfinite(omega)):
        return np.array([freqresp(model, omega) for model in _models(A, B, C, D, dt)])
    lam, V, V_inv, condition = _modal(A)
    modal = condition <= _MODAL_CONDITION_LIMIT
    out = np.empty((N, omega.size) + D.shape[1:], dtype=complex)
    k = np.flatnonzero(modal)
    out[k] = _modal_response(lam[k], C[k] @ V[k], V_inv[k] @ B[k], D[k], 1j * omega)
    for j in np.flatnonzero(~modal):
        out[j] = freqresp((A[j], B[j], C[j], D[j]), omega)
    return out


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

    return _hinfnorm_family(models, _check_tol(tol))


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
        ``sigma_max``); they give the level below which no other point matters.
    seed : int, optional

    Returns
    -------
    peak : numpy.ndarray, shape (N,)
        ``max_k upper_k``: a certified upper bound of ``mu`` at every grid point of the
        model, attained by the fast ``mussv`` bound at point ``index``.
    index : numpy.ndarray of int, shape (N,)

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

    R = np.asarray(responses)
    if R.ndim != 4:
        raise DimensionError(
            f"responses must have shape (models, frequencies, n, m); got shape {R.shape}"
        )
    N, nw = R.shape[:2]
    struct = BlockStructure(blk)
    struct.check_shape(R.shape[1:])
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
