"""The robust-performance problem of one sub-box of a partition of a parameter box.

A partition certificate splits the square of two elements (e.g. the scheduling
parameters ``t1, t2``) into ``n x n`` equal cells, some of them split further into
pieces, the other elements kept whole.  On each cell the LFT is re-centred at the cell's
centre (:func:`~.branch_and_bound.recentre_system`), its performance rows are scaled by
``1/gamma`` and a full performance block is appended: a stable centre and
``sup_w mu < 1`` prove robust stability and ``||channel||_inf < gamma`` on the cell
(main loop theorem).  The certifying driver (``case_studies/robotic_arm/
certify_lpv_partition.py``) and the replay of its evidence
(:mod:`robustmb.report.arm_certificate`) both build their problem here.

Cells are ``(i, j, path)``: ``i`` indexes the first element, ``j`` the second, from the
lower ends; ``path`` is a tuple of ``(p1, p2, a, b)`` steps, piece ``(a, b)`` of a
``p1 x p2`` split of the previous cell.  Their extents are exact fractions, so a piece's
centre and radius are the same floats as the finer grid's cell.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import ArgumentError
from .branch_and_bound import channel_matrix, recentre_system
from .uncertain_problem import is_stable


def _integer(name, value):
    if isinstance(value, bool):
        raise ArgumentError(f"{name}: must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentError(f"{name}: must be an integer, got {value!r}") from None


def _count(name, value, least):
    value = _integer(name, value)
    if value < least:
        raise ArgumentError(f"{name}: must be an integer >= {least}, got {value}")
    return value


def _index(name, value, size, of="n"):
    value = _integer(name, value)
    if not 0 <= value < size:
        raise ArgumentError(f"{name}: must be in [0, {of}) = [0, {size}), got {value}")
    return value


def _path(path):
    try:
        steps = [tuple(step) for step in path]
    except TypeError:
        raise ArgumentError(
            f"path: must be a sequence of (p1, p2, a, b) steps, got {path!r}"
        ) from None
    out = []
    for k, step in enumerate(steps):
        if len(step) != 4:
            raise ArgumentError(f"path[{k}]: must be (p1, p2, a, b), got {step!r}")
        p1 = _count(f"path[{k}] p1", step[0], 1)
        p2 = _count(f"path[{k}] p2", step[1], 1)
        a = _index(f"path[{k}] a", step[2], p1, "p1")
        b = _index(f"path[{k}] b", step[3], p2, "p2")
        out.append((p1, p2, a, b))
    return out


def cell_rect(n, i, j, path=()):
    """``((lo1, hi1), (lo2, hi2))``: cell ``(i, j, path)`` of ``n x n`` as exact fractions
    of the unit square.

    Raises
    ------
    ArgumentError
        ``n`` not an integer >= 1, ``i`` or ``j`` not an integer in ``[0, n)``, or a step
        of ``path`` not four integers ``(p1, p2, a, b)`` with ``p1, p2 >= 1``,
        ``0 <= a < p1`` and ``0 <= b < p2``.

    Examples
    --------
    >>> cell_rect(4, 1, 2, ((2, 1, 1, 0),))
    ((Fraction(3, 8), Fraction(1, 2)), (Fraction(1, 2), Fraction(3, 4)))
    """
    n = _count("n", n, 1)
    i = _index("i", i, n)
    j = _index("j", j, n)
    path = _path(path)
    lo1, hi1 = Fraction(i, n), Fraction(i + 1, n)
    lo2, hi2 = Fraction(j, n), Fraction(j + 1, n)
    for p1, p2, a, b in path:
        w1, w2 = (hi1 - lo1) / p1, (hi2 - lo2) / p2
        lo1, lo2 = lo1 + a * w1, lo2 + b * w2
        hi1, hi2 = lo1 + w1, lo2 + w2
    return (lo1, hi1), (lo2, hi2)


def cell_box(names, n, i, j, path=(), along=("t1", "t2")):
    """Normalised centre and radius (one per element) of cell ``(i, j, path)`` of ``n x n``.

    The elements ``along`` are split (unit square ``u in [0, 1]`` -> normalised value
    ``-1 + 2 u``); every other element of ``names`` stays whole (centre 0, radius 1).

    Raises
    ------
    ArgumentError
        ``along`` not two distinct elements of ``names``; a bad ``n``, ``i``, ``j`` or
        ``path`` (:func:`cell_rect`).

    Examples
    --------
    >>> c, r = cell_box(["t1", "m1", "t2"], 4, 0, 3)
    >>> c.tolist(), r.tolist()
    ([-0.75, 0.0, 0.75], [0.25, 1.0, 0.25])
    """
    names = list(names)
    along = tuple(along) if isinstance(along, (list, tuple)) else along
    if not isinstance(along, tuple) or len(along) != 2 or along[0] == along[1]:
        raise ArgumentError(f"along: must be two distinct element names, got {along!r}")
    missing = [a for a in along if a not in names]
    if missing:
        raise ArgumentError(f"along: element(s) {missing} not among the names {names}")
    c, r = np.zeros(len(names)), np.ones(len(names))
    for name, (lo, hi) in zip(along, cell_rect(n, i, j, path), strict=True):
        k = names.index(name)
        c[k] = float(-1 + lo + hi)
        r[k] = float(hi - lo)
    return c, r


@dataclass
class SubBoxProblem:
    """Robust-performance data of a sub-box (see :func:`sub_box_problem`).

    Attributes
    ----------
    status : str
        ``"ok"``, or why there is no problem: ``"ill-posed centre"``, ``"unstable centre"``.
    recentred : tuple of ndarray or None
        ``(A, B, C, D)`` of the re-centred LFT, performance rows unscaled (its performance
        channel at ``Delta' = 0`` is the loop at the centre).
    sysdata : tuple of ndarray or None
        The same with the performance rows of ``C`` and ``D`` scaled by ``1/gamma``.
    blk : list
        The structure of ``sysdata``: the uncertainty blocks, then the full performance
        block ``(n_inputs, n_outputs)``.
    """

    status: str
    recentred: tuple | None
    sysdata: tuple | None
    blk: list

    @property
    def centre_channel(self):
        """``(A, B, C, D)`` of the performance channel at the centre (unscaled)."""
        a, b, c, d = self.recentred
        nz = len(c) - self.blk[-1][1]
        nw = b.shape[1] - self.blk[-1][0]
        return a, b[:, nw:], c[nz:], d[nz:, nw:]


def sub_box_problem(problem, centre, radius, gamma):
    """The sub-box ``centre + diag(radius) [-1, 1]^k`` of ``problem``, re-centred and scaled.

    Parameters
    ----------
    problem : UncertainProblem
        ``M`` and its blocks (:func:`~.uncertain_problem.uncertain_problem`), with its
        performance channel.
    centre, radius : array_like, shape (k,)
        Normalised centre (finite) and radius (finite, >= 0) per element of
        ``problem.blocks`` (e.g. :func:`cell_box`).
    gamma : float
        Level of the performance channel (finite, > 0).

    Returns
    -------
    SubBoxProblem
        ``mu < 1`` of ``sysdata`` over the whole frequency axis, with ``status == "ok"``
        (a stable centre), proves every loop of the sub-box stable with peak gain below
        ``gamma`` on the performance channel.

    Raises
    ------
    ArgumentError
        ``gamma`` not finite and > 0; ``centre`` or ``radius`` not one value per element,
        a ``centre`` not finite, a ``radius`` not finite and >= 0 (each naming the
        elements at fault).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> p = uncertain_problem(1 / (control.tf("s") + c))
    >>> sb = sub_box_problem(p, [0.5], [0.5], 2.0)        # c in [1.0, 1.5]
    >>> a, b, cc, d = sb.sysdata
    >>> sb.status, float(a[0, 0]), sb.blk
    ('ok', -1.25, [(-1, 0), (1, 1)])
    """
    if not (np.isfinite(gamma) and gamma > 0):
        raise ArgumentError(f"gamma: must be a finite number > 0, got {gamma!r}")
    try:
        centre, radius = (np.asarray(v, float).ravel() for v in (centre, radius))
    except (TypeError, ValueError):
        raise ArgumentError(
            f"centre, radius: must be arrays of numbers, got {centre!r} and {radius!r}"
        ) from None
    k = len(problem.blocks)
    if centre.size != k or radius.size != k:
        raise ArgumentError(
            f"centre, radius: one value per element ({k}), got {centre.size} and {radius.size}"
        )
    names = [bl.name for bl in problem.blocks]
    bad = [names[e] for e in np.flatnonzero(~np.isfinite(centre))]
    if bad:
        raise ArgumentError(f"centre: must be finite, not for element(s) {bad}: {centre}")
    bad = [names[e] for e in np.flatnonzero(~(np.isfinite(radius) & (radius >= 0)))]
    if bad:
        raise ArgumentError(f"radius: must be finite and >= 0, not for element(s) {bad}: {radius}")
    chan = channel_matrix(problem)
    ny, nu = problem.model.shape
    blk = [*problem.blk, (nu, ny)]
    full = (problem.a, problem.b, problem.c, problem.d)
    sub = recentre_system(full, problem.nw, problem.nz, chan @ centre, chan @ radius)
    if sub is None:
        return SubBoxProblem("ill-posed centre", None, None, blk)
    a, b, c, d = sub
    if not is_stable(a, problem.dt):
        return SubBoxProblem("unstable centre", sub, None, blk)
    nz = problem.nz
    c_s, d_s = c.copy(), d.copy()
    c_s[nz:] /= gamma
    d_s[nz:] /= gamma
    return SubBoxProblem("ok", sub, (a, b, c_s, d_s), blk)
