"""hinfstruct: analytic subgradients, COMPleib static output feedback, full-order floor."""

import control
import numpy as np
import pytest
from _compleib import compleib, full_order_floor, static_loop
from _finite_differences import central_differences
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.tuning.h2_gradient import h2_gradient
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_term import Term


def _random_loop(seed, block):
    """A stable random plant closed with a tunable block; parameters at a random point."""
    rng = np.random.default_rng(seed)
    n, nw, nz = 3, 2, 2
    a = rng.standard_normal((n, n)) - 3.0 * np.eye(n)
    P = control.ss(
        a,
        rng.standard_normal((n, nw + 1)),
        rng.standard_normal((nz + 1, n)),
        np.vstack(
            [0.2 * rng.standard_normal((nz, nw + 1)), np.r_[0.1 * rng.standard_normal(nw), 0]]
        ),
    )
    K = {
        "gain": lambda: rmb.tunable_gain("K", 1, 1),
        "pid": lambda: rmb.tunable_pid("C"),
        "ss": lambda: rmb.tunable_ss("C", 2, 1, 1),
        "tf": lambda: rmb.tunable_tf("F", 1, 2),
    }[block]()
    CL = rmb.lft_lower(P, K)
    pv = ParameterVector(CL.tunables)
    x = pv.initial() + 0.3 * rng.standard_normal(pv.size)
    if block == "pid":
        x[pv.offsets["C.Tf"]] = 0.2 + rng.uniform()
    return TunableLFT(CL, pv), x


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), block=st.sampled_from(["gain", "pid", "ss", "tf"]))
@example(seed=575, block="ss")  # a flat peak: the level set stopped 15 % off its frequency
@example(seed=413, block="tf")  # the finite differences of the inner evaluation were 2 % off
def test_hinf_subgradient_equals_finite_differences(seed, block):
    lft, x = _random_loop(seed, block)
    a = lft.statespace(x)[0]
    if np.max(np.linalg.eigvals(a).real) > -1e-2:
        return  # only stable points have a finite norm
    term = Term(lft)
    f0, g = term.evaluate(x)
    # The peak must be unique and simple: compare the two largest singular values at
    # the peak and the peak against a grid (a second, distant local peak of nearly equal
    # height makes the norm non-differentiable).  The grid holds fine grids around each
    # pole's frequency, where a lightly damped resonance narrower than the log grid's
    # 0.7 % spacing would otherwise be missed.
    A, B, C, D = lft.statespace(x)
    wp = np.abs(np.linalg.eigvals(A).imag)
    wp = wp[(wp > 1e-3) & (wp < 1e3)]
    w = np.unique(
        np.concatenate(
            [np.logspace(-3, 3, 2000), *(wi * (1 + np.linspace(-0.02, 0.02, 201)) for wi in wp)]
        )
    )
    sys = control.ss(A, B, C, D)
    sv = np.linalg.svd(np.moveaxis(sys(1j * w), -1, 0), compute_uv=False)
    top = sv[:, 0]
    if np.sum(top > f0 * (1 - 1e-3)) > 0 and np.max(sv[:, 1]) > f0 * (1 - 1e-2):
        return
    peaks = [i for i in range(1, len(w) - 1) if top[i] >= top[i - 1] and top[i] >= top[i + 1]]
    if sum(top[i] > f0 * (1 - 1e-2) for i in peaks) > 1:
        return
    # Seed 413, "tf" has one peak (16.8746 at 0.33879 rad/s; the second singular value
    # is 0.121 there): its gradient was 1e-3 off when the inner value came from the
    # modal level set, whose frequency is within a relative sqrt(tol) only (0.33877);
    # AB13DD's frequency at 1e-12 gives it to 1e-8.
    # Differences of rmb.hinfnorm at a tight tolerance: the optimiser's own evaluation
    # stops its level set at a relative 1e-7, which over a 1e-6 step is an O(1) error in a
    # difference quotient (seed 413, "tf": 2 % off while the gradient was right).
    fd = central_differences(lambda y: rmb.hinfnorm(lft.statespace(y), tol=1e-12)[0], x)
    np.testing.assert_allclose(g, fd, rtol=2e-4, atol=2e-5 * max(1.0, f0))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), block=st.sampled_from(["gain", "ss"]))
def test_h2_and_abscissa_gradients_equal_finite_differences(seed, block):
    lft, x = _random_loop(seed, block)
    A, B, C, D = lft.statespace(x)
    if np.max(np.linalg.eigvals(A).real) > -1e-2:
        return
    from robustmb.tuning.spectral_gradients import spectral_abscissa_gradient

    n = A.shape[0]

    def abscissa(y):
        return spectral_abscissa_gradient(lft.statespace(y)[0])[0]

    alpha, ga = spectral_abscissa_gradient(A)
    lam = np.sort_complex(np.linalg.eigvals(A))
    if np.sum(np.abs(lam.real - alpha) < 1e-3) == 1:  # a simple real rightmost eigenvalue
        gs = np.zeros((n + lft.ny, n + lft.nu))
        gs[:n, :n] = ga
        np.testing.assert_allclose(
            lft.chain(x, gs), central_differences(abscissa, x), rtol=1e-4, atol=1e-6
        )
    # H2 of the loop with its feedthrough removed (strictly proper).
    lft2_val = lambda y: h2_gradient(*lft.statespace(y)[:3], np.zeros_like(D))[0]  # noqa: E731
    j, gs = h2_gradient(A, B, C, np.zeros_like(D))
    gs[n:, n:] = 0.0  # D is held at zero
    # chain() also moves D; the H2 value ignores D, so zero its block above.
    np.testing.assert_allclose(
        lft.chain(x, gs), central_differences(lft2_val, x), rtol=1e-4, atol=1e-7
    )


def test_hinfstruct_scalar_gain_matches_brute_force():
    """A one-parameter problem: the tuned gain is the minimiser on a dense 1-D grid."""
    d = [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    P = control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], d)
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), random_start=1, seed=1)
    ks = np.linspace(-30.0, -5.0, 1000)  # the stabilising gains are K < -1
    w = np.logspace(-3, 4, 800)
    # The closed loop for every gain on the grid, by the textbook formulas, vectorised
    # (one state: scalars); z = [x; 0.1 u] from [w; n], y = x + 0.1 n, u = k y.
    jw = 1j * w[None, :]
    k = ks[:, None]
    acl = 1.0 + k
    res_x = 1.0 / (jw - acl)  # (jw - Acl)^-1
    # B_cl = [1, 0.1 k]; C_cl = [1; 0.1 k]; D_cl = [[0, 0], [0, 0.01 k]]
    t11 = res_x
    t12 = res_x * 0.1 * k
    t21 = 0.1 * k * res_x
    t22 = 0.1 * k * res_x * 0.1 * k + 0.01 * k
    T = np.stack([np.stack([t11, t12], -1), np.stack([t21, t22], -1)], -2)
    grid = np.linalg.svd(T, compute_uv=False)[..., 0].max(axis=1)
    assert res.gamma <= grid.min() * (1 + 1e-6)
    assert res.gamma >= grid.min() * (1 - 1e-3)  # the grid's minimum is attained near K
    assert abs(res.values["K"][0, 0] - ks[np.argmin(grid)]) < 0.2
    assert res.verify() == pytest.approx(res.gamma, rel=1e-9)


def test_hinfstruct_multi_model_is_worst_case():
    s = control.tf("s")
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    G = rmb.uss(1 / (s - a))
    # z = [G (w + u); 0.1 u], y = G (w + u)
    P = rmb.hstack(G, G)
    P = rmb.vstack(P, rmb.uss(rmb.umat([[0.0, 0.1]])), P)
    K = rmb.tunable_gain("K", 1, 1)
    res = rmb.hinfstruct(P, K, samples=[{"a": 0.5}, {"a": 2.0}], random_start=1, seed=0)
    assert len(res.closed_loop) == 3
    per = [rmb.hinfnorm(cl)[0] for cl in res.closed_loop]
    assert res.gamma == pytest.approx(max(per), rel=1e-12)
    # Independent: substitute the tuned gain in each model by python-control.
    k = res.values["K"][0, 0]
    for av, g in zip([1.0, 0.5, 2.0], per, strict=True):
        Pn = P.usubs({"a": av})
        cl = static_loop(Pn, [[k]])
        assert rmb.hinfnorm(cl)[0] == pytest.approx(g, rel=1e-6)


# Acceptance of the oracle files: within 1 % of the worse of the published hinfstruct and
# HIFOO values (tests/data/compleib_*_static_hinf.json, "tolerance").
# Besides, the published hinfstruct values themselves (MATLAB, RandomStart = 5), to their
# printed digits: AC15 15.2, HE4 22.84 (printed 22.8; HIFOO 22.8382), HF2D11 7.72e4,
# DLR2 4.01e3.
COMPLEIB = [
    ("AC15", 3, 0, 15.2),
    ("HE4", 5, 0, 22.84),
    # HF2D11 has many local minima: with 3 random starts seed 0 gives 77238 (seeds 1, 2:
    # 76924, 76969), so it gets 5 starts like HE4 (76932).
    ("HF2D11", 5, 0, 77200.0),
    ("DLR2", 3, 0, 4010.0),  # nx = 40, balanced: 4006.6 (several minutes)
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "starts", "seed", "published_value"), COMPLEIB)
def test_compleib_static_output_feedback(name, starts, seed, published_value):
    P, oracle, mats = compleib(name)
    published = oracle["expected"]
    target = 1.01 * max(published["hifoo_order0_hinf"], published["hinfstruct_static_hinf"])
    nu, ny = mats[2].shape[1], mats[4].shape[0]
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", nu, ny), random_start=starts, seed=seed)
    # Independent re-verification: python-control closed loop, stable, hinfnorm.
    K = res.values["K"]
    cl = static_loop(P, K)
    assert np.max(cl.poles().real) < 0
    gamma = rmb.hinfnorm(cl)[0]
    assert gamma == pytest.approx(res.gamma, rel=1e-6)
    assert gamma <= target
    assert gamma <= published_value
    # No structured controller beats the certified full-order floor (a proven bound: no
    # slack; 0 when no certificate was found, as on HF2D11).
    if name == "DLR2":
        return  # its full-order SDP (nx = 40) does not solve (CLARABEL fails after minutes)
    floor = full_order_floor(*mats)
    assert gamma >= floor.lower
    assert floor.certified == (name != "HF2D11")


@pytest.mark.slow
def test_full_order_floor_matches_riccati_synthesis():
    """The LMI optimum equals the Riccati (SLICOT SB10AD via python-control) optimum."""
    rng = np.random.default_rng(7)
    n = 4
    a = rng.standard_normal((n, n))
    b1, b2 = rng.standard_normal((n, 2)), rng.standard_normal((n, 1))
    c1, c2 = rng.standard_normal((2, n)), rng.standard_normal((1, n))
    d12 = np.array([[0.0], [1.0]])
    d21 = np.array([[0.0, 1.0]])
    P = control.ss(
        a,
        np.hstack([b1, b2]),
        np.vstack([c1, c2]),
        np.block([[np.zeros((2, 2)), d12], [d21, np.zeros((1, 1))]]),
    )
    _, _, gam_riccati, _ = control.hinfsyn(P, 1, 1)
    from robustmb.tuning.full_order_floor import full_order_gamma

    assert full_order_gamma(P, 1, 1) == pytest.approx(gam_riccati, rel=2e-3)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), n=st.integers(1, 8), feed=st.booleans())
def test_inner_loop_peak_gain_agrees_with_hinfnorm(seed, n, feed):
    """The optimiser's lean level-set evaluation equals rmb.hinfnorm (stable models)."""
    from robustmb.tuning.gradients import hinf_gradient

    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    a -= (np.max(np.linalg.eigvals(a).real) + rng.uniform(0.01, 1.0)) * np.eye(n)
    b, c = rng.standard_normal((n, 2)), rng.standard_normal((3, n))
    d = rng.standard_normal((3, 2)) if feed else np.zeros((3, 2))
    g, w, _ = hinf_gradient(a, b, c, d)
    ref, _ = rmb.hinfnorm((a, b, c, d))
    assert g == pytest.approx(ref, rel=1e-6)
    # The value is attained at the returned frequency.
    if np.isfinite(w):
        resp = c @ np.linalg.solve(1j * w * np.eye(n) - a, b) + d
        assert np.linalg.svd(resp, compute_uv=False)[0] == pytest.approx(g, rel=1e-9)


@pytest.mark.parametrize(("kp", "ki"), [(2.0347, 2.1409), (2.03, 2.14), (2.55, 5.0)])
def test_inner_loop_finds_a_low_peak_just_above_the_feedthrough_level(kp, ki):
    """A tracking error's bump barely above its limit |W(inf)| = 0.5 is not missed.

    The level set next to sigma(D) is nearly singular; the optimiser used to return the
    limit (peak at infinity, zero gradient) and stall there.
    """
    from robustmb.tuning.gradients import hinf_gradient

    s = control.tf("s")
    L = (kp + ki / s) / (s + 1)
    err = control.ss(control.minreal((s + 2) / (2 * s + 2e-3) / (1 + L), verbose=False))
    a, b, c, d = (np.asarray(m) for m in (err.A, err.B, err.C, err.D))
    g, w, _ = hinf_gradient(a, b, c, d)
    ref, _ = rmb.hinfnorm(err)
    # Independent: a dense grid of the same transfer by python-control.
    grid = np.abs(np.squeeze(err(1j * np.geomspace(1e-3, 1e3, 20001)))).max()
    assert grid > 0.5 * (1 + 1e-5)  # the bump is above the limit
    assert g == pytest.approx(ref, rel=1e-7)
    assert g >= grid * (1 - 1e-9) and np.isfinite(w)


def test_hinfstruct_list_of_plants_and_bad_input():
    d = [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    plants = [control.ss([[a]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], d) for a in (1.0, 2.0)]
    res = rmb.hinfstruct(plants, rmb.tunable_gain("K", 1, 1), seed=0)
    k = res.values["K"]
    per = [rmb.hinfnorm(static_loop(p, k))[0] for p in plants]
    assert res.gamma == pytest.approx(max(per), rel=1e-9)
    # The joint optimum is no better than either plant tuned alone.
    alone = [rmb.hinfstruct(p, rmb.tunable_gain("K", 1, 1), seed=0).gamma for p in plants]
    assert res.gamma >= max(alone) * (1 - 1e-6)
    with pytest.raises(rmb.errors.DimensionError, match="plant 0"):
        rmb.hinfstruct(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]), rmb.tunable_gain("K", 1, 1))
    with pytest.raises(rmb.errors.UncertainTypeError, match="no tunable"):
        rmb.hinfstruct(plants[0], control.ss([], [], [], [[1.0]]))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 5))
def test_discrete_h2_gradient_against_h2norm(seed, n):
    """Discrete-time H2 value and gradient w.r.t. [[A, B], [C, D]] against rmb.h2norm."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    a *= rng.uniform(0.1, 0.9) / max(np.max(np.abs(np.linalg.eigvals(a))), 1e-9)
    b, c, d = rng.standard_normal((n, 2)), rng.standard_normal((3, n)), rng.standard_normal((3, 2))
    j, gs = h2_gradient(a, b, c, d, dt=0.1)

    def ref(s):
        return rmb.h2norm(control.ss(s[:n, :n], s[:n, n:], s[n:, :n], s[n:, n:], 0.1))

    s0 = np.block([[a, b], [c, d]])
    assert j == pytest.approx(ref(s0), rel=1e-9)
    fd = np.zeros_like(s0)
    h = 1e-6
    for idx in np.ndindex(*s0.shape):
        e = np.zeros_like(s0)
        e[idx] = h
        fd[idx] = (ref(s0 + e) - ref(s0 - e)) / (2 * h)
    np.testing.assert_allclose(gs, fd, rtol=1e-5, atol=1e-6 * max(1.0, j))


def test_discrete_hinfstruct_scalar_gain_matches_brute_force():
    """Discrete time: stability is |z| < 1 and the norm is taken on the unit circle."""
    ts = 0.1
    d = [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    # x+ = 1.2 x + w + u (unstable), z = [x; 0.1 u], y = x + 0.1 n, u = k y.
    P = control.ss([[1.2]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], d, ts)
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), random_start=1, seed=0)
    k = res.values["K"][0, 0]
    assert abs(1.2 + k) < 1
    ks = np.linspace(-2.19, -0.21, 2000)[:, None]  # |1.2 + k| < 1
    z = np.exp(1j * np.linspace(0.0, np.pi, 1500))[None, :]
    rx = 1.0 / (z - (1.2 + ks))
    t11, t12, t21 = rx, rx * 0.1 * ks, 0.1 * ks * rx
    t22 = 0.01 * ks * ks * rx + 0.01 * ks
    T = np.stack([np.stack([t11, t12], -1), np.stack([t21, t22], -1)], -2)
    grid = np.linalg.svd(T, compute_uv=False)[..., 0].max(axis=1)
    assert res.gamma <= grid.min() * (1 + 1e-6)
    assert res.gamma >= grid.min() * (1 - 1e-3)
    assert abs(k - ks[np.argmin(grid), 0]) < 0.05
    assert res.closed_loop.dt == ts
    assert res.verify() == pytest.approx(res.gamma, rel=1e-9)


def test_discrete_systune_variance_goal_against_h2norm():
    """Discrete H2 (Variance) tuning of a gain: the optimum of a 1-D grid of h2norm."""
    from robustmb.tuning import Variance

    ts = 0.5
    G = control.ss([[0.9]], [[1.0, 1.0]], [[1.0]], [[0.0, 0.0]], ts, inputs=["n", "u"], outputs="y")
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["y"], ["u"]
    CL = rmb.connect([G, K], None, ["n"], ["y", "u"])
    weights = np.diag([1.0, 0.5])
    CLw = rmb.uss(weights) @ CL
    CLw.input_names, CLw.output_names = ["n"], ["y", "u"]
    res = rmb.systune(CLw, [Variance("n", ["y", "u"], 1.0)], seed=0)
    ks = np.linspace(-1.89, 0.09, 4001)
    vals = [
        rmb.h2norm(control.ss([[0.9 + k]], [[1.0]], [[1.0], [0.5 * k]], [[0.0], [0.0]], ts))
        for k in ks
    ]
    assert res.soft[0] == pytest.approx(min(vals), rel=1e-6)
    assert abs(res.values["K"][0, 0] - ks[int(np.argmin(vals))]) < 2e-3
    assert res.verify()["soft"][0] == pytest.approx(res.soft[0], rel=1e-9)


def test_discrete_systune_with_a_hard_poles_goal_against_the_closed_form():
    """Discrete Variance tuning under ``Poles(min_decay=5)``: the closed-loop pole
    ``z = 0.9 + K`` must satisfy ``-log|z| / Ts >= 5``, i.e. ``|z| <= exp(-5 Ts)``.  The
    unconstrained optimum (``z = 0.159``, decay 3.68) violates it, so the optimum is the
    boundary point ``z = exp(-2.5)``, where ``(1 + K^2 / 4) / (1 - z^2)`` (the squared
    H2 norm in closed form) is least on the allowed interval."""
    from robustmb.tuning import Poles, Variance

    ts = 0.5
    G = control.ss([[0.9]], [[1.0, 1.0]], [[1.0]], [[0.0, 0.0]], ts, inputs=["n", "u"], outputs="y")
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["y"], ["u"]
    CL = rmb.connect([G, K], None, ["n"], ["y", "u"])
    CLw = rmb.uss(np.diag([1.0, 0.5])) @ CL
    CLw.input_names, CLw.output_names = ["n"], ["y", "u"]
    res = rmb.systune(CLw, [Variance("n", ["y", "u"], 1.0)], [Poles(min_decay=5.0)], seed=0)
    ks = np.linspace(-0.9 - np.exp(-2.5), -0.9 + np.exp(-2.5), 200001)
    h2sq = (1 + 0.25 * ks**2) / (1 - (0.9 + ks) ** 2)
    k_opt = ks[np.argmin(h2sq)]
    assert k_opt == pytest.approx(np.exp(-2.5) - 0.9, abs=1e-5)  # the boundary
    assert res.values["K"][0, 0] == pytest.approx(k_opt, abs=1e-4)
    assert res.soft[0] == pytest.approx(np.sqrt(h2sq.min()), rel=1e-4)
    z = 0.9 + res.values["K"][0, 0]
    assert res.hard[0] <= 1.0 + 1e-9
    chk = res.verify()
    assert chk["hard"][0] == pytest.approx(1.0 + (np.log(abs(z)) / ts + 5.0) / 5.0, abs=1e-9)


def test_balancing_keeps_the_plant_and_only_acts_on_bad_scaling():
    """The balanced plant has the same frequency response (python-control, dense grid)."""
    from robustmb.tuning.hinfstruct import _balanced

    a = np.array([[-1.0, 1e4, 0.0], [0.0, -2.0, 3e3], [-1e-3, 0.0, -0.5]])
    P = control.ss(a, [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], 0)
    Pb = _balanced(P)
    assert np.linalg.norm(Pb.A, 1) < 0.1 * np.linalg.norm(a, 1)
    w = np.geomspace(1e-3, 1e4, 400)
    np.testing.assert_allclose(Pb(1j * w), P(1j * w), rtol=1e-12, atol=1e-14)
    well = control.ss([[-1.0, 2.0], [0.0, -3.0]], [[1.0], [1.0]], [[1.0, 1.0]], [[0.0]])
    assert _balanced(well) is well


def _static_problem(P, nu, ny):
    """The tuning problem hinfstruct builds for a static gain on ``P``."""
    from robustmb.lft.algebra import lft_lower
    from robustmb.lft.model import as_model
    from robustmb.tuning.tuning_problem import TuningProblem

    km = as_model(rmb.tunable_gain("K", nu, ny))
    params = ParameterVector(km.tunables)
    lft = TunableLFT(lft_lower(as_model(P), km), params)
    return TuningProblem(params, [Term(lft)], loops=[lft])


@pytest.mark.slow
def test_polish_near_reproduces_each_when_every_run_is_near():
    """polish='near' with an infinite window polishes every run exactly as 'each' does.

    The polish is deferred to ``polish_run`` (from the run's own final subgradient); the
    starts, the polished points and values must be the same numbers, and skipping far
    runs must leave the values of the runs it polishes unchanged.
    """
    P, _, mats = compleib("AC17")
    nu, ny = mats[2].shape[1], mats[4].shape[0]
    each, _ = _static_problem(P, nu, ny).solve(random_start=2, seed=3, polish="each")
    near, _ = _static_problem(P, nu, ny).solve(random_start=2, seed=3, polish="near", near=np.inf)
    for a, b in zip(each, near, strict=True):
        np.testing.assert_array_equal(a.start, b.start)
        np.testing.assert_array_equal(a.x, b.x)
        assert a.value == b.value
    # A window of 0: a run is polished only when BFGS already ties or beats the best.
    tight, _ = _static_problem(P, nu, ny).solve(random_start=2, seed=3, polish="near", near=0.0)
    np.testing.assert_array_equal(tight[0].x, each[0].x)  # the first run: always polished
    for r in tight:
        assert r.value == pytest.approx(_static_problem(P, nu, ny).objective(r.x)[0], rel=1e-12)
    with pytest.raises(rmb.errors.ArgumentError, match="polish"):
        _static_problem(P, nu, ny).solve(polish="some")


@pytest.mark.parametrize("near", [float("nan"), -0.1, "0.05", None, True])
def test_solve_rejects_a_bad_near(near):
    # checked before any run: an unchecked nan disabled every polish, a negative value
    # or a string failed deep inside the comparison
    P, _, mats = compleib("AC17")
    problem = _static_problem(P, mats[2].shape[1], mats[4].shape[0])
    with pytest.raises(rmb.errors.ArgumentError, match="near"):
        problem.solve(polish="near", near=near)


def test_join_stops_later_runs_level_with_the_best_and_keeps_the_best_value():
    """``solve(join=...)``: a later run stops once its value is within ``[best, best (1 +
    join)]`` (never below the best), unpolished; runs before it are unchanged, the best
    value is that of ``join=0`` and equals ``hinfnorm`` of the textbook loop, and fewer
    objective evaluations are made."""
    P, _, mats = compleib("AC17")
    nu, ny = mats[2].shape[1], mats[4].shape[0]
    out, counts = {}, {}
    for join in (0.0, 1e-6):
        problem = _static_problem(P, nu, ny)
        count = [0]
        objective = problem.objective

        def counted(x, _objective=objective, _count=count, **kwargs):
            _count[0] += 1
            return _objective(x, **kwargs)

        problem.objective = counted
        out[join], _ = problem.solve(random_start=3, seed=0, polish="near", near=0.01, join=join)
        counts[join] = count[0]
    free, joined = out[0.0], out[1e-6]
    first = next(i for i, r in enumerate(joined) if r.message == "joined")
    assert first >= 1
    for a, b in zip(free[:first], joined[:first], strict=True):
        np.testing.assert_array_equal(a.x, b.x)
        assert a.value == b.value
    for i, r in enumerate(joined):
        if r.message == "joined":
            top = min(q.value for q in joined[:i])
            assert top <= r.value <= top * (1 + 2e-6)
    best = min(r.value for r in joined)
    assert best == pytest.approx(min(r.value for r in free), rel=1e-6)
    k = min(joined, key=lambda r: r.value).x.reshape(nu, ny)
    assert best == pytest.approx(rmb.hinfnorm(static_loop(P, k), tol=1e-10)[0], rel=1e-9)
    assert counts[1e-6] < counts[0.0]


@pytest.mark.parametrize("join", [float("nan"), -1e-6, np.inf, "1e-6", None, True])
def test_solve_rejects_a_bad_join(join):
    P, _, mats = compleib("AC17")
    problem = _static_problem(P, mats[2].shape[1], mats[4].shape[0])
    with pytest.raises(rmb.errors.ArgumentError, match="join"):
        problem.solve(join=join)


def _plant_1_over_s_minus_1():
    d = [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    return control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], d)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"polish_window": -0.01}, "polish_window"),
        ({"polish_window": float("nan")}, "polish_window"),
        ({"polish_window": "0.01"}, "polish_window"),
        ({"join": float("inf")}, "join"),
        ({"join": -1e-6}, "join"),
        ({"join": True}, "join"),
    ],
)
def test_hinfstruct_rejects_bad_search_heuristics(kwargs, name):
    with pytest.raises(rmb.errors.ArgumentError, match=f"hinfstruct: {name}"):
        rmb.hinfstruct(_plant_1_over_s_minus_1(), rmb.tunable_gain("K", 1, 1), **kwargs)


def test_hinfstruct_heuristics_off_reach_the_brute_force_optimum():
    """``polish_window=inf, join=0`` (both heuristics off) on the scalar problem of
    ``test_hinfstruct_scalar_gain_matches_brute_force``: every run is polished, none is
    joined, and gamma is the grid minimum of the closed-loop norm (textbook formula
    ``|T(jw)|`` over gains), reported by hinfnorm."""
    P = _plant_1_over_s_minus_1()
    res = rmb.hinfstruct(
        P, rmb.tunable_gain("K", 1, 1), random_start=2, seed=1, polish_window=np.inf, join=0
    )
    assert all(r.message != "joined" for r in res.runs)
    ks = np.linspace(-30.0, -5.0, 1000)[:, None]
    jw = 1j * np.logspace(-3, 4, 800)[None, :]
    rx = 1.0 / (jw - (1.0 + ks))
    t = np.stack(
        [
            np.stack([rx, rx * 0.1 * ks], -1),
            np.stack([0.1 * ks * rx, 0.01 * ks * ks * rx + 0.01 * ks], -1),
        ],
        -2,
    )
    grid = np.linalg.svd(t, compute_uv=False)[..., 0].max(axis=1)
    assert grid.min() * (1 - 1e-3) <= res.gamma <= grid.min() * (1 + 1e-6)
    assert res.verify() == pytest.approx(res.gamma, rel=1e-9)


def test_join_stops_without_stationarity():
    """The join rule is a heuristic that can change the result: BFGS on Rosenbrock's
    function plus one (minimum 1 at (1, 1)) joined to a value on its own path stops
    there, far above the minimum with a large gradient; unjoined it reaches 1."""
    from robustmb.tuning.nonsmooth_bfgs import bfgs

    def f(x):
        a, b = x
        g = np.array([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)])
        return (1 - a) ** 2 + 100 * (b - a * a) ** 2 + 1.0, g

    free = bfgs(f, np.array([-1.2, 1.0]))
    assert free.f == pytest.approx(1.0, abs=1e-6)
    v = free.history[len(free.history) // 3] / (1 + 5e-7)
    assert v > 1.1  # a value well above the minimum, reached on the way
    joined = bfgs(f, np.array([-1.2, 1.0]), join=(v, 1e-6))
    assert joined.message == "joined"
    assert v <= joined.f <= v * (1 + 1e-6)
    assert np.linalg.norm(joined.g) > 1e-2
