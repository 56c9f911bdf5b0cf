"""Pieces of the arm's structure-gap study and of the stacked scheduled driver.

* ``structure_gap.frozen(..., convention="hanging")`` (gravity reversed: theta from the
  downward vertical) against the digest's App. A table (V) -- M, K_grav to its 4
  printed decimals, poles to one unit of its 3rd (printed rounding) -- and against the
  closed form, whose stiffness is checked against a finite-difference Hessian of the
  potential; our ``"up"`` arm has the same M and the opposite K_grav.
* The stacked plant in scaled control units closes, with the scaled controller, the same
  loop as the torque-unit plant of ``gamma2_floor`` with the torque controller, and its
  norm lies between ``max(gamma1, gamma2 / g)`` and their root-sum-square.
* ``scheduled_stacked.screen`` agrees with ``check_design.check`` on a 2 x 2 grid.
"""

import itertools
import json
import os

import control
import numpy as np
import pytest
from _scripts import ARM_STUDY, arm_script

from robustmb.analysis import hinfnorm
from robustmb.lft.algebra import lft_lower
from robustmb.lft.model import as_model

# Importing the scripts builds the arm's tuning problem and the scheduled mechanism twice
# (seconds each): every test here is slow.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sg():
    return arm_script("structure_gap.py")


@pytest.mark.parametrize("theta", [(70.0, 30.0), (45.0, 45.0), (90.0, 135.0)])
def test_hanging_arm_matches_appendix_a(sg, theta):
    m_ref, k_ref, p_ref = sg.APP_A_HANGING[theta]
    G = sg.frozen(*theta, convention="hanging")
    M, K = sg.mass_stiffness(G)
    assert np.max(np.abs(M.ravel() - m_ref)) <= 5e-5
    assert np.max(np.abs(K.ravel() - k_ref)) <= 5e-5
    poles = np.linalg.eigvals(np.asarray(G.A))
    assert max(np.min(np.abs(np.asarray(p_ref) - p)) for p in poles) <= 1e-3
    Mc, Kc, pc = sg.closed_form(*theta)
    assert np.allclose(M, Mc, rtol=0, atol=1e-10) and np.allclose(K, Kc, rtol=0, atol=1e-10)
    assert max(np.min(np.abs(pc - p)) for p in poles) <= 1e-10
    Mu, Ku = sg.mass_stiffness(sg.frozen(*theta, convention="up"))
    assert np.allclose(Mu, M, atol=1e-10) and np.allclose(Ku, -K, atol=1e-10)


def test_closed_form_stiffness_is_the_hessian_of_the_potential(sg):
    a = 9.81 * (3.0 * 0.3 + 7.0)
    b = 9.81 * (2.0 * 0.5 + 5.0)

    def V(q):
        return -a * np.cos(q[0]) - b * np.cos(q[0] + q[1])

    h = 1e-4
    for th in [(70.0, 30.0), (52.0, 118.0)]:
        q = np.radians(th)
        E = np.eye(2)
        H = np.array([[(V(q + h * (E[i] + E[j])) - V(q + h * (E[i] - E[j]))
                        - V(q - h * (E[i] - E[j])) + V(q - h * (E[i] + E[j]))) / (4 * h * h)
                       for j in range(2)] for i in range(2)])  # fmt: skip
        assert np.allclose(sg.closed_form(*th)[1], H, atol=1e-5)


def test_bad_convention_is_named(sg):
    import robustmb as rmb

    with pytest.raises(rmb.errors.ArgumentError, match="convention"):
        sg.arm("sideways")


def _closed(P, K):
    cl = lft_lower(as_model(P), as_model(K)).nominal()
    return control.ss(cl.A, cl.B, cl.C, cl.D)


def test_scaled_stacked_plant_closes_the_same_loop(sg):
    gf = arm_script("gamma2_floor.py")
    theta, g = (45.0, 135.0), 3.0
    Ks = control.ss(*sg.stored_frozen(theta))
    Kt = sg.torque_controller(Ks)
    for lv in [(0, 0, 0, 0, 0), (1, 1, 1, -1, 1)]:
        G = sg.frozen(*theta, lv)
        n_scaled = hinfnorm(_closed(sg.stacked(G, g), Ks))[0]
        n_torque = hinfnorm(_closed(gf._stacked_plant(G, g), Kt))[0]
        assert abs(n_scaled - n_torque) <= 1e-6 * n_torque
        g1, g2, mr = sg.goals([G], Ks)
        assert mr < 0
        assert max(g1, g2 / g) <= n_scaled * (1 + 1e-6)
        assert n_scaled <= np.hypot(g1, g2 / g) * (1 + 1e-6)


def test_screen_agrees_with_check_design():
    ss_ = arm_script("scheduled_stacked.py")
    cd = arm_script("check_design.py")
    with open(os.path.join(ARM_STUDY, "checkpoints", "arm_lpv_soft_phase.json")) as fh:
        values = json.load(fh)["values"]
    vals = {k: np.asarray(v, float) for k, v in values.items()}
    g1, g2, mr, rows = ss_.screen(vals, 5.0, 2)
    ref = cd.check(values, grid=2, n_random=0)
    assert len(rows) == ref["loops"] == 4 * 33
    assert abs(g1 - ref["gamma1"]) <= 1e-9 * ref["gamma1"]
    assert abs(g2 - ref["gamma2"]) <= 1e-9 * ref["gamma2"]
    assert abs(mr - ref["max_real"]) <= 1e-9
    assert all(x[0] >= y[0] for x, y in itertools.pairwise(rows))
