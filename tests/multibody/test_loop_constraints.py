"""Exact loop-closure constraints against the closed-form dynamics of a four-bar linkage.

The reference is independent of robustmb: the four-bar's position analysis in
closed form (circle intersection), its one-degree-of-freedom Lagrange equation
``m(t) t'' + m'(t) t'^2 / 2 + V'(t) = tau`` with the generalised mass and the
potential formed from the closed-form positions, derivatives by complex steps.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from robustmb.errors import IllPosedError, SignalError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity
from robustmb.multibody.constraints import constraint_terms

G = 9.81
A_LEN, B_LEN, C_LEN, D_LEN = 0.4, 1.0, 0.8, 0.9  # crank, coupler, rocker, ground
BODIES = {  # mass, Izz at the CoM, CoM in body axes (x along the link)
    "crank": (1.0, 0.02, np.array([0.2, 0.03])),
    "coupler": (2.0, 0.17, np.array([0.5, -0.05])),
    "rocker": (1.5, 0.08, np.array([0.4, 0.02])),
}


def four_bar(baumgarte=(0.0, 0.0), spring=0.0):
    mech = Mechanism(
        acceleration=gravity(G, direction=(0, -1, 0)), ground_ports={"O4": [D_LEN, 0, 0]}
    )
    for name, length in (("crank", A_LEN), ("coupler", B_LEN), ("rocker", C_LEN)):
        m, izz, com = BODIES[name]
        mech.add_body(
            RigidBody(
                name,
                mass=m,
                inertia=[0.01, 0.03, izz],  # only izz acts in the plane
                allow_nonphysical_inertia=True,
                cog=[com[0], com[1], 0.0],
                ports={"P": [0, 0, 0], "tip": [length, 0, 0]},
            )
        )
    z = [0, 0, 1]
    mech.add_joint(
        RevoluteJoint(
            "Jc", ("ground", "O"), ("crank", "P"), z, output_name="th_c", stiffness=spring
        )
    )
    mech.add_joint(RevoluteJoint("Jk", ("crank", "tip"), ("coupler", "P"), z, output_name="th_k"))
    mech.add_joint(RevoluteJoint("Jr", ("ground", "O4"), ("rocker", "P"), z, output_name="th_r"))
    mech.add_loop_constraint(
        "pin", ("coupler", "tip"), ("rocker", "tip"), components="xy", baumgarte=baumgarte
    )
    return mech


# ----------------------------------------------------------------- closed form
def _positions(t):
    """Complex-safe closed-form kinematics: joint A, unit vectors of coupler and rocker."""
    a = A_LEN * np.array([np.cos(t), np.sin(t)])
    dvec = np.array([D_LEN, 0.0]) - a
    dist = np.sqrt(dvec @ dvec)
    cb = (B_LEN**2 + dist**2 - C_LEN**2) / (2 * B_LEN * dist)
    sb = np.sqrt(1 - cb**2)  # the elbow-up branch
    ud = dvec / dist
    u = np.array([cb * ud[0] - sb * ud[1], sb * ud[0] + cb * ud[1]])  # coupler direction
    b = a + B_LEN * u
    w = (b - np.array([D_LEN, 0.0])) / C_LEN  # rocker direction
    return a, u, w


def _perp(u):
    return np.array([-u[1], u[0]])


def _coms(t):
    a, u, w = _positions(t)
    e = np.array([np.cos(t), np.sin(t)])
    out = {}
    for name, base, x in (("crank", 0.0 * a, e), ("coupler", a, u), ("rocker", None, w)):
        com = BODIES[name][2]
        origin = np.array([D_LEN, 0.0]) if base is None else base
        out[name] = origin + com[0] * x + com[1] * _perp(x)
    return out, {"crank": e, "coupler": u, "rocker": w}


def _cstep(fn, t, h=1e-30):
    return np.imag(fn(t + 1j * h)) / h


def gen_mass(t):
    m = 0.0
    for name in BODIES:
        mass, izz, _ = BODIES[name]
        vc = _cstep(lambda s, n=name: _coms(s)[0][n], t)
        x = _coms(t)[1][name]
        xd = _cstep(lambda s, n=name: _coms(s)[1][n], t)
        om = x[0] * xd[1] - x[1] * xd[0]  # angular rate per unit crank rate
        m += mass * vc @ vc + izz * om**2
    return m


def potential(t):
    return sum(BODIES[n][0] * G * _coms(t)[0][n][1] for n in BODIES)


def closed_form_acc(t, td, tau, spring=0.0):
    h = 1e-5
    dm = (gen_mass(t + h) - gen_mass(t - h)) / (2 * h)
    dv = _cstep(potential, t) + spring * t
    return (tau - 0.5 * dm * td**2 - dv) / gen_mass(t)


def tree_state(mech, t, td):
    """Tree coordinates and rates of the closed-form configuration (crank t, rate td)."""
    names = mech.rigid_tree().coordinate_names()
    _, u, w = _positions(t)
    ud = _cstep(lambda s: _positions(s)[1], t)
    wd = _cstep(lambda s: _positions(s)[2], t)
    th3, th4 = np.arctan2(u[1], u[0]), np.arctan2(w[1], w[0])
    q = np.zeros(3)
    q[names.index("th_c")], q[names.index("th_k")], q[names.index("th_r")] = t, th3 - t, th4
    om3, om4 = u[0] * ud[1] - u[1] * ud[0], w[0] * wd[1] - w[1] * wd[0]
    v = np.zeros(3)
    v[names.index("th_c")], v[names.index("th_k")], v[names.index("th_r")] = (
        td,
        (om3 - 1.0) * td,
        om4 * td,
    )
    return q, v, names.index("th_c")


# ----------------------------------------------------------------- tests
def test_constraint_jacobian_and_bias_are_exact_derivatives():
    mech = four_bar()
    tree = mech.rigid_tree()
    rng = np.random.default_rng(3)
    q, v, a = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    g, jac, gamma = constraint_terms(tree, q, v)
    h = 1e-30
    # g' = J v and g'' = J a + gamma along q(t) = q + t v + t^2 a / 2, by complex steps
    assert np.allclose(
        np.imag(constraint_terms(tree, q + 1j * h * v, v)[0]) / h, jac @ v, atol=1e-13
    )
    qc, vc = q + 1j * h * v, v + 1j * h * a
    second = np.imag(constraint_terms(tree, qc, vc)[1] @ vc) / h
    assert np.allclose(second, jac @ a + gamma, atol=1e-12)


@pytest.mark.parametrize("t", [0.3, 1.2, 2.5, -1.0])
def test_forward_dynamics_matches_the_closed_form_four_bar(t):
    mech = four_bar()
    rng = np.random.default_rng(int(10 * abs(t)))
    td, tau = rng.normal(), rng.normal()
    q, v, ic = tree_state(mech, t, td)
    g, jac, gamma = constraint_terms(mech.rigid_tree(), q, v)
    assert np.abs(g).max() < 1e-13 and np.abs(jac @ v).max() < 1e-13
    u = np.zeros(3)
    u[ic] = tau
    qdd = mech.forward_dynamics(q, v, u)
    ref = closed_form_acc(t, td, tau)
    assert abs(qdd[ic] - ref) <= 1e-8 * max(1.0, abs(ref))
    assert np.abs(jac @ qdd + gamma).max() < 1e-11  # the accelerations keep the loop closed


def test_simulation_follows_the_closed_form_and_keeps_the_loop_closed():
    mech = four_bar()
    q0, v0, ic = tree_state(mech, 0.8, 1.5)
    res = mech.simulate((0, 2.0), q0, v0, rtol=1e-11, atol=1e-11)
    ref = solve_ivp(
        lambda _, y: [y[1], closed_form_acc(y[0], y[1], 0.0)],
        (0, 2.0),
        [0.8, 1.5],
        t_eval=res.t,
        rtol=1e-11,
        atol=1e-11,
        method="DOP853",
    )
    assert np.ptp(res.q[:, ic]) > 1.0  # it really moves
    assert np.abs(res.q[:, ic] - ref.y[0]).max() < 1e-7
    assert np.abs(res.constraint).max() < 1e-8
    assert np.ptp(res.energy) < 1e-8 * np.abs(res.energy).max()


def test_inconsistent_start_is_refused_and_assemble_closes_the_loop():
    mech = four_bar()
    q0, v0, _ = tree_state(mech, 0.8, 0.0)
    tree = mech.rigid_tree()
    with pytest.raises(IllPosedError, match="pin"):
        mech.simulate((0, 1.0), q0 + np.array([0, 1e-4, 0]), v0)
    q1 = mech.assemble(q0 + np.array([0.05, -0.03, 0.02]), fixed=["th_c"])
    assert abs(q1[tree.coordinate_names().index("th_c")] - q0[0] - 0.05) < 1e-12
    assert np.abs(constraint_terms(tree, q1, np.zeros(3))[0]).max() < 1e-12


def test_linearisation_on_the_manifold_matches_the_closed_form():
    mech = four_bar(spring=5.0)
    # a general point: the Jacobian of (t, t') -> (t', t'') of the closed form
    t, td, tau = 1.1, 0.7, 0.4
    q, v, ic = tree_state(mech, t, td)
    u = np.zeros(3)
    u[ic] = tau
    lin = mech.linearize_at(q, v, tau0=u, independent=["th_c"])
    h = 1e-4
    f = closed_form_acc
    ref = [
        (f(t + h, td, tau, 5.0) - f(t - h, td, tau, 5.0)) / (2 * h),
        (f(t, td + h, tau, 5.0) - f(t, td - h, tau, 5.0)) / (2 * h),
    ]
    assert np.allclose(lin.A[0], [0.0, 1.0], atol=1e-12)
    assert np.allclose(lin.A[1], ref, rtol=1e-6, atol=1e-6)
    assert abs(lin.B[1, ic] - 1.0 / gen_mass(t)) < 1e-9


def test_linearised_frequency_at_equilibrium():
    mech = four_bar(spring=5.0)
    # equilibrium of the crank under gravity and the spring: V'(t) + k t = 0
    from scipy.optimize import brentq

    t0 = brentq(lambda s: _cstep(potential, s) + 5.0 * s, -1.5, 1.5)
    q, v, ic = tree_state(mech, t0, 0.0)
    lin = mech.linearize_at(q, v, independent="th_c")
    h = 1e-5
    vpp = (_cstep(potential, t0 + h) - _cstep(potential, t0 - h)) / (2 * h) + 5.0
    w2 = vpp / gen_mass(t0)
    assert abs(-lin.A[1, 0] - w2) < 1e-7 * abs(w2)
    assert abs(np.linalg.eigvals(lin.A).imag.max() - np.sqrt(w2)) < 1e-7
    # at rest the manifold's tangent space is invariant under the full linearisation
    full = lin.A_full @ lin.basis
    assert np.abs(full - lin.basis @ lin.A).max() < 1e-9 * np.abs(full).max()


def test_bad_constraint_inputs_name_the_constraint():
    mech = four_bar()
    with pytest.raises(SignalError, match="components"):
        mech.add_loop_constraint("c2", ("coupler", "tip"), ("rocker", "tip"), components="xw")
    with pytest.raises(SignalError, match="baumgarte"):
        mech.add_loop_constraint("c3", ("coupler", "tip"), ("rocker", "tip"), baumgarte=(-1, 0))
    q, v, _ = tree_state(mech, 0.5, 0.0)
    with pytest.raises(IllPosedError, match=r"hybrid_dynamics.*\['Jc', 'Jr'\].*pin"):
        mech.hybrid_dynamics(q, v, np.zeros(3), {"Jc": 1.0, "Jr": 0.0})  # a 1-dof loop
    with pytest.raises(IllPosedError, match="degrees of freedom"):
        mech.linearize_at(q, v, independent=["th_c", "th_r"])


def test_baumgarte_pulls_a_drifting_state_back_to_the_loop():
    """The stabilised dynamics from a slightly open loop: g'' + 2 a g' + b^2 g = 0."""
    from robustmb.multibody.simulation import state_derivative

    mech = four_bar(baumgarte=(5.0, 5.0))
    tree = mech.rigid_tree()
    q0, v0, _ = tree_state(mech, 0.8, 0.0)
    q0 = q0 + np.array([0.0, 1e-4, 0.0])  # open by ~1e-4 m

    def rhs(_, y):
        a = mech.forward_dynamics(y[:3], y[3:], np.zeros(3))
        return np.r_[state_derivative(tree, y[:3], y[3:], a), a]

    sol = solve_ivp(rhs, (0, 3.0), np.r_[q0, v0], rtol=1e-10, atol=1e-12, dense_output=True)
    g0 = np.abs(constraint_terms(tree, q0, v0)[0]).max()
    y = sol.sol(3.0)
    g1 = np.abs(constraint_terms(tree, y[:3], y[3:])[0]).max()
    # critically damped with beta = 5: (1 + 5 t) exp(-5 t) at t = 3 is 4.9e-6
    assert g0 > 1e-5 and g1 < 1e-5 * g0


def test_floating_body_held_by_a_spherical_constraint_conserves_its_invariants():
    """A free body tied to the ground by a point constraint is a spherical pendulum:
    energy and the angular momentum about the vertical through the pivot are conserved."""
    from robustmb.multibody.tree import quat_to_dcm

    mech = Mechanism(acceleration=gravity(9.81), floating_base="bob", base_position=(0, 0, -1.0))
    inertia = np.diag([0.1, 0.2, 0.3])
    mech.add_body(RigidBody("bob", mass=2.0, inertia=[0.1, 0.2, 0.3], ports={"top": [0, 0, 1.0]}))
    mech.add_loop_constraint("sph", ("bob", "top"), ("ground", "O"))
    q0 = mech.equilibrium_coordinates()
    v0 = np.array([0.5, 0.0, 0.0, 0.0, -0.5, 0.2])  # consistent: the top stays at O
    res = mech.simulate((0, 3.0), q0, v0, rtol=1e-11, atol=1e-11)

    def lz(q, v):
        r = quat_to_dcm(q[3:7] / np.linalg.norm(q[3:7]))
        return (2.0 * np.cross(q[:3], r @ v[:3]) + r @ inertia @ v[3:])[2]

    moments = np.array([lz(q, v) for q, v in zip(res.q, res.v, strict=True)])
    assert np.ptp(res.q[:, 0]) > 0.3  # it swings
    assert np.abs(res.constraint).max() < 1e-9
    assert np.ptp(res.energy) < 1e-9 * np.abs(res.energy).max()
    assert np.ptp(moments) < 1e-9 * max(1.0, np.abs(moments).max())
