"""Values of an uncertain physical parameter over the box of its ureals.

A mass, an inertia tensor or a rotor inertia may be an expression of ureals;
it is physical (non-negative, positive semidefinite) only if it is so at every
point of the box ``lo_i <= p_i <= hi_i`` of the ureals it involves.

When the quantity is affine in each ureal separately (multi-affine: ``a + b m``,
``m L``, a tensor entry ``Jxy``), the quadratic form ``x^T J(p) x`` is multi-affine
in ``p`` for every fixed ``x``, so its minimum over the box is reached at a vertex:
``J(p) >= 0`` on the whole box iff it holds at the ``2^n`` vertices.  Multi-affinity
is tested numerically: a multi-affine function equals the multilinear
interpolation of its vertex values everywhere, so the quantity is compared with
that interpolation at its nominal and at two interior points (a rational
function that agrees there is multi-affine but for a set of measure zero).

Otherwise (``L * L``, a ratio) or when more than :data:`MAX_VERTEX_ELEMENTS`
ureals are involved, the check is a sampling: the vertices (if enumerable),
a grid of the box and random points; :func:`box_samples` then reports that the
check is not exhaustive and the callers warn.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import lft
from ..errors import UncertainTypeError
from ..lft.substitution import batched_substitute
from . import _generic as g

#: Largest number of ureals whose ``2^n`` box vertices are enumerated.
MAX_VERTEX_ELEMENTS = 10
#: Largest number of grid points used when the quantity is not multi-affine.
MAX_GRID_POINTS = 4096
#: Random points added when the vertices are too many to enumerate.
RANDOM_POINTS = 512


def box_samples(x):
    """Values of ``x`` at the points of the box where its validity is checked.

    Parameters
    ----------
    x : number, ureal, uncertain expression or 2-D array-like of them
        A static quantity of real parameters.

    Returns
    -------
    samples : list of (str, ndarray)
        ``(where, value)``: ``where`` is ``""`` for a number, ``" (nominal)"``, or
        names the point, e.g. ``" (at the vertex {'m': 0.8, 'L': 1.1} of the box of
        its ureals)"``; ``value`` is a 2-D float array.  The nominal comes first.
    exact : bool
        True if the quantity is multi-affine in its ureals and every vertex is
        listed: then a property that is convex in the value (``>= 0``, positive
        semidefinite) holds on the whole box iff it holds at these samples.
    description : str
        What was checked, for a warning when ``exact`` is False.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(-0.5, 3.0))
    >>> samples, exact, _ = box_samples(2.0 * k)
    >>> exact, [round(float(v[0, 0]), 6) for _, v in samples]
    (True, [2.0, -1.0, 6.0])
    >>> samples[1][0]
    " (at the vertex {'k': -0.5} of the box of its ureals)"
    """
    if g.is_number(x):
        return [("", np.atleast_2d(np.asarray(x, dtype=float)))], True, ""
    model = _as_static_model(x)
    elements = model.uncertainty
    names = list(elements)
    for n, el in elements.items():
        if el.kind != "real":
            raise UncertainTypeError(
                f"a physical parameter depends only on real parameters (ureal), got the "
                f"{el.kind} element {n!r}"
            )
    if not names:
        return [("", np.asarray(model.nominal(), dtype=float))], True, ""
    lo = np.array([float(elements[n].range[0]) for n in names])
    hi = np.array([float(elements[n].range[1]) for n in names])
    nom = np.array([float(elements[n].nominal) for n in names])
    p = len(names)
    points, labels = [nom], [" (nominal)"]
    if p <= MAX_VERTEX_ELEMENTS:
        corners = np.array(list(itertools.product((0.0, 1.0), repeat=p)))
        vertices = lo + corners * (hi - lo)
        points += list(vertices)
        labels += [_label("the vertex", names, v) for v in vertices]
        # two interior points, fixed so that a check is reproducible
        inner = np.random.default_rng(0).uniform(0.1, 0.9, size=(2, p))
        probes = [_fraction(nom, lo, hi)] + list(inner)
        probe_points = [lo + t * (hi - lo) for t in probes]
        values = _evaluate(model, elements, names, points + probe_points)
        nv = len(points)
        vert_values = np.array(values[1:nv])
        # relative to the quantity's own size: a tiny body is not compared with 1
        scale = max(float(np.abs(v).max()) for v in values) + np.finfo(float).tiny
        affine = True
        for t, val in zip(probes, values[nv:], strict=True):
            w = np.prod(np.where(corners == 1.0, t, 1.0 - t), axis=1)
            interp = np.tensordot(w, vert_values, axes=1)
            if np.abs(interp - val).max() > 1e-9 * scale:
                affine = False
        samples = list(zip(labels, values[:nv], strict=True))
        if affine:
            return samples, True, ""
        levels = max(3, min(9, int(MAX_GRID_POINTS ** (1.0 / p))))
        grid = [lo + np.array(t) * (hi - lo) for t in _grid(p, levels)]
        extra = _evaluate(model, elements, names, grid)
        samples += [(_label("the point", names, v), x) for v, x in zip(grid, extra, strict=True)]
        what = (
            f"it is not affine in each of its ureals {names}; checked at the nominal, the "
            f"{2**p} vertices and a grid of {levels}^{p} points of the box, not everywhere"
        )
        return samples, False, what
    # too many vertices: each ureal at its range ends (others nominal), then random points
    for i in range(p):
        for end in (lo[i], hi[i]):
            pt = nom.copy()
            pt[i] = end
            points.append(pt)
            labels.append(_label("the point", names, pt))
    rand = lo + np.random.default_rng(0).uniform(size=(RANDOM_POINTS, p)) * (hi - lo)
    points += list(rand)
    labels += [_label("the point", names, v) for v in rand]
    values = _evaluate(model, elements, names, points)
    what = (
        f"it involves {p} ureals (more than {MAX_VERTEX_ELEMENTS}); checked at the nominal, "
        f"each ureal at its range ends and {RANDOM_POINTS} random points of the box, "
        "not everywhere"
    )
    return list(zip(labels, values, strict=True)), False, what


def _as_static_model(x):
    if isinstance(x, lft.UncertainModel):
        return x
    if isinstance(x, lft.UncertainElement | lft.UncertainRational):
        return lft.umat(x)
    return g.matrix(x) if not g.is_number(g.matrix(x)) else lft.umat(g.matrix(x))


def _fraction(v, lo, hi):
    width = np.where(hi > lo, hi - lo, 1.0)
    return np.clip((v - lo) / width, 0.0, 1.0)


def _grid(p, levels):
    ticks = np.linspace(0.0, 1.0, levels)
    return itertools.product(ticks, repeat=p)


def _label(kind, names, point):
    vals = ", ".join(f"{n!r}: {float(v):.6g}" for n, v in zip(names, point, strict=True))
    return f" (at {kind} {{{vals}}} of the box of its ureals)"


def _evaluate(model, elements, names, points):
    """Numeric values of a static model at physical parameter points (batched)."""
    pts = np.array(points, dtype=float).reshape(len(points), len(names))
    norm = {
        n: np.asarray(elements[n].normalize(pts[:, i]), dtype=float) for i, n in enumerate(names)
    }
    return [np.asarray(v, dtype=float) for v in batched_substitute(model, norm)]
