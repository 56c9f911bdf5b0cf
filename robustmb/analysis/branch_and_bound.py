"""Branch and bound over the box of real parameters: certified stability of a scaled box.

A single D,G upper bound of real mu over the whole box can be well above the true peak
(the bound is exact only for complex perturbations).  Splitting the box tightens it:
on a sub-box ``c + diag(r) [-1, 1]^k`` the constant part ``c`` is closed into the loop
once (the LFT is *re-centred*), the remaining perturbation is scaled by ``r``, and a
fixed-level sweep certifies ``sup_w mu < 1`` for the re-centred ``M`` -- with a stable
centre, every parameter value of the sub-box is then stable.  A sub-box that fails is
split in two along the element that weighs most in ``M`` at the frequency where the
sweep failed; a sub-box whose centre is unstable is a destabilising point, which
lowers the target scaling (every box is clipped to the smaller target box and the
certified ones stay certified: a part of a certified box is certified).

Re-centring (``Delta = Dc + Dr Delta'``, ``E = I - Dzw Dc``)::

    A'   = A + Bw Dc E^-1 Cz        Bw'  = Bw (I - Dc Dzw)^-1 Dr
    Cz'  = E^-1 Cz                  Dzw' = E^-1 Dzw Dr
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .freqresp import freqresp
from .mu_sweep import certified_mu_peak
from .mussv import mussv_stack
from .uncertain_problem import is_stable

# Level certified on a sub-box: strictly below 1 (mu < 1 on the whole axis).
_BOX_LEVEL = 1.0 / (1.0 + 1e-6)
# Refinement rounds of a sub-box sweep: a box whose mu peak nearly touches the level
# needs ever more frequencies (over a thousand); splitting it is cheaper.
_BOX_ROUNDS = 4


@dataclass
class BoxCover:
    """How a branch and bound over the parameter box ended.

    Attributes
    ----------
    target : float
        Scaling of the normalised box that was to be certified (the last one tried).
    certified : bool
        Whether every sub-box of ``target`` times the box was certified stable.
    boxes : int
        Sub-boxes certified (their union is the target box when ``certified``).
    evaluated : int
        Sub-box sweeps run (certified or not).
    coverage : float
        Fraction of the target box's volume covered by certified sub-boxes.
    destabilizing : ndarray or None
        Normalised parameter values (one per real element) of the best unstable
        sub-box centre found, if any.
    """

    target: float
    certified: bool
    boxes: int
    evaluated: int
    coverage: float
    destabilizing: np.ndarray | None = None


def _channel_matrix(problem, scal):
    """``(nw, k)`` 0/1 matrix sending the values of the ``k`` elements to Delta's diagonal."""
    s = np.zeros((problem.nw, len(scal)))
    for j, bi in enumerate(scal):
        s[bi.w, j] = 1.0
    return s


def recentre(m11, centre_diag, radius_diag):
    """LFT data for ``Delta = diag(centre_diag) + diag(radius_diag) Delta'``.

    Returns ``(A', Bw', Cz', Dzw')`` of the loop with the constant part closed, or None
    when ``I - Dzw diag(centre_diag)`` is singular (the centre is not well-posed).

    Examples
    --------
    >>> import numpy as np
    >>> m11 = (np.array([[-1.0]]), np.array([[1.0]]), np.array([[1.0]]), np.zeros((1, 1)))
    >>> a, b, c, d = recentre(m11, np.array([0.5]), np.array([0.25]))
    >>> float(a[0, 0]), float(b[0, 0]), float(c[0, 0])
    (-0.5, 0.25, 1.0)
    """
    a, bw, cz, dzw = m11
    nz = dzw.shape[0]
    e = np.eye(nz) - dzw * centre_diag[None, :]
    try:
        ez = np.linalg.solve(e, np.hstack([cz, dzw]))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(ez)):
        return None
    cz2, dzw_e = ez[:, : cz.shape[1]], ez[:, cz.shape[1] :]
    a2 = a + (bw * centre_diag[None, :]) @ cz2
    # Bw (I + Dc E^-1 Dzw) Dr = Bw (I - Dc Dzw)^-1 Dr
    bw2 = (bw + (bw * centre_diag[None, :]) @ dzw_e) * radius_diag[None, :]
    return a2, bw2, cz2, dzw_e * radius_diag[None, :]


def _certify_box(m11, blk, dt, centre_diag, radius_diag, hint=None):
    """Certify one sub-box: ``("stable", None)``, ``("unstable", None)`` (its centre is
    unstable or ill-posed) or ``("open", w)`` with the frequency where the sweep failed.

    ``hint``: a frequency where the parent box failed; a bound above the level there
    fails the box at once (a whole sweep that fails costs far more).
    Module-level (picklable) so that an executor can run it in another process.
    """
    sub = recentre(m11, centre_diag, radius_diag)
    if sub is None or not is_stable(sub[0], dt):
        return "unstable", None
    if hint is not None and np.isfinite(hint):
        a, b, c, d = sub
        resp = freqresp((a, b, c, d, dt) if dt else (a, b, c, d), np.array([hint]))
        if mussv_stack(resp, blk, lower=False).upper[0] > _BOX_LEVEL:
            return "open", float(hint)
    peak = certified_mu_peak(sub, blk, dt, level=_BOX_LEVEL, lower=False, max_rounds=_BOX_ROUNDS)
    if peak.covered:
        return "stable", None
    k = int(np.argmax(peak.mu_upper)) if len(peak.mu_upper) else 0
    return "open", float(peak.omega[k]) if len(peak.omega) else 0.0


def _split_axis(m11, dt, centre_diag, radius_diag, w, chan, widths):
    """Element to split: largest ``|column| * |row|`` of the re-centred ``M`` at ``w``,
    among the elements not already far narrower than the widest."""
    sub = recentre(m11, centre_diag, radius_diag)
    score = widths.copy()
    if sub is not None and w is not None and np.isfinite(w):
        a, b, c, d = sub
        m = freqresp((a, b, c, d, dt) if dt else (a, b, c, d), np.array([w]))[0]
        col = np.linalg.norm(m, axis=0) ** 2 @ chan
        row = np.linalg.norm(m, axis=1) ** 2 @ chan
        score = np.sqrt(col * row) + 1e-12 * widths
    score = np.where(widths >= 0.25 * widths.max(), score, -np.inf)
    return int(np.argmax(score))


def certify_scaled_box(problem, scal, target, *, max_boxes=64, executor=None, on_unstable=None):
    """Branch and bound: certify that ``target`` times the normalised box is stable.

    Parameters
    ----------
    problem : UncertainProblem
        Real-coefficient problem whose elements ``scal`` are real scalars (other
        elements are not allowed).
    scal : list of BlockInfo
    target : float
        Scaling of the box ``[-1, 1]^k`` to certify.
    max_boxes : int
        Budget of sub-box sweeps.
    executor : concurrent.futures.Executor, optional
        Certifies the sub-boxes of each generation in parallel (``executor.map``).
    on_unstable : callable, optional
        ``on_unstable(point) -> new_target``: called with the normalised values of an
        unstable sub-box centre (inside the target box); returns the smaller target
        to continue with (at most ``max|point|``), or None to stop.

    Returns
    -------
    BoxCover

    Examples
    --------
    ``1 / (s^2 + c s + 1)`` with ``c`` in ``[0, 2]`` is stable iff ``c > 0``: the margin
    (scaling of the box about ``c = 1``) is exactly 1.

    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> s = control.tf("s")
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> problem = uncertain_problem(1 / (s * s + c * s + 1))
    >>> cover = certify_scaled_box(problem, problem.blocks, 0.9)
    >>> cover.certified, cover.coverage
    (True, 1.0)
    >>> certify_scaled_box(problem, problem.blocks, 1.1).certified
    False
    """
    k = len(scal)
    chan = _channel_matrix(problem, scal)
    m11, blk, dt = problem.m11, problem.blk, problem.dt
    lo0, hi0 = -target * np.ones(k), target * np.ones(k)
    queue = [(lo0, hi0, None)]
    done: list = []
    evaluated = 0
    worst = None
    while queue and evaluated < max_boxes:
        batch, queue = queue[: max_boxes - evaluated], queue[max_boxes - evaluated :]
        args = [
            (m11, blk, dt, chan @ (0.5 * (lo + hi)), chan @ (0.5 * (hi - lo)), hint)
            for lo, hi, hint in batch
        ]
        mapper = executor.map if executor is not None else map
        results = list(mapper(_certify_box, *zip(*args, strict=True)))
        evaluated += len(batch)
        shrink = None
        for (lo, hi, _), (status, w), arg in zip(batch, results, args, strict=True):
            if status == "stable":
                done.append((lo, hi))
            elif status == "unstable":
                point = 0.5 * (lo + hi)
                if shrink is None or np.max(np.abs(point)) < np.max(np.abs(shrink)):
                    shrink = point
                queue.append((lo, hi, None))
            else:
                widths = hi - lo
                j = _split_axis(m11, dt, arg[3], arg[4], w, chan, widths)
                mid = 0.5 * (lo[j] + hi[j])
                left_hi, right_lo = hi.copy(), lo.copy()
                left_hi[j], right_lo[j] = mid, mid
                queue.extend([(lo, left_hi, w), (right_lo, hi, w)])
        if shrink is not None:
            worst = shrink
            new = on_unstable(shrink) if on_unstable is not None else None
            if new is None or not new < target:
                return _cover(target, done, queue, evaluated, worst, certified=False)
            target = float(new)
            done = _clip(done, target)
            queue = _clip(queue, target)
    return _cover(target, done, queue, evaluated, worst, certified=not queue)


def _clip(boxes, target):
    """The parts of ``boxes`` inside ``[-target, target]^k`` (empty ones dropped)."""
    out = []
    for lo, hi, *rest in boxes:
        lo2, hi2 = np.maximum(lo, -target), np.minimum(hi, target)
        if np.all(hi2 > lo2):
            out.append((lo2, hi2, *rest))
    return out


def _cover(target, done, queue, evaluated, worst, *, certified):
    # the certified boxes are disjoint pieces of the target box: their volumes add up
    coverage = min(1.0, sum(float(np.prod((hi - lo) / (2 * target))) for lo, hi in done))
    # a certificate claims the whole target box: never without its whole volume
    # (midpoint splits and clipping are exact up to rounding of the volume sum)
    return BoxCover(
        target=float(target),
        certified=bool(certified) and coverage >= 1.0 - 1e-12,
        boxes=len(done),
        evaluated=evaluated,
        coverage=coverage,
        destabilizing=worst,
    )


__all__ = ["BoxCover", "certify_scaled_box", "recentre"]
