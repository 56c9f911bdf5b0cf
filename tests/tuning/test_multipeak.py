"""The multi-peak step (Apkarian--Noll): simplex QP, nonsmooth minima, two-peak tuning."""

import itertools

import control
import numpy as np
import pytest
from scipy.optimize import linprog

import robustmb as rmb
from robustmb.errors import DimensionError
from robustmb.tuning.gradients import hinf_gradient, hinf_peaks
from robustmb.tuning.multipeak import multipeak_direction, simplex_qp
from robustmb.tuning.nonsmooth_bfgs import bfgs


def _qp_by_enumeration(m, c):
    """Exact minimiser over the simplex: every support's equality-constrained optimum."""
    k = c.size
    best, arg = np.inf, None
    for r in range(1, k + 1):
        for s in itertools.combinations(range(k), r):
            s = list(s)
            kkt = np.zeros((r + 1, r + 1))
            kkt[:r, :r] = m[np.ix_(s, s)]
            kkt[:r, r] = kkt[r, :r] = 1.0
            sol = np.linalg.lstsq(kkt, np.r_[c[s], 1.0], rcond=None)[0][:r]
            if np.any(sol < -1e-12):
                continue
            lam = np.zeros(k)
            lam[s] = np.maximum(sol, 0)
            lam /= lam.sum()
            val = 0.5 * lam @ m @ lam - c @ lam
            if val < best:
                best, arg = val, lam
    return best, arg


@pytest.mark.parametrize("seed", range(40))
def test_simplex_qp_equals_enumeration_of_supports(seed):
    rng = np.random.default_rng(seed)
    k, n = rng.integers(2, 7), rng.integers(1, 6)
    g = rng.standard_normal((k, n))  # rank-deficient when n < k: a PSD, singular M
    m = g @ g.T
    c = rng.standard_normal(k) * rng.choice([0.0, 0.1, 1.0])
    lam = simplex_qp(m, c)
    assert lam.min() >= 0 and lam.sum() == pytest.approx(1.0, abs=1e-12)
    best, _ = _qp_by_enumeration(m, c)
    val = 0.5 * lam @ m @ lam - c @ lam
    assert val <= best + 1e-10 * max(1.0, abs(best))


def test_simplex_qp_and_direction_reject_bad_input():
    with pytest.raises(DimensionError, match="shape"):
        simplex_qp(np.eye(2), np.zeros(3))
    with pytest.raises(DimensionError, match="finite"):
        simplex_qp(np.eye(2), np.array([0.0, np.nan]))
    with pytest.raises(DimensionError, match="2 values for 3 gradients"):
        multipeak_direction(np.zeros(2), np.zeros((3, 2)), 0.0, np.eye(2))


def test_multipeak_direction_is_the_primal_model_step():
    """The dual's step solves the primal model: compare with a fine grid over d (n = 2)."""
    rng = np.random.default_rng(3)
    g = rng.standard_normal((3, 2))
    vals = np.array([0.0, -0.2, -0.1])
    q = np.array([[2.0, 0.3], [0.3, 1.0]])
    d, theta, gagg, lam = multipeak_direction(vals, g, 0.0, np.linalg.inv(q))

    def model(dd):
        return np.max(vals[:, None] + g @ dd, axis=0) + 0.5 * np.einsum("ij,ik,kj->j", dd, q, dd)

    ax = np.linspace(-3, 3, 1201)
    grid = np.stack(np.meshgrid(ax, ax)).reshape(2, -1)
    assert model(d[:, None])[0] <= model(grid).min() + 1e-9
    assert theta == pytest.approx(np.max(vals + g @ d), abs=1e-14)
    np.testing.assert_allclose(d, -np.linalg.solve(q, gagg), atol=1e-12)


def _max_function(a, b):
    """``max_i (a_i . x + b_i)`` with its active pieces for ``bfgs(pieces=...)``."""

    def fun(x):
        v = a @ x + b
        k = int(np.argmax(v))
        return float(v[k]), a[k].copy()

    def pieces(x):
        v = a @ x + b
        keep = v >= v.max() - 0.05 * max(1.0, abs(v.max()))
        return (
            v[keep],
            a[keep],
            np.column_stack([np.flatnonzero(keep), np.full(keep.sum(), np.nan)]),
        )

    return fun, pieces


@pytest.mark.parametrize("seed", range(6))
def test_bfgs_multipeak_reaches_the_lp_minimum_of_a_max_of_affine_pieces(seed):
    rng = np.random.default_rng(seed)
    n, m = 4, 9
    a = rng.standard_normal((m, n))
    a[-1] = -a[:-1].sum(axis=0)  # 0 in the interior of the hull: bounded below
    b = rng.standard_normal(m)
    # LP: min t s.t. a_i . x + b_i <= t.
    lp = linprog(
        np.r_[np.zeros(n), 1.0],
        A_ub=np.hstack([a, -np.ones((m, 1))]),
        b_ub=-b,
        bounds=[(None, None)] * (n + 1),
        method="highs",
    )
    assert lp.status == 0
    fun, pieces = _max_function(a, b)
    run = bfgs(fun, np.zeros(n), maxiter=500, ftol=1e-12, pieces=pieces)
    assert run.f == pytest.approx(lp.fun, abs=1e-7 * max(1.0, abs(lp.fun)))
    assert run.f >= lp.fun - 1e-9  # the LP optimum is a lower bound of every value


def test_bfgs_multipeak_finds_the_exact_minimiser_of_a_max_of_quadratics():
    """``max_i ||x - p_i||^2``, ``p = e1, -e1, e2`` (3-D): minimiser 0, value 1, three active."""
    p = np.array([[1.0, 0, 0], [-1.0, 0, 0], [0, 1.0, 0]])

    def vals_grads(x):
        return np.sum((x - p) ** 2, axis=1), 2 * (x - p)

    def fun(x):
        v, g = vals_grads(x)
        k = int(np.argmax(v))
        return float(v[k]), g[k]

    def pieces(x):
        v, g = vals_grads(x)
        keep = v >= 0.95 * v.max()
        return (
            v[keep],
            g[keep],
            np.column_stack([np.flatnonzero(keep), np.full(keep.sum(), np.nan)]),
        )

    x0 = np.array([0.7, -1.3, 0.4])
    run = bfgs(fun, x0, maxiter=500, ftol=1e-14, pieces=pieces)
    assert run.f == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(run.x, 0.0, atol=1e-5)


def _two_mode(a_gain, b_gain):
    """A 1 x 2 row ``h(s)``: band-pass modes at w = 1 and 10 (value ``gain`` there)."""
    s = control.tf("s")

    def bp(w0, z=0.05):
        return 2 * z * w0 * s / (s**2 + 2 * z * w0 * s + w0**2)

    return [a_gain[0] * bp(1.0) + a_gain[1] * bp(10.0), b_gain[0] * bp(1.0) + b_gain[1] * bp(10.0)]


def test_hinf_peaks_finds_every_local_maximum_of_a_frequency_grid():
    h = _two_mode((1.0, -0.5), (0.3, -0.8))
    sys = control.ss(
        control.tf([[h[0].num[0][0], h[1].num[0][0]]], [[h[0].den[0][0], h[1].den[0][0]]])
    )
    a, b, c, d = (np.asarray(m, float) for m in (sys.A, sys.B, sys.C, sys.D))
    gam, w, _ = hinf_gradient(a, b, c, d)
    vals, freqs, grads = hinf_peaks(a, b, c, d, gam, w, rel=0.5)
    # Independent: python-control's frequency response on a fine grid near each mode.
    for w0 in (1.0, 10.0):
        ws = np.linspace(0.9 * w0, 1.1 * w0, 20001)
        mag = np.linalg.norm(sys(1j * ws).reshape(2, -1), axis=0)
        k = int(np.argmax(mag))
        j = int(np.argmin(np.abs(freqs - ws[k])))
        assert freqs[j] == pytest.approx(ws[k], abs=2 * (ws[1] - ws[0]))
        assert vals[j] == pytest.approx(mag[k], rel=1e-6)
    assert vals.size == 2 and grads.shape == (2, *np.block([[a, b], [c, d]]).shape)


@pytest.mark.slow
def test_two_equal_peaks_at_the_optimum_match_the_socp_solution():
    """``min_K ||h(s) + K||_inf`` for a row ``h`` with modes at w = 1 and 10 (convex in K).

    The optimum has two equal peaks (one per mode).  A second-order cone programme over a
    dense frequency grid (cvxpy, independent of the tuning code) gives a lower bound
    ``t_grid`` on the optimum and a point ``K_grid`` whose true norm is an upper bound.
    """
    cp = pytest.importorskip("cvxpy")
    h = _two_mode((1.0, -0.5), (0.3, -0.8))
    row = control.ss(
        control.tf([[h[0].num[0][0], h[1].num[0][0]]], [[h[0].den[0][0], h[1].den[0][0]]])
    )
    ah, bh, ch = (np.asarray(m, float) for m in (row.A, row.B, row.C))
    nx = ah.shape[0]
    # Generalised plant: z = h w + u, y = w; u = K y gives z = (h + K) w.
    P = control.ss(
        ah,
        np.hstack([bh, np.zeros((nx, 1))]),
        np.vstack([ch, np.zeros((2, nx))]),
        np.block([[np.zeros((1, 2)), np.ones((1, 1))], [np.eye(2), np.zeros((2, 1))]]),
    )
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 2), random_start=1, seed=0)
    ws = np.unique(
        np.r_[
            0.0,
            np.geomspace(1e-3, 1e3, 2000),
            np.linspace(0.8, 1.2, 4001),
            np.linspace(8.0, 12.0, 4001),
        ]
    )
    resp = row(1j * ws).reshape(2, -1)
    k = cp.Variable(2)
    t = cp.Variable()
    stack = cp.vstack([resp[0].real + k[0], resp[0].imag, resp[1].real + k[1], resp[1].imag])
    cons = [cp.norm(stack, 2, axis=0) <= t]
    cp.Problem(cp.Minimize(t), cons).solve(solver="CLARABEL")
    t_grid, k_grid = float(t.value), np.asarray(k.value)
    upper = rmb.hinfnorm(control.ss(ah, bh, ch, k_grid[None, :]))[0]
    assert upper - t_grid < 1e-4 * t_grid  # the grid is fine enough for the check to bite
    assert t_grid * (1 - 1e-7) <= res.gamma <= upper * (1 + 1e-6)
    np.testing.assert_allclose(res.values["K"].ravel(), k_grid, atol=1e-3)
    # Two equal peaks at the optimum (independent: python-control's response near each mode).
    K = res.values["K"]
    cl = control.ss(ah, bh, ch, K)
    peaks = []
    for w0 in (1.0, 10.0):
        wf = np.linspace(0.9 * w0, 1.1 * w0, 40001)
        peaks.append(np.linalg.norm(cl(1j * wf).reshape(2, -1), axis=0).max())
    assert peaks[0] == pytest.approx(peaks[1], rel=1e-4)
    assert max(peaks) == pytest.approx(res.gamma, rel=1e-6)


def _two_mode_plant():
    """Generalised plant of ``min_K ||h(s) + K||_inf`` (z = h w + u, y = w) and ``h``."""
    h = _two_mode((1.0, -0.5), (0.3, -0.8))
    row = control.ss(
        control.tf([[h[0].num[0][0], h[1].num[0][0]]], [[h[0].den[0][0], h[1].den[0][0]]])
    )
    ah, bh, ch = (np.asarray(m, float) for m in (row.A, row.B, row.C))
    nx = ah.shape[0]
    P = control.ss(
        ah,
        np.hstack([bh, np.zeros((nx, 1))]),
        np.vstack([ch, np.zeros((2, nx))]),
        np.block([[np.zeros((1, 2)), np.ones((1, 1))], [np.eye(2), np.zeros((2, 1))]]),
    )
    return P, (ah, bh, ch)


@pytest.mark.parametrize("multipeak", [True, False])
def test_multipeak_option_of_hinfstruct(monkeypatch, multipeak):
    """``multipeak=False`` runs plain BFGS: no ``pieces`` and no multi-peak step anywhere;
    ``True`` takes the step at this problem's two-peak kink.  Either result is checked
    against python-control's closed loop and ``hinfnorm``."""
    import robustmb.tuning.nonsmooth_bfgs as nb
    import robustmb.tuning.tuning_problem as tp

    calls, steps = [], []
    bfgs_orig, step_orig = tp.bfgs, nb.multipeak_direction

    def spy_bfgs(*args, **kw):
        calls.append(kw.get("pieces"))
        return bfgs_orig(*args, **kw)

    def spy_step(*args, **kw):
        steps.append(1)
        return step_orig(*args, **kw)

    monkeypatch.setattr(tp, "bfgs", spy_bfgs)
    monkeypatch.setattr(nb, "multipeak_direction", spy_step)
    P, (ah, bh, ch) = _two_mode_plant()
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 2), seed=0, multipeak=multipeak)
    soft = [p for p in calls if p is not None]
    if multipeak:
        assert soft and steps
    else:
        assert calls and not soft and not steps
    cl = control.ss(ah, bh, ch, res.values["K"])
    assert np.max(cl.poles().real) < 0
    assert rmb.hinfnorm(cl)[0] == pytest.approx(res.gamma, rel=1e-9)
    # Bounds from python-control's response of h: the norm at K = 0 (the start) above,
    # and below, for every real K, ||h(jw) + K|| >= ||Im h(jw)|| on a grid.
    assert res.gamma <= rmb.hinfnorm(control.ss(ah, bh, ch, np.zeros((1, 2))))[0]
    ws = np.geomspace(0.1, 100.0, 4001)
    resp = control.ss(ah, bh, ch, np.zeros((1, 2)))(1j * ws).reshape(2, -1)
    lower = float(np.linalg.norm(resp.imag, axis=0).max())
    assert res.gamma >= lower


def test_multipeak_option_rejects_non_bool():
    P, _ = _two_mode_plant()
    with pytest.raises(rmb.errors.ArgumentError, match="hinfstruct: multipeak"):
        rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 2), multipeak="yes")
