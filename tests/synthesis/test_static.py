"""Synthesis on plants without states: closed forms and an independent SDP / least squares."""

import control
import cvxpy as cp
import numpy as np
import pytest
import scipy.linalg

import robustmb as rmb
from robustmb.errors import IllPosedError


def static(D, dt=0):
    D = np.asarray(D, float)
    return control.ss(np.zeros((0, 0)), np.zeros((0, D.shape[1])), np.zeros((D.shape[0], 0)), D, dt)


def fl(D, K, ny, nu):
    """``D11 + D12 K (I - D22 K)^-1 D21`` formed directly from the plant's matrix."""
    p, m = D.shape
    D11, D12 = D[: p - ny, : m - nu], D[: p - ny, m - nu :]
    D21, D22 = D[p - ny :, : m - nu], D[p - ny :, m - nu :]
    return D11 + D12 @ K @ np.linalg.solve(np.eye(ny) - D22 @ K, D21)


def sdp_optimum(D11, D12, D21):
    """``min_Q sigma_max(D11 + D12 Q D21)`` as an SDP (Clarabel), independent of Parrott."""
    Q = cp.Variable((D12.shape[1], D21.shape[0]))
    t = cp.Variable()
    M = D11 + D12 @ Q @ D21
    p, m = D11.shape
    lmi = cp.bmat([[t * np.eye(p), M], [M.T, t * np.eye(m)]])
    cp.Problem(cp.Minimize(t), [0.5 * (lmi + lmi.T) >> 0]).solve(solver="CLARABEL")
    return float(t.value)


def test_hinfsyn_static_parrott_closed_form():
    # z = [2 w1 + u; 0], y = w2: Fl = [[2, K], [0, 0]], norm sqrt(4 + K^2), optimum 2 at K = 0
    P = static([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    for method in ("auto", "riccati", "lmi"):
        res = rmb.hinfsyn(P, 1, 1, method=method)
        assert res.method == "static" and res.controller.nstates == 0
        assert res.gamma == pytest.approx(2.0, rel=1e-13) and res.gamma >= 2.0
        assert abs(res.controller.D[0, 0]) < 1e-12
        assert res.gamma_bracket[0] == pytest.approx(2.0, rel=1e-14) and res.lower_certified


def test_hinfsyn_static_exact_cancellation():
    # z = w + u, y = w: K = -1 makes the loop zero
    res = rmb.hinfsyn(static([[1.0, 1.0], [1.0, 0.0]]), 1, 1)
    assert res.controller.D[0, 0] == pytest.approx(-1.0, abs=1e-15)
    assert res.gamma < 1e-13
    assert np.all(np.abs(fl(np.array([[1.0, 1.0], [1.0, 0.0]]), res.controller.D, 1, 1)) == 0)


def test_mixsyn_static_closed_form():
    # G = 2, W1 = 0.5, W2 = 0.1: with t = K S = K / (1 + 2 K), S = 1 - 2 t and the cost
    # 0.25 (1 - 2t)^2 + 0.01 t^2 is least at t = 1 / 2.02: K = 50, gamma = 0.05 / sqrt(1.01)
    res = rmb.mixsyn(static([[2.0]]), 0.5, 0.1)
    assert res.controller.D[0, 0] == pytest.approx(50.0, rel=1e-10)
    assert res.gamma == pytest.approx(0.05 / np.sqrt(1.01), rel=1e-12)
    S = 1 / (1 + 2 * res.controller.D[0, 0])
    assert np.hypot(0.5 * S, 0.1 * res.controller.D[0, 0] * S) <= res.gamma


@pytest.mark.parametrize("seed", range(8))
def test_hinfsyn_static_random_against_sdp(seed):
    rng = np.random.default_rng(seed)
    m1, m2, p1, p2 = rng.integers(1, 4, size=4)
    D = rng.standard_normal((p1 + p2, m1 + m2))
    if seed % 2:
        D[p1:, m1:] = 0.0  # no D22
    if seed % 3 == 0:
        D[:p1, m1:] = D[:p1, m1:][:, :1] @ rng.standard_normal((1, m2))  # rank-1 D12
    res = rmb.hinfsyn(static(D, 0.1 if seed == 5 else 0), p2, m2)
    K = res.controller.D
    achieved = np.linalg.norm(fl(D, K, p2, m2), 2)
    assert achieved <= res.gamma * (1 + 1e-12)
    ref = sdp_optimum(D[:p1, :m1], D[:p1, m1:], D[p1:, :m1])
    assert res.gamma == pytest.approx(ref, rel=1e-6, abs=1e-7)
    # the reported lower end is Parrott's bound: never above an achieved norm
    assert res.gamma_bracket[0] <= achieved * (1 + 1e-12)


def test_h2syn_static():
    # continuous: z = w + u, y = w has the solution u = -y (norm 0) ...
    res = rmb.h2syn(static([[1.0, 1.0], [1.0, 0.0]]), 1, 1)
    assert res.method == "static" and res.norm == 0.0 and res.controller.D[0, 0] == -1.0
    assert rmb.h2norm(res.closed_loop) == 0.0
    # ... while z = [w; u] cannot be made zero: every controller leaves a feedthrough
    with pytest.raises(IllPosedError, match="no states.*infinite"):
        rmb.h2syn(static([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), 1, 1)


@pytest.mark.parametrize("seed", range(5))
def test_h2syn_static_discrete_least_squares(seed):
    # discrete: the H2 norm of a matrix is its Frobenius norm; the optimum is the linear
    # least-squares problem min ||D11 + (D21' kron D12) vec(Q)||, solved here by lstsq
    rng = np.random.default_rng(10 + seed)
    m1, m2, p1, p2 = rng.integers(1, 4, size=4)
    D = rng.standard_normal((p1 + p2, m1 + m2))
    D11, D12, D21 = D[:p1, :m1], D[:p1, m1:], D[p1:, :m1]
    A = np.kron(D21.T, D12)
    q = np.linalg.lstsq(A, -D11.ravel(order="F"), rcond=None)[0]
    ref = np.linalg.norm(D11.ravel(order="F") + A @ q)
    res = rmb.h2syn(static(D, 1.0), p2, m2)
    assert res.norm == pytest.approx(ref, rel=1e-10, abs=1e-10)  # + rounding allowance
    assert np.linalg.norm(fl(D, res.controller.D, p2, m2)) <= res.norm * (1 + 1e-12) + 1e-15
    assert rmb.h2norm(res.closed_loop) == pytest.approx(ref, rel=1e-10, abs=1e-12)
    assert scipy.linalg.norm(res.controller.D) < 1e6


@pytest.mark.parametrize("dt", [0, 0.1, True])
def test_ncfsyn_static_plant(dt):
    # a static G has Hankel norm 0: gamma_min = 1, attained by K = -G' (positive feedback),
    # whose [I; K] (I - G K)^-1 [I, G] has every singular value 0 or 1
    D = np.array([[2.0, 1.0], [0.0, -3.0], [1.0, 1.0]])
    res = rmb.ncfsyn(static(D, dt))
    K = res.controller.D
    assert res.gamma == 1.0 and np.allclose(K, -D.T, rtol=0, atol=1e-14)
    T = np.vstack([np.eye(3), K]) @ np.linalg.solve(np.eye(3) - D @ K, np.hstack([np.eye(3), D]))
    assert np.linalg.norm(T, 2) == pytest.approx(1.0, abs=1e-12)
    assert res.gamma_achieved == pytest.approx(1.0, abs=1e-9)
    assert not res.controller.dt if dt == 0 else res.controller.dt is dt or res.controller.dt == dt


def test_hinfsyn_static_central_completion_unrealisable():
    # z = [w1; 0.5 w2 + u], y = w2 + 2 u: every Q in [-1.5, 0.5] attains Parrott's bound 1,
    # the central Q = -0.5 makes I + D22 Q = 0; K = Q / (1 + 2 Q) realises the others
    D = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 1.0], [0.0, 1.0, 2.0]])
    ref = sdp_optimum(D[:2, :2], D[:2, 2:], D[2:, :2])
    assert ref == pytest.approx(1.0, rel=1e-7)
    for dt in (0, 1.0):
        res = rmb.hinfsyn(static(D, dt), 1, 1)
        achieved = np.linalg.norm(fl(D, res.controller.D, 1, 1), 2)
        assert achieved <= res.gamma and res.gamma == pytest.approx(1.0, rel=1e-12)
        assert res.gamma_bracket[0] == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize("dt", [0, 1.0])
def test_h2syn_static_least_squares_q_unrealisable(dt):
    # z = 0.5 w + u1 + u2, y = w + 4 u1: the minimum-norm Q = -[0.25; 0.25] gives
    # I + D22 Q = 0, Q = [0; -0.5] (K = [0; -0.5]) cancels z as well
    D = np.array([[0.5, 1.0, 1.0], [1.0, 4.0, 0.0]])
    res = rmb.h2syn(static(D, dt), 1, 2)
    assert res.norm == 0.0
    assert np.abs(fl(D, res.controller.D, 1, 2)).max() < 1e-14
    assert rmb.hinfsyn(static(D, dt), 1, 2).gamma < 1e-13


def _singular_d22(rng, Q0, N1):
    """``D22 = -x y'`` with ``y' Q0 x = 1``: ``I + D22 Q0`` maps ``x`` to zero; ``y`` has a
    component along ``D12``'s null space ``N1`` (which the optimal ``Q`` may use), so that
    ``1 - y' (Q0 + N1 Z) x`` does not vanish for every optimal ``Q``."""
    x = rng.standard_normal(Q0.shape[1])
    q = Q0 @ x
    z = N1 @ rng.standard_normal(N1.shape[1])
    z -= q * (q @ z) / (q @ q)
    return -np.outer(x, q / (q @ q) + z)


@pytest.mark.parametrize("seed", range(6))
def test_static_optimum_when_the_first_q_is_unrealisable(seed):
    # random plants whose D22 is built to make the Q chosen without D22 unrealisable; the
    # optimum (an SDP for H-infinity, least squares for H2) does not depend on D22
    rng = np.random.default_rng(40 + seed)
    m1, p2 = (int(v) for v in rng.integers(1, 4, size=2))
    p1, m2 = 1 + seed % 2, 3  # D12 has a null space: many optimal Q
    D = rng.standard_normal((p1 + p2, m1 + m2))
    D[p1:, m1:] = 0.0
    Q0 = rmb.hinfsyn(static(D), p2, m2).controller.D  # with D22 = 0, K = Q
    Dh = D.copy()
    N1 = scipy.linalg.null_space(D[:p1, m1:])
    Dh[p1:, m1:] = _singular_d22(rng, Q0, N1)
    assert np.linalg.svd(np.eye(p2) + Dh[p1:, m1:] @ Q0, compute_uv=False)[-1] < 1e-12
    res = rmb.hinfsyn(static(Dh), p2, m2)
    achieved = np.linalg.norm(fl(Dh, res.controller.D, p2, m2), 2)
    assert achieved <= res.gamma * (1 + 1e-12)
    ref = sdp_optimum(D[:p1, :m1], D[:p1, m1:], D[p1:, :m1])
    assert res.gamma == pytest.approx(ref, rel=1e-6, abs=1e-7)
    # discrete H2: min ||D11 + (D21' kron D12) vec(Q)||
    Q0 = rmb.h2syn(static(D, 1.0), p2, m2).controller.D
    D2 = D.copy()
    D2[p1:, m1:] = _singular_d22(rng, Q0, N1)
    assert np.linalg.svd(np.eye(p2) + D2[p1:, m1:] @ Q0, compute_uv=False)[-1] < 1e-12
    D11, D12, D21 = D[:p1, :m1], D[:p1, m1:], D[p1:, :m1]
    A = np.kron(D21.T, D12)
    q = np.linalg.lstsq(A, -D11.ravel(order="F"), rcond=None)[0]
    ref2 = np.linalg.norm(D11.ravel(order="F") + A @ q)
    res2 = rmb.h2syn(static(D2, 1.0), p2, m2)
    assert res2.norm == pytest.approx(ref2, rel=1e-9, abs=1e-10)
    assert np.linalg.norm(fl(D2, res2.controller.D, p2, m2)) <= res2.norm * (1 + 1e-12) + 1e-15


@pytest.mark.parametrize("seed", range(4))
def test_noncentral_completions_stay_within_the_level(seed):
    # every completion of the Davis-Kahan-Weinberger family has norm at most g, checked on
    # the assembled matrix; at g = Parrott's bound they are optimal
    from robustmb.synthesis.static import _noncentral_blocks

    rng = np.random.default_rng(60 + seed)
    r1, r2, q1, q2 = (int(v) for v in rng.integers(1, 4, size=4))
    R12, R21, R22 = (rng.standard_normal(s) for s in ((r1, q2), (q1, r2), (q1, q2)))
    bound = max(np.linalg.norm(np.vstack([R12, R22]), 2), np.linalg.norm(np.hstack([R21, R22]), 2))
    for g in (bound, bound * 1.1):
        blocks = _noncentral_blocks(R12, R21, R22, g, np.random.default_rng(0))
        assert len(blocks) > 2
        for X in blocks:
            assert np.linalg.norm(np.block([[X, R12], [R21, R22]]), 2) <= g * (1 + 1e-9)
    # above the bound the family is not just the central completion
    assert max(np.abs(X - blocks[0]).max() for X in blocks) > 1e-3 * bound
