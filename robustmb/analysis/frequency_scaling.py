"""Frequency normalisation of a continuous-time model before a whole-axis mu sweep.

For ``M(s) = C (sI - A)^-1 B + D`` and a frequency unit ``w0 > 0``::

    M(j w0 nu) = C (j nu I - A / w0)^-1 (B / w0) + D,

so the model ``(A / w0, B / w0, C, D)`` evaluated at ``nu`` is the *same matrix* as
``M`` at ``w = w0 nu``: its mu, its D,G certificates and its worst perturbations carry
over unchanged, only the frequencies are divided by ``w0``.  The sweep's interval
certificates (:mod:`.frequency_intervals`) are not invariant under this exact change of
unit in floating point: their Hamiltonian pencil mixes blocks of ``A`` (which scale with
``w0``) with blocks of the multiplier (which do not), and their tests of conditioning
are absolute.  A loop time-scaled by ``1e5`` (poles around ``1e5`` rad/s, ``cond(A)``
about 1e14 on its physical realisation) lost its whole-axis certificate although its
pointwise mu was the same as that of the unscaled loop.  The sweep therefore runs on
the normalised model, with ``w0`` the power of two nearest the geometric mean of the
nonzero pole magnitudes (so that the division is exact in floating point) and the
states balanced (a diagonal similarity by powers of two, also exact), and every
frequency it returns is multiplied back by ``w0``.

Discrete-time models keep their unit: their frequencies are fixed by the sampling time
(the sweep maps them through the bilinear transform, which already normalises them).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.linalg as sla

from .balancing import balance_realization
from .mu_structure import FULL, BlockStructure

__all__ = [
    "frequency_unit",
    "normalised_model",
    "shift_scalings",
    "sweep_frame",
    "to_model_frequencies",
]

# Poles smaller than this fraction of the largest are zero to rounding (rigid-body
# modes): they carry no frequency scale and would drag the geometric mean to 0.
_ZERO_POLE = 1e-10
# The unit stays within the exponent range where dividing by it is exact and harmless.
_MAX_EXPONENT = 500
# Block channel scalings of at most 2**10 either way leave a model in its own coordinates.
_SPREAD = 10 * np.log(2.0)


def frequency_unit(a, dt=0.0) -> float:
    """Power of two nearest the geometric mean of the nonzero pole magnitudes of ``A``.

    1.0 for discrete-time models (``dt != 0``), for models without states or without a
    nonzero finite pole.

    Parameters
    ----------
    a : array_like
        State matrix (real or complex).
    dt : float
        Sampling time (0: continuous).

    Returns
    -------
    float
        ``2**k`` for an integer ``k`` with ``|k| <= 500``.

    Examples
    --------
    >>> import numpy as np
    >>> frequency_unit(np.diag([-1e5, -3e5, 0.0]))  # 1.7e5 -> 2**17
    131072.0
    >>> frequency_unit(np.diag([-1.0, -2.0]), dt=0.1)
    1.0
    """
    a = np.asarray(a)
    if dt or a.size == 0 or not np.all(np.isfinite(a)):
        return 1.0
    try:
        mags = np.abs(np.linalg.eigvals(a))
    except np.linalg.LinAlgError:
        return 1.0
    top = mags.max() if mags.size else 0.0
    if not np.isfinite(top) or top == 0.0:
        return 1.0
    mags = mags[mags > _ZERO_POLE * top]
    k = int(np.round(np.mean(np.log2(mags))))
    return float(2.0 ** int(np.clip(k, -_MAX_EXPONENT, _MAX_EXPONENT)))


def normalised_model(sysdata, w0, blk=None):
    """``(A / w0, B / w0, C, D)`` balanced: ``P M(j w0 nu) P^-1`` at ``nu``.

    The states and, with ``blk``, the channels of each mu block are scaled by powers of
    two chosen by balancing the magnitudes of the couplings between states and blocks
    (the system matrix ``[[A, B], [C, D]]`` with the channels of one block lumped into
    one node).  A block's output and input channels are scaled by the same ``p_k``
    (``P`` is ``p_k I`` on block ``k``), which commutes with every perturbation of the
    structure: ``P M P^-1`` has the same mu, the same worst perturbations, and its D
    scalings are those of ``M`` times ``P^-1``.  A physical model whose uncertain
    parameters have nominal values far from 1 (a stiffness of 1e10) otherwise carries
    that spread into ``B``, ``C`` and ``D``.

    Parameters
    ----------
    sysdata : tuple of ndarray
        ``(A, B, C, D)`` of a continuous-time model.
    w0 : float
        Frequency unit (a power of two, see :func:`frequency_unit`).
    blk : list, optional
        mu block structure of ``M``; without it only the states are balanced.

    Returns
    -------
    data : tuple of ndarray
        The normalised, balanced ``(A, B, C, D)``.
    log_p : ndarray
        ``log p_k`` of each block (empty without ``blk``).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.freqresp import freqresp
    >>> data = (np.array([[-1e4]]), np.array([[1e4]]), np.eye(1), np.zeros((1, 1)))
    >>> scaled, log_p = normalised_model(data, 8192.0)
    >>> m0 = freqresp(data, np.array([8192.0 * 3.0]))
    >>> m1 = freqresp(scaled, np.array([3.0]))
    >>> bool(np.allclose(m0, m1, rtol=1e-14))
    True
    """
    a, b, c, d = (np.asarray(x) for x in sysdata)
    a, b = a / w0, b / w0
    blocks = _blocks(blk, d.shape)
    if not blocks:
        ab, bb, cb = balance_realization(a, b, c)
        return (ab, bb, cb, d), np.zeros(0)
    n, k = a.shape[0], len(blocks)
    q = np.zeros((n + k, n + k))
    q[:n, :n] = np.abs(a)
    for i, (z, w) in enumerate(blocks):
        if n:
            q[:n, n + i] = np.abs(b[:, w]).max(axis=1, initial=0.0)
            q[n + i, :n] = np.abs(c[z, :]).max(axis=0, initial=0.0)
        for j, (_, wj) in enumerate(blocks):
            q[n + i, n + j] = np.abs(d[z, wj]).max(initial=0.0) if i != j else 0.0
    if not np.all(np.isfinite(q)):
        return (a, b, c, d), np.zeros(k)
    _, (s, _perm) = sla.matrix_balance(q, permute=False, separate=True)
    t, sb = s[:n], s[n:]
    # Q' = S^-1 Q S: states x' = x / t, block channels scaled by p_k = 1 / s_(n+k)
    col = np.ones(d.shape[1])
    row = np.ones(d.shape[0])
    for i, (z, w) in enumerate(blocks):
        row[z] = 1.0 / sb[i]
        col[w] = sb[i]
    a = a * t[None, :] / t[:, None]
    b = b * col[None, :] / t[:, None]
    c = c * t[None, :] * row[:, None]
    d = d * row[:, None] * col[None, :]
    return (a, b, c, d), -np.log(sb)


def sweep_frame(sysdata, blk, dt=0.0):
    """``(data, w0, log_p)``: the model a whole-axis sweep analyses, in its own units.

    ``data`` is :func:`normalised_model` of ``sysdata`` with ``w0`` from
    :func:`frequency_unit`; a continuous-time model already near unit frequency whose
    block channels need no scaling beyond ``2**10`` either way, and every discrete-time
    model, is kept as given (``w0 = 1``, ``log_p`` zero).

    Examples
    --------
    >>> import numpy as np
    >>> data = (np.array([[-1e6]]), np.array([[1e6]]), np.eye(1), np.zeros((1, 1)))
    >>> _, w0, log_p = sweep_frame(data, [(1, 1)])
    >>> w0, bool(np.all(log_p == 0))
    (1048576.0, True)
    """
    k = len(BlockStructure(blk).blocks)
    w0 = frequency_unit(sysdata[0], dt)
    if dt:
        return sysdata, 1.0, np.zeros(k)
    scaled, log_p = normalised_model(sysdata, w0, blk)
    if w0 == 1.0 and not np.any(np.abs(log_p) > _SPREAD):
        return sysdata, 1.0, np.zeros(k)
    return scaled, w0, log_p if len(log_p) else np.zeros(k)


def _blocks(blk, shape):
    """``[(z rows, w columns)]`` of each block of ``blk`` in ``M``; [] when they do not fit."""
    if blk is None:
        return []
    struct = BlockStructure(blk)
    if (struct.n_z, struct.n_w) != tuple(shape):
        return []
    return [(b.z, b.w) for b in struct.blocks]


def _exp_parameters(blk):
    """Per block, the indices of the D parameters that are ``log`` of its diagonal
    (the layout of :class:`~.mu_upper.ScalingParametrization`: a full block has one, a
    repeated scalar block of size ``r`` has ``r`` followed by ``r (r - 1)`` others)."""
    out, p = [], 0
    for b in BlockStructure(blk).blocks:
        if b.kind == FULL:
            out.append([p])
            p += 1
        else:
            out.append(list(range(p, p + b.rows)))
            p += b.rows + b.rows * (b.rows - 1)
    return out


def shift_scalings(rows, blk, log_p):
    """D,G parameter rows of ``P M P^-1`` -> those of ``M`` (``D P``): ``log p_k`` is
    added to the exponential parameters of block ``k``.  Pass ``-log_p`` for the
    opposite direction.

    Examples
    --------
    >>> import numpy as np
    >>> shift_scalings(np.zeros((1, 2)), [(1, 1), (1, 1)], np.array([0.5, -0.5])).tolist()
    [[0.5, -0.5]]
    """
    if rows is None or len(log_p) == 0:
        return rows
    rows = np.array(rows, dtype=float, copy=True)
    for idx, lp in zip(_exp_parameters(blk), log_p, strict=True):
        rows[..., idx] += lp
    return rows


def to_model_frequencies(peak, w0, blk=None, log_p=()):
    """A sweep result of the normalised model with every frequency multiplied by ``w0``
    and its D,G parameter rows mapped back to ``M`` (:func:`shift_scalings`).

    Bounds and perturbations are those of the same matrices (``P`` commutes with every
    perturbation of the structure), so they are kept as they are.

    Parameters
    ----------
    peak : MuPeak
        Result of :func:`.mu_sweep.certified_mu_peak` or
        :func:`.frequency_band.band_mu_peak` on :func:`normalised_model`.
    w0 : float
        The unit used.
    blk : list, optional
    log_p : array_like
        The block scalings returned by :func:`normalised_model`.

    Returns
    -------
    MuPeak

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.mu_sweep import MuPeak
    >>> p = MuPeak(1.0, 1.0, 2.0, None, [(0.0, np.inf)], True, np.array([2.0]),
    ...            np.array([1.0]), np.array([1.0]))
    >>> q = to_model_frequencies(p, 4.0)
    >>> q.lower_frequency, q.intervals, q.omega.tolist()
    (8.0, [(0.0, inf)], [8.0])
    """
    return replace(
        peak,
        lower_frequency=float(peak.lower_frequency) * w0,
        intervals=[(float(lo) * w0, float(hi) * w0) for lo, hi in peak.intervals],
        omega=np.asarray(peak.omega, float) * w0,
        relaxed=[float(w) * w0 for w in peak.relaxed],
        scalings=None if peak.scalings is None else shift_scalings(peak.scalings, blk, log_p),
    )
