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

import itertools
from dataclasses import dataclass

import numpy as np

from .freqresp import freqresp
from .mu_sweep import certified_mu_peak
from .mussv import mussv_stack
from .norms import hinfnorm
from .uncertain_problem import is_stable

# Level certified on a sub-box: strictly below 1 (mu < 1 on the whole axis).
_BOX_LEVEL = 1.0 / (1.0 + 1e-6)
# Refinement rounds of a sub-box sweep: a box whose mu peak nearly touches the level
# needs ever more frequencies (over a thousand); splitting it is cheaper.
_BOX_ROUNDS = 4
# A stability sub-box sweep whose uncovered gaps double in two rounds in a row (to 20
# or more) is given up and the box split: its level is nearly reached, and the next
# rounds would cost most of the sweep (pole-escape loop: 5 -> 18 -> 54 -> 93 -> 307
# gaps, 36 s; 7 -> 28 -> 67 -> 149 -> 331, 29 s).
_BOX_GIVE_UP = 2.0
# Relative frequencies probed around a parent box's failing frequency.
_HINT_SPREAD = np.array([1.0, 0.9, 1.1, 0.8, 1.25])
# Sub-boxes failed by that probe cost one small mu evaluation, not a sweep, so they are
# not counted in ``max_boxes``; all sub-boxes examined are capped at this multiple of it.
_PROBE_ALLOWANCE = 4


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
        Sub-box sweeps run (certified or not): the budget ``max_boxes`` counts these.
    coverage : float
        Fraction of the target box's volume covered by certified sub-boxes.
    destabilizing : ndarray or None
        Normalised parameter values (one per real element) of the best unstable
        sub-box centre found, if any.
    gamma : float or None
        Peak-gain level certified on the sub-boxes (robust performance), if any.
    best_gain, best_point : float or None, ndarray or None
        With ``gamma``: the largest peak gain of a stable sub-box centre and that
        centre (normalised values).
    probed : int
        Sub-boxes failed by the probe at their parent's failing frequency before any
        sweep (split at once; not counted in ``evaluated``).
    """

    target: float
    certified: bool
    boxes: int
    evaluated: int
    coverage: float
    destabilizing: np.ndarray | None = None
    gamma: float | None = None
    best_gain: float | None = None
    best_point: np.ndarray | None = None
    probed: int = 0

    @property
    def sweeps(self):
        """``"N sub-box sweeps"``, with the probe rejections when there were any.

        Examples
        --------
        >>> BoxCover(1.0, False, 2, 16, 0.5, probed=3).sweeps
        '16 sub-box sweeps (and 3 sub-boxes rejected by a probe)'
        """
        text = f"{self.evaluated} sub-box sweeps"
        if self.probed:
            text += f" (and {self.probed} sub-boxes rejected by a probe)"
        return text

    def margin_note(self):
        """What the branch and bound did for a margin, as a clause of a result's reason.

        Examples
        --------
        >>> cover = BoxCover(target=0.9, certified=False, boxes=3, evaluated=16, coverage=0.75)
        >>> cover.margin_note().endswith("within 16 sub-box sweeps (75 % of it certified)")
        True
        """
        if self.certified:
            return (
                f"; branch and bound certified {self.target:.6g} times the box with "
                f"{self.boxes} sub-boxes ({self.evaluated} swept)"
            )
        return (
            f"; branch and bound did not certify {self.target:.6g} times the box within "
            f"{self.sweeps} ({100 * self.coverage:.3g} % of it certified)"
        )


def channel_matrix(problem, scal=None):
    """``(nw, k)`` 0/1 matrix sending the values of the ``k`` elements ``scal`` (default:
    ``problem.blocks``) to Delta's diagonal, each element to its repeated channels.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> s = control.tf("s")
    >>> channel_matrix(uncertain_problem(1 / (s * s + c * s + 1))).tolist()
    [[1.0]]
    """
    scal = problem.blocks if scal is None else scal
    s = np.zeros((problem.nw, len(scal)))
    for j, bi in enumerate(scal):
        s[bi.w, j] = 1.0
    return s


def recentre_system(sysdata, nw, nz, centre_diag, radius_diag):
    """Re-centre the whole ``M`` (uncertainty channels first, then performance channels).

    ``Delta = diag(centre_diag) + diag(radius_diag) Delta'`` on the first ``nw`` inputs /
    ``nz`` outputs; the constant part is closed into the loop::

        [A B; C D]' = [A B; C D] + [Bw; Dw] Dc E^-1 [Cz Dz],   E = I - Dzw Dc

    and the uncertainty inputs are scaled by ``Dr`` (``Bw``, ``Dw`` the uncertainty
    columns of ``B``, ``D``; ``Cz``, ``Dz`` the uncertainty rows of ``C``, ``D``).  The
    performance channels of the result at ``Delta' = 0`` are the closed loop at the
    centre.  Returns None when ``E`` is singular (the centre is not well-posed).

    Examples
    --------
    >>> import numpy as np
    >>> m = (np.array([[-1.0]]), np.array([[1.0, 1.0]]), np.array([[1.0], [1.0]]),
    ...      np.zeros((2, 2)))
    >>> a, b, c, d = recentre_system(m, 1, 1, np.array([0.5]), np.array([0.25]))
    >>> float(a[0, 0]), b.tolist(), c.ravel().tolist()
    (-0.5, [[0.25, 1.0]], [1.0, 1.0])
    """
    a, b, c, d = sysdata
    n = a.shape[0]
    e = np.eye(nz) - d[:nz, :nw] * centre_diag[None, :]
    try:
        ez = np.linalg.solve(e, np.hstack([c[:nz], d[:nz]]))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(ez)):
        return None
    k = centre_diag[:, None] * ez  # Dc E^-1 [Cz Dz]
    a2 = a + b[:, :nw] @ k[:, :n]
    b2 = b + b[:, :nw] @ k[:, n:]
    c2 = c + d[:, :nw] @ k[:, :n]
    d2 = d + d[:, :nw] @ k[:, n:]
    b2[:, :nw] *= radius_diag[None, :]
    d2[:, :nw] *= radius_diag[None, :]
    return a2, b2, c2, d2


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
    nz, nw = m11[3].shape
    return recentre_system(m11, nw, nz, centre_diag, radius_diag)


def _data(sub, dt):
    return (*sub, dt) if dt else sub


def _certify_box(sysdata, blk, dt, centre_diag, radius_diag, hint=None, gamma=None):
    """Certify one sub-box: ``(status, w, gain)``.

    ``status`` is ``"stable"``, ``"unstable"`` (the centre is unstable or ill-posed, or
    with ``gamma`` its gain reaches ``gamma``), ``"open"`` with ``w`` the frequency
    where the sweep failed, or ``"probed"`` (open too) when the probe at ``hint`` failed
    it before any sweep.  Without ``gamma`` (stability) ``sysdata`` is ``M11``; with
    it, the whole ``M`` (``blk`` then ends with the performance block), ``"stable"``
    certifies a peak gain below ``gamma`` on the sub-box and ``gain`` is the peak gain
    of the closed loop at the centre (a lower bound of the worst case).

    ``hint``: a frequency where the parent box failed; a bound above the level there
    fails the box at once (a whole sweep that fails costs far more).
    Module-level (picklable) so that an executor can run it in another process.
    """
    nw = len(centre_diag)
    nz = sysdata[2].shape[0] if gamma is None else _nz(blk)
    sub = recentre_system(sysdata, nw, nz, centre_diag, radius_diag)
    if sub is None or not is_stable(sub[0], dt):
        return "unstable", None, np.inf
    gain = None
    if gamma is not None:
        a, b, c, d = sub
        gain = float(hinfnorm(_data((a, b[:, nw:], c[nz:], d[nz:, nw:]), dt))[0])
        if not gain < gamma:
            return "unstable", None, gain
        c, d = c.copy(), d.copy()
        c[nz:] /= gamma
        d[nz:] /= gamma
        sub = (a, b, c, d)
    if hint is not None and np.isfinite(hint):
        # the peak of a child box is usually near its parent's: probe a few frequencies
        # around the hint in one batch before a whole sweep
        probe = hint * _HINT_SPREAD if hint > 0 else np.array([hint])
        if dt:
            probe = probe[probe < np.pi / dt]
        response = freqresp(_data(sub, dt), probe)
        unbounded = ~np.isfinite(response).reshape(len(probe), -1).all(axis=1)
        if unbounded.any():
            # a pole of the sub-box centre within rounding of the boundary: M is unbounded
            # there, so no bound at the level holds at that frequency
            return "probed", float(probe[int(np.argmax(unbounded))]), gain
        # each bound may stop once at or below the level: the test is unchanged
        ub = mussv_stack(response, blk, lower=False, target=_BOX_LEVEL).upper
        if np.max(ub) > _BOX_LEVEL:
            return "probed", float(probe[int(np.argmax(ub))]), gain
    peak = certified_mu_peak(
        sub,
        blk,
        dt,
        level=_BOX_LEVEL,
        lower=False,
        max_rounds=_BOX_ROUNDS,
        relax=False,
        give_up=_BOX_GIVE_UP if gamma is None else None,
    )
    if peak.covered:
        return "stable", None, gain
    k = int(np.argmax(peak.mu_upper)) if len(peak.mu_upper) else 0
    return "open", float(peak.omega[k]) if len(peak.omega) else 0.0, gain


def _nz(blk):
    """Rows of ``Delta``'s channels in a structure without its last (performance) block."""
    return sum(abs(r) if c == 0 else c for r, c in blk[:-1])


def _split_axis(sysdata, dt, centre_diag, radius_diag, w, chan, widths, nz, gamma):
    """Element to split: largest ``|column| * |row|`` of the re-centred ``M`` at ``w``
    (its uncertainty channels), among the elements not already far narrower than the
    widest."""
    nw = len(centre_diag)
    sub = recentre_system(sysdata, nw, nz, centre_diag, radius_diag)
    score = widths.copy()
    if sub is not None and w is not None and np.isfinite(w):
        a, b, c, d = sub
        if gamma is not None:
            c, d = c.copy(), d.copy()
            c[nz:] /= gamma
            d[nz:] /= gamma
        m = freqresp(_data((a, b, c, d), dt), np.array([w]))[0]
        col = np.linalg.norm(m[:, :nw], axis=0) ** 2 @ chan
        row = np.linalg.norm(m[:nz], axis=1) ** 2 @ chan
        score = np.sqrt(col * row) + 1e-12 * widths
    score = np.where(widths >= 0.25 * widths.max(), score, -np.inf)
    return int(np.argmax(score))


def certify_scaled_box(
    problem,
    scal,
    target,
    *,
    max_boxes=64,
    executor=None,
    on_unstable=None,
    gamma=None,
    on_gain=None,
    hint=None,
    split=None,
):
    """Branch and bound: certify that ``target`` times the normalised box is stable
    (and, with ``gamma``, that the peak gain stays below ``gamma`` on it).

    Parameters
    ----------
    problem : UncertainProblem
        Real-coefficient problem whose elements ``scal`` are real scalars (other
        elements are not allowed).
    scal : list of BlockInfo
    target : float
        Scaling of the box ``[-1, 1]^k`` to certify.
    max_boxes : int
        Budget of sub-box sweeps.  Sub-boxes failed by the cheap probe at their
        parent's failing frequency are not counted (see ``BoxCover.probed``); at most
        ``4 * max_boxes`` sub-boxes are examined in all.
    executor : concurrent.futures.Executor, optional
        Certifies the sub-boxes of each generation in parallel (``executor.map``).
    on_unstable : callable, optional
        ``on_unstable(point) -> new_target``: called with the normalised values of an
        unstable sub-box centre (with ``gamma``: one whose peak gain reaches
        ``gamma``) inside the target box; returns the smaller target to continue
        with (at most ``max|point|``), or None to stop.
    gamma : float, optional
        Peak gain of the performance channels to certify on every sub-box (robust
        performance, the main loop theorem with a full performance block).
    on_gain : callable, optional
        With ``gamma``: ``on_gain(point, gain) -> new_gamma`` is called first for a
        stable sub-box centre whose peak gain reaches ``gamma``; it returns a larger
        level to continue with (boxes certified below the old level stay certified),
        or None to fall back to ``on_unstable``.
    hint : float, optional
        A frequency where the whole box is expected to fail (the peak of a single-box
        sweep): probed before the first whole sweep, which it usually saves.
    split : sequence of int, optional
        Pieces per element (``k`` positive integers): the branch and bound starts from
        the grid of equal sub-boxes they cut the target box into instead of the whole
        box (e.g. along elements known to make the single-box bound loose).  These
        sub-boxes count in ``max_boxes`` as any other.

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
    chan = channel_matrix(problem, scal)
    dt = problem.dt
    if gamma is None:
        sysdata, blk, nz = problem.m11, problem.blk, problem.nz
    else:
        ny, nu = problem.model.shape
        sysdata, blk, nz = (
            (problem.a, problem.b, problem.c, problem.d),
            [
                *problem.blk,
                (nu, ny),
            ],
            problem.nz,
        )
    queue = [
        (lo, hi, hint)
        for lo, hi in _grid_boxes(target, np.ones(k, int) if split is None else split)
    ]
    done: list = []
    evaluated = probed = 0
    worst = None
    best_gain, best_point = -np.inf, None

    def room():
        return min(max_boxes - evaluated, _PROBE_ALLOWANCE * max_boxes - evaluated - probed)

    while queue and room() > 0:
        batch, queue = queue[: room()], queue[room() :]
        args = [
            (sysdata, blk, dt, chan @ (0.5 * (lo + hi)), chan @ (0.5 * (hi - lo)), hint, gamma)
            for lo, hi, hint in batch
        ]
        mapper = executor.map if executor is not None else map
        results = list(mapper(_certify_box, *zip(*args, strict=True)))
        n_probed = sum(r[0] == "probed" for r in results)
        evaluated += len(batch) - n_probed
        probed += n_probed
        shrink, raised = None, None
        for (lo, hi, _), (status, w, gain), arg in zip(batch, results, args, strict=True):
            point = 0.5 * (lo + hi)
            if gain is not None and np.isfinite(gain) and gain > best_gain:
                best_gain, best_point = gain, point
            if status == "stable":
                done.append((lo, hi))
            elif status == "unstable":
                new = None
                if on_gain is not None and gain is not None and np.isfinite(gain):
                    new = on_gain(point, gain)
                if new is not None and new > gamma:
                    raised = new if raised is None else max(raised, new)
                elif shrink is None or np.max(np.abs(point)) < np.max(np.abs(shrink)):
                    shrink = point
                queue.append((lo, hi, None))
            else:
                widths = hi - lo
                j = _split_axis(sysdata, dt, arg[3], arg[4], w, chan, widths, nz, gamma)
                mid = 0.5 * (lo[j] + hi[j])
                left_hi, right_lo = hi.copy(), lo.copy()
                left_hi[j], right_lo[j] = mid, mid
                queue.extend([(lo, left_hi, w), (right_lo, hi, w)])
        if raised is not None:
            gamma = float(raised)
        if shrink is not None:
            worst = shrink
            new = on_unstable(shrink) if on_unstable is not None else None
            if new is None or not new < target:
                return _cover(
                    target,
                    done,
                    queue,
                    evaluated,
                    worst,
                    certified=False,
                    gamma=gamma,
                    best=(best_gain, best_point),
                    probed=probed,
                )
            target = float(new)
            done = _clip(done, target)
            queue = _clip(queue, target)
    return _cover(
        target,
        done,
        queue,
        evaluated,
        worst,
        certified=not queue,
        gamma=gamma,
        best=(best_gain, best_point),
        probed=probed,
    )


def _grid_boxes(target, pieces):
    """``(lo, hi)`` of the equal sub-boxes cutting ``[-target, target]^k`` into
    ``pieces[j]`` along element ``j`` (the whole box for all ones).

    Examples
    --------
    >>> [(lo.tolist(), hi.tolist()) for lo, hi in _grid_boxes(1.0, [2, 1])]
    [([-1.0, -1.0], [0.0, 1.0]), ([0.0, -1.0], [1.0, 1.0])]
    """
    edges = [np.linspace(-target, target, int(n) + 1) for n in pieces]
    out = []
    for idx in itertools.product(*(range(int(n)) for n in pieces)):
        lo = np.array([e[i] for e, i in zip(edges, idx, strict=True)])
        hi = np.array([e[i + 1] for e, i in zip(edges, idx, strict=True)])
        out.append((lo, hi))
    return out


def _clip(boxes, target):
    """The parts of ``boxes`` inside ``[-target, target]^k`` (empty ones dropped)."""
    out = []
    for lo, hi, *rest in boxes:
        lo2, hi2 = np.maximum(lo, -target), np.minimum(hi, target)
        if np.all(hi2 > lo2):
            out.append((lo2, hi2, *rest))
    return out


def _cover(target, done, queue, evaluated, worst, *, certified, gamma=None, best=None, probed=0):
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
        gamma=None if gamma is None else float(gamma),
        best_gain=None if best is None or best[1] is None else float(best[0]),
        best_point=None if best is None else best[1],
        probed=probed,
    )


__all__ = ["BoxCover", "certify_scaled_box", "recentre", "recentre_system"]
