"""The balloon and gondola of seed 001: linearisation, conservation laws, Pinocchio trajectory."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robustmb as rmb

pin = pytest.importorskip("pinocchio")

G = 9.81


def pinocchio_balloon(k=50.0):
    """The same system built directly in Pinocchio (Table 1 of seed 001, digest assumptions)."""
    model = pin.Model()
    model.gravity = pin.Motion(np.array([0.0, -G, 0.0]), np.zeros(3))
    jb = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "balloon")
    jbal = np.array([[5.0, 0, 0], [0, 10.0, -7.0], [0, -7.0, 10.0]])
    model.appendBodyToJoint(jb, pin.Inertia(10.0, np.zeros(3), jbal), pin.SE3.Identity())
    t = np.array([1.0, 0.0, -1.0]) / np.sqrt(2)
    js = model.addJoint(
        jb, pin.JointModelPrismaticUnaligned(t), pin.SE3(np.eye(3), np.array([0, -2.0, 0])), "p"
    )
    model.appendBodyToJoint(js, pin.Inertia(1.0, np.zeros(3), np.zeros((3, 3))), pin.SE3.Identity())
    j1 = model.addJoint(js, pin.JointModelRZ(), pin.SE3.Identity(), "t1")
    model.appendBodyToJoint(
        j1, pin.Inertia(2.0, np.array([0, -1.2, 0]), np.zeros((3, 3))), pin.SE3.Identity()
    )
    j2 = model.addJoint(j1, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([0, -1.2, 0])), "t2")
    model.appendBodyToJoint(
        j2, pin.Inertia(3.0, np.array([0, -1.6, 0]), np.zeros((3, 3))), pin.SE3.Identity()
    )
    data = model.createData()

    def rhs(_, y):
        q, v = y[:10], y[10:]
        quat = q[3:7] / np.linalg.norm(q[3:7])
        rot = pin.Quaternion(quat[3], *quat[:3]).matrix()
        fext = [pin.Force.Zero() for _ in range(model.njoints)]
        fext[jb] = pin.Force(rot.T @ np.array([0, 16.0 * G, 0]), np.zeros(3))
        tau = np.zeros(9)
        tau[6] = -k * q[7]
        a = pin.aba(model, data, q, v, tau, fext)
        w = v[3:6]
        x, y_, z, s = quat
        dquat = 0.5 * np.array(
            [
                s * w[0] + y_ * w[2] - z * w[1],
                s * w[1] + z * w[0] - x * w[2],
                s * w[2] + x * w[1] - y_ * w[0],
                -x * w[0] - y_ * w[1] - z * w[2],
            ]
        )
        return np.concatenate([rot @ v[:3], dquat, v[6:], a])

    return model, rhs


def test_hanging_equilibrium_modes():
    """Digest 001 Sec. 4.4 (prototype checked against Pinocchio): 8 rigid modes, 5 oscillations."""
    mech, _, _ = rmb.examples.balloon_gondola()
    lin = mech.linearize_at(mech.equilibrium_coordinates(), np.zeros(9))
    ev = np.linalg.eigvals(lin.A)
    assert np.sum(np.abs(ev) < 1e-6) == 8
    freqs = np.sort(np.abs(ev.imag[ev.imag > 1e-6]))
    assert np.allclose(freqs, [1.8195, 1.8348, 3.5712, 5.6056, 9.2056], atol=6e-5)
    assert np.abs(ev.real).max() < 1e-10


def _check_run(t_end, tol):
    mech, q0, v0 = rmb.examples.balloon_gondola()
    res = mech.simulate((0.0, t_end), q0, v0, rtol=tol, atol=tol)
    e0 = res.energy[0]
    assert np.isclose(e0, -106.8422, atol=1e-4)  # digest 001 Sec. 4.4
    assert np.abs(res.energy - e0).max() <= 1e-6 * abs(e0)
    assert np.abs(res.com - res.com[0]).max() <= 1e-8
    _, rhs = pinocchio_balloon()
    ref = solve_ivp(
        rhs, (0.0, t_end), np.r_[q0, v0], method="DOP853", rtol=tol, atol=tol, dense_output=True
    )
    yref = ref.sol(res.t).T
    sign = np.sign(yref[:, 6:7] * res.q[:, 6:7])  # quaternion sign is free
    assert np.abs(res.q[:, :3] - yref[:, :3]).max() <= 1e-8
    assert np.abs(res.q[:, 3:7] - sign * yref[:, 3:7]).max() <= 1e-8
    assert np.abs(res.q[:, 7:] - yref[:, 7:10]).max() <= 1e-8
    assert np.abs(res.v - yref[:, 10:]).max() <= 1e-7
    return res


def test_balloon_two_seconds_conserves_and_matches_pinocchio():
    _check_run(2.0, 1e-10)


@pytest.mark.slow
def test_balloon_ten_seconds():
    res = _check_run(10.0, 1e-12)  # chaotic motion: tighter tolerances for 1e-8 agreement
    # digest 001 Sec. 4.4 state at 10 s (its prototype, DOP853 at 1e-10): twist, joints, rates
    ref_v = [-0.47086, 0.711581, 0.987731, -0.096587, 0.572844, 1.599782]
    assert np.allclose(res.v[-1, :6], ref_v, atol=2e-6)
    assert np.allclose(res.q[-1, 7:], [1.017325, 0.584011, 0.97789], atol=2e-6)
    assert np.allclose(res.v[-1, 6:], [2.435557, -5.491438, 2.850213], atol=2e-6)
    assert set(res.outputs) >= {"balloon_phi", "balloon_theta", "balloon_psi", "p", "theta1"}


def _rel(x, ref):
    return np.abs(x - ref).max() / max(1.0, np.abs(ref).max())


def _skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def test_linearisation_matches_pinocchio_aba_derivatives_off_equilibrium():
    """linearize_at at a random state against Pinocchio's analytic ABA derivatives.

    Pinocchio's ``computeABADerivatives`` holds ``tau`` and ``fext`` fixed; the two
    state-dependent loads of the balloon are added in closed form: the slider
    spring (``dtau_p/dp = -k``) and the inertially fixed buoyancy, whose body-axis
    components ``R^T f`` vary with the body-axis rotation ``dtheta`` of the
    free-flyer tangent (``R -> R exp(skew(dtheta))``) as ``skew(R^T f) dtheta``.
    Both enter through ``M^-1``; the buoyancy acts at the free-flyer joint, whose
    motion subspace is the identity in body axes.  Coordinates and tangents are
    ordered identically in both models (as in the trajectory test above).
    """
    k = 50.0
    mech, _, _ = rmb.examples.balloon_gondola(k=k)
    model, _ = pinocchio_balloon(k=k)
    data = model.createData()
    rng = np.random.default_rng(15)
    quat = rng.normal(size=4)
    quat /= np.linalg.norm(quat)
    q = np.r_[rng.normal(size=3), quat, rng.normal(size=3)]
    v = rng.normal(size=9)
    tau = rng.normal(size=9)
    lin = mech.linearize_at(q, v, tau0=tau)

    rot = pin.Quaternion(quat[3], *quat[:3]).matrix()
    f_body = rot.T @ np.array([0.0, 16.0 * G, 0.0])
    fext = [pin.Force.Zero() for _ in range(model.njoints)]
    fext[1] = pin.Force(f_body, np.zeros(3))
    tp = tau.copy()
    tp[6] -= k * q[7]
    pin.computeABADerivatives(model, data, q, v, tp, fext)
    minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
    dload = np.zeros((9, 9))  # d(generalised load)/d(tangent of q) beyond Pinocchio's
    dload[6, 6] = -k
    dload[0:3, 3:6] = _skew(f_body)
    ddq_dq = data.ddq_dq + minv @ dload

    nv = 9
    # mass matrix and inverse dynamics (spring and buoyancy included) on the balloon
    mass = pin.crba(model, data, q)
    assert _rel(mech.mass_matrix(q), np.triu(mass) + np.triu(mass, 1).T) <= 1e-10
    acc = rng.normal(size=9)
    tau_ref = pin.rnea(model, data, q, v, acc, fext).copy()
    tau_ref[6] += k * q[7]
    assert _rel(mech.inverse_dynamics(q, v, acc), tau_ref) <= 1e-10
    pin.computeABADerivatives(model, data, q, v, tp, fext)
    assert _rel(lin.a0, data.ddq) <= 1e-10
    assert _rel(lin.A[nv:, :nv], ddq_dq) <= 1e-10
    assert _rel(lin.A[nv:, nv:], data.ddq_dv) <= 1e-10
    assert _rel(lin.B[nv:, :nv], minv) <= 1e-10
    # the closed-form load terms against central differences of pin.aba (h^2 truncation)
    h = 1e-5
    fd = np.zeros((9, 9))
    for c in range(9):
        cols = []
        for s in (1.0, -1.0):
            dq = np.zeros(9)
            dq[c] = s * h
            qq = pin.integrate(model, q, dq)
            fe = [pin.Force.Zero() for _ in range(model.njoints)]
            r = pin.Quaternion(qq[6], *qq[3:6]).matrix()
            fe[1] = pin.Force(r.T @ np.array([0.0, 16.0 * G, 0.0]), np.zeros(3))
            tt = tau.copy()
            tt[6] -= k * qq[7]
            cols.append(pin.aba(model, data, qq, v, tt, fe))
        fd[:, c] = (cols[0] - cols[1]) / (2 * h)
    assert _rel(fd, ddq_dq) <= 1e-8  # observed 1e-10
