"""Robust stability margin of an uncertain system over the whole frequency axis.

The margin is ``1 / sup_w mu(M11(jw))`` in normalised units: ``1`` means
stable for every parameter value in the declared ranges (scaled about the
range centres, see :mod:`.uncertain_problem`).

- ``lower`` (guaranteed margin) comes from a certified upper bound of mu on
  every frequency (:func:`.mu_sweep.certified_mu_peak`).
- ``upper`` comes from an actual destabilising perturbation, verified by
  substitution: the substituted system has a pole on the stability boundary
  (at ``critical_frequency``).  Candidates come from the mu lower bound and,
  for real and complex parameters, from a direct search over the parameter
  box that finds the smallest scaling at which a pole reaches the boundary
  (this also catches the frequency-isolated crossings of real parameters).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._progress import ProgressBar
from ..lft.arguments import frequencies
from .mu_sweep import MuPeak, certified_mu_peak
from .uncertain_problem import UncertainProblem, box_vertices, uncertain_problem, values_from_delta


@dataclass
class RobstabResult:
    """Result of :func:`robstab`.

    Attributes
    ----------
    lower, upper : float
        Bounds of the robust stability margin (normalised units, 1 = the
        declared ranges).  ``lower`` is certified on the whole frequency axis
        when ``certified`` is True.
    critical_frequency : float
        Frequency (rad/s) of the boundary pole of the destabilising perturbation.
    destabilizing : dict
        ``{name: value}`` in physical units (values of ``ultidyn`` elements are
        stable systems); substituting them puts a pole on the stability boundary.
    sensitivity : dict
        ``{name: s}``: the margin decreases by about ``s`` percent when that
        element's range grows by one percent about its centre.
    certified : bool
        Whether the frequency intervals cover the whole axis.
    mu : MuPeak
        The evidence: certified intervals, pointwise mu bounds over frequency.
    """

    lower: float
    upper: float
    critical_frequency: float
    destabilizing: dict
    sensitivity: dict = field(default_factory=dict)
    certified: bool = False
    mu: MuPeak | None = field(default=None, repr=False)

    @property
    def is_robustly_stable(self):
        """True when stability is guaranteed on the declared ranges (``lower > 1``)."""
        return self.lower > 1.0


def closed_loop_a(problem: UncertainProblem, diag):
    """``A + Bw Delta (I - Dzw Delta)^-1 Cz`` for a diagonal scalar Delta (vector ``diag``)."""
    a, bw, cz, dzw = problem.m11
    nz = dzw.shape[0]
    loop = np.eye(nz) - dzw * diag[None, :]
    try:
        x = np.linalg.solve(loop, cz)
    except np.linalg.LinAlgError:
        return None
    return a + bw @ (diag[:, None] * x)


def stability_abscissa(problem: UncertainProblem, diag):
    """Largest real part (or modulus minus 1 in discrete time) of the closed-loop poles."""
    acl = closed_loop_a(problem, diag)
    if acl is None:
        return np.inf, 0.0
    if acl.shape[0] == 0:
        return -np.inf, 0.0
    ev = np.linalg.eigvals(acl)
    if problem.dt:
        k = int(np.argmax(np.abs(ev)))
        return float(np.abs(ev[k]) - 1.0), float(abs(np.angle(ev[k])) / problem.dt)
    k = int(np.argmax(ev.real))
    return float(ev[k].real), float(abs(ev[k].imag))


def _scalar_blocks(problem):
    return [bi for bi in problem.blocks if bi.kind in ("real", "complex")]


def _diag_from(problem, normalized):
    """Delta's diagonal for normalised scalar values (LTI blocks at zero)."""
    diag = np.zeros(problem.nw, dtype=complex)
    for bi in problem.blocks:
        if bi.name in normalized:
            diag[bi.w] = normalized[bi.name]
    return diag if np.any(diag.imag) else diag.real


def _crossing_scale(problem, direction, alpha_max, n_scan=24):
    """Smallest ``alpha <= alpha_max`` with a pole on/over the boundary along ``direction``."""
    diag = _diag_from(problem, direction)
    grid = alpha_max * np.linspace(0, 1, n_scan + 1)[1:]
    prev = 0.0
    for alpha in grid:
        f, _ = stability_abscissa(problem, alpha * diag)
        if f >= 0:
            lo, hi = prev, alpha
            for _ in range(50):
                mid = 0.5 * (lo + hi)
                if stability_abscissa(problem, mid * diag)[0] >= 0:
                    hi = mid
                else:
                    lo = mid
                if hi - lo <= 1e-12 * hi:
                    break
            return hi
        prev = alpha
    return None


def parameter_search(problem, alpha_max, seed=0, n_random=60, extra_directions=()):
    """Smallest boundary-crossing scaling over directions in the scalar-parameter box."""
    scal = _scalar_blocks(problem)
    if not scal:
        return None
    rng = np.random.default_rng(seed)
    k = len(scal)
    dirs = [dict(d) for d in extra_directions]
    if k <= 6:
        for signs in box_vertices(k):
            dirs.append({bi.name: s for bi, s in zip(scal, signs, strict=True)})
    for _ in range(n_random):
        v = rng.uniform(-1, 1, k)
        v /= np.max(np.abs(v))
        dirs.append({bi.name: x for bi, x in zip(scal, v, strict=True)})
    best = None
    for d in dirs:
        a = _crossing_scale(problem, d, alpha_max if best is None else best[0])
        if a is not None and (best is None or a < best[0]):
            best = (a, d)
    if best is None:
        return None
    # Local refinement: random perturbations of the best direction.
    a_best, d_best = best
    for step in (0.3, 0.1, 0.03):
        for _ in range(10):
            v = np.array([d_best[bi.name] for bi in scal]) + step * rng.standard_normal(k)
            v = np.clip(v, -1, 1)
            if not np.any(v):
                continue
            v /= np.max(np.abs(v))
            d = {bi.name: x for bi, x in zip(scal, v, strict=True)}
            a = _crossing_scale(problem, d, a_best)
            if a is not None and a < a_best:
                a_best, d_best = a, d
    return a_best, d_best


def _verify_boundary_pole(problem, values, tol=1e-6):
    """The substituted system has a pole on the stability boundary (or beyond it)."""
    sys = problem.model.usubs(values)
    a = np.asarray(sys.A) if hasattr(sys, "A") else np.zeros((0, 0))
    if a.shape[0] == 0:
        return False
    ev = np.linalg.eigvals(a)
    scale = max(1.0, np.max(np.abs(ev)))
    if problem.dt:
        return bool(np.max(np.abs(ev)) >= 1.0 - tol)
    return bool(np.max(ev.real) >= -tol * scale)


def robstab(usys, *, omega=None, progress=False, sensitivity=True):
    """Robust stability margin of an uncertain system.

    Parameters
    ----------
    usys : UncertainSystem
        Closed loop with uncertain elements.
    omega : array_like, optional
        Restrict the analysis to these frequencies (no whole-axis certificate).
        By default the whole frequency axis is covered.
    progress : bool
        Show a progress bar on standard error (stages and the rounds of the
        frequency sweep).
    sensitivity : bool
        Compute each element's sensitivity of the margin.

    Returns
    -------
    RobstabResult

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> s = control.tf("s")
    >>> res = rmb.robstab(1 / (s * s + c * s + 1))
    >>> bool(0.99 < res.lower <= 1.0), round(res.upper, 6), round(res.critical_frequency, 4)
    (True, 1.0, 1.0)
    """
    omega = frequencies(omega, "robstab")
    problem = uncertain_problem(usys, what="robstab")
    if not problem.centre_stable:
        values = {
            bi.name: (
                bi.element.center
                if bi.kind == "real"
                else bi.element.nominal
                if bi.kind == "complex"
                else np.zeros(bi.element.shape)
            )
            for bi in problem.blocks
        }
        return RobstabResult(0.0, 0.0, np.nan, values, {}, True, None)
    with ProgressBar(3, "robstab", enabled=bool(progress)) as bar:
        return _robstab(problem, omega, sensitivity, bar)


def _robstab(problem, omega, sensitivity, bar):
    bar.start("certified mu sweep")
    peak = certified_mu_peak(problem.m11, problem.blk, problem.dt, omega=omega, progress=bar.start)
    bar.advance(label="destabilising parameter values")
    lower = (
        0.0 if not np.isfinite(peak.upper) else (np.inf if peak.upper == 0 else 1.0 / peak.upper)
    )
    candidates = []
    if peak.lower > 0 and peak.lower_delta is not None:
        vals = values_from_delta(problem, peak.lower_delta, peak.lower_frequency)
        candidates.append((1.0 / peak.lower, vals, peak.lower_frequency, peak.lower_delta))
    cap = 2.0 * (
        candidates[0][0]
        if candidates
        else max(1.0, min(lower * 4, 1e3))
        if np.isfinite(lower)
        else 10.0
    )
    mu_dirs = []
    if candidates:
        delta = candidates[0][3]
        d = {
            bi.name: float(np.real(np.mean(np.diag(delta[bi.w, bi.z])))) * peak.lower
            for bi in _scalar_blocks(problem)
        }
        if any(d.values()):
            mx = max(abs(v) for v in d.values())
            mu_dirs.append({k: v / mx for k, v in d.items()})
    found = parameter_search(problem, cap, extra_directions=mu_dirs)
    if found is not None:
        alpha, direction = found
        diag = _diag_from(problem, {k: alpha * v for k, v in direction.items()})
        _, w_cross = stability_abscissa(problem, diag)
        vals = {
            bi.name: bi.element.denormalize(alpha * direction[bi.name]).item()
            for bi in _scalar_blocks(problem)
        }
        for bi in problem.blocks:
            if bi.name not in vals:
                vals[bi.name] = np.zeros(bi.element.shape)
        candidates.append((alpha, vals, w_cross, None))
    upper, crit, destab = np.inf, np.nan, {}
    for alpha, vals, w, _ in sorted(candidates, key=lambda c: c[0]):
        if _verify_boundary_pole(problem, vals):
            upper, crit, destab = alpha, w, vals
            break
    upper = float(max(upper, lower) if np.isfinite(upper) else upper)
    bar.advance(label="sensitivities")
    sens = _sensitivity(problem, upper, destab, crit) if sensitivity and np.isfinite(upper) else {}
    bar.advance(label="done")
    return RobstabResult(lower, upper, crit, destab, sens, peak.covered, peak)


def _sensitivity(problem, upper, destab, crit, h=1e-3):
    """Percent decrease of the margin per percent growth of each element's range.

    The margin is a minimum over perturbation directions, so (Danskin) its derivative
    is the one along the destabilising direction: with element ``i``'s range widened
    by ``(1 + h)`` the boundary crossing along that direction moves from ``upper`` to
    ``a_i`` and the sensitivity is ``(1 - a_i / upper) / h``.  The margin is
    homogeneous of degree -1 in the ranges, so the sensitivities sum to 1 (Euler).
    For scalar elements the crossing is found exactly from the closed-loop poles
    (real parameters may cross at one frequency only); when the destabilising
    perturbation involves ``ultidyn`` elements, from the peak of the mu upper bound
    around the critical frequency, with each element's columns of ``M11`` scaled.
    """
    scalar = _scalar_blocks(problem)
    # ultidyn values are systems, or zero arrays when the crossing needs none of them
    if all(
        bi.kind in ("real", "complex")
        or (isinstance(destab[bi.name], np.ndarray) and not destab[bi.name].any())
        for bi in problem.blocks
    ):
        direction = {
            bi.name: complex(bi.element.normalize(destab[bi.name])) / upper for bi in scalar
        }
        if not any(np.iscomplex(v) for v in direction.values()):
            direction = {k: v.real for k, v in direction.items()}
        base = _crossing_scale(problem, direction, 2.0 * upper, n_scan=48) or upper
        out = {bi.name: 0.0 for bi in problem.blocks}
        for bi in scalar:
            if direction[bi.name] == 0:
                continue
            widened = dict(direction)
            widened[bi.name] = direction[bi.name] * (1.0 + h)
            a_i = _crossing_scale(problem, widened, 2.0 * base, n_scan=48)
            out[bi.name] = float((1.0 - a_i / base) / h) if a_i is not None else float("nan")
        return out
    return _mu_sensitivity(problem, crit, h=1e-2)


def _mu_sensitivity(problem, crit, h):
    """Sensitivities from the local peak of the mu upper bound (continuous for ``ultidyn``)."""
    from .freqresp import freqresp
    from .mussv import mussv

    a, bw, cz, dzw = problem.m11
    w0 = max(crit, 1e-6) if np.isfinite(crit) else 1.0
    omega = w0 * np.geomspace(0.8, 1.25, 25)
    resp = freqresp((a, bw, cz, dzw, problem.dt) if problem.dt else (a, bw, cz, dzw), omega)
    # one stack: the responses, then the responses with each element's columns scaled
    stack = [resp]
    for bi in problem.blocks:
        widened = resp.copy()
        widened[:, :, bi.w] *= 1.0 + h
        stack.append(widened)
    mus = mussv(np.concatenate(stack), problem.blk, lower=False).upper.reshape(len(stack), -1)
    peaks = mus.max(axis=1)
    return {
        bi.name: float((1.0 - peaks[0] / p) / h) if p > 0 else 0.0
        for bi, p in zip(problem.blocks, peaks[1:], strict=True)
    }


__all__ = ["robstab", "RobstabResult"]
