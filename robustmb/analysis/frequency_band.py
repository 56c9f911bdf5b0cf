"""Certified supremum of mu over a frequency band ``[wmin, wmax]`` (MATLAB's ``{wmin, wmax}``).

The whole-axis sweep (:func:`~.mu_sweep.certified_mu_peak`) covers ``[0, inf]`` with
frequency intervals, each proven by one D,G certificate through its Hamiltonian test
(:func:`~.frequency_intervals.certified_interval`: the inertia of the frequency-domain
inequality is constant between the imaginary eigenvalues of a pencil, so an interval is
exact, not sampled).  Here the same intervals only need to cover the band: a bound at
``wmin`` whose interval starts at or below ``wmin`` proves the lower end, one whose
interval reaches ``wmax`` (or ``inf``) the upper end.  Nothing outside the band is
claimed, so a peak of mu outside it does not raise the level.

Discrete-time models go through their continuous equivalent (the bilinear map of
:func:`~.frequency_intervals.continuous_equivalent`, ``nu = tan(w dt / 2)``; ``pi / dt``
maps to ``inf``), as in the whole-axis sweep.  Real-coefficient models only (their
``mu`` is even in frequency, so the band stands for ``|w|`` in it).
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from .destabilising_search import _substituted_a
from .frequency_certificate import uncovered
from .frequency_intervals import (
    certified_interval,
    continuous_equivalent,
    multiplier_from_certificate,
    sweep_level,
    to_equivalent_frequency,
    to_model_frequency,
)
from .frequency_scaling import sweep_frame, to_model_frequencies
from .mu_sweep import (
    MuPeak,
    _gap_points,
    _merge,
    _next_to_gaps,
    balanced_response_function,
    default_grid,
    peak_lower_search,
)
from .mu_upper import n_scaling_parameters
from .mussv import mussv_stack, warm_certificates

# A point placed to certify a known level stops below level / (1 + max(rel_gap, _ROOM)),
# as in the whole-axis sweep (an early-stopped certificate covers a wider interval).
_ROOM = 1e-3
# Relative distance beyond a band end within which a verified boundary pole is tested at
# the end itself (the pole of a crossing at a band end is located to rounding only).
_BAND_RTOL = 1e-8
# Log-spaced points added inside the band to the modes of the default grid.
_BAND_POINTS = 24
# First bounds of a free level below this fraction of the largest are not tightened
# further (they only certify intervals; the largest ones set the level), as in mu_sweep.
_LOOSE = 0.5


def check_band(band, dt, what):
    """``(wmin, wmax)`` as floats, checked: ``0 <= wmin < wmax <= inf`` (``<= pi/dt``).

    Parameters
    ----------
    band : tuple of two floats or None
    dt : float
        Sampling time (0: continuous).
    what : str
        The calling function, for the error message.

    Returns
    -------
    tuple of float or None

    Raises
    ------
    ArgumentError
        Not a pair of numbers, NaN, negative, ``wmin >= wmax``, or above the Nyquist
        frequency ``pi / dt`` of a discrete model.

    Examples
    --------
    >>> check_band((0.5, 2), 0.0, "robstab")
    (0.5, 2.0)
    >>> check_band((0, float("inf")), 0.0, "robstab")
    (0.0, inf)
    >>> check_band((2.0, 1.0), 0.0, "robstab")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: robstab: band must satisfy wmin < wmax, got (2.0, 1.0)
    """
    if band is None:
        return None
    try:
        lo, hi = (float(v) for v in band)
    except (TypeError, ValueError):
        raise ArgumentError(
            f"{what}: band must be a pair (wmin, wmax) of frequencies in rad/s, got {band!r}"
        ) from None
    if np.isnan(lo) or np.isnan(hi):
        raise ArgumentError(f"{what}: band has a NaN end, got {band!r}")
    if lo < 0 or not np.isfinite(lo):
        raise ArgumentError(f"{what}: band must have a finite wmin >= 0 (rad/s), got {band!r}")
    if not lo < hi:
        raise ArgumentError(f"{what}: band must satisfy wmin < wmax, got {(lo, hi)!r}")
    if dt and hi > np.pi / dt * (1 + 1e-12):
        raise ArgumentError(
            f"{what}: band ends at {hi!r} rad/s, above the Nyquist frequency pi/dt = "
            f"{np.pi / dt!r} of the discrete model"
        )
    if dt:
        hi = min(hi, np.pi / dt)
    return lo, hi


def band_text(band):
    """The band as it is written in results and reasons.

    Examples
    --------
    >>> band_text((0.5, float("inf")))
    '[0.5, inf] rad/s'
    """
    return f"[{band[0]:.6g}, {band[1]:.6g}] rad/s"


def band_grid(a, dt, band, n=_BAND_POINTS):
    """Frequencies (rad/s) inside the band: its ends, the modes of the default grid in it
    and ``n`` log-spaced points (the first decade above ``wmin`` when ``wmax = inf``).

    Examples
    --------
    >>> g = band_grid(-np.eye(1), 0.0, (0.5, 2.0), n=3)
    >>> float(g[0]), float(g[-1]), bool(np.all((g >= 0.5) & (g <= 2.0)))
    (0.5, 2.0, True)
    """
    lo, hi = band
    base = default_grid(a, dt)
    inside = base[(base >= lo) & (base <= hi)]
    top = hi if np.isfinite(hi) else max(10.0 * max(lo, 1.0), float(np.max(base, initial=1.0)))
    bottom = lo if lo > 0 else min(top * 1e-4, float(np.min(base[base > 0], initial=top)))
    spread = np.geomspace(bottom, top, n) if top > bottom else np.array([bottom])
    ends = [lo] + ([hi] if np.isfinite(hi) else [])
    grid = np.unique(np.concatenate([ends, inside, spread]))
    return grid[(grid >= lo) & (grid <= hi)]


def band_mu_peak(
    sysdata, blk, dt, band, *, level=None, lower=True, rel_gap=1e-3, max_rounds=12, progress=None
) -> MuPeak:
    """Certified ``sup mu(M(jw))`` over ``wmin <= w <= wmax`` (see the module docstring).

    Parameters
    ----------
    sysdata : tuple of ndarray
        ``(A, B, C, D)`` of ``M`` (real coefficients).
    blk : list of (r, c)
        mu block structure (MATLAB ``mussv`` convention).
    dt : float
        Sampling time (0: continuous).
    band : tuple of float
        ``(wmin, wmax)``, checked by :func:`check_band`.
    level : float, optional
        Certify this level instead of the smallest one found (``covered`` False when a
        frequency of the band exceeds it).
    lower : bool
        Also search mu lower bounds (with their perturbations) at the frequencies of the
        largest upper bounds, all inside the band.
    rel_gap : float
        A free level is ``(1 + rel_gap)`` times the largest pointwise bound.
    max_rounds : int
        Refinement rounds for the parts of the band left uncovered; real blocks are
        relaxed to complex ones at the points added in the second half of the rounds
        (a looser certificate, continuous in frequency, still valid), as in the
        whole-axis sweep.
    progress : callable, optional
        Called with a short message after each round.

    Returns
    -------
    MuPeak
        ``covered`` says the intervals cover the whole band (and only the band is
        claimed): ``upper`` bounds ``mu`` at every frequency of it.  Every frequency
        evaluated (``omega``) and the lower bound's frequency lie in the band.

    Examples
    --------
    >>> import numpy as np
    >>> a, b, c = np.array([[0.0, 1.0], [-1.0, -0.2]]), np.array([[0.0], [1.0]]), np.eye(1, 2)
    >>> data = (a, b, c, np.zeros((1, 1)))  # M(jw) = 1 / (1 - w^2 + 0.2 jw)
    >>> r = band_mu_peak(data, [(1, 1)], 0.0, (2.0, 10.0))
    >>> bool(r.covered), round(r.lower, 4), r.lower_frequency  # the edge nearer the peak
    (True, 0.3304, 2.0)
    >>> bool(r.lower <= r.upper <= r.lower * 1.002)
    True
    """
    args = (level, lower, rel_gap, max_rounds, progress)
    data = tuple(np.asarray(v) for v in sysdata)
    # swept in the model's own frequency unit, as the whole axis (.frequency_scaling)
    scaled, w0, log_p = sweep_frame(data, blk, dt)
    if scaled is data:
        return _band_peak(data, blk, dt, band, *args)
    peak = _band_peak(scaled, blk, dt, (band[0] / w0, band[1] / w0), *args)
    return to_model_frequencies(peak, w0, blk, log_p)


def _band_peak(sysdata, blk, dt, band, level, lower, rel_gap, max_rounds, progress) -> MuPeak:
    """:func:`band_mu_peak` in the frequency unit of ``sysdata``."""
    a, b, c, d = (np.asarray(v) for v in sysdata)
    if any(np.iscomplexobj(v) and np.any(np.imag(v) != 0) for v in (a, b, c, d)):
        raise ArgumentError(
            "band: models with complex coefficients are not supported (their mu is not "
            "even in frequency); use omega=None or frequency points"
        )
    a, b, c, d = a.real, b.real, c.real, d.real
    lo, hi = band
    top = np.pi / dt if dt else np.inf
    equiv = continuous_equivalent(a, b, c, d, dt)
    respond = balanced_response_function(*equiv)  # of the continuous equivalent

    def to_nu(w):
        w = np.asarray(w, float)
        return np.where(w >= top, np.inf, to_equivalent_frequency(w, dt)) if dt else w

    nu_lo, nu_hi = float(to_nu(lo)), float(to_nu(hi))
    # the Nyquist frequency itself is evaluated, at z = -1 exactly (nu = inf)
    grid = to_equivalent_frequency(band_grid(a, dt, band), dt) if dt else band_grid(a, dt, band)
    p = n_scaling_parameters(blk)
    relaxed_blk = [(abs(r), 0) if cc == 0 else (r, cc) for r, cc in blk]
    pts, ubs, certs, xs, ivs, at_level = [], [], [], [], {}, {}
    relaxed_at = []

    def add(nus, target, relax=False, loose=False):
        """Certified bounds at new frequencies, each started from its nearest point
        (``loose``: cold, and tightened only near the largest, as mussv_stack does)."""
        if loose:
            res = mussv_stack(respond(nus), blk, lower=False, rel_target=_LOOSE)
            up, D, x = res.upper, res.D, [None] * len(nus)
            G = [None] * len(nus) if res.G is None else res.G
        elif relax:
            x0 = np.full((len(nus), n_scaling_parameters(relaxed_blk)), np.nan)
            up, D, _, x = warm_certificates(respond(nus), relaxed_blk, x0, target,
                                            with_scalings=True)  # fmt: skip
            x = np.hstack([x, np.zeros((len(nus), p - x.shape[1]))])
            G = [None] * len(nus)  # G = 0: a certificate of the real structure too
        else:
            up, D, G, x = warm_certificates(respond(nus), blk, _starts(nus), target,
                                            with_scalings=True)  # fmt: skip
        for i, w in enumerate(nus):
            if relax:
                relaxed_at.append(len(pts))
            pts.append(float(w))
            ubs.append(float(up[i]))
            certs.append((float(up[i]), D[i], G[i]))
            xs.append(x[i])

    def _starts(nus):
        out = np.full((len(nus), p), np.nan)
        have = [k for k in range(len(pts)) if xs[k] is not None]
        if have:
            logw = np.log(np.minimum([pts[k] for k in have], 1e300) + 1e-12)
            for i, w in enumerate(nus):
                near = int(np.argmin(np.abs(logw - np.log(min(w, 1e300) + 1e-12))))
                out[i] = xs[have[near]]
        return out

    def tighten(idx):
        """Optimise the bounds of ``idx`` to the end (a poor start is not mu)."""
        idx = [k for k in idx if k not in relaxed_at]
        if not idx:
            return
        resp = respond(np.array([pts[k] for k in idx]))
        goal = level / (1 + max(rel_gap, _ROOM))
        x0 = np.array([np.full(p, np.nan) if xs[k] is None else xs[k] for k in idx])
        up, D, G, x = warm_certificates(resp, blk, x0, None,
                                        with_scalings=True, polish_target=goal)  # fmt: skip
        again = np.flatnonzero(~(up <= goal) & np.all(np.isfinite(x0), axis=1))
        if again.size:
            # from a cold start (Osborne balancing), as mussv_stack: a warm start can be poor
            cold = np.full((again.size, p), np.nan)
            u2, d2, g2, x2 = warm_certificates(resp[again], blk, cold, None, with_scalings=True,
                                               polish_target=goal)  # fmt: skip
            better = u2 < up[again]
            up[again[better]], D[again[better]] = u2[better], d2[better]
            G[again[better]], x[again[better]] = g2[better], x2[better]
        for j, k in enumerate(idx):
            if up[j] < ubs[k]:
                ubs[k], certs[k], xs[k] = float(up[j]), (float(up[j]), D[j], G[j]), x[j]
                at_level.pop(k, None)

    def certify(k):
        """The interval of point ``k`` at the current level; an interval it had before
        (from an earlier certificate, or a lower level: still valid) is kept if wider."""
        at_level[k] = level
        beta0, dmat, gmat = certs[k]
        if beta0 > level:
            return
        mult = multiplier_from_certificate(blk, beta0, dmat, gmat)
        iv = certified_interval(equiv, mult, level, pts[k], respond)
        old = ivs.get(k)
        if iv is not None and (old is None or iv[1] - iv[0] >= old[1] - old[0]):
            ivs[k] = iv

    def gaps():
        return uncovered(ivs.values(), nu_hi, bottom=nu_lo)

    fixed = level is not None
    near = (lambda lev: lev / (1 + max(rel_gap, _ROOM))) if fixed else (lambda lev: None)
    add(grid, near(level), loose=not fixed)
    if fixed and max(ubs) > level:
        tighten([k for k in range(len(pts)) if ubs[k] > level])
    if not fixed:
        level = sweep_level(max(ubs), rel_gap)
    open_ = [(nu_lo, nu_hi)]
    for rnd in range(max_rounds + 1):
        if max(ubs) > level:
            if fixed:
                break
            level = sweep_level(max(ubs), rel_gap)
        for k in sorted(range(len(pts)), key=lambda k: ubs[k]):
            if at_level.get(k) == level:
                continue
            if any(u < pts[k] < v for j, (u, v) in ivs.items() if j != k):
                # inside a neighbour's interval: certified only if next to a gap
                at_level[k] = -np.inf
            else:
                certify(k)
        open_ = gaps()
        if open_ and rnd >= 1:
            # bounds next to a persisting gap, optimised to the end (more slack)
            nxt = _next_to_gaps(open_, pts, list(range(len(pts))))
            tighten(nxt)
            for k in nxt:
                if at_level.get(k) != level:
                    certify(k)
            open_ = gaps()
        if progress is not None:
            progress(f"round {rnd}: level {level:.6g}, {len(open_)} uncovered part(s) of the band")
        if not open_ or rnd == max_rounds:
            break
        new = _gap_points(open_, 0.0)
        n_before = len(pts)
        add(new, near(level) if fixed else level / (1 + max(rel_gap, _ROOM)),
            relax=rnd >= max_rounds // 2)  # fmt: skip
        tighten([k for k in range(n_before, len(pts)) if ubs[k] > level and k not in relaxed_at])
    covered = not open_ and max(ubs) <= level
    # (the round trip through nu = tan(w dt / 2) may move an end by an ulp: kept in the band)
    w = np.clip([_to_model(v, dt, top) for v in pts], lo, hi)
    intervals = [(_to_model(u, dt, top), _to_model(v, dt, top)) for u, v in ivs.values()]
    peak = MuPeak(
        level if covered else np.inf,
        0.0,
        float(w[int(np.argmax(ubs))]),
        None,
        _merge(intervals),
        covered,
        w,
        np.array(ubs),
        np.zeros(len(w)),
        relaxed=[float(w[k]) for k in relaxed_at if k in ivs],
    )
    if lower:
        peak = peak_lower_search((a, b, c, d), blk, dt, peak)
    return peak


def _to_model(nu, dt, top):
    if not np.isfinite(nu):
        return float(top)
    return float(min(to_model_frequency(nu, dt), top)) if dt else float(nu)


def _in_band(problem, band, alpha, values_at, got, at=None):
    """A candidate crossing as a witness for the band.

    ``got`` is the verified crossing of the candidate (or None).  Returns ``(scaling,
    values, frequency, ill)`` when its boundary pole is in the closed band, or when the
    unpushed values (scaling ``alpha``) put a pole, to rounding, at a frequency of the
    band: ``at`` (the frequency of a mu lower bound's perturbation: its loop may be
    unstable by another pole too, the band only asks for ``det(I - M(jw) Delta) = 0`` at
    one of its frequencies), or the end just inside which a pole lies beyond the band by at
    most ``_BAND_RTOL`` (such a pole is located to rounding only).  Else ``(scaling,
    frequency, None, None)`` of a crossing outside the band, or None without one.
    """
    if got is not None and band[0] <= got[2] <= band[1]:
        return got
    tests = [] if at is None or not band[0] <= at <= band[1] else [float(at)]
    if got is not None:
        tests += [
            float(end)
            for end in band
            if np.isfinite(end) and abs(got[2] - end) <= _BAND_RTOL * max(end, 1e-300)
        ]
    if tests:
        try:
            vals = values_at(1.0)
        except (ValueError, TypeError, np.linalg.LinAlgError):
            vals = None
        for w in tests if vals is not None else ():
            if _band_end_pole(problem, vals, w):
                return alpha, vals, w, False
    return None if got is None else (got[0], got[2], None, None)


def _band_end_pole(problem, values, w):
    """Whether the loop closed by ``values`` has a pole at frequency ``w`` to rounding:
    ``sigma_min(e I - A_cl) <= 16 eps max(||A_cl||_1, |e|)`` with ``e = jw`` (``e^{jw dt}``
    in discrete time), the eigenvalue test of the verified crossings at ``w`` itself:
    ``det(I - M(jw) Delta) = 0`` to rounding for the substituted ``Delta``."""
    a = _substituted_a(problem, values)
    if a is None:
        return False
    e = np.exp(1j * w * problem.dt) if problem.dt else 1j * w
    smin = np.linalg.svd(e * np.eye(a.shape[0]) - a, compute_uv=False)[-1]
    return bool(smin <= 16 * np.finfo(float).eps * max(np.linalg.norm(a, 1), abs(e), 1e-300))


def _band_level(problem, band, upper, rooms, progress=None):
    """The band certified at a level just above the crossing ``upper`` (each relative
    ``room`` of ``rooms`` in turn), as :func:`.robust_stability.robstab` does on the whole
    axis; None when no level holds."""
    for room in rooms:
        peak = band_mu_peak(
            problem.m11, problem.blk, problem.dt, band, level=(1.0 + room) / upper,
            lower=False, progress=progress,
        )  # fmt: skip
        if peak.covered:
            return peak
    return None


__all__ = ["band_mu_peak", "check_band", "band_grid", "band_text"]
