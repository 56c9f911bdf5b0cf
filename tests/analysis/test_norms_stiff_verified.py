"""Stiff stable models get a finite, accurate norm; a finite norm always means stability.

References that share no code with robustmb's stability test or level-set iteration:
SLICOT's AB13DD and AB13BD (through slycot), python-control's hinfsyn for the closed
loop, the closed-form norm of a sum of first-order lags, and mpmath (50 digits) for the
poles and for ``G(j w)`` on the exact floating-point data.
"""

import control
import mpmath as mp
import numpy as np
import pytest
import slycot
from _oracles import load_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.norms_stability import pole_discs, verified_stable


def _mp_sigma_max(A, B, C, D, w, dps=40):
    """sigma_max(C (j w I - A)^-1 B + D) in mpmath, column by column."""
    with mp.workdps(dps):
        n = A.shape[0]
        M = mp.mpc(0, w) * mp.eye(n) - mp.matrix(A.tolist())
        X = mp.matrix(n, B.shape[1])
        for j in range(B.shape[1]):
            col = mp.lu_solve(M, mp.matrix(B[:, j].tolist()))
            for i in range(n):
                X[i, j] = col[i]
        G = mp.matrix(C.tolist()) * X + mp.matrix(D.tolist())
        return float(max(mp.svd_c(G, compute_uv=False)))


def _mp_max_real_pole(A, dps=50):
    with mp.workdps(dps):
        poles = mp.eig(mp.matrix(A.tolist()), left=False, right=False)
        return max(float(mp.re(p)) for p in poles)


@pytest.fixture(scope="module")
def sb10fd_closed_loop():
    """python-control's optimal hinfsyn on the SLICOT SB10FD example plant."""
    plant = load_oracle("hinfsyn_slicot_sb10fd_central_controller_gamma15")["plant"]
    P = control.ss(*(np.array(plant[k], float) for k in "ABCD"))
    _, CL, _, _ = control.hinfsyn(P, plant["nmeas"], plant["ncon"])
    return CL.A, CL.B, CL.C, CL.D


def test_sb10fd_closed_loop_is_stable_with_the_slicot_norm(sb10fd_closed_loop):
    A, B, C, D = sb10fd_closed_loop
    poles = np.linalg.eigvals(A)
    # the stiff case of interest: a fast pole many orders above the slow ones
    assert np.max(np.abs(poles)) / np.min(np.abs(poles)) > 1e6
    assert _mp_max_real_pole(A) < -1.0
    gamma, fpeak = rmb.hinfnorm(control.ss(A, B, C, D))
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    ref, _ = slycot.ab13dd(
        "C", "I", "N", "D", n, m, p, A.copy(), np.eye(n), B.copy(), C.copy(), D.copy(), 1e-10
    )
    assert np.isfinite(gamma)
    assert gamma == pytest.approx(ref, rel=1e-6)
    # the value is attained: G evaluated in 40 digits at the returned frequency
    assert gamma == pytest.approx(_mp_sigma_max(A, B, C, D, fpeak), rel=1e-7)
    # H2 of the strictly proper part against AB13BD
    h2_ref = slycot.ab13bd("C", "H", n, m, p, A.copy(), B.copy(), C.copy(), np.zeros_like(D), 0.0)
    assert rmb.h2norm((A, B, C, np.zeros_like(D))) == pytest.approx(h2_ref, rel=1e-6)


def test_stiff_sum_of_lags_has_its_closed_form_norm():
    """G = sum 1 / (s + a_i), a_i from 1 to 1e9, in badly conditioned coordinates.

    Each lag's gain is largest at w = 0, so ||G||_inf = G(0), computed in mpmath from the
    very floating-point matrices given to hinfnorm (their poles differ from -a_i by
    rounding); the closed form sum(1 / a_i) is the same to 1e-9.
    """
    rng = np.random.default_rng(3)
    a = np.array([1.0, 10.0, 1e3, 1e6, 1e9])
    n = a.size
    T = np.eye(n) + np.triu(rng.normal(size=(n, n)) * 30, 1)
    A = T @ np.diag(-a) @ np.linalg.inv(T)
    B = T @ np.ones((n, 1))
    C = np.ones((1, n)) @ np.linalg.inv(T)
    D = np.zeros((1, 1))
    assert _mp_max_real_pole(A) < -0.5
    ref = _mp_sigma_max(A, B, C, D, 0.0)
    assert ref == pytest.approx(np.sum(1 / a), rel=1e-9)
    for w in (0.1, 1.0, 10.0, 1e3, 1e6):  # the peak is at w = 0 for this data too
        assert _mp_sigma_max(A, B, C, D, w) < ref
    gamma, fpeak = rmb.hinfnorm((A, B, C, D))
    assert gamma == pytest.approx(ref, rel=1e-9)
    assert fpeak == 0.0


def test_sb10fd_verified_discs_contain_the_mpmath_poles(sb10fd_closed_loop):
    A = sb10fd_closed_loop[0]
    centres, radii = pole_discs(A)
    with mp.workdps(50):
        exact = [complex(p) for p in mp.eig(mp.matrix(A.tolist()), left=False, right=False)]
    for p in exact:
        assert np.any(np.abs(p - centres) <= radii)


@st.composite
def _nearly_unstable(draw):
    """Real A = V diag(poles) V^-1 with poles within ~1e-6 of the axis, either side, an
    optional stiff pole, and badly scaled V (so rounding moves poles across the axis)."""
    n = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    k = n // 2
    re = rng.uniform(-1e-6, 1e-6, size=k) * 10.0 ** draw(st.integers(-6, 0))
    im = rng.uniform(0.1, 10.0, size=k)
    blocks = [np.array([[r, w], [-w, r]]) for r, w in zip(re, im, strict=True)]
    if n % 2:
        blocks.append(np.array([[-(10.0 ** draw(st.integers(0, 9)))]]))
    A0 = np.zeros((n, n))
    i = 0
    for blk in blocks:
        A0[i : i + blk.shape[0], i : i + blk.shape[0]] = blk
        i += blk.shape[0]
    V = rng.normal(size=(n, n)) @ np.diag(10.0 ** rng.uniform(-3, 3, size=n))
    A = V @ A0 @ np.linalg.inv(V)
    B = rng.normal(size=(n, 1))
    C = rng.normal(size=(1, n))
    return A, B, C, np.zeros((1, 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_nearly_unstable())
def test_a_finite_norm_implies_poles_in_the_open_left_half_plane(model):
    A, B, C, D = model
    gamma, _ = rmb.hinfnorm((A, B, C, D))
    h2 = rmb.h2norm((A, B, C, D))
    if np.isfinite(gamma) or np.isfinite(h2) or verified_stable(A):
        assert _mp_max_real_pole(A) < 0.0


@settings(max_examples=60, deadline=None)
@given(_nearly_unstable())
def test_discrete_verified_stability_implies_poles_in_the_open_unit_disc(model):
    A = np.eye(model[0].shape[0]) + 0.01 * model[0]
    if verified_stable(A, dt=0.1):
        with mp.workdps(50):
            poles = mp.eig(mp.matrix(A.tolist()), left=False, right=False)
            assert max(abs(p) for p in poles) < 1


@st.composite
def _stiff_stable(draw):
    """Slow lightly damped modes, fast real poles up to 1e10, random coordinates."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_slow = draw(st.integers(1, 2))
    n_fast = draw(st.integers(1, 3))
    blocks = []
    for _ in range(n_slow):
        w = rng.uniform(0.5, 5.0)
        blocks.append(np.array([[-w * rng.uniform(0.01, 0.3), w], [-w, -w * 0.1]]))
    for _ in range(n_fast):
        blocks.append(np.array([[-(10.0 ** rng.uniform(3, 10))]]))
    n = sum(b.shape[0] for b in blocks)
    A0 = np.zeros((n, n))
    i = 0
    for blk in blocks:
        A0[i : i + blk.shape[0], i : i + blk.shape[0]] = blk
        i += blk.shape[0]
    V = np.eye(n) + rng.normal(size=(n, n)) * 10.0 ** rng.uniform(-1, 1)
    A = V @ A0 @ np.linalg.inv(V)
    B = V @ rng.normal(size=(n, 2))
    C = rng.normal(size=(2, n)) @ np.linalg.inv(V)
    D = rng.normal(size=(2, 2)) * 0.1
    return A, B, C, D


def _evaluation_condition(A, B, C, D, w):
    """First-order relative condition number of ``sigma_max(G(j w))`` under normwise
    perturbations of ``A`` (the accuracy any backward-stable evaluation can promise):
    ``||A|| ||(jwI - A)^-1 B|| ||C (jwI - A)^-1|| / ||G(jw)||``."""
    M = 1j * w * np.eye(A.shape[0]) - A
    X = np.linalg.solve(M, B)
    Z = np.linalg.solve(M.T, C.T).T
    G = C @ X + D
    return np.linalg.norm(A, 2) * np.linalg.norm(X, 2) * np.linalg.norm(Z, 2) / np.linalg.norm(G, 2)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stiff_stable())
def test_stiff_norm_is_attained_and_not_exceeded_on_a_grid(model):
    """Dense stiff data: accurate to the data's own conditioning (eps times the condition
    number of the evaluation, which is 1e-4 for some of these models; AB13DD's errors
    are of the same size)."""
    A, B, C, D = model
    gamma, fpeak = rmb.hinfnorm((A, B, C, D))
    if verified_stable(A) or verified_stable(A.T):
        # stability proved on the data as given: the norm must be finite
        assert np.isfinite(gamma)
    if not np.isfinite(gamma):
        return
    eps = np.finfo(float).eps
    assert _mp_max_real_pole(A) < 0.0
    if np.isfinite(fpeak):
        rel = 1e-7 + 10 * eps * _evaluation_condition(A, B, C, D, fpeak)
        assert gamma == pytest.approx(_mp_sigma_max(A, B, C, D, fpeak, dps=30), rel=rel)
    for w in (0.0, 0.3, 1.0, 2.0, 4.0, 10.0, 1e3):
        rel = 1e-7 + 10 * eps * _evaluation_condition(A, B, C, D, w)
        assert _mp_sigma_max(A, B, C, D, w, dps=30) <= gamma * (1 + rel)


def _stiff_case(k):
    case = load_oracle("norms_stiff_lightly_damped_cases")["cases"][str(k)]
    A, B, C, D = (np.array(case[key], float) for key in "ABCD")
    return A, B, C, D, case


def test_stiff_model_proved_stable_only_on_its_raw_matrix():
    """Poles -2.6e8 and -3.4e-5 +- 0.55j: the Gershgorin inclusion fails on the balanced
    matrix and holds on the raw one; the norms must be finite and near mpmath's."""
    from robustmb.analysis.balancing import balance_realization

    A, B, C, D, case = _stiff_case(26)
    assert _mp_max_real_pole(A) < 0.0
    assert verified_stable(A)
    assert not verified_stable(balance_realization(A, B, C)[0])
    gamma, fpeak = rmb.hinfnorm((A, B, C, D))
    assert np.isfinite(gamma)
    assert gamma == pytest.approx(case["hinf_mpmath"], rel=1e-12)
    assert fpeak == pytest.approx(case["fpeak_mpmath"], rel=1e-9)
    # H2 from the refined Gramian (the modal sum kept eps ||A|| / |Re p| = 1.7e-3 of pole
    # error: 68.807)
    assert rmb.h2norm((A, B, C, D)) == pytest.approx(case["h2_mpmath"], rel=1e-13)


@pytest.mark.parametrize("k", [26, 35])
def test_stiff_resonance_peak_is_attained_to_rounding(k):
    """Fast pole -4.2e9 (or -2.6e8), slow pair 1e-4 from the axis: a plain LU solve is
    5e-4 off at the peak; the refined one and the located peak match mpmath."""
    A, B, C, D, case = _stiff_case(k)
    gamma, fpeak = rmb.hinfnorm((A, B, C, D))
    # attained: G in 40 digits at the returned frequency
    assert gamma == pytest.approx(_mp_sigma_max(A, B, C, D, fpeak), rel=1e-13)
    # and not exceeded: mpmath's own maximiser (golden section in 40 digits)
    assert case["hinf_mpmath"] <= gamma * (1 + 1e-12)
    assert gamma <= case["hinf_mpmath"] * (1 + 1e-12)


def test_refined_response_matches_mpmath_where_a_plain_solve_does_not():
    from robustmb.analysis.refined_response import refined_response

    A, B, C, D, case = _stiff_case(35)
    w = case["fpeak_mpmath"]
    points = np.array([1j * w, 0.3j, 1j * w * (1 + 1e-5), 0.0])
    G, accuracy = refined_response(A, B, C, D, points)
    plain = C @ np.linalg.solve(points[0] * np.eye(3) - A, B)
    exact = [_mp_sigma_max(A, B, C, D, p.imag) for p in points]
    assert abs(abs(plain[0, 0]) / exact[0] - 1) > 1e-5  # the plain solve's error
    assert np.allclose(np.abs(G[:, 0, 0]), exact, rtol=1e-14, atol=0)
    assert np.all(accuracy < 1e-14)


def _five_state(trial):
    """Two slow lightly damped modes and a fast pole up to 1e10, random coordinates."""
    rng = np.random.default_rng([7, trial])
    z1, z2 = 10 ** rng.uniform(-3, -1.5, 2)
    w1 = rng.uniform(0.5, 2)
    w2 = w1 * rng.uniform(1.5, 3)
    A0 = np.zeros((5, 5))
    A0[:2, :2] = [[0, 1], [-(w1**2), -2 * z1 * w1]]
    A0[2:4, 2:4] = [[0, 1], [-(w2**2), -2 * z2 * w2]]
    A0[4, 4] = -(10 ** rng.uniform(7, 10))
    V = np.eye(5) + rng.normal(size=(5, 5)) * 10 ** rng.uniform(-1, 0.5)
    A = V @ A0 @ np.linalg.inv(V)
    return A, V @ rng.normal(size=(5, 1)), rng.normal(size=(1, 5)) @ np.linalg.inv(V)


@pytest.mark.parametrize("trial", range(4))
def test_five_state_stiff_peak_is_a_local_maximum_in_mpmath(trial):
    A, B, C = _five_state(trial)
    D = np.zeros((1, 1))
    gamma, fpeak = rmb.hinfnorm((A, B, C, D))
    assert gamma == pytest.approx(_mp_sigma_max(A, B, C, D, fpeak), rel=1e-13)
    # no higher value next to it (steps far wider than the peak's rounding, far
    # narrower than the resonance, whose relative width is the damping 1e-3..3e-2)
    for step in (1e-9, 1e-7, 1e-5):
        for side in (-1, 1):
            assert _mp_sigma_max(A, B, C, D, fpeak * (1 + side * step)) <= gamma * (1 + 1e-13)


def test_family_of_lightly_damped_models_gets_the_single_model_accuracy():
    """Modes at 1..1e3 rad/s with damping 1e-5: modal values carry eps ||A|| / |Re p|
    = 1e-6 of relative error, so the batch leaves them to the refined single-model path."""
    rng = np.random.default_rng(0)
    w = np.geomspace(1.0, 1e3, 4)
    A0 = np.zeros((8, 8))
    for i, wi in enumerate(w):
        A0[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[0, 1], [-(wi**2), -2e-5 * wi]]
    models = []
    for _ in range(2):
        V = np.eye(8) + 0.1 * rng.normal(size=(8, 8))
        A = V @ A0 @ np.linalg.inv(V)
        models.append((A, V @ rng.normal(size=(8, 1)), rng.normal(size=(1, 8)) @ np.linalg.inv(V)))
    family = tuple(np.stack([m[j] for m in models]) for j in range(3)) + (np.zeros((2, 1, 1)),)
    gamma, fpeak = rmb.hinfnorm(family)
    for k, (A, B, C) in enumerate(models):
        D = np.zeros((1, 1))
        assert gamma[k] == pytest.approx(_mp_sigma_max(A, B, C, D, fpeak[k]), rel=1e-13)


def _mp_h2(A, B, C, dps=40):
    """H2 norm from A P + P A^T + B B^T = 0 solved as a Kronecker linear system in mpmath."""
    n = A.shape[0]
    with mp.workdps(dps):
        Am = mp.matrix(A.tolist())
        Bm = mp.matrix(B.tolist())
        Cm = mp.matrix(C.tolist())
        Q = Bm * Bm.T
        K = mp.matrix(n * n, n * n)
        rhs = mp.matrix(n * n, 1)
        for i in range(n):
            for j in range(n):
                row = i * n + j
                rhs[row] = -Q[i, j]
                for k in range(n):
                    K[row, k * n + j] += Am[i, k]  # (A P)_ij
                    K[row, i * n + k] += Am[j, k]  # (P A^T)_ij
        x = mp.lu_solve(K, rhs)
        P = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                P[i, j] = x[i * n + j]
        return float(mp.sqrt(sum((Cm * P * Cm.T)[i, i] for i in range(C.shape[0]))))


@pytest.mark.parametrize("k", [26, 35])
def test_stiff_h2_matches_mpmath_alone_and_in_a_family(k):
    """Poles rounded by eps ||A|| = 1e-7 next to Re p = -3.4e-5: the modal sum was 2e-4
    low (68.807 for 68.820); the refined Gramian is right to rounding, and a family
    containing the model hands it to the same route."""
    A, B, C, D, case = _stiff_case(k)
    assert rmb.h2norm((A, B, C, D)) == pytest.approx(case["h2_mpmath"], rel=1e-13)
    family = tuple(np.stack([M, M]) for M in (A, B, C, D))
    np.testing.assert_allclose(rmb.h2norm(family), case["h2_mpmath"], rtol=1e-13)


@pytest.mark.parametrize("trial", range(4))
def test_five_state_stiff_h2_matches_an_mpmath_lyapunov_solve(trial):
    A, B, C = _five_state(trial)
    exact = _mp_h2(A, B, C)
    assert rmb.h2norm((A, B, C, np.zeros((1, 1)))) == pytest.approx(exact, rel=1e-12)
    # the observability side (more inputs than outputs) gives the same norm
    B2 = np.hstack([B, 0.5 * B])
    exact2 = _mp_h2(A, B2, C)
    assert rmb.h2norm((A, B2, C, np.zeros((1, 2)))) == pytest.approx(exact2, rel=1e-12)
