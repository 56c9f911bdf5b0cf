"""Worst case of a goal over the box of real parameters: grid scan and local ascent.

The goal's transfer is a function of the normalised real parameters through its LFT
(:class:`_DeltaMap`); the search scans the centre, a grid (or the vertices) and random
points of the box, keeps the unstable or violating points apart from each other, and
refines the best by projected quasi-Newton ascent with the exact gradient of the peak
gain.  The value found is a lower bound of the goal's worst value over the box (used by
:func:`robustmb.tuning.robust_tuning.robust_systune`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from ..errors import ArgumentError, UncertainTypeError
from ..lft.model import as_model
from .gradients import hinf_gradient
from .h2_gradient import h2_gradient
from .spectral_gradients import spectral_abscissa_gradient, spectral_radius_gradient
from .tuning_term import pole_requirement


# --------------------------------------------------------------------------- delta map
class _DeltaMap:
    """State-space data of a model as a function of its normalised real parameters.

    ``S(delta) = S0 + L Theta (I - Dzw Theta)^-1 R`` with ``Theta`` the diagonal of the
    normalised deltas (each repeated as in the LFT); the gradient of a function of
    ``S`` with gradient ``G`` is the diagonal of ``Bt^T G Ct^T`` summed per parameter.
    """

    def __init__(self, model, names):
        r = as_model(model)._real
        nw, nz, nx = r.nw, r.nz, r.nx
        self.nx = nx
        self.dt = 0.0 if model.dt in (None, 0) else float(model.dt)
        self.s0 = np.block([[r.a, r.b[:, nw:]], [r.c[nz:], r.d[nz:, nw:]]])
        self.left = np.vstack([r.b[:, :nw], r.d[nz:, :nw]])
        self.right = np.hstack([r.c[:nz], r.d[:nz, nw:]])
        self.dzw = r.d[:nz, :nw]
        index = {n: i for i, n in enumerate(names)}
        self.channel = np.zeros(nw, int)
        for name, el, _reps, ws, _ in r.block_slices():
            if el.kind != "real" or el.tunable:
                raise UncertainTypeError(f"robust tuning: '{name}' is not a real parameter")
            self.channel[ws] = index[name]
        self.scatter = np.zeros((nw, len(names)))
        self.scatter[np.arange(nw), self.channel] = 1.0

    def statespace(self, delta):
        th = delta[self.channel]
        loop = np.eye(self.dzw.shape[0]) - self.dzw * th[None, :]
        ct = np.linalg.solve(loop, self.right)
        s = self.s0 + (self.left * th[None, :]) @ ct
        n = self.nx
        return s[:n, :n], s[:n, n:], s[n:, :n], s[n:, n:]

    def chain(self, delta, gs):
        th = delta[self.channel]
        nw = th.size
        loop_t = np.eye(nw) - th[:, None] * self.dzw
        bt = np.linalg.solve(loop_t.T, self.left.T).T
        ct = np.linalg.solve(np.eye(nw) - self.dzw * th[None, :], self.right)
        diag = np.einsum("ai,ab,ib->i", bt, gs, ct)
        return diag @ self.scatter


def _measure(dm, delta, measure, scale, poles, gradient=False):
    """Goal value (and gradient w.r.t. the normalised deltas) at one point."""
    try:
        a, b, c, d = dm.statespace(delta)
    except np.linalg.LinAlgError:
        return np.inf, None
    if measure == "poles":
        v, ga = pole_requirement(a, *poles)
        gs = None
        if ga is not None and gradient:
            gs = np.zeros((a.shape[0] + c.shape[0], a.shape[0] + b.shape[1]))
            gs[: a.shape[0], : a.shape[0]] = ga
    elif measure == "h2":
        v, gs = h2_gradient(a, b, c, d, dm.dt)
    else:
        v, _, gs = hinf_gradient(a, b, c, d, dm.dt)
    if not np.isfinite(v):
        return np.inf, None
    g = dm.chain(delta, gs) * scale if gradient and gs is not None else None
    return float(v) * scale, g


def _abscissa(dm, delta):
    """Distance of the loop's poles past the stability boundary (>= 0: unstable)."""
    a = dm.statespace(delta)[0]
    if not a.size:
        return -np.inf
    lam = np.linalg.eigvals(a)
    # Discrete loops: spectral radius - 1, as the tuning problem's own stability test.
    return float(np.max(np.abs(lam) - 1.0 if dm.dt else lam.real))


def _abscissa_gradient(dm, delta):
    """:func:`_abscissa` and its gradient with respect to the normalised deltas."""
    a = dm.statespace(delta)[0]
    if not a.size:
        return -np.inf, np.zeros(delta.size)
    alpha, ga = (spectral_radius_gradient if dm.dt else spectral_abscissa_gradient)(a)
    n = a.shape[0]
    gs = np.zeros((dm.s0.shape[0], dm.s0.shape[1]))
    gs[:n, :n] = ga
    return float(alpha), dm.chain(delta, gs)


def _unstable_by_ascent(lm, pts, n_local, maxiter):
    """Points where the loop is unstable, found by ascending its spectral abscissa.

    The scan sees the loop only at its points: an instability between them (a pole
    crossing over a small region of the box) is found by local ascent of the abscissa
    from the least stable points scanned.  Returns the end points that are unstable.
    """
    alpha = np.array([_abscissa(lm, p) for p in pts])
    found = []
    for i in np.argsort(-alpha)[:n_local]:
        x = _local_ascent(lambda y: _abscissa_gradient(lm, y), pts[i], maxiter)
        if _abscissa(lm, x) >= 0:
            found.append(x)
    return found


# ------------------------------------------------------------------------- search
def _check_elements(elements, model, what):
    """Every real parameter of ``model`` is in ``elements``, with the same range."""
    for name, el in as_model(model).uncertainty.items():
        if name not in elements:
            raise ArgumentError(
                f"search_worst_case: elements lacks {name!r}, an uncertain element of the "
                f"{what} (elements has {sorted(elements)})"
            )
        given = elements[name]
        if el.kind == "real" and getattr(given, "kind", None) == "real":
            if tuple(map(float, given.range)) != tuple(map(float, el.range)):
                # the box would be normalised on one range and reported on another
                raise ArgumentError(
                    f"search_worst_case: elements[{name!r}] has the range {given.range}, the "
                    f"{what}'s {name!r} has {el.range}"
                )


def _check_extra(extra, names):
    """``extra`` as an ``(m, k)`` array of normalised points inside ``[-1, 1]^k``."""
    try:
        pts = np.atleast_2d(np.asarray(extra, float))
    except (TypeError, ValueError):
        raise ArgumentError(
            f"search_worst_case: extra must be normalised points (numbers), got {extra!r}"
        ) from None
    if pts.ndim != 2 or pts.shape[1] != len(names):
        raise ArgumentError(
            f"search_worst_case: extra points must have {len(names)} coordinates (one per "
            f"element of {names}), got shape {pts.shape}"
        )
    # a normalised point computed from a value in range may be one rounding step out
    out = ~(np.abs(pts) <= 1.0 + 1e-9)
    if out.any():
        i, j = np.argwhere(out)[0]
        raise ArgumentError(
            f"search_worst_case: extra[{i}] has {names[j]} at normalised {float(pts[i, j]):g}, "
            "outside the box [-1, 1] (the search covers the box only)"
        )
    return np.clip(pts, -1.0, 1.0)


@dataclass
class WorstCase:
    """Worst case of one goal found by the search (a lower bound of its worst value)."""

    value: float
    point: dict
    delta: np.ndarray
    evaluations: int = 0
    unstable: list = field(default_factory=list)  # further unstable points, worst first
    above: list = field(default_factory=list)  # further points above ``limit``, worst first


def _box_points(k, n_random, rng, max_vertices, levels=2):
    """Centre, the ``levels^k`` grid (vertices for 2) when small enough, random points."""
    pts = [np.zeros(k)]
    if k and levels**k > max_vertices:
        levels = 2  # the grid is too large: its vertices only
    if k and levels**k <= max_vertices:
        axis = np.linspace(-1.0, 1.0, levels)
        pts.extend(np.array(v, float) for v in itertools.product(axis, repeat=k))
    pts.extend(rng.uniform(-1.0, 1.0, (n_random, k)))
    return np.unique(np.array(pts), axis=0)


def _spread(order, pts, count, distance=0.5):
    """Up to ``count`` indices from ``order`` (best first), pairwise apart in max-norm.

    Keeps the added samples from clustering around one vertex: each is at least
    ``distance`` (in normalised units) from every one kept before it.
    """
    kept = []
    for i in order:
        if len(kept) >= count:
            break
        if all(np.max(np.abs(pts[i] - pts[j])) >= distance for j in kept):
            kept.append(int(i))
    return kept


def _local_ascent(fun, x0, maxiter):
    """Maximise ``fun`` over ``[-1, 1]^k`` from ``x0`` (L-BFGS-B on the negated value)."""

    def neg(x):
        v, g = fun(x)
        if not np.isfinite(v):
            return 1e300, np.zeros_like(x)
        return -v, -g if g is not None else np.zeros_like(x)

    res = minimize(
        neg,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(-1.0, 1.0)] * x0.size,
        options={"maxiter": maxiter},
    )
    return np.clip(res.x, -1.0, 1.0)


def search_worst_case(
    model,
    elements,
    measure="hinf",
    scale=1.0,
    poles=None,
    *,
    loop=None,
    n_random=64,
    n_local=3,
    seed=0,
    max_vertices=256,
    extra=(),
    local_maxiter=60,
    levels=2,
    limit=None,
    n_keep=4,
):
    """Worst value of a goal over the box of the real parameters (a lower bound).

    Parameters
    ----------
    model : UncertainSystem
        The goal's transfer with every tunable substituted; its uncertain elements must
        be real parameters listed in ``elements``.
    elements : dict
        ``{name: ureal}``: the box is the product of their ranges.  Every uncertain
        element of ``model`` (and ``loop``) must be there with the same range; further
        elements (which the transfer does not involve) are allowed.
    measure, scale, poles :
        The goal's measure (``"hinf"``, ``"h2"``, ``"poles"``) as returned by
        ``goal.model``.
    loop : UncertainSystem, optional
        The whole closed loop: a point where it is unstable has the value ``inf``.
    n_random : int
        Random points besides the centre and the vertices (all ``2^k`` when at most
        ``max_vertices``), ``>= 0``.
    n_local : int
        Local ascents from the best points; with ``loop``, when the loop is stable at
        every point scanned, as many ascents of its spectral abscissa from the least
        stable ones (an instability between the scanned points).
    extra : sequence of array_like
        Further normalised points to evaluate (for instance the active set): one
        coordinate per element, in ``[-1, 1]`` (a point outside the box raises
        ``ArgumentError`` naming the element).
    levels : int
        Points per axis of the grid scanned before the local ascents (``2``: the
        vertices; ``3`` adds the centres of the edges and faces), when the grid has at
        most ``max_vertices`` points.
    limit : float, optional
        Besides the worst case, keep up to ``n_keep`` further points whose value reaches
        ``limit`` (``WorstCase.above``), worst first and apart from each other; and up to
        ``n_keep`` unstable points (``WorstCase.unstable``), most unstable first.

    Returns
    -------
    WorstCase

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> s = control.tf("s")
    >>> G = rmb.uss(1 / (s + a))
    >>> wc = search_worst_case(G, {"a": a})
    >>> round(wc.value, 9), round(wc.point["a"], 9)
    (2.0, 0.5)
    """
    for name, v, least in (
        ("levels", levels, 2),
        ("n_random", n_random, 0),
        ("n_local", n_local, 0),
    ):
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | np.integer) or v < least:
            raise ArgumentError(
                f"search_worst_case: {name} must be an integer >= {least}, got {v!r}"
            )
    names = list(elements)
    els = [elements[n] for n in names]
    _check_elements(elements, model, "model")
    if loop is not None:
        _check_elements(elements, loop, "loop")
    rng = np.random.default_rng(seed)
    k = len(names)
    dm = _DeltaMap(model, names)
    lm = _DeltaMap(loop, names) if loop is not None else None
    pts = _box_points(k, n_random, rng, max_vertices, levels)
    if len(extra):
        pts = np.vstack([pts, _check_extra(extra, names)])
    count = 0
    others, above = [], []

    def value(x, gradient=False):
        nonlocal count
        count += 1
        if lm is not None and _abscissa(lm, x) >= 0:
            return np.inf, None
        return _measure(dm, x, measure, scale, poles, gradient)

    vals = np.array([value(x)[0] for x in pts])
    if lm is not None and np.all(np.isfinite(vals)):
        # Stable at every point scanned: look for an instability between them.
        bad = _unstable_by_ascent(lm, pts, n_local, local_maxiter)
        if bad:
            pts = np.vstack([pts, np.array(bad)])
            vals = np.append(vals, [np.inf] * len(bad))
    order = np.argsort(-vals)
    best = int(order[0])
    bx, bv = pts[best].copy(), float(vals[best])
    if not np.isfinite(bv) and lm is not None:
        # Unstable somewhere: the point of the largest spectral abscissa is the most
        # informative one to add.
        bad = np.flatnonzero(~np.isfinite(vals))
        alpha = np.array([_abscissa(lm, pts[i]) for i in bad])
        ranked = _spread(bad[np.argsort(-alpha)], pts, n_keep + 1)
        bx = pts[ranked[0]].copy()
        others = [pts[i].copy() for i in ranked[1:]]
    elif limit is not None:
        over = order[np.isfinite(vals[order]) & (vals[order] >= limit)]
        above = [pts[i].copy() for i in _spread(over, pts, n_keep + 1)]
    if np.isfinite(bv):
        starts = [pts[i] for i in order[:n_local] if np.isfinite(vals[i])]
        for x0 in starts:
            x = _local_ascent(lambda y: value(y, True), x0, local_maxiter)
            v = value(x)[0]
            if v > bv:
                bx, bv = x, v

    def phys(x):
        return {n: float(el.denormalize(v)) for n, el, v in zip(names, els, x, strict=True)}

    # The ascent's end point leads; the scan's points above the limit follow it.
    above = [x for x in above if np.max(np.abs(x - bx)) >= 0.5][:n_keep]
    return WorstCase(bv, phys(bx), bx, count, [phys(x) for x in others], [phys(x) for x in above])
