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
