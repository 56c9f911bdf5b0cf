"""Seed 002 (Lin & Yae): Eq. 33 to its printed digits, decoupling PD, 7-dof arm structure."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity, rotation_matrix

# Eq. 33 as printed, states (theta2, theta1, theta2_dot, theta1_dot), inputs (T2, T1)
EQ33_A21 = np.array([[-5.191, 3.4612], [1.1537, -4.0380]])
EQ33_B2 = np.array([[-0.0824, 0.0294], [0.0294, -0.0176]])


def test_two_link_reproduces_eq33():
    lin = rmb.examples.lin_yae_two_link().linearize_at(np.zeros(2), np.zeros(2))
    perm = [1, 0]
    a21 = lin.A[2:, :2][np.ix_(perm, perm)]
    b2 = lin.B[2:, :2][np.ix_(perm, perm)]
    # every printed digit, except "-5.191" which is -5.19176 truncated (digest 002, Sec. 4.1)
    err = np.abs(a21 - EQ33_A21)
    assert err[0, 0] < 1e-3 and np.delete(err.ravel(), 0).max() <= 0.5e-4
    assert np.abs(b2 + EQ33_B2).max() <= 0.5e-4  # printed B = -M^-1 (opposite torque sign)
    assert np.abs(lin.A[:2, 2:] - np.eye(2)).max() == 0 and np.abs(lin.A[2:, 2:]).max() == 0
    assert np.allclose(lin.M, [[140, 50], [50, 30]], rtol=0, atol=1e-12)


def _closed_loop(eps, t_end=6.0):
    mech = rmb.examples.lin_yae_two_link()
    lin = mech.linearize_at(np.zeros(2), np.zeros(2))
    kp, kv = rmb.examples.decoupling_pd_gains(lin, [2.0, 2.5], [0.7, 0.7])
    t = np.linspace(0, t_end, 61)
    q0 = np.array([eps, -eps])
    res = mech.simulate(
        (0, t_end), q0, np.zeros(2), inputs=lambda _t, q, v: -kp @ q - kv @ v, t_eval=t
    )
    a_cl = lin.A - lin.B[:, :2] @ np.hstack([kp, kv])
    lam, vec = np.linalg.eig(a_cl)
    coef = np.linalg.solve(vec, np.r_[q0, 0, 0])
    lin_q = np.real(vec[:2] @ (coef[:, None] * np.exp(lam[:, None] * t)))
    return res.q.T, lin_q, a_cl


def test_decoupling_pd_places_the_poles():
    _, _, a_cl = _closed_loop(0.05, t_end=0.1)
    poles = np.sort_complex(np.linalg.eigvals(a_cl))
    want = []
    for w, z in ((2.0, 0.7), (2.5, 0.7)):
        want += list(np.roots([1, 2 * z * w, w * w]))
    assert np.allclose(poles, np.sort_complex(np.array(want)), atol=1e-12)


def test_nonlinear_closed_loop_approaches_linear_prediction():
    """Paper Figs. 6-9: regulator on the nonlinear arm against the linear prediction.

    The hanging arm's dynamics are odd in (q, v) (mirror symmetry), so the
    second-order terms vanish and the gap is O(eps^3): halving eps divides it by 8.
    """
    gaps = []
    for eps in (0.05, 0.025):
        q_nl, q_lin, _ = _closed_loop(eps)
        gaps.append(np.abs(q_nl - q_lin).max())
        assert gaps[-1] <= 0.05 * eps
    assert 7.0 < gaps[0] / gaps[1] < 9.0
    q_nl, _, _ = _closed_loop(1.0, t_end=12.0)  # large deviation: still regulated to zero
    assert np.abs(q_nl[:, -1]).max() < 1e-2


def seven_dof_arm():
    """A roll/pitch 7-dof arm lying, bent, in the (x, z) plane at q = 0 (shoulder tilted 30 deg).

    Roll axes run along the links, pitch axes along y (normal to the plane);
    centroids lie on the roll axes, so the arm is mirror-symmetric in the plane.
    """
    mech = Mechanism(acceleration=gravity(9.81))
    tilt = rotation_matrix([0, 1, 0], np.radians(30))
    lengths = [0.3, 0.5, 0.2, 0.45, 0.15, 0.2, 0.1]
    masses = [6.0, 5.0, 3.0, 3.0, 1.5, 1.0, 0.8]
    names = [f"L{k + 1}" for k in range(7)]
    for name, length, m in zip(names, lengths, masses, strict=True):
        mech.add_body(
            RigidBody(
                name,
                mass=m,
                inertia=[0.02 * m, 0.03 * m, 0.01 * m],
                cog=[0, 0, 0.5 * length],
                ports={"P": [0, 0, 0], "tip": [0, 0, length]},
            )
        )
    parent = ("ground", "O")
    for k, name in enumerate(names):
        axis = [0, 0, 1] if k % 2 == 0 else [0, 1, 0]
        bends = {1: 60.0, 3: -45.0, 5: 30.0}  # pitch offsets keep the arm in the plane
        orient = tilt if k == 0 else rotation_matrix([0, 1, 0], np.radians(bends.get(k, 0.0)))
        axis = tilt @ np.array(axis, float) if k == 0 else axis
        mech.add_joint(RevoluteJoint(f"J{k + 1}", parent, (name, "P"), axis, orientation=orient))
        parent = (name, "tip")
    return mech


def test_seven_dof_structure():
    """Digest 002 Sec. 4.2 structural facts of the printed M^-1 P2, on a re-modelled arm."""
    mech = seven_dof_arm()
    lin = mech.linearize_at(np.zeros(7), np.zeros(7), a0=np.zeros(7))
    k = np.linalg.solve(lin.M, lin.P2)
    roll, pitch = [0, 2, 4, 6], [1, 3, 5]
    scale = np.abs(k).max()
    assert np.abs(k[np.ix_(roll, pitch)]).max() <= 1e-12 * scale
    assert np.abs(k[np.ix_(pitch, roll)]).max() <= 1e-12 * scale
    assert np.abs(k[:, 6]).max() <= 1e-12 * scale  # tool roll about its own centroid axis
    assert np.abs(k[6, :6]).max() > 1e-3 * scale  # ... but inertially coupled
    assert np.abs(k[:, 0]).max() > 1e-3 * scale  # gravity acts about the tilted shoulder roll
    assert np.abs(lin.P1).max() == 0.0
    assert np.abs(lin.P2 - lin.P2.T).max() <= 1e-12 * scale  # static equilibrium: symmetric
    assert np.abs(np.linalg.eigvals(k).imag).max() <= 1e-9 * scale
    assert np.allclose(lin.tau0, mech.inverse_dynamics(np.zeros(7), np.zeros(7), np.zeros(7)))


@pytest.mark.parametrize("seed", [0, 1])
def test_linearisation_error_is_first_order(seed):
    """Eq. 40-style check: f(x0 + dx) - f(x0) - A dx is O(|dx|^2) at a generic reference."""
    mech = seven_dof_arm()
    rng = np.random.default_rng(seed)
    q0, v0, tau0 = rng.normal(size=7), rng.normal(size=7), rng.normal(size=7)
    lin = mech.linearize_at(q0, v0, tau0=tau0)
    d = rng.normal(size=14)
    errs = []
    for eps in (1e-3, 1e-4):
        dx = eps * d
        f1 = mech.forward_dynamics(q0 + dx[:7], v0 + dx[7:], tau0)
        errs.append(np.abs(f1 - lin.a0 - lin.A[7:] @ dx).max())
    assert 80 < errs[0] / errs[1] < 120
