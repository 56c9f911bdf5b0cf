"""Stored whole-axis mu certificates: re-check them, complete them, prune them.

A fixed-level sweep (:func:`~robustmb.analysis.mu_sweep.certified_mu_peak` with
``level``) proves ``sup_w mu(M(jw)) < level`` by a finite set of frequencies ``w_k``,
each with D,G scalings whose frequency-domain inequality holds on an interval around
``w_k`` (:mod:`.frequency_intervals`), the intervals covering ``[0, inf]``.  The
evidence is small: the frequencies and the optimiser's D,G parameters (rows of
:class:`~.mu_upper.ScalingParametrization`).  This module

- re-checks such evidence without any optimisation (:func:`check_frequency_certificate`):
  at each ``w_k`` the bound given by its parameters is evaluated and checked by
  :func:`~.mu_rounding.certify_scalings` (the test every bound of ``mussv`` passes: the
  margin of :func:`~.mu_upper.upper_bound_margin` with a bound on its rounding error),
  then extended to its frequency interval at the level (floating point) by
  :func:`~.frequency_intervals.certified_interval`; the union must cover the axis;
- completes evidence that leaves gaps (:func:`complete_frequency_certificate`):
  bounds next to each gap are optimised further from their stored parameters, and
  new frequencies are placed inside the gaps, until the axis is covered or a bound
  exceeds the level;
- keeps a smallest subset of points whose intervals still cover the axis
  (:func:`covering_subset`), so that the evidence shipped is small.

Nothing here trusts the stored numbers: a perturbed parameter row yields either a
(valid) bound with a narrower interval or no bound below the level, and a gap is
reported as such.  Continuous-time, real-coefficient data only (the half-axis
``w >= 0``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ArgumentError, DimensionError
from .frequency_intervals import certified_interval, multiplier_from_certificate
from .frequency_scaling import shift_scalings, sweep_frame
from .mu_rounding import certify_scalings
from .mu_structure import BlockStructure, dagger
from .mu_sweep import GAP_RTOL, balanced_response_function
from .mu_upper import scaling_parametrization
from .mussv import warm_certificates

# A bound placed to certify a level stops below level / (1 + _ROOM) (as mu_sweep).
_ROOM = 1e-3


@dataclass
class FrequencyCertificateCheck:
    """Result of re-checking stored whole-axis evidence of ``sup_w mu < level``.

    Attributes
    ----------
    level : float
        The level checked (``mu < level`` on every certified interval).
    omega : ndarray
        The frequencies of the evidence (rad/s), as given.
    bounds : ndarray
        The certified bound of ``mu(M(j omega_k))`` given by row ``k``'s scalings
        (checked by :func:`~.mu_rounding.certify_scalings`; ``inf`` when the row gives
        none, e.g. non-finite parameters).
    intervals : list
        Per point, its certified interval ``(lo, hi)`` at ``level`` or None (bound above
        the level, or the inequality failing at the point itself).
    gaps : list of (float, float)
        Parts of ``[0, inf]`` that no interval covers.
    covered : bool
        No gap: ``mu(M(jw)) < level`` is proven at every ``w >= 0``.
    """

    level: float
    omega: np.ndarray
    bounds: np.ndarray
    intervals: list = field(repr=False)
    gaps: list
    covered: bool

    @property
    def largest_bound(self):
        """Largest pointwise bound among the points whose interval was used."""
        used = [b for b, iv in zip(self.bounds, self.intervals, strict=True) if iv is not None]
        return float(max(used)) if used else np.inf


def _check_data(sysdata, omega, scalings, blk):
    a, b, c, d = (np.asarray(v) for v in sysdata)
    if any(np.iscomplexobj(v) and np.any(np.imag(v) != 0) for v in (a, b, c, d)):
        raise ArgumentError("sysdata: complex coefficients are not supported (half-axis only)")
    omega = np.asarray(omega, dtype=float).ravel()
    x = np.asarray(scalings, dtype=float)
    p = scaling_parametrization(BlockStructure(blk)).p
    if x.ndim != 2 or x.shape != (omega.size, p):
        raise DimensionError(
            f"scalings: expected shape {(omega.size, p)} (one row of {p} D,G parameters per "
            f"frequency), got {x.shape}"
        )
    if np.any(np.isnan(omega)) or np.any(omega < 0):
        raise ArgumentError("omega: frequencies must be >= 0 (rad/s)")
    return (a.real, b.real, c.real, d.real), omega, x


def bounds_at_scalings(M, blk, scalings):
    """Certified upper bounds of ``mu`` given by fixed D,G parameters (no optimisation).

    For each matrix ``M_k`` and parameter row ``x_k`` (rows of
    :class:`~.mu_upper.ScalingParametrization`, as kept by the sweeps), the bound is
    ``beta_k = sqrt(lambda_max(A^H A + j(A^H Gh - Gh^H A)))`` with ``A = Dl M Dr^-1``;
    its sigma-max certificate ``(D, G)`` is checked as every bound of
    :func:`~.mussv.mussv` is (:func:`~.mu_rounding.certify_scalings`: the margin of
    :func:`~.mu_upper.upper_bound_margin` squared plus a bound on its rounding error,
    which grows with the conditioning of ``D``, at most 1) and ``beta_k`` raised until it
    passes (``inf`` if it never does, or for non-finite parameters; ``sigma_max(M_k)``
    with ``D = I``, ``G = 0`` where that is smaller).

    Parameters
    ----------
    M : ndarray, shape (k, n, m)
    blk : list of (r, c)
    scalings : ndarray, shape (k, p)

    Returns
    -------
    beta : ndarray, shape (k,)
    D, G : ndarray, shape (k, n, n)
        The certificates (sigma-max form of :func:`~.mussv.mussv`).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.mussv import warm_upper_bounds
    >>> M = np.array([[[1.0, 2.0], [3.0, 4.0]]])
    >>> up, x = warm_upper_bounds(M, [(-1, 0), (-1, 0)])
    >>> beta, D, G = bounds_at_scalings(M, [(-1, 0), (-1, 0)], x)
    >>> bool(abs(beta[0] / up[0] - 1) < 1e-9)
    True
    >>> bool(bounds_at_scalings(M, [(-1, 0), (-1, 0)], x + np.nan)[0][0] == np.inf)
    True
    """
    struct = BlockStructure(blk)
    param = scaling_parametrization(struct)
    Ms = np.asarray(M, dtype=complex)
    x = np.asarray(scalings, dtype=float)
    k = Ms.shape[0]
    beta = np.full(k, np.inf)
    D = np.broadcast_to(np.eye(struct.n_z, dtype=complex), (k, struct.n_z, struct.n_z)).copy()
    G = np.zeros_like(D)
    ok = np.all(np.isfinite(x), axis=1)
    if not ok.any():
        return beta, D, G
    idx = np.flatnonzero(ok)
    Dl, Dr, Gh = param.matrices(x[idx])
    with np.errstate(over="ignore", invalid="ignore"):
        A = _scaled_rows(Ms[idx], Dl, Dr)
        AhG = dagger(A) @ Gh
        X = dagger(A) @ A + 1j * (AhG - dagger(AhG))
    fin = np.all(np.isfinite(X), axis=(1, 2))
    lam = np.full(idx.size, np.inf)
    if fin.any():
        lam[fin] = np.linalg.eigvalsh(0.5 * (X[fin] + dagger(X[fin])))[:, -1]
    b = np.sqrt(np.maximum(lam, 0.0))
    good = np.isfinite(b)
    idx, Dl, Gh, b = idx[good], Dl[good], Gh[good], b[good]
    if idx.size:
        # the test of every mussv bound: margin^2 + its rounding allowance <= 1
        beta[idx], D[idx], G[idx] = certify_scalings(Ms[idx], struct, b, Dl, Gh)
    return beta, D, G


def uncovered(intervals, top=np.inf, *, bottom=0.0):
    """Parts of ``[bottom, top]`` not covered by the closed ``intervals`` (gaps narrower
    than ``GAP_RTOL`` = 16 eps relative to their frequency are ignored, as in the sweeps).

    Examples
    --------
    >>> uncovered([(0.0, 1.0), (2.0, np.inf)])
    [(1.0, 2.0)]
    >>> uncovered([(0.0, 1.0), (1.0, np.inf)])
    []
    >>> uncovered([(0.5, 1.0), (2.0, 4.0)], 3.0, bottom=0.7)  # a band [0.7, 3]
    [(1.0, 2.0)]
    >>> uncovered([(0.5, 1.0)], 3.0, bottom=0.2)
    [(0.2, 0.5), (1.0, 3.0)]
    """
    gaps, reach = [], bottom
    for lo, hi in sorted(iv for iv in intervals if iv is not None):
        if reach >= top:
            break
        if lo > reach:
            gaps.append((reach, min(lo, top)))
        reach = max(reach, hi)
    if reach < top:
        gaps.append((reach, top))
    return [(lo, hi) for lo, hi in gaps if hi - lo > GAP_RTOL * lo]


def _intervals(sysdata, respond, blk, level, omega, beta, D, G, todo):
    out = {}
    for k in todo:
        if not beta[k] <= level:
            out[k] = None
            continue
        mult = multiplier_from_certificate(blk, float(beta[k]), D[k], G[k])
        out[k] = certified_interval(sysdata, mult, level, float(omega[k]), respond)
    return out


def check_frequency_certificate(sysdata, blk, level, omega, scalings):
    """Re-check stored evidence of ``sup_w mu(M(jw)) < level`` without optimising.

    The check is in floating point at the stored scalings; callers certifying a level
    leave a small headroom below it for rounding (the arm replay checks ``mu < 1/(1 + 1e-6)``).

    Parameters
    ----------
    sysdata : tuple of ndarray
        ``(A, B, C, D)`` of ``M`` (continuous time, real).
    blk : list of (r, c)
        mu block structure (MATLAB ``mussv`` convention).
    level : float
    omega : array_like, shape (k,)
        Frequencies of the evidence (rad/s).
    scalings : array_like, shape (k, p)
        Their D,G parameters (rows of :class:`~.mu_upper.ScalingParametrization`).

    Returns
    -------
    FrequencyCertificateCheck

    Raises
    ------
    DimensionError
        ``scalings`` not ``(len(omega), p)``.
    ArgumentError
        Negative frequencies, a level not > 0, complex data.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.mu_sweep import certified_mu_peak
    >>> data = (-np.eye(2), np.eye(2), np.array([[0.5, 0.2], [0.1, 0.4]]), np.zeros((2, 2)))
    >>> blk = [(-1, 0), (-1, 0)]
    >>> peak = certified_mu_peak(data, blk, level=0.9, lower=False, relax=False)
    >>> chk = check_frequency_certificate(data, blk, 0.9, peak.omega, peak.scalings)
    >>> chk.covered, chk.gaps
    (True, [])
    >>> bad = peak.scalings.copy(); bad[:] = np.nan
    >>> check_frequency_certificate(data, blk, 0.9, peak.omega, bad).covered
    False
    """
    if not (np.isfinite(level) and level > 0):
        raise ArgumentError(f"level: must be a finite number > 0, got {level!r}")
    sysdata, omega, x = _check_data(sysdata, omega, scalings, blk)
    # checked in the model's own frequency unit, as the sweep certified it (exact: the
    # same matrices M and D,G scalings; see .frequency_scaling)
    sysdata, w0, log_p = sweep_frame(sysdata, blk)
    x = shift_scalings(x, blk, -log_p)
    respond = balanced_response_function(*sysdata)
    beta, D, G = bounds_at_scalings(respond(omega / w0), blk, x)
    ivs = _intervals(sysdata, respond, blk, level, omega / w0, beta, D, G, range(omega.size))
    intervals = [
        None if iv is None else (iv[0] * w0, iv[1] * w0) for iv in map(ivs.get, range(omega.size))
    ]
    gaps = uncovered(intervals)
    return FrequencyCertificateCheck(level, omega, beta, intervals, gaps, not gaps)


def covering_subset(intervals):
    """Indices of a smallest subset of ``intervals`` (None entries skipped) covering as much
    of ``[0, inf]`` as all of them do (the greedy rule: from the covered end, the interval
    reaching furthest).

    Examples
    --------
    >>> covering_subset([(0.0, 2.0), (0.0, 1.0), (1.5, 5.0), None, (4.0, np.inf)])
    [0, 2, 4]
    """
    items = sorted((iv[0], iv[1], k) for k, iv in enumerate(intervals) if iv is not None)
    chosen, reach, i = [], 0.0, 0
    while i < len(items):
        best, best_hi = None, reach
        while i < len(items) and items[i][0] - reach <= GAP_RTOL * max(reach, items[i][0]):
            if items[i][1] > best_hi:
                best, best_hi = items[i][2], items[i][1]
            i += 1
        if best is None:
            if i < len(items) and items[i][0] > reach:  # a gap: restart beyond it
                reach = items[i][0]
                continue
            break
        chosen.append(best)
        reach = best_hi
        if not np.isfinite(reach):
            break
    return sorted(chosen)


def complete_frequency_certificate(sysdata, blk, level, omega, scalings, *, max_rounds=8):
    """Complete stored evidence of ``sup_w mu < level`` until it covers the axis; pruned.

    Starts from :func:`check_frequency_certificate`.  While gaps remain: the bounds of
    the points next to each gap are optimised to the end from their stored parameters
    (a bound stopped just below the level leaves its certificate little slack), then
    three frequencies are placed inside each gap, their bounds optimised from the
    nearest point's parameters until just below the level.  Every bound is certified as
    in :func:`~.mussv.mussv`; the start only changes the effort.

    Returns
    -------
    omega, scalings : ndarray
        A smallest covering subset (:func:`covering_subset`) of all the points, sorted.
    check : FrequencyCertificateCheck
        The re-check of the returned evidence (``covered`` False when the rounds did not
        close every gap or a bound exceeded the level: nothing is claimed then).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.mu_sweep import certified_mu_peak
    >>> data = (-np.eye(2), np.eye(2), np.array([[0.5, 0.2], [0.1, 0.4]]), np.zeros((2, 2)))
    >>> blk = [(-1, 0), (-1, 0)]
    >>> peak = certified_mu_peak(data, blk, level=0.9, lower=False, relax=False)
    >>> w, x, chk = complete_frequency_certificate(data, blk, 0.9, peak.omega[:1],
    ...                                            peak.scalings[:1])
    >>> chk.covered, len(w) <= len(peak.omega)
    (True, True)
    """
    chk = check_frequency_certificate(sysdata, blk, level, omega, scalings)
    model, omega, x = _check_data(sysdata, omega, scalings, blk)
    # completed in the frequency unit the check uses (see .frequency_scaling): in rad/s
    # a time-scaled model (poles near 1e6 rad/s) completed from no start at all
    sysdata, w0, log_p = sweep_frame(model, blk)
    omega, x = omega / w0, shift_scalings(x, blk, -log_p)
    respond = balanced_response_function(*sysdata)
    pts, xs = list(omega), [row for row in x]
    ivs = [None if iv is None else (iv[0] / w0, iv[1] / w0) for iv in chk.intervals]
    target = level / (1.0 + _ROOM)
    for _ in range(max_rounds):
        gaps = uncovered(ivs)
        if not gaps:
            break
        w_arr = np.array(pts)
        # 1. the points next to each gap, optimised to the end from their parameters
        near = set()
        for lo, hi in gaps:
            left = np.flatnonzero(w_arr <= lo)
            right = np.flatnonzero(w_arr >= hi) if np.isfinite(hi) else np.zeros(0, int)
            near.update(left[np.argsort(lo - w_arr[left])][:2].tolist())
            near.update(right[np.argsort(w_arr[right] - hi)][:2].tolist())
        near = sorted(near)
        if near:
            x0 = np.array([xs[k] for k in near])
            up, D, G, xn = warm_certificates(
                respond(w_arr[near]), blk, x0, None, with_scalings=True
            )
            for j, k in enumerate(near):
                new = _intervals(sysdata, respond, blk, level, w_arr, up, D, G, [j])[j]
                if new is not None and (ivs[k] is None or new[1] - new[0] > ivs[k][1] - ivs[k][0]):
                    ivs[k], xs[k] = new, xn[j]
        gaps = uncovered(ivs)
        if not gaps:
            break
        # 2. new frequencies inside each gap, from the nearest point's parameters
        new_w = []
        for lo, hi in gaps:
            hi_f = hi if np.isfinite(hi) else 10.0 * max(lo, 1.0)
            if lo > 0:
                new_w.extend(np.geomspace(lo, hi_f, 5)[1:-1])
            else:
                new_w.extend(np.linspace(lo, hi_f, 5)[1:-1])
            if not np.isfinite(hi):
                new_w.append(hi_f)
        new_w = np.array(new_w)
        logw = np.log(w_arr + 1e-12)
        x0 = np.array([xs[int(np.argmin(np.abs(logw - np.log(w + 1e-12))))] for w in new_w])
        up, D, G, xn = warm_certificates(respond(new_w), blk, x0, target, with_scalings=True)
        if np.any(up > level):
            # full optimisation of those before giving up (a poor start, not mu)
            bad = np.flatnonzero(up > level)
            u2, d2, g2, x2 = warm_certificates(respond(new_w[bad]), blk, xn[bad], None,
                                               with_scalings=True)  # fmt: skip
            up[bad], D[bad], G[bad], xn[bad] = u2, d2, g2, x2
        got = _intervals(sysdata, respond, blk, level, new_w, up, D, G, range(new_w.size))
        for j in range(new_w.size):
            pts.append(float(new_w[j]))
            xs.append(xn[j])
            ivs.append(got[j])
        if np.any(up > level):
            break
    keep = covering_subset(ivs)
    keep = sorted(keep, key=lambda k: pts[k])
    w_out = np.array([pts[k] for k in keep]) * w0
    x_out = np.array([xs[k] for k in keep]).reshape(len(keep), x.shape[1])
    x_out = shift_scalings(x_out, blk, log_p)
    final = check_frequency_certificate(model, blk, level, w_out, x_out)
    return w_out, x_out, final


def _scaled_rows(M, Dl, Dr):
    """``Dl M Dr^-1`` of a stack by a solve; ``inf`` for a row whose ``Dr`` is singular to
    the factorisation (finite parameters can give one: an underflowing pivot)."""
    try:
        return dagger(np.linalg.solve(dagger(Dr), dagger(Dl @ M)))
    except np.linalg.LinAlgError:
        out = np.full(M.shape, np.inf, dtype=complex)
        for k in range(M.shape[0]):
            try:
                out[k] = dagger(np.linalg.solve(dagger(Dr[k]), dagger(Dl[k] @ M[k])))
            except np.linalg.LinAlgError:
                continue
        return out
