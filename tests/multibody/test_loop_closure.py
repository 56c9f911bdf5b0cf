"""Compliant loop closure (seed 001, Sec. 3.4): a parallelogram four-bar closed by a spring."""

import numpy as np

from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity


def four_bar(k=1e5, d=0.0):
    mech = Mechanism(
        acceleration=gravity(9.81, direction=(0, -1, 0)), ground_ports={"G2": [1, 0, 0]}
    )
    for name, length, m in (("crank", 0.5, 1.0), ("coupler", 1.0, 2.0), ("rocker", 0.5, 1.5)):
        mech.add_body(
            RigidBody(
                name,
                mass=m,
                inertia=[0.01, 0.02, m * length**2 / 12],  # only izz acts in the plane
                allow_nonphysical_inertia=True,
                cog=[length / 2, 0, 0],
                ports={"P": [0, 0, 0], "tip": [length, 0, 0]},
            )
        )
    z = [0, 0, 1]
    mech.add_joint(RevoluteJoint("Jc", ("ground", "O"), ("crank", "P"), z, output_name="th_c"))
    mech.add_joint(RevoluteJoint("Jk", ("crank", "tip"), ("coupler", "P"), z, output_name="th_k"))
    mech.add_joint(RevoluteJoint("Jr", ("ground", "G2"), ("rocker", "P"), z, output_name="th_r"))
    mech.add_loop_closure("pin", ("coupler", "tip"), ("rocker", "tip"), stiffness=k, damping=d)
    return mech


def test_stiff_closure_keeps_the_parallelogram_and_conserves_energy():
    mech = four_bar(k=3e4)
    names = mech.rigid_tree().coordinate_names()
    q0 = np.zeros(3)
    # released below the horizontal: it swings without reaching the flat change point
    q0[names.index("th_c")], q0[names.index("th_k")], q0[names.index("th_r")] = -0.5, 0.5, -0.5
    res = mech.simulate((0, 0.6), q0, np.zeros(3), rtol=1e-9, atol=1e-9)
    th_c, th_k, th_r = (res.outputs[n] for n in ("th_c", "th_k", "th_r"))
    assert np.ptp(th_c) > 1.0  # it really moves
    # parallelogram: the rocker follows the crank, the coupler stays parallel to the ground
    assert np.abs(th_c - th_r).max() < 2e-3
    assert np.abs(th_c + th_k).max() < 2e-3
    assert np.ptp(res.energy) <= 1e-6 * np.abs(res.energy).max()


def test_closure_linearisation_matches_differences_of_forward_dynamics():
    mech = four_bar(k=1e3, d=3.0)
    q, v = np.array([0.9, 1.1, -0.8]), np.array([0.3, 0.5, -0.2])
    lin = mech.linearize_at(q, v)
    h, fd = 1e-6, np.zeros((3, 6))
    for c in range(6):
        e = np.zeros(6)
        e[c] = h
        fp = mech.forward_dynamics(q + e[:3], v + e[3:], np.zeros(3))
        fm = mech.forward_dynamics(q - e[:3], v - e[3:], np.zeros(3))
        fd[:, c] = (fp - fm) / (2 * h)
    assert np.abs(lin.A[3:] - fd).max() <= 1e-5 * np.abs(fd).max()
    # the closure pulls the two tips together: no effort needed where they coincide
    q_closed = np.array([1.0, 1.0, -1.0])  # (th_c, th_r, th_k)
    tau_open = four_bar(k=0.0).inverse_dynamics(q_closed, np.zeros(3), np.zeros(3))
    assert np.allclose(mech.inverse_dynamics(q_closed, np.zeros(3), np.zeros(3)), tau_open)
