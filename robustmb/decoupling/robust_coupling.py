"""Worst-case coupling of an uncertain plant: Gershgorin ratios over the uncertainty set.

For an uncertain plant ``G(s, Delta)`` (for example a decoupled plant ``T_out G T_in``
whose decoupling matrices were computed on the nominal model) this module bounds, at
each frequency of a grid,

``zeta_i^max(w) = max over Delta of sum_{j != i} |G_ij(jw, Delta)| / |G_ii(jw, Delta)|``.

**Upper bound (certified).** ``sum_{j != i} |G_ij|`` is the largest value of
``|sum_{j != i} G_ij d_j|`` over complex ``|d_j| <= 1``; hence ``zeta_i >= beta`` for some
``Delta`` exactly when the scalar ``h = G_ii - (1/beta) sum_{j != i} G_ij d_j`` vanishes
for some ``(Delta, d)``. ``h`` is an upper LFT of ``diag(Delta, d_1, ..., d_{m-1})`` with
coefficient ``N(beta)``; with ``N_22 = G_ii`` at the centre of the ranges (nonzero),
``h = 0`` is equivalent to ``det(I - Q(beta) diag(Delta, d)) = 0`` with
``Q = N_11 - N_12 N_21 / N_22``. So ``mu(Q(beta)) < 1`` (structure: the plant's blocks
plus ``m - 1`` complex scalars) proves ``zeta_i^max(w) < beta``. Since ``mu(Q(beta))``
decreases with ``beta``, a search on ``beta`` (a step ``beta * mu`` guided by the last
bound, with bisection as fall-back) gives the certified bound. ``Q`` is handed to
:func:`robustmb.mussv` as it is (the solver balances it by a structured diagonal
similarity itself); each certificate is checked with ``verify_upper_bound`` on ``Q`` and
kept in the result (:meth:`WorstCaseGershgorin.verify` re-checks them).

**Lower bound (realised).** The largest ratio found over actual parameter values
(vertices of the box, random samples and a local search at the peak frequency); the
worst parameter values are verified by substitution (``usys.usubs``).

**Frequency coverage.** Both bounds hold at the grid frequencies only; the grid is part
of the result and should be dense around the resonances.

**Rounding.** The upper bound is certified for the plant's LFT data as evaluated in double
precision (``lftdata`` and its frequency response), not for every other floating-point
evaluation of the same model.  It is a bound, never an estimate; but a ratio at the
rounding level of the plant's entries (a row decoupled exactly, about 1e-15) is not
resolved by it: evaluating the same plant another way (say, a numeric model rebuilt at
each sampled parameter value) gives other rounding residues there, which may exceed the
bound (decoupled gravimeter, row y: 5.1e-16 against a bound of 2.9e-16 at 1 Hz; the exact
ratio is 0).  Compare such ratios with the rounding of the plant's entries, not with 1.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from robustmb.analysis.mussv import mussv
from robustmb.decoupling.metrics import gershgorin_ratios
from robustmb.decoupling.plant_data import frequency_response, is_uncertain
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError
from robustmb.lft import lftdata
from robustmb.lft.arguments import frequencies

__all__ = [
    "WorstCaseGershgorin",
    "gershgorin_mu_problem",
    "worst_case_gershgorin",
]


_MU_SLACK = 1e-6  # relative slack of the certificate check; mu * (1 + slack) < 1 is required


@dataclass
class _LFTData:
    H: np.ndarray  # (nw, nz + ny, nw_delta + nu) coefficient on the grid
    blocks: list  # (name, kind, reps, shape)
    nz: int
    nwd: int
    slices: list  # per block: (name, kind, reps, rows, cols, w-slice, z-slice)


def _lft_on_grid(usys, omega) -> _LFTData:
    if not is_uncertain(usys):
        raise UncertainTypeError(
            f"expected an uncertain system or matrix, got {type(usys).__name__}; "
            "for a numeric plant use gershgorin_ratios()"
        )
    M, blocks = lftdata(usys)
    w = np.atleast_1d(np.asarray(omega, dtype=float))
    if hasattr(M, "A"):
        H = frequency_response(M, w)
    else:
        H = np.broadcast_to(np.asarray(M, dtype=complex), (w.size, *np.shape(M))).copy()
    slices, wo, zo = [], 0, 0
    for name, kind, reps, shape in blocks:
        rows, cols = (1, 1) if kind in ("real", "complex") else tuple(shape)
        # Delta block I_reps (x) delta: w = Delta z takes reps*cols z's to reps*rows w's
        nw_b, nz_b = reps * rows, reps * cols
        slices.append((name, kind, reps, rows, cols, slice(wo, wo + nw_b), slice(zo, zo + nz_b)))
        wo += nw_b
        zo += nz_b
    return _LFTData(H=H, blocks=blocks, nz=zo, nwd=wo, slices=slices)


def _mussv_blocks(data: _LFTData):
    """The plant's blocks followed by the m - 1 complex scalars d_j of the row test."""
    m = data.H.shape[2] - data.nwd
    blk = []
    for _, kind, reps, rows, cols, _, _ in data.slices:
        if kind == "real":
            blk.append((-reps, 0))
        elif kind == "complex":
            blk.append((reps, 0))
        else:
            # a repeated full block is covered (conservatively) by independent copies
            blk += [(rows, cols)] * reps
    return blk + [(1, 0)] * (m - 1)


def gershgorin_mu_problem(usys, omega, row, beta):
    """The matrices whose structured singular value tests ``zeta_row^max(w) < beta``.

    Parameters
    ----------
    usys : uncertain system or matrix
        Plant with ``m`` inputs; ``row < min(p, m)``.
    omega : array_like
        Frequencies (rad/s) (ignored for a static matrix except for its length).
    row : int
        Row of the Gershgorin ratio.
    beta : float or array_like ``(nw,)``
        Level(s) to test.

    Returns
    -------
    Q : numpy.ndarray ``(nw, n, n)``
        ``mu(Q[k]) < 1`` (for the structure ``blk``) proves
        ``max_Delta zeta_row(j omega[k], Delta) < beta[k]``.
    blk : list of tuple
        Structure in the MATLAB ``mussv`` convention: the plant's blocks followed by
        ``m - 1`` complex scalars.

    Examples
    --------
    >>> import numpy as np, robustmb as rmb
    >>> a = rmb.ureal("a", 0.5, plusminus=0.1)
    >>> Q, blk = gershgorin_mu_problem(rmb.umat([[1.0, a], [0.0, 1.0]]), [0.0], 0, 1.0)
    >>> Q.shape, blk
    ((1, 2, 2), [(-1, 0), (1, 0)])
    """
    data = _lft_on_grid(usys, omega)
    return _mu_matrices(data, row, beta), _mussv_blocks(data)


def _mu_matrices(data: _LFTData, row, beta):
    H, nz, nwd = data.H, data.nz, data.nwd
    nw = H.shape[0]
    p, m = H.shape[1] - nz, H.shape[2] - nwd
    if isinstance(row, bool) or not isinstance(row, numbers.Integral):
        raise ArgumentError(f"row must be an integer row index, got {row!r}")
    if not 0 <= row < min(p, m):
        raise DimensionError(f"row {row} is out of range for a {p}x{m} plant")
    b = np.broadcast_to(np.asarray(beta, dtype=float), (nw,))
    if not np.all(np.isfinite(b) & (b > 0)):
        raise ArgumentError(f"beta: the levels must be finite and > 0, got {beta!r}")
    M11 = H[:, :nz, :nwd]
    M12 = H[:, :nz, nwd:]
    M21 = H[:, nz:, :nwd]
    M22 = H[:, nz:, nwd:]
    others = [j for j in range(m) if j != row]
    nd = len(others)
    inv_b = (1.0 / b)[:, None, None]
    N11 = np.zeros((nw, nz + nd, nwd + nd), dtype=complex)
    N11[:, :nz, :nwd] = M11
    N11[:, :nz, nwd:] = -inv_b * M12[:, :, others]
    N12 = np.concatenate([M12[:, :, [row]], np.ones((nw, nd, 1))], axis=1)
    N21 = np.concatenate([M21[:, [row], :], -inv_b * M22[:, [row]][:, :, others]], axis=2)
    N22 = M22[:, row, row]
    if np.any(N22 == 0):
        bad = np.flatnonzero(N22 == 0)
        raise ArgumentError(
            f"usys: its diagonal element ({row}, {row}) vanishes at the centre of the "
            f"uncertainty at omega index(es) {bad[:5].tolist()}: the Gershgorin ratio of "
            f"row {row} is unbounded there; leave those frequencies out of omega"
        )
    return N11 - N12 @ N21 / N22[:, None, None]


def _delta_values(data: _LFTData, uncertainty, delta):
    """Physical ``{name: value}`` of a normalised parameter vector (one entry per element)."""
    out = {}
    for (name, kind, *_), d in zip(data.slices, delta, strict=True):
        el = uncertainty[name]
        out[name] = (
            float(el.denormalize(float(np.real(d))))
            if kind == "real"
            else complex(el.denormalize(complex(d)))
        )
    return out


def _ratios_at(data: _LFTData, deltas, row, k_idx=None):
    """Gershgorin ratio of ``row`` for parameter vectors ``deltas`` (nc, ne) on the grid.

    Evaluates ``G = M22 + M21 Delta (I - M11 Delta)^{-1} M12`` exactly.
    """
    H = data.H if k_idx is None else data.H[k_idx]
    nz, nwd = data.nz, data.nwd
    M11, M12 = H[:, :nz, :nwd], H[:, :nz, nwd:]
    M21, M22 = H[:, nz:, :nwd], H[:, nz:, nwd:]
    out = []
    for dv in np.atleast_2d(deltas):
        diag = np.zeros(nwd, dtype=complex)
        for (_, _kind, _reps, _r, _c, ws, _zs), d in zip(data.slices, dv, strict=True):
            diag[ws] = d
        # Delta (I - M11 Delta)^{-1} = (I - Delta M11)^{-1} Delta (Delta diagonal here)
        X = np.linalg.solve(np.eye(nwd) - diag[:, None] * M11, diag[:, None] * M12)
        G = M22 + M21 @ X
        out.append(gershgorin_ratios(G)[:, row])
    return np.array(out)  # (nc, nw)


@dataclass
class WorstCaseGershgorin:
    """Result of :func:`worst_case_gershgorin`.

    Attributes
    ----------
    omega : numpy.ndarray
        Grid (rad/s): the bounds hold at these frequencies only.
    rows : list of int
    nominal : numpy.ndarray ``(nw, nrows)``
        Ratios at the nominal values.
    lower : numpy.ndarray ``(nw, nrows)``
        Ratios realised by actual parameter values (a guaranteed lower bound of the
        worst case at each frequency).
    upper : numpy.ndarray ``(nw, nrows)`` or None
        Certified upper bounds (``mu(Q(upper)) < 1``), ``inf`` where none was found;
        ``None`` when the upper bound was not requested.  Certified for the LFT data of
        the plant as evaluated in double precision: a ratio at the rounding level of the
        plant's entries is not resolved (see the module's notes on rounding).
    worst_values : list of dict
        Per row, the parameter values (physical units) realising ``max(lower)``.
    worst_frequency : numpy.ndarray
        Per row, the frequency (rad/s) of ``max(lower)``.
    verified_peak : numpy.ndarray
        Per row, the ratio recomputed from ``usys.usubs(worst_values)`` at
        ``worst_frequency`` (equals ``max(lower)``).
    certificates : list of dict
        Per row: ``level`` (= ``upper``), ``mu`` (upper bound of ``mu(Q(level))``, below 1),
        ``D`` and ``G`` (the scalings), ``blk`` and ``row``; see :meth:`verify`.
    """

    omega: np.ndarray
    rows: list
    nominal: np.ndarray
    lower: np.ndarray
    upper: np.ndarray | None
    worst_values: list
    worst_frequency: np.ndarray
    verified_peak: np.ndarray
    certificates: list = field(default_factory=list)

    def verify(self, usys, *, tol=_MU_SLACK) -> np.ndarray:
        """Re-check every certified upper bound from its D/G certificate.

        Rebuilds ``Q(upper)`` from ``usys`` (the plant that was analysed) and checks,
        without calling the mu solver, that the stored scalings prove
        ``mu(Q(upper)) <= mu < 1``.

        Returns
        -------
        numpy.ndarray of bool ``(nw, nrows)``
            True where the bound is certified (``inf`` bounds count as not certified).
        """
        from robustmb.analysis.mu_upper import verify_upper_bound

        if self.upper is None:
            raise ArgumentError(
                "verify: no upper bound was computed (worst_case_gershgorin was called with "
                "upper=False); there is nothing to verify"
            )
        data = _lft_on_grid(usys, self.omega)
        out = np.zeros(self.upper.shape, dtype=bool)
        for c, cert in enumerate(self.certificates):
            fin = np.isfinite(cert["level"])
            if not np.any(fin):
                continue
            Q = _mu_matrices(_sub(data, fin), cert["row"], cert["level"][fin])
            mu = cert["mu"][fin]
            ok = mu * (1 + tol) < 1.0
            ok &= np.atleast_1d(
                verify_upper_bound(Q, cert["blk"], mu, cert["D"][fin], cert["G"][fin], tol=tol)
            )
            ok &= np.isclose(cert["level"][fin], self.upper[fin, c])
            out[fin, c] = ok
        return out

    @property
    def coverage(self) -> str:
        """Plain statement of what the bounds cover."""
        f = self.omega / (2 * np.pi)
        return (
            f"bounds hold at the {self.omega.size} grid frequencies "
            f"{f.min():.4g}-{f.max():.4g} Hz only, over the whole uncertainty set"
        )


def _candidates(data: _LFTData, samples, rng):
    kinds = [s[1] for s in data.slices]
    ne = len(kinds)
    cands = [np.zeros(ne, dtype=complex)]
    if ne <= 8:
        grid = np.array(np.meshgrid(*[[-1.0, 1.0]] * ne, indexing="ij")).reshape(ne, -1).T
        for g in grid:
            cands.append(g.astype(complex))
    for _ in range(samples):
        d = np.empty(ne, dtype=complex)
        for i, kd in enumerate(kinds):
            if kd == "real":
                d[i] = rng.uniform(-1, 1)
            else:
                d[i] = np.sqrt(rng.uniform()) * np.exp(2j * np.pi * rng.uniform())
        cands.append(d)
    return np.array(cands)


def _refine(data, row, k, d0):
    """Local maximisation of the ratio at one frequency over the parameter box."""
    kinds = [s[1] for s in data.slices]
    if any(kd != "real" for kd in kinds):
        return d0, _ratios_at(data, d0[None], row, k_idx=[k])[0, 0]

    def f(x):
        v = _ratios_at(data, x[None].astype(complex), row, k_idx=[k])[0, 0]
        return -v if np.isfinite(v) else 1e300

    res = minimize(f, np.real(d0), method="L-BFGS-B", bounds=[(-1.0, 1.0)] * len(kinds))
    x = np.clip(res.x, -1.0, 1.0)
    v = -f(x)
    return x.astype(complex), v


def _check_rows(rows, n):
    """Row indices ``0 <= r < n`` (the diagonal entries of a ``p x m`` plant)."""
    try:
        out = list(rows)
    except TypeError:
        raise ArgumentError(
            f"worst_case_gershgorin: rows must be a list of int, got {rows!r}"
        ) from None
    if not out:
        raise ArgumentError("worst_case_gershgorin: rows is empty")
    for r in out:
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or not 0 <= r < n:
            raise ArgumentError(
                f"worst_case_gershgorin: rows has {r!r}; the plant has diagonal rows 0..{n - 1}"
            )
    return [int(r) for r in out]


def worst_case_gershgorin(
    usys, omega, *, rows=None, upper=True, samples=64, seed=0, rtol=1e-3, max_iter=60
):
    """Bounds on the worst-case Gershgorin ratios of an uncertain plant on a frequency grid.

    Parameters
    ----------
    usys : uncertain system or matrix
        For example ``decoupling.apply(G_uncertain)``; elements must be ``ureal`` or
        ``ucomplex`` (for the realised lower bound).
    omega : array_like
        Frequency grid (rad/s).
    rows : list of int, optional
        Rows to analyse (default all ``min(p, m)``).
    upper : bool
        Compute the certified upper bound (needs :func:`robustmb.mussv`).
    samples : int
        Random parameter samples added to the box vertices for the lower bound.
    seed : int
        Seed of the samples.
    rtol : float
        Relative gap at which the bisection of the upper bound stops.
    max_iter : int
        Maximum bisection steps.

    Returns
    -------
    WorstCaseGershgorin
        ``lower`` (realised) and ``upper`` (certified) bound the worst case from both
        sides; ``upper`` is a bound, not an estimate, but it does not resolve ratios at
        the rounding level of the plant's entries (an exactly decoupled row): another
        floating-point evaluation of the same model can exceed it there.

    Examples
    --------
    >>> import numpy as np, robustmb as rmb
    >>> a = rmb.ureal("a", 0.5, plusminus=0.1)
    >>> r = worst_case_gershgorin(rmb.umat([[1.0, a], [0.0, 1.0]]), [1.0], upper=False)
    >>> round(float(r.lower[0, 0]), 12), r.worst_values[0]
    (0.6, {'a': 0.6})
    """

    w = frequencies(omega, "worst_case_gershgorin")
    if w is None:
        raise ArgumentError("worst_case_gershgorin: omega (rad/s) is required")
    data = _lft_on_grid(usys, w)
    kinds = {s[1] for s in data.slices}
    if not kinds <= {"real", "complex"}:
        raise UncertainTypeError(
            "worst_case_gershgorin supports ureal and ucomplex elements; the plant has "
            f"blocks of kind {sorted(kinds - {'real', 'complex'})}"
        )
    p, m = data.H.shape[1] - data.nz, data.H.shape[2] - data.nwd
    rows = list(range(min(p, m))) if rows is None else _check_rows(rows, min(p, m))
    rng = np.random.default_rng(seed)
    cands = _candidates(data, samples, rng)
    uncertainty = usys.uncertainty
    nominal_delta = _nominal_delta(data, uncertainty)
    nw, nr = w.size, len(rows)
    nominal = np.empty((nw, nr))
    lower = np.empty((nw, nr))
    worst_values, worst_freq, verified = [], np.empty(nr), np.empty(nr)
    ub = np.full((nw, nr), np.nan) if upper else None
    certs = []
    for c, row in enumerate(rows):
        nominal[:, c] = _ratios_at(data, nominal_delta[None], row)[0]
        R = _ratios_at(data, cands, row)  # (nc, nw)
        R = np.where(np.isfinite(R), R, -np.inf)
        best = R.argmax(axis=0)
        lower[:, c] = R[best, np.arange(nw)]
        lower[:, c] = np.maximum(lower[:, c], nominal[:, c])
        k = int(np.argmax(lower[:, c]))
        d_best, v = _refine(data, row, k, cands[best[k]])
        if v > lower[k, c]:
            lower[k, c] = v
        else:
            d_best = cands[best[k]]
            if nominal[k, c] >= lower[k, c]:
                d_best = nominal_delta
        values = _delta_values(data, uncertainty, d_best)
        # verification by substitution into the uncertain object itself
        Gs = usys.usubs(values)
        Hs = frequency_response(Gs, [w[k]])[0] if hasattr(Gs, "A") else np.asarray(Gs)
        verified[c] = gershgorin_ratios(Hs)[row]
        if not np.isclose(verified[c], lower[k, c], rtol=1e-6, atol=1e-12):
            raise ArgumentError(
                f"worst_case_gershgorin: usys: substituting the worst-case values {values} "
                f"into usys gives the ratio {verified[c]} for row {row}, but its LFT data "
                f"give {lower[k, c]}: usys.usubs and the LFT of usys disagree"
            )
        worst_values.append(values)
        worst_freq[c] = w[k]
        if upper:
            ub[:, c], cert = _certified_upper(data, row, lower[:, c], mussv, rtol, max_iter)
            certs.append(cert)
    return WorstCaseGershgorin(
        omega=w,
        rows=rows,
        nominal=nominal,
        lower=lower,
        upper=ub,
        worst_values=worst_values,
        worst_frequency=worst_freq,
        verified_peak=verified,
        certificates=certs,
    )


def _nominal_delta(data, uncertainty):
    return np.array(
        [
            complex(uncertainty[name].normalize(uncertainty[name].nominal))
            for name, *_ in data.slices
        ]
    )


def _verified_below_one(Q, blk, mussv):
    """Levels whose mussv certificate proves mu(Q) < 1, checked independently of mussv."""
    from robustmb.analysis.mu_upper import verify_upper_bound

    res = mussv(Q, blk, lower=False)
    mu = np.atleast_1d(np.asarray(res.upper, dtype=float))
    D, G = np.asarray(res.D), np.asarray(res.G)
    ok = mu * (1 + _MU_SLACK) < 1.0
    if np.any(ok):
        ok[ok] = np.atleast_1d(verify_upper_bound(Q[ok], blk, mu[ok], D[ok], G[ok], tol=_MU_SLACK))
    return ok, mu, D, G


def _certified_upper(data, row, lower, mussv, rtol, max_iter):
    """Vectorised bisection on beta: smallest level with a verified mu certificate below 1."""
    blk = _mussv_blocks(data)
    nw = lower.size
    lo = np.maximum(lower, 0.0)
    # the realised lower bound is usually close to the worst case: start just above it
    hi = np.maximum(1.25 * lo, 1e-12)
    certified = np.zeros(nw, dtype=bool)
    n_z = data.nz + (data.H.shape[2] - data.nwd) - 1
    cert = {
        "level": np.full(nw, np.inf),
        "mu": np.full(nw, np.nan),
        "D": np.zeros((nw, n_z, n_z), dtype=complex),
        "G": np.zeros((nw, n_z, n_z), dtype=complex),
        "blk": blk,
        "row": row,
    }

    def attempt(mask, levels):
        Q = _mu_matrices(_sub(data, mask), row, levels)
        ok, mu, D, G = _verified_below_one(Q, blk, mussv)
        idx = np.flatnonzero(mask)
        for t in np.flatnonzero(ok):
            j = idx[t]
            cert["level"][j], cert["mu"][j], cert["D"][j] = levels[t], mu[t], D[t]
            if G is not None:
                cert["G"][j] = G[t]
        return idx, ok

    for _ in range(60):
        todo = ~certified
        if not np.any(todo):
            break
        idx, ok = attempt(todo, hi[todo])
        certified[idx[ok]] = True
        hi[idx[~ok]] *= 2.0
    hi[~certified] = np.inf
    bis_lo = lo.copy()
    jump = np.ones(nw, dtype=bool)  # try the mu-guided step first
    for _ in range(max_iter):
        active = certified & (hi > bis_lo * (1 + rtol))
        if not np.any(active):
            break
        mid = np.where(bis_lo > 0, np.sqrt(np.maximum(bis_lo, 1e-300) * hi), 0.5 * hi)
        # mu(Q(beta)) falls like 1/beta when the d-block dominates, so beta * mu lands
        # just above the worst case; fall back to bisection when that step fails
        guess = hi * cert["mu"] * (1 + 0.5 * rtol)
        use = jump & (guess > bis_lo) & (guess < hi * (1 - 0.25 * rtol))
        level = np.where(use, guess, mid)
        idx, ok = attempt(active, level[active])
        hi[idx[ok]] = level[idx[ok]]
        bis_lo[idx[~ok]] = level[idx[~ok]]
        jump[idx] = ok  # after a failed step, bisect once before jumping again
    return hi, cert


def _sub(data: _LFTData, mask):
    return _LFTData(
        H=data.H[mask], blocks=data.blocks, nz=data.nz, nwd=data.nwd, slices=data.slices
    )
