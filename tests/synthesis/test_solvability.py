"""The stabilisability / detectability test does not depend on the units of states or signals."""

import control
import numpy as np
import pytest
from _plants import one_blas_thread

import robustmb as rmb
from robustmb.errors import IllPosedError
from robustmb.synthesis.plant import check_solvable, partition_plant

# x1 is unstable (s = 1) and reached by u only through x2
A0 = np.array([[1.0, 1.0], [0.0, -2.0]])
B1 = np.array([[0.3], [0.5]])
B2 = np.array([[0.0], [1.0]])
C1 = np.array([[1.0, 0.2]])
C2 = np.array([[1.0, 1.0]])
D = np.array([[0.0, 1.0], [1.0, 0.0]])


def rescaled(k, A=A0, su=1.0, sy=1.0):
    """The plant with ``x -> diag(k, 1/k) x``, ``u -> u / su``, ``y -> sy y``."""
    T = np.diag([k, 1 / k])
    Ti = np.linalg.inv(T)
    B = T @ np.hstack([B1, B2 * su])
    C = np.vstack([C1, C2 * sy]) @ Ti
    Dk = D * np.array([[1.0, su], [sy, 0.0]])
    return control.ss(T @ A @ Ti, B, C, Dk)


def test_hinfsyn_same_optimum_in_any_state_units():
    # SLICOT SB10AD (python-control's hinfsyn) on the unscaled plant: optimum 4.323647
    with one_blas_thread():
        _, _, ref, _ = control.hinfsyn(rescaled(1.0), 1, 1)
    for k in (1.0, 1e3, 1e4, 1e5):
        res = rmb.hinfsyn(rescaled(k), 1, 1)
        assert ref * (1 - 1e-6) <= res.gamma <= ref * 1.01


def test_solvability_test_accepts_the_plant_in_any_units():
    # the PBH test itself, which h2syn and the LMI route run up front
    for k in (1.0, 1e3, 1e5, 1e7):
        for su, sy in ((1.0, 1.0), (1e-8, 1e8), (1e8, 1e-8)):
            check_solvable(partition_plant(rescaled(k, su=su, sy=sy), 1, 1))
    ref = rmb.h2syn(rescaled(1.0), 1, 1).norm
    assert rmb.h2syn(rescaled(1e5), 1, 1).norm == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize("su, sy", [(1e-6, 1.0), (1e6, 1.0), (1.0, 1e-6), (1.0, 1e6)])
def test_hinfsyn_same_optimum_in_any_signal_units(su, sy):
    # scaling u and y moves neither the optimum nor the stabilisability
    ref = rmb.hinfsyn(rescaled(1.0), 1, 1).gamma
    assert rmb.hinfsyn(rescaled(10.0, su=su, sy=sy), 1, 1).gamma == pytest.approx(ref, rel=0.01)


@pytest.mark.parametrize("k", [1.0, 1e4])
def test_unstabilisable_and_undetectable_in_any_units(k):
    # without the coupling x2 -> x1, the unstable x1 is out of reach of u in every basis
    A = np.array([[1.0, 0.0], [0.0, -2.0]])
    with pytest.raises(IllPosedError, match="not stabilisable"):
        rmb.hinfsyn(rescaled(k, A), 1, 1)
    with pytest.raises(IllPosedError, match="not stabilisable"):
        rmb.h2syn(rescaled(k, A), 1, 1)
    # dual: u reaches x1 directly, y = x2 and x1 does not drive x2: x1 is not seen
    T = np.diag([k, 1 / k])
    Ti = np.linalg.inv(T)
    P = control.ss(
        T @ A0 @ Ti,
        T @ np.hstack([B1, np.array([[1.0], [0.0]])]),
        np.vstack([C1, np.array([[0.0, 1.0]])]) @ Ti,
        D,
    )
    with pytest.raises(IllPosedError, match="not detectable"):
        check_solvable(partition_plant(P, 1, 1))


@pytest.mark.parametrize("seed", range(10))
def test_random_plants_stay_solvable_with_states_spread_over_eight_decades(seed):
    # a random plant is stabilisable and detectable; so is every change of its units
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(3, 8))
    A, B, C = (rng.standard_normal(s) for s in ((n, n), (n, 3), (3, n)))
    D = np.zeros((3, 3))
    D[:2, 2:], D[2:, :2] = rng.standard_normal((2, 1)), rng.standard_normal((1, 2))
    for spread in (0, 3, 6, 8):
        T = np.diag(np.logspace(-spread / 2, spread / 2, n))
        Ti = np.diag(1 / np.diag(T))
        su = 10.0 ** (spread / 2)
        Bs, Cs, Ds = T @ B, C @ Ti, D.copy()
        Bs[:, 2:] *= su
        Ds[:, 2:] *= su
        Cs[2:] /= su
        Ds[2:] /= su
        check_solvable(partition_plant(control.ss(T @ A @ Ti, Bs, Cs, Ds), 1, 1))


def _jordan_pair(rng, lam, nc):
    """``(A, B)`` with an unreachable copy of ``lam`` coupled to a reachable one, in a
    random orthogonal basis: the last state obeys ``x' = lam x`` whatever ``u`` does."""
    Ac = np.diag(np.r_[lam, rng.uniform(-3, -1, nc - 1)])
    A = np.block([[Ac, rng.standard_normal((nc, 1))], [np.zeros((1, nc)), np.array([[lam]])]])
    B = np.vstack([rng.standard_normal((nc, 1)), [[0.0]]])
    Q, _ = np.linalg.qr(rng.standard_normal((nc + 1, nc + 1)))
    return Q @ A @ Q.T, Q @ B, Q[:, -1]


@pytest.mark.parametrize("dt", [0, 1])
def test_unreachable_mode_sharing_its_eigenvalue_with_a_reachable_one(dt):
    # eigvals splits the double eigenvalue by ~sqrt(eps): a PBH test at the computed
    # eigenvalues misses it; the left eigenvector w (w'A = lam w', w'B = 0) proves it
    rng = np.random.default_rng(7 + dt)
    for _ in range(40):
        nc = int(rng.integers(1, 3))
        lam = rng.uniform(1.05, 1.5) if dt else rng.uniform(0.2, 2.0)
        A, B, w = _jordan_pair(rng, lam, nc)
        assert np.abs(w @ A - lam * w).max() < 1e-12 and abs(w @ B).max() < 1e-12
        n = nc + 1
        P = control.ss(
            A,
            np.hstack([np.eye(n), B]),
            np.vstack([np.eye(n), np.zeros((1, n)), np.eye(n)]),
            np.block([[np.zeros((n, n + 1))], [np.zeros((1, n)), np.ones((1, 1))],
                      [np.zeros((n, n + 1))]]),
            dt,
        )  # fmt: skip
        with pytest.raises(IllPosedError, match="not stabilisable"):
            check_solvable(partition_plant(P, n, 1))
        # dual: (C2, A') = (B', A') has the same mode unobservable
        Pd = control.ss(
            A.T,
            np.hstack([np.eye(n), np.eye(n)]),
            np.vstack([np.eye(n), B.T]),
            np.block([[np.zeros((n, n)), np.eye(n)], [np.ones((1, n)), np.zeros((1, n))]]),
            dt,
        )
        with pytest.raises(IllPosedError, match="not detectable"):
            check_solvable(partition_plant(Pd, 1, n))


def _jordan_unreachable_plant():
    """The unstable mode at 1 of a Jordan block in a rotated basis, unreachable from u
    (disturbances: two on the states, two on the measurements; errors x and u)."""
    Q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((2, 2)))
    A = Q @ np.array([[1.0, 1.0], [0.0, 1.0]]) @ Q.T
    B = Q @ np.array([[1.0], [0.0]])
    D = np.zeros((5, 5))
    D[2, 4] = 1.0
    D[3:, 2:4] = np.eye(2)
    return control.ss(
        A,
        np.hstack([np.eye(2), np.zeros((2, 2)), B]),
        np.vstack([np.eye(2), [[0, 0]], np.eye(2)]),
        D,
    )


def test_jordan_unreachable_mode_stops_the_syntheses():
    P = _jordan_unreachable_plant()
    for synth in (rmb.hinfsyn, rmb.h2syn):
        with pytest.raises(IllPosedError, match="not stabilisable"):
            synth(P, 2, 1)


def test_h2syn_riccati_failure_is_an_ill_posed_error(monkeypatch):
    # were the solvability test to miss the unreachable mode, the Riccati solver's own
    # failure must still come out as an IllPosedError that says which step failed
    import robustmb.synthesis.plant as plant_mod

    monkeypatch.setattr(plant_mod, "_uncontrollable_modes", lambda *args: [])
    P = _jordan_unreachable_plant()
    with pytest.raises(IllPosedError, match="Riccati"):
        rmb.h2syn(P, 2, 1)


@pytest.mark.parametrize("dt", [0, 1])
def test_no_false_alarm_on_badly_scaled_stabilisable_plants(dt):
    # the unstable mode has its own input column; states spread over eight decades,
    # input gains over sixteen: every pair is stabilisable (B's last row reaches lam)
    rng = np.random.default_rng(11 + dt)
    from robustmb.synthesis.plant import _uncontrollable_modes

    for _ in range(60):
        nc, m = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        Ac = rng.standard_normal((nc, nc))
        Bc = rng.standard_normal((nc, m)) * 10.0 ** rng.uniform(-8, 8)
        lam = rng.uniform(1.01, 2) if dt else rng.uniform(0.1, 2)
        col = rng.standard_normal((nc, 1)) * 10.0 ** rng.uniform(-3, 3)
        A = np.block([[Ac, col], [np.zeros((1, nc)), np.array([[lam]])]])
        B = np.vstack([Bc, np.zeros((1, m))])
        B[-1, 0] = rng.uniform(0.5, 2) * np.abs(Bc).max()
        T = rng.standard_normal((nc + 1, nc + 1)) @ np.diag(10.0 ** rng.uniform(-4, 4, nc + 1))
        Ti = np.linalg.inv(T)
        assert _uncontrollable_modes(Ti @ A @ T, Ti @ B, dt) == []
        # and without the input column on lam, the mode is reported
        B[-1, 0] = 0.0
        assert len(_uncontrollable_modes(Ti @ A @ T, Ti @ B, dt)) >= 1
