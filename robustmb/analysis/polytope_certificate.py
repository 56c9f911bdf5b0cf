"""Sweep-free certificate of a box of real parameters: the vertex polytope of the
characteristic polynomial (mapping theorem and edge theorem).

When every real element enters ``Delta`` once (no repeated scalar), the polynomial

    q(s, delta) = det(I - D Delta) det(sI - A(delta))
                = det(sI - A) det(I - M11(s) Delta)

is multi-affine in ``delta`` (each ``delta_j`` is one diagonal entry of ``Delta``): on a
box its coefficient vector is a convex combination of its values at the box's corners
(the mapping theorem of Zadeh and Desoer).  The whole box is therefore stable when the
convex hull of the corner polynomials is: by the edge theorem (Bartlett, Hollot and Lin,
1988) a polytope of polynomials of constant degree is Hurwitz iff its edges are, and a
segment between two Hurwitz polynomials ``p``, ``r`` of the same degree is Hurwitz iff
``p(jw)`` and ``r(jw)`` are never antiparallel (the segment lemma of Chapellat and
Bhattacharyya, 1989).  The degree is constant because the leading coefficient is
``det(I - D Delta)``, the same sign at every corner (well-posedness).

With ``x = w^2`` and ``p(jw) = E_p(x) + j w O_p(x)``, antiparallel means
``h(x) = O_p E_r - E_p O_r = 0`` and ``g(x) = E_p E_r + x O_p O_r < 0`` for some
``x > 0``: the roots of one real polynomial of degree below ``n``, no frequency sweep.

The test is exact (necessary and sufficient) when ``q`` is affine in ``delta`` (every
product term vanishes, e.g. ``K / ((tau s + 1) ...)`` closed by unit feedback), and
conservative otherwise by ``O(width^2)`` of the box, which a bisection of the box
removes.  Continuous-time, small models only (the polynomial's coefficients come from
the closed-loop eigenvalues).
"""

from __future__ import annotations

from math import comb

import numpy as np

from .branch_and_bound import BoxCover, channel_matrix
from .mu_sweep import certified_mu_peak

# Largest model (states) whose characteristic polynomial is formed: beyond, the
# coefficients from the eigenvalues lose too many digits for the root test.
MAX_STATES = 12
# Largest number of elements, and of polytope vertices per box (``prod(reps + 1)``:
# the corners when no element repeats; ``v (v - 1) / 2`` segments are tested).
MAX_ELEMENTS = 4
MAX_VERTICES = 16
# Largest repetition of one element: the Bernstein coefficients come from values at
# ``reps + 1`` equispaced nodes (a well-conditioned interpolation only for low degrees).
MAX_REPS = 3
# A root ``x`` of ``h`` whose imaginary part is below this fraction of ``|x|`` (after
# frequency scaling) is treated as real: a near-double real root (a tangency) may
# come out as a complex pair of that order.
_REAL_ROOT = 1e-5
# Coefficients of ``h`` below this fraction of the sum of their products' magnitudes
# are rounding noise (exact cancellations), treated as zero.
_CANCEL = 1e-12
# ``g`` must exceed this fraction of ``|E_p E_r| + x |O_p O_r|`` at a real root of
# ``h``: the two values are then clearly parallel, not antiparallel.
_SIGN_ROOM = 1e-8
# Margin of the vertex polynomials' roots (relative to their largest root): a root
# this close to the axis is not trusted to be in the left half-plane.
_POLE_ROOM = 1e-7


class PolytopeCover(BoxCover):
    """A :class:`BoxCover` whose sub-boxes were certified by the vertex polytope of the
    characteristic polynomial (no frequency sweep: ``evaluated`` is 0).

    Examples
    --------
    >>> PolytopeCover(1.5, True, 1, 0, 1.0).margin_note()[:40]
    '; the vertex polytope of the characteris'
    """

    def margin_note(self):
        """What the certificate did, as a clause of a result's reason."""
        state = "certified" if self.certified else "did not certify"
        return (
            f"; the vertex polytope of the characteristic polynomial (edge theorem, no "
            f"frequency sweep) {state} {self.target:.6g} times the box with "
            f"{self.boxes} sub-boxes"
        )


def applicable(problem, scal):
    """Whether the vertex-polytope test applies: a continuous-time model of at most
    ``MAX_STATES`` states whose Delta is ``k <= MAX_ELEMENTS`` real scalars (repeated
    at most ``MAX_REPS`` times) with at most ``MAX_VERTICES`` polytope vertices
    (``prod(reps + 1)``).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> s = control.tf("s")
    >>> problem = uncertain_problem(1 / (s * s + c * s + 1))
    >>> applicable(problem, problem.blocks)
    True
    """
    return (
        not problem.dt
        and 0 < problem.a.shape[0] <= MAX_STATES
        and 0 < len(scal) <= MAX_ELEMENTS
        and all(bi.kind == "real" and bi.reps <= MAX_REPS for bi in scal)
        and int(np.prod([bi.reps + 1 for bi in scal])) <= MAX_VERTICES
        and sum(bi.reps for bi in scal) == problem.nw == problem.nz
        and not np.iscomplexobj(problem.a)
    )


def _corner_polynomial(m11, diag):
    """``(coefficients, roots)`` of ``q(s, delta)`` at ``Delta = diag(diag)``, highest
    power first (leading coefficient ``det(I - D Delta)``), or None if ill-posed."""
    a, bw, cz, dzw = m11
    e = np.eye(len(diag)) - dzw * diag[None, :]
    lead = np.linalg.det(e)
    if not np.isfinite(lead) or lead == 0.0:
        return None
    try:
        closed = a + (bw * diag[None, :]) @ np.linalg.solve(e, cz)
    except np.linalg.LinAlgError:
        return None
    roots = np.linalg.eigvals(closed)
    if not np.all(np.isfinite(roots)):
        return None
    return lead * np.real(np.poly(roots)), roots


def _even_odd(coef):
    """``(E, O)`` in ``x = w^2`` (lowest power first) with ``p(jw) = E(x) + j w O(x)``."""
    c = coef[::-1]  # lowest power first
    even, odd = c[0::2].copy(), c[1::2].copy()
    even[1::2] *= -1.0
    odd[1::2] *= -1.0
    return even, odd


def _segment_stable(p, r):
    """Whether every polynomial on the segment ``[p, r]`` is Hurwitz, for ``p``, ``r``
    Hurwitz of the same degree with positive coefficients (lowest power last)."""
    ep, op = _even_odd(p)
    er, orr = _even_odd(r)
    pe, po = np.polynomial.Polynomial(ep), np.polynomial.Polynomial(op)
    re, ro = np.polynomial.Polynomial(er), np.polynomial.Polynomial(orr)
    h = (po * re - pe * ro).coef
    # Leading coefficients at the rounding level of their products are zero (they
    # cancel exactly when, e.g., p and r share their two leading coefficients): kept,
    # they would put a spurious huge root into the companion matrix and move the others
    # (x = 4 instead of 2.417 on an interval cubic).  A true coefficient that small
    # only drops roots at |x| ~ 1e13 of the balanced scale, where p(jw) and r(jw) are
    # both dominated by their leading terms (same degree, same sign): parallel.
    mag = [np.polynomial.Polynomial(np.abs(q)) for q in (op, er, ep, orr)]
    size = (mag[0] * mag[1] + mag[2] * mag[3]).coef
    keep = np.nonzero(np.abs(h) > _CANCEL * size[: len(h)])[0]
    if len(keep) == 0 or keep[-1] == 0:
        # h is constant: nonzero (never parallel), or zero (parallel everywhere)
        if len(keep):
            return True
        x = np.array([1.0])
    else:
        h = h[: keep[-1] + 1]
        x = np.polynomial.Polynomial(h / np.max(np.abs(h))).roots()
        x = x[np.abs(x.imag) <= _REAL_ROOT * np.maximum(np.abs(x), 1e-300)].real
        x = x[x > 0.0]
    for xi in x:
        g = pe(xi) * re(xi) + xi * po(xi) * ro(xi)
        size = abs(pe(xi) * re(xi)) + xi * abs(po(xi) * ro(xi))
        if not g > _SIGN_ROOM * size:
            return False
    return True


def _bernstein_matrix(r):
    """``(r + 1) x (r + 1)`` map from values at ``t = i / r`` of a degree-``r``
    polynomial on ``[0, 1]`` to its Bernstein coefficients."""
    t = np.linspace(0.0, 1.0, r + 1)
    b = np.arange(r + 1)
    binom = np.array([comb(r, int(i)) for i in b], float)
    col = binom[None, :] * t[:, None] ** b[None, :] * (1.0 - t[:, None]) ** (r - b)[None, :]
    return np.linalg.inv(col)


def _bernstein_polynomials(m11, chan, lo, hi, degrees):
    """Bernstein coefficients (polynomials in ``s``) of ``q(s, delta)`` on the box, or
    None if a node is ill-posed.  ``q`` has degree ``degrees[j]`` in ``delta_j``; its
    values on the tensor grid of ``degrees[j] + 1`` equispaced nodes per side are
    mapped to the Bernstein basis side by side.  Each point of the box is a convex
    combination of the returned polynomials (the basis is nonnegative, sums to 1); at
    the corners they are the corner polynomials themselves."""
    shape = tuple(int(r) + 1 for r in degrees)
    values = None
    for idx in np.ndindex(*shape):
        t = np.array([i / (n - 1) if n > 1 else 0.0 for i, n in zip(idx, shape, strict=True)])
        got = _corner_polynomial(m11, chan @ (lo + t * (hi - lo)))
        if got is None:
            return None
        if values is None:
            values = np.empty((*shape, len(got[0])))
        values[idx] = got[0]
    for axis, n in enumerate(shape):
        if n > 1:
            values = np.moveaxis(np.tensordot(_bernstein_matrix(n - 1), values, (1, axis)), 0, axis)
    return values.reshape(-1, values.shape[-1])


def _hurwitz(coef):
    """Whether the polynomial (highest power first, balanced) has every root in the
    open left half-plane, with a small relative margin."""
    roots = np.roots(coef)
    if len(roots) != len(coef) - 1:
        return False
    wscale = max(float(np.max(np.abs(roots), initial=0.0)), 1e-300)
    return bool(np.all(roots.real < -_POLE_ROOM * wscale))


def box_is_stable(m11, chan, lo, hi, degrees=None):
    """Whether ``A(delta)`` is stable (and well-posed) for every ``delta`` in the box
    ``[lo, hi]`` (normalised element values; ``chan`` maps them to Delta's diagonal):
    True is a certificate, False means the test could not prove it.

    ``degrees``: occurrences of each element in Delta (``q``'s degree in it; default
    all 1, multi-affine).  Repeated elements use the Bernstein coefficients of ``q`` on
    the box instead of its corners (a larger polytope, still containing the family).

    Examples
    --------
    ``x'' + c x' + x`` with ``c = 1 + delta``: stable iff ``delta > -1``.

    >>> import numpy as np
    >>> m11 = (np.array([[0.0, 1.0], [-1.0, -1.0]]), np.array([[0.0], [-1.0]]),
    ...        np.array([[0.0, 1.0]]), np.zeros((1, 1)))
    >>> chan = np.ones((1, 1))
    >>> box_is_stable(m11, chan, np.array([-0.99]), np.array([5.0]))
    True
    >>> box_is_stable(m11, chan, np.array([-1.01]), np.array([0.0]))
    False
    """
    degrees = np.ones(len(lo), int) if degrees is None else degrees
    polys = _bernstein_polynomials(m11, chan, lo, hi, degrees)
    if polys is None:
        return False
    sign = np.sign(polys[0][0])
    if sign == 0 or np.any(np.sign(polys[:, 0]) != sign):
        return False  # the leading coefficient det(I - D Delta) may vanish
    polys = sign * polys
    # frequency scaling s = w0 s': balanced coefficients for the root tests
    n = polys.shape[1] - 1
    if n == 0:
        return True  # no state: det(I - D Delta) != 0 is all there is
    if not np.all(polys[:, -1] > 0):
        return False
    w0 = (polys[0][-1] / polys[0][0]) ** (1.0 / n)
    if not (np.isfinite(w0) and w0 > 0):
        return False
    polys = polys * w0 ** np.arange(n, -1, -1.0)[None, :]
    polys /= np.max(np.abs(polys), axis=1, keepdims=True)
    if not all(_hurwitz(p) for p in polys):
        return False
    for i in range(len(polys)):
        for j in range(i + 1, len(polys)):
            if not _segment_stable(polys[i], polys[j]):
                return False
    return True


def certify_box_polytope(problem, scal, target, *, max_tests=None):
    """Certify ``target`` times the normalised box by vertex polytopes, bisecting the
    widest side of a sub-box whose test fails; None when a sub-box centre is unstable
    or the budget ``max_tests`` (polytope tests) runs out.  The default budget keeps
    the segment tests near 256: ``max(4, 512 // v^2)`` boxes of ``v`` vertices.

    Returns
    -------
    PolytopeCover or None

    Examples
    --------
    ``1 / (s^2 + c s + 1)`` with ``c`` in ``[0, 2]``: the margin is exactly 1.

    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> s = control.tf("s")
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> problem = uncertain_problem(1 / (s * s + c * s + 1))
    >>> certify_box_polytope(problem, problem.blocks, 0.999).certified
    True
    >>> certify_box_polytope(problem, problem.blocks, 1.001) is None
    True
    """
    k = len(scal)
    chan = channel_matrix(problem, scal)
    degrees = np.array([bi.reps for bi in scal])
    if max_tests is None:
        max_tests = max(4, 512 // int(np.prod(degrees + 1)) ** 2)
    queue = [(-target * np.ones(k), target * np.ones(k))]
    done = tests = 0
    while queue:
        if tests >= max_tests:
            return None
        lo, hi = queue.pop()
        tests += 1
        if box_is_stable(problem.m11, chan, lo, hi, degrees):
            done += 1
            continue
        centre = 0.5 * (lo + hi)
        if _unstable_point(problem.m11, chan, centre):
            return None
        j = int(np.argmax(hi - lo))
        mid = centre[j]
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[j], right_lo[j] = mid, mid
        queue.extend([(lo, left_hi), (right_lo, hi)])
    return PolytopeCover(float(target), True, done, 0, 1.0)


def _unstable_point(m11, chan, point):
    """Whether the loop at ``point`` is ill-posed or has a pole on/over the axis."""
    got = _corner_polynomial(m11, chan @ point)
    return got is None or not np.all(got[1].real < 0.0)


# Level of the evidence sweep after a polytope certificate (times ``1 / upper``): loose,
# so that a fixed-level sweep passes at once; ``lower`` comes from the polytope.
_EVIDENCE_LEVEL = 1.2


def polytope_margin(problem, upper, gap_tol, progress=None):
    """Certify ``upper / (1 + room)`` times the box of an all-real loop by vertex
    polytopes (``room`` = 5e-4, then ``gap_tol``) and sweep mu once, loosely, as the
    result's evidence: ``(cover, peak)``, or None when the test does not apply or fails.

    ``upper`` is a verified destabilising scaling.  The sweep is a fixed level
    ``1.2 / upper`` (a free sweep to ``gap_tol`` if that level fails); it certifies
    the whole axis but not ``lower``, which the polytope carries.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> s = control.tf("s")
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> cover, peak = polytope_margin(uncertain_problem(1 / (s * s + c * s + 1)), 1.0, 5e-3)
    >>> round(cover.target, 6), cover.certified, peak.covered
    (0.9995, True, True)
    """
    scal = problem.blocks
    if not applicable(problem, scal) or not np.isfinite(upper):
        return None
    for room in sorted({min(5e-4, gap_tol), gap_tol}):
        cover = certify_box_polytope(problem, scal, upper / (1.0 + room))
        if cover is not None:
            break
    else:
        return None
    sysdata, blk, dt = problem.m11, problem.blk, problem.dt
    kw = {} if progress is None else {"progress": progress}
    peak = certified_mu_peak(sysdata, blk, dt, level=_EVIDENCE_LEVEL / upper, lower=False, **kw)
    if not peak.covered:
        peak = certified_mu_peak(sysdata, blk, dt, lower=False, rel_gap=max(gap_tol, 1e-3), **kw)
    return cover, peak


__all__ = [
    "PolytopeCover",
    "applicable",
    "box_is_stable",
    "certify_box_polytope",
    "polytope_margin",
]
