"""Branch and bound over the parameter box for the worst-case gain and its margin.

:func:`.worst_case_gain.wcgain` and :func:`.robust_gain.robgain` first bound the
whole box at once (one D,G upper bound of mu), which can be loose, or even certify no
finite level, for real parameters.  When every element is a real parameter, the helpers
here split the box (:func:`.branch_and_bound.certify_scaled_box`): a level of peak gain
(or a scaling of the box) is certified on each sub-box, and sub-box centres give
realised gains (or realised witnesses) that move the target.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from .boundary_crossing import ill_posed_scales
from .branch_and_bound import certify_scaled_box
from .freqresp import freqresp
from .norms import hinfnorm
from .uncertain_problem import box_vertices


def _peak_of(problem, values, omega=None):
    """Peak gain of the substituted system: over all frequencies, or over ``omega``."""
    sys = problem.model.usubs(values)
    if omega is None:
        gain, freq = hinfnorm(sys)
        if np.isinf(gain) and not np.isfinite(freq) and np.asarray(sys.A).size:
            # unstable: the frequency of the pole furthest beyond the boundary
            ev = np.linalg.eigvals(np.asarray(sys.A))
            if problem.dt:
                k = int(np.argmax(np.abs(ev)))
                freq = float(abs(np.angle(ev[k])) / problem.dt)
            else:
                freq = float(abs(ev[int(np.argmax(ev.real))].imag))
        return gain, freq
    gains = np.linalg.norm(freqresp(sys, omega), 2, axis=(-2, -1))
    k = int(np.argmax(gains))
    return float(gains[k]), float(omega[k])


def _box_options(gap_tol, max_boxes, what):
    """Check the branch-and-bound options shared by :func:`wcgain` and :func:`robgain`."""
    if not (
        isinstance(gap_tol, (int, float, np.number))
        and not isinstance(gap_tol, bool)
        and np.isfinite(gap_tol)
        and gap_tol >= 0
    ):
        raise ArgumentError(f"{what}: gap_tol must be a finite number >= 0, got {gap_tol!r}")
    if isinstance(max_boxes, bool) or not isinstance(max_boxes, (int, np.integer)) or max_boxes < 0:
        raise ArgumentError(f"{what}: max_boxes must be an integer >= 0, got {max_boxes!r}")
    return float(gap_tol), int(max_boxes)


def _real_blocks(problem):
    """The real parameters the box is split along, or None when it cannot be split
    (complex coefficients, or elements other than real parameters)."""
    if problem.is_complex or not problem.blocks:
        return None
    if not all(bi.kind == "real" for bi in problem.blocks):
        return None
    return list(problem.blocks)


def _point_values(problem, scal, point):
    """Physical values of a normalised point of the box (one value per real element)."""
    return {
        bi.name: bi.element.denormalize(float(x)).item() for bi, x in zip(scal, point, strict=True)
    }


def _split_option(initial_split, problem, what, max_boxes):
    """Check ``initial_split`` (``{element name: pieces}``); pieces per element of
    ``problem.blocks`` (None when not given).  Only real parameters are split, and the
    sub-boxes must fit in ``max_boxes`` (each costs at least one counted sweep)."""
    if initial_split is None:
        return None
    if not isinstance(initial_split, dict):
        raise ArgumentError(
            f"{what}: initial_split must be a dict {{element name: pieces}}, "
            f"got {type(initial_split).__name__}"
        )
    names = [bi.name for bi in problem.blocks]
    pieces = np.ones(len(names), int)
    for name, n in initial_split.items():
        if name not in names:
            raise ArgumentError(
                f"{what}: initial_split[{name!r}]: no uncertain element {name!r} "
                f"(elements: {', '.join(names)})"
            )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ArgumentError(
                f"{what}: initial_split[{name!r}] must be an integer >= 1, got {n!r}"
            )
        block = problem.blocks[names.index(name)]
        if block.kind != "real":
            raise ArgumentError(
                f"{what}: initial_split[{name!r}]: {name!r} is not a real parameter "
                "(only real parameters are split)"
            )
        pieces[names.index(name)] = int(n)
    total = int(np.prod(pieces, dtype=float))
    if total > max_boxes:
        raise ArgumentError(
            f"{what}: initial_split makes {total} sub-boxes, more than max_boxes={max_boxes} "
            "(each sub-box needs at least one sweep)"
        )
    return pieces


def _gain_boxes(problem, scal, lower, level, gap_tol, max_boxes, executor, hint=None, split=None):
    """Branch and bound on the worst-case gain: certify ``lower * (1 + gap_tol)`` on every
    sub-box of the box, raising the level whenever a sub-box centre has a larger gain.

    ``lower = (gain, frequency, values)`` is a realised gain.  Returns the improved
    ``lower`` (the gain of the substituted system at the best centre, when larger) and
    the :class:`BoxCover`.
    """
    state = {"lower": lower}

    def verified(point):
        try:
            vals = _point_values(problem, scal, point)
            g, f = _peak_of(problem, vals)
        except ValueError:  # an ill-posed substitution: not a member of the set
            return None
        if g > state["lower"][0]:
            state["lower"] = (g, f, vals)
        return g

    def on_gain(point, gain):
        g = verified(point)
        if g is None:
            return None
        new = max(g, gain) * (1.0 + gap_tol)
        # never beyond the single-box certificate: that level already holds
        return min(new, level) if new < level else None

    cover = certify_scaled_box(
        problem,
        scal,
        1.0,
        max_boxes=max_boxes,
        executor=executor,
        gamma=lower[0] * (1.0 + gap_tol),
        on_gain=on_gain,
        hint=hint,
        split=split,
    )
    if cover.best_point is not None and cover.best_gain > state["lower"][0]:
        verified(cover.best_point)
    return state["lower"], cover


def _gain_cover_note(cover):
    """What the branch and bound over the parameter box did for a gain level."""
    if cover.certified:
        return (
            f"; branch and bound certified the level {cover.gamma:.6g} on the whole box "
            f"with {cover.boxes} sub-boxes ({cover.evaluated} swept)"
        )
    return (
        f"; branch and bound did not certify the level {cover.gamma:.6g} within "
        f"{cover.sweeps} ({100 * cover.coverage:.3g} % of the box "
        "certified), so upper stays the single-box certificate"
    )


def _ray_witness(problem, scal, point, gamma, iters=40):
    """Smallest scaling ``t <= max|point|`` found along ``point``'s direction whose
    substituted system has peak gain ``>= gamma`` (bisection on the actual peak gain),
    as ``(t, frequency, values)``; None when the point itself does not reach ``gamma``."""
    size = float(np.max(np.abs(point)))
    if size == 0:
        return None
    direction = np.asarray(point, float) / size

    def peak(t):
        try:
            return _peak_of(problem, _point_values(problem, scal, t * direction))
        except ValueError:  # an ill-posed substitution: not a member of the set
            return -np.inf, np.nan

    g_hi, f_hi = peak(size)
    if not g_hi >= gamma:
        return None
    t_hi, f_hi = first_reaching_scale(peak, gamma, size, f_hi, iters)
    return t_hi, f_hi, _point_values(problem, scal, t_hi * direction)


def first_reaching_scale(peak, gamma, t_hi, f_hi, iters):
    """Bisect ``[0, t_hi]`` (where ``peak(t_hi)`` reaches ``gamma`` at frequency ``f_hi``)
    for the smallest scaling whose peak gain reaches ``gamma``, to 1e-6 relative.

    Returns ``(t, frequency)`` with ``peak(t) >= gamma`` verified at the returned ``t``.

    Examples
    --------
    >>> t, _ = first_reaching_scale(lambda t: (2.0 * t + t * t, 1.0), 1.0, 4.0, 1.0, 60)
    >>> abs(t - (2**0.5 - 1)) <= 1e-6 * t  # the root of 2 t + t^2 = 1
    True
    """
    t_lo = 0.0
    for _ in range(iters):
        mid = 0.5 * (t_lo + t_hi)
        g, f = peak(mid)
        if g >= gamma:
            t_hi, f_hi = mid, f
        else:
            t_lo = mid
        if t_hi - t_lo <= 1e-6 * t_hi:
            break
    return t_hi, f_hi


def _margin_boxes(problem, scal, gamma, upper, gap_tol, max_boxes, executor):
    """Branch and bound on the robust performance margin: certify ``upper / (1 + gap_tol)``
    times the box (peak gain below ``gamma`` on every sub-box); a sub-box centre reaching
    ``gamma`` gives a witness along its direction, which lowers ``upper`` and the target.

    ``upper = (scaling, frequency, values)`` is realised.  Returns the improved ``upper``
    and the :class:`BoxCover`.
    """
    state = {"upper": upper}

    def on_unstable(point):
        got = _ray_witness(problem, scal, point, gamma)
        if got is None or not got[0] < state["upper"][0]:
            return None
        state["upper"] = got
        return got[0] / (1.0 + gap_tol)

    cover = certify_scaled_box(
        problem,
        scal,
        upper[0] / (1.0 + gap_tol),
        max_boxes=max_boxes,
        executor=executor,
        gamma=gamma,
        on_unstable=on_unstable,
    )
    return state["upper"], cover


# Pushes beyond an ill-posed point of the box tried for a realised unstable member.
_ILL_PUSHES = (1e-9, 1e-6, 1e-3)


def ill_posed_member(problem, n_random=40, seed=0):
    """A point of the box where the loop loses well-posedness, and an unstable one next to it.

    Along the box's corners (up to 10 real parameters), its axes and ``n_random``
    random directions (other elements at zero), the smallest scaling ``a <= 1`` where
    ``I - Dzw Delta`` is singular (:func:`.boundary_crossing.ill_posed_scales`,
    exact); the points just beyond the closest one (``a (1 + eta)``, still in the box)
    are substituted: a pole that came back unstable through infinity makes the gain
    infinite there.  A random sample of the box rarely lands in such a window.
    ``ill_posed_scales`` keeps only scalings where ``I - Dzw Delta`` is singular to
    rounding (:func:`.boundary_crossing.is_ill_posed`'s test), so a complex pair of
    eigenvalues that only comes near 1 is never reported as an ill-posed point.

    Parameters
    ----------
    problem : UncertainProblem
        From :func:`~.uncertain_problem.uncertain_problem`; only its real parameters
        are varied (complex elements at their nominal, LTI ones at zero).
    n_random : int
        Number of random directions tried besides the axes and corners.
    seed : int
        Seed of the random directions (the result is reproducible).

    Returns
    -------
    None (no ill-posed point found in the box), or ``(gain, frequency, values,
    ill_values)``: ``gain`` is ``inf`` at an unstable member ``values``, else ``None``
    (only the ill-posed point ``ill_values`` was found).

    Examples
    --------
    ``1 + G K`` with ``G(inf) = -1`` and ``K = 5 c - 5 c^2`` is ill-posed at
    ``c = (5 - sqrt 5)/10`` and unstable just beyond:

    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> s = control.tf("s")
    >>> c = rmb.ureal("c", 0.2, range=(-0.5, 0.9))
    >>> loop = rmb.feedback(-(s + 0.5) / (s + 1) * (5 * c - 5 * c * c), 1.0)
    >>> gain, freq, values, ill = ill_posed_member(uncertain_problem(loop))
    >>> gain, round(ill["c"], 9)
    (inf, 0.276393202)
    """
    scal = [bi for bi in problem.blocks if bi.kind == "real"]
    dzw = problem.m11[3]
    if not scal or dzw.shape[0] != dzw.shape[1] or not np.any(dzw):
        return None
    k = len(scal)
    dirs = [np.eye(k), -np.eye(k), np.random.default_rng(seed).uniform(-1, 1, (n_random, k))]
    if k <= 10:
        dirs.append(box_vertices(k))
    dirs = np.concatenate(dirs)
    dirs = dirs / np.max(np.abs(dirs), axis=1, keepdims=True)
    diags = np.zeros((len(dirs), problem.nw))
    for j, bi in enumerate(scal):
        diags[:, bi.w] = dirs[:, j : j + 1]
    scales = ill_posed_scales(dzw, diags)
    i = int(np.argmin(scales))
    if not scales[i] <= 1.0:
        return None
    fixed = {
        bi.name: (bi.element.nominal if bi.kind == "complex" else np.zeros(bi.element.shape))
        for bi in problem.blocks
        if bi.kind != "real"
    }
    ill = _point_values(problem, scal, scales[i] * dirs[i]) | fixed
    for eta in _ILL_PUSHES:
        t = scales[i] * (1.0 + eta)
        if t > 1.0:
            break
        vals = _point_values(problem, scal, t * dirs[i]) | fixed
        try:
            gain, freq = _peak_of(problem, vals)
        except ValueError:
            continue
        if np.isinf(gain):
            return gain, freq, vals, ill
    return None, np.nan, None, ill
