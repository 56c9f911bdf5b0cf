"""Sweep-free box certificates by the vertex polytope of the characteristic polynomial.

Every claim is checked against something the certificate does not compute:
- the segment lemma against ``numpy.roots`` on a fine grid of the segment;
- box certificates against the characteristic polynomial written out by hand
  (``numpy.polynomial``) and sampled on a dense grid of the box, edges included;
- the pole-escape loop against its closed-form margin 1.5 (``tau`` reaches 0) and the
  ``d1 d2`` product loop against 1 (``1 - d1 d2`` reaches 0);
- the Bernstein polytope of a repeated element against the polynomial at interior
  points (it must be the Bernstein combination of the vertices).
"""

from math import comb

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis import polytope_certificate as pc
from robustmb.analysis.branch_and_bound import channel_matrix
from robustmb.analysis.uncertain_problem import uncertain_problem


def _hurwitz(coef_high_first, tol=0.0):
    return bool(np.max(np.roots(coef_high_first).real) < -tol)


def _max_real(coefs):
    """Largest root real part of each row (highest power first, nonzero leading), from
    the eigenvalues of a stack of companion matrices (one batched call)."""
    coefs = np.atleast_2d(np.asarray(coefs, float))
    n = coefs.shape[1] - 1
    comp = np.zeros((len(coefs), n, n))
    comp[:, 0, :] = -coefs[:, 1:] / coefs[:, :1]
    comp[:, np.arange(1, n), np.arange(n - 1)] = 1.0
    return np.max(np.linalg.eigvals(comp).real, axis=1)


def _pole_escape():
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    tau = rmb.ureal("tau", 0.5, range=(0.2, 1.0))
    return rmb.feedback(k / ((tau * s + 1) * (0.05 * s + 1) ** 2) * 2 * (1 + 1 / (0.4 * s)), 1)


def _pole_escape_poly(kv, tv):
    """0.4 s (tau s + 1)(0.05 s + 1)^2 + 2 K (0.4 s + 1), highest power first."""
    p = np.polymul(np.polymul([0.4, 0.0], [tv, 1.0]), np.polymul([0.05, 1.0], [0.05, 1.0]))
    return np.polyadd(p, 2 * kv * np.array([0.4, 1.0]))


def _product_loop():
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + s + 1))), -(d1 * d2))


# ----------------------------------------------------------------------------- segments


def test_segment_lemma_matches_a_grid_of_the_segment():
    rng = np.random.default_rng(3)
    verdicts = {True: 0, False: 0}
    for _ in range(200):
        n = int(rng.integers(2, 6))
        polys = []
        for _ in range(2):
            roots = -rng.uniform(0.05, 3.0, n) + 1j * 0
            m = int(rng.integers(0, n // 2 + 1))
            roots = roots.astype(complex)
            for i in range(m):  # some complex pairs, lightly damped
                w = rng.uniform(0.5, 5.0)
                roots[2 * i] = roots[2 * i].real * 0.1 + 1j * w
                roots[2 * i + 1] = np.conj(roots[2 * i])
            polys.append(np.real(np.poly(roots)) * rng.uniform(0.5, 2.0))
        p, r = polys
        got = pc._segment_stable(p, r)
        lam = np.linspace(0.0, 1.0, 1501)
        worst = float(
            np.max(_max_real((1 - lam)[:, None] * p[None, :] + lam[:, None] * r[None, :]))
        )
        if got:
            assert worst < 0.0, (p, r, worst)
        elif worst > 1e-6:
            pass  # a true crossing, refused
        else:
            # refused although the grid finds no crossing: only a near-tangency may be
            # refused (the grid's worst root is within rounding of the axis)
            assert worst > -1e-3, (p, r, worst)
        verdicts[got] += 1
    assert verdicts[True] > 20 and verdicts[False] > 20, verdicts


def test_segment_with_cancelling_leading_coefficients():
    # two balanced vertices of an interval cubic: the leading coefficient of h cancels
    # exactly; left in, rounding put a spurious root at x = 4 (instead of 2.417, where
    # the two values are parallel, not antiparallel) and refused a stable segment
    p = np.array([0.09805829, 0.17095865, 1.0, 0.09805829])
    r = np.array([0.2373718, 0.41384328, 0.57461102, 1.0])
    lam = np.linspace(0.0, 1.0, 2001)
    assert np.max(_max_real((1 - lam)[:, None] * p + lam[:, None] * r)) < 0
    assert pc._segment_stable(p, r)


def _kharitonov_margin(coeffs, percent):
    """Kharitonov's four polynomials (numpy.roots), bisected: the interval margin."""
    c = np.asarray(coeffs, float)
    r = np.abs(c) * percent / 100.0
    patterns = [(-1, -1, 1, 1), (1, 1, -1, -1), (-1, 1, 1, -1), (1, -1, -1, 1)]

    def stable(t):
        rows = []
        for pat in patterns:
            sign = np.array([pat[i % 4] for i in range(len(c))])
            rows.append(np.concatenate([[1.0], (c + t * sign * r)[::-1]]))
        return bool(np.all(_max_real(rows) < 0))

    lo, hi = 0.0, 16.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    return lo


@pytest.mark.parametrize("roots", [[-1, -2, -3], [-1 + 1j, -1 - 1j, -2, -3]], ids=["3", "4"])
def test_interval_polynomials_in_one_box_at_the_kharitonov_margin(roots):
    # affine in the coefficients: the polytope is the family, one box suffices
    coeffs = np.real(np.poly(roots))[::-1][:-1]
    n = len(coeffs)
    a = np.diag(np.ones(n - 1), 1)
    b = np.zeros((n, 1))
    b[-1, 0] = 1.0
    chain = rmb.uss(control.ss(a, b, np.eye(n), np.zeros((n, 1))))
    gain = None
    for i, c in enumerate(coeffs):
        row = np.zeros((1, n))
        row[0, i] = 1.0
        term = rmb.ureal(f"a{i}", float(c), percent=20) * rmb.uss(control.ss([], [], [], row))
        gain = term if gain is None else gain + term
    problem = uncertain_problem(rmb.feedback(chain, gain))
    exact = _kharitonov_margin(coeffs, 20)
    cover = pc.certify_box_polytope(problem, problem.blocks, exact / 1.0005)
    assert cover is not None and cover.boxes == 1
    assert pc.certify_box_polytope(problem, problem.blocks, exact * 1.0005) is None


# ----------------------------------------------------------------------- known margins


@pytest.mark.parametrize(
    ("loop", "exact"), [(_pole_escape, 1.5), (_product_loop, 1.0)], ids=["escape", "product"]
)
def test_closed_form_margins(loop, exact):
    problem = uncertain_problem(loop())
    assert pc.applicable(problem, problem.blocks)
    cover = pc.certify_box_polytope(problem, problem.blocks, exact * (1 - 1e-4))
    assert cover is not None and cover.certified and cover.coverage == 1.0
    # beyond the margin the box holds an unstable point: never certified
    for factor in (1 + 1e-4, 1.01, 1.3):
        assert pc.certify_box_polytope(problem, problem.blocks, exact * factor) is None


def test_pole_escape_certificate_agrees_with_the_written_out_polynomial():
    # K = 2 (1 + 0.5 dK), tau = 0.6 + 0.4 dtau (the range (0.2, 1.0) about its centre)
    target = 1.5 * (1 - 1e-3)
    grid = np.linspace(-target, target, 41)
    rows = [_pole_escape_poly(2 * (1 + 0.5 * dk), 0.6 + 0.4 * dt) for dk in grid for dt in grid]
    assert np.all(_max_real(rows) < 0.0)
    # beyond 1.5: tau < 0 at the corner, unstable
    assert not _hurwitz(_pole_escape_poly(2 * (1 + 0.5 * 1.51), 0.6 - 0.4 * 1.51))


def _double_lag():
    """The pole-escape loop with a double lag ``(tau s + 1)^2``: tau enters twice (its
    characteristic polynomial is quadratic in tau)."""
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    tau = rmb.ureal("tau", 0.5, range=(0.2, 1.0))
    lag = (tau * s + 1) * (tau * s + 1) * (0.05 * s + 1) ** 2
    return rmb.feedback(k / lag * 2 * (1 + 1 / (0.4 * s)), 1)


def _double_lag_poly(kv, tv):
    """0.4 s (tau s + 1)^2 (0.05 s + 1)^2 + 2 K (0.4 s + 1), highest power first."""
    lag = np.polymul([tv, 1.0], [tv, 1.0])
    p = np.polymul(np.polymul([0.4, 0.0], lag), np.polymul([0.05, 1.0], [0.05, 1.0]))
    return np.polyadd(p, 2 * kv * np.array([0.4, 1.0]))


def test_bernstein_vertices_contain_the_repeated_element_family():
    problem = uncertain_problem(_double_lag())
    scal = problem.blocks
    reps = [bi.reps for bi in scal]
    assert max(reps) > 1  # tau enters twice: the Bernstein path
    chan = channel_matrix(problem, scal)
    lo, hi = np.array([-0.3, -1.2]), np.array([0.9, 0.4])
    verts = pc._bernstein_polynomials(problem.m11, chan, lo, hi, reps)
    shape = tuple(r + 1 for r in reps)
    rng = np.random.default_rng(0)
    for _ in range(20):
        t = rng.uniform(size=2)
        weights = np.ones(shape)
        for axis, (r, ti) in enumerate(zip(reps, t, strict=True)):
            b = np.array([comb(r, i) * ti**i * (1 - ti) ** (r - i) for i in range(r + 1)])
            weights = weights * b.reshape([-1 if a == axis else 1 for a in range(2)])
        combo = weights.reshape(-1) @ verts
        point = lo + t * (hi - lo)
        direct = pc._corner_polynomial(problem.m11, chan @ point)[0]
        # and both equal the written-out polynomial up to a constant factor
        kv, tv = 2 * (1 + 0.5 * point[0]), 0.6 + 0.4 * point[1]
        hand = _double_lag_poly(kv, tv)
        np.testing.assert_allclose(combo, direct, rtol=1e-9, atol=1e-9 * np.max(np.abs(direct)))
        np.testing.assert_allclose(direct / direct[-1], hand / hand[-1], rtol=1e-8)


# ------------------------------------------------------------------ random families


def _family_loop(c, e, f, g, h):
    """Companion loop with characteristic polynomial
    ``s^n + sum (c_i + d1 e_i + d2 f_i + d1 d2 g_i + d2^2 h_i) s^i`` (d1, d2 in [-1, 1])."""
    n = len(c)
    a = np.diag(np.ones(n - 1), 1)
    b = np.zeros((n, 1))
    b[-1, 0] = 1.0
    chain = rmb.uss(control.ss(a, b, np.eye(n), np.zeros((n, 1))))
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))

    def row(v):
        return rmb.uss(control.ss([], [], [], np.asarray(v, float)[None, :]))

    gain = row(c) + d1 * row(e) + d2 * row(f)
    if np.any(g):
        gain = gain + d1 * d2 * row(g)
    if np.any(h):
        gain = gain + d2 * d2 * row(h)
    return rmb.feedback(chain, gain)


def _family_stable(c, e, f, g, h, x1, x2):
    """Whether every point ``(x1[i], x2[i])`` gives a Hurwitz polynomial."""
    x1, x2 = np.atleast_1d(x1)[:, None], np.atleast_1d(x2)[:, None]
    coef = np.asarray(c) + x1 * np.asarray(e) + x2 * np.asarray(f)
    coef = coef + x1 * x2 * np.asarray(g) + x2 * x2 * np.asarray(h)
    rows = np.hstack([np.ones((len(coef), 1)), coef[:, ::-1]])
    return bool(np.all(_max_real(rows) < 0.0))


def _random_family_verdicts(seed, n, kind, target):
    """``(certified, stable on a 61 x 61 grid of the box)`` of a random two-element family."""
    rng = np.random.default_rng(seed)
    roots = -rng.uniform(0.3, 3.0, n).astype(complex)
    if n >= 2 and rng.uniform() < 0.5:
        w = rng.uniform(0.5, 3.0)
        roots[0] = -rng.uniform(0.05, 0.5) + 1j * w
        roots[1] = np.conj(roots[0])
    c = np.real(np.poly(roots))[::-1][:-1]
    scale = np.abs(c)
    e, f = (rng.uniform(-0.3, 0.3, n) * scale for _ in range(2))
    g = rng.uniform(-0.3, 0.3, n) * scale if kind == "multiaffine" else np.zeros(n)
    h = rng.uniform(-0.3, 0.3, n) * scale if kind == "repeated" else np.zeros(n)
    problem = uncertain_problem(_family_loop(c, e, f, g, h))
    assert pc.applicable(problem, problem.blocks)
    chan = channel_matrix(problem)
    reps = [bi.reps for bi in problem.blocks]
    got = pc.box_is_stable(
        problem.m11, chan, -target * np.ones(2), target * np.ones(2), np.array(reps)
    )
    names = [bi.name for bi in problem.blocks]
    u, v = np.meshgrid(*(np.linspace(-target, target, 61),) * 2)
    x = dict(zip(names, (u.ravel(), v.ravel()), strict=True))
    return bool(got), _family_stable(c, e, f, g, h, x["d1"], x["d2"])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 4),
    kind=st.sampled_from(["affine", "multiaffine", "repeated"]),
    target=st.floats(0.2, 1.5),
)
def test_certificate_is_sound_on_random_families(seed, n, kind, target):
    got, stable = _random_family_verdicts(seed, n, kind, target)
    assert stable or not got


@pytest.mark.parametrize("kind", ["affine", "multiaffine", "repeated"])
def test_random_families_stable_on_their_box_are_mostly_certified(kind):
    # the soundness property above holds vacuously if nothing is certified: on small
    # boxes (perturbations of at most 6 % of each coefficient) most families are
    verdicts = [_random_family_verdicts(seed, 3, kind, 0.2) for seed in range(20)]
    assert all(stable for got, stable in verdicts if got)
    stable_ones = [got for got, stable in verdicts if stable]
    assert len(stable_ones) >= 10 and sum(stable_ones) >= 0.8 * len(stable_ones)


def test_random_affine_families_are_certified_near_their_margin():
    # affine dependence: the polytope is the family, so the test is exact; the margin
    # of the written-out family is bisected on a dense grid of the box's boundary
    rng = np.random.default_rng(11)
    certified = 0
    for _ in range(12):
        n = 3
        c = np.real(np.poly(-rng.uniform(0.3, 3.0, n)))[::-1][:-1]
        e, f = (rng.uniform(-0.3, 0.3, n) * np.abs(c) for _ in range(2))
        zero = np.zeros(n)
        problem = uncertain_problem(_family_loop(c, e, f, zero, zero))

        def boundary_stable(t, c=c, e=e, f=f, zero=zero):
            u = np.linspace(-t, t, 201)
            side = np.concatenate([np.full_like(u, -t), np.full_like(u, t)])
            a, b = np.concatenate([u, u, side]), np.concatenate([side, u, u])
            return _family_stable(c, e, f, zero, zero, a, b)

        lo, hi = 0.0, 8.0
        if boundary_stable(hi):
            continue
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if boundary_stable(mid) else (lo, mid)
        cover = pc.certify_box_polytope(problem, problem.blocks, 0.99 * lo)
        assert cover is not None and cover.certified
        certified += 1
        assert pc.certify_box_polytope(problem, problem.blocks, 1.01 * hi) is None
    assert certified >= 6


# ------------------------------------------------------------------------- robstab


@pytest.mark.parametrize(
    ("loop", "exact"), [(_pole_escape, 1.5), (_product_loop, 1.0)], ids=["escape", "product"]
)
def test_robstab_uses_the_polytope_and_stays_sound(loop, exact):
    res = rmb.robstab(loop(), sensitivity=False)
    assert res.certified
    assert res.lower <= exact <= res.upper * (1 + 1e-9)
    assert res.upper / res.lower - 1 <= 5e-3
    assert isinstance(res.boxes, pc.PolytopeCover) and res.boxes.certified
    assert "vertex polytope" in res.reason
    assert res.mu.covered  # the evidence sweep covers the whole axis


def test_not_applicable_outside_its_scope():
    discrete = rmb.feedback(
        rmb.ureal("g", 0.5, percent=20)
        * rmb.uss(control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1)),
        1,
    )
    problem = uncertain_problem(discrete)
    assert not pc.applicable(problem, problem.blocks)
    s = control.tf("s")
    elems = [rmb.ureal(f"a{i}", 1.0, percent=10) for i in range(5)]
    loop = 1 / (s + elems[0])
    for el in elems[1:]:
        loop = loop + 1 / (s + el)
    problem = uncertain_problem(loop)
    assert not pc.applicable(problem, problem.blocks)  # five elements
    cplx = rmb.ucomplex("c", 1.0, radius=0.1) * rmb.uss(control.ss(1 / (s + 1)))
    problem = uncertain_problem(cplx)
    assert not pc.applicable(problem, problem.blocks)
