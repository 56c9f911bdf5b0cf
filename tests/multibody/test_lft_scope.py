"""The LFT (``trim``, ``linearize``) refuses what it does not model instead of dropping it.

Applied wrenches, compliant loop closures, exact loop constraints and joint laws
change the equilibrium and its stiffness.  Each mechanism below is small enough
for a closed form of its linearisation; ``linearize_at`` (which models the item)
must give it, and ``linearize``/``trim`` must raise naming the item.
"""

import numpy as np
import pytest
from mechanism_specs import build_mechanism, frequency_response, random_chain, sample_values

import robustmb as rmb
from robustmb.errors import IllPosedError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

G = 9.81


def _bob(**ports):
    """A 2 kg point mass 1 m below a pivot about x (gravity along -z)."""
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0], "c": [0, 0, 0], **ports}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    return mech


def _bar(**ground_ports):
    """A 1 kg bar of length 1 turning about z at one end: J_O = 0.1 + 1 * 0.5^2 = 0.35."""
    mech = Mechanism(acceleration=gravity(G), ground_ports=ground_ports)
    mech.add_body(
        RigidBody(
            "bar",
            mass=1.0,
            inertia=0.1,
            cog=[0.5, 0, 0],
            ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]},
        )
    )
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
    return mech


def _poles(lin):
    return np.sort_complex(np.linalg.eigvals(np.asarray(lin.A)))


def _value(x, vals):
    """A trim quantity (numbers or uncertain) at parameter values, as a float array."""
    if hasattr(x, "usubs"):
        x = x.usubs({k: v for k, v in vals.items() if k in x.blocks})
    return np.asarray(x, dtype=float)


def _at(x, vals):
    """A 1x1 trim quantity at parameter values."""
    return float(_value(x, vals)[0, 0])


def _refused(mech, *names):
    for method in (mech.linearize, mech.trim):
        with pytest.raises(IllPosedError, match="linearize_at") as info:
            method()
        for name in names:
            assert name in str(info.value)


def test_applied_wrench_enters_the_trim_and_the_lft():
    mech = _bob()
    # 3 times the weight upwards at the bob: net 2 m g up, an inverted pendulum
    mech.add_applied_wrench("lift", "bob", "c", [0, 0, 3 * 2.0 * G, 0, 0, 0])
    # closed form: m l^2 q'' = (3 m g - m g) l q  ->  poles +- sqrt(2 g / l)
    ref = [-np.sqrt(2 * G), np.sqrt(2 * G)]
    assert np.allclose(_poles(mech.linearize().nominal()), ref, rtol=1e-12, atol=1e-12)
    assert np.allclose(_poles(mech.linearize_at([0.0], [0.0], a0=[0.0])), ref, rtol=1e-12)
    assert _at(mech.trim().effort["J"], {}) == pytest.approx(0.0, abs=1e-12)
    # off the vertical (angle 0.4): the lift is still vertical, the holding torque is
    # -(3 m g - m g) l sin(0.4) and the stiffness -2 m g l cos(0.4)
    tilted = _bob()
    tilted.joints["J"] = RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], angle=0.4)
    tilted.add_applied_wrench("lift", "bob", "c", [0, 0, 3 * 2.0 * G, 0, 0, 0])
    hold = _at(tilted.trim().effort["J"], {})
    assert abs(hold) == pytest.approx(2 * 2.0 * G * np.sin(0.4), rel=1e-12)
    w = np.sqrt(2 * G * np.cos(0.4))
    assert np.allclose(_poles(tilted.linearize().nominal()), [-w, w], rtol=1e-12)


def test_a_plain_pendulum_still_linearises_to_its_closed_form():
    poles = _poles(_bob().linearize().nominal())
    assert np.allclose(poles, [-1j * np.sqrt(G), 1j * np.sqrt(G)], rtol=1e-12, atol=1e-12)


def test_compliant_closure_enters_the_lft():
    mech = _bar(E=[1.0, 0, 0])
    mech.add_loop_closure("spring", ("bar", "tip"), ("ground", "E"), stiffness=100.0)
    # the tip moves by (0, q, 0): restoring torque k l^2 q on J_O = 0.35
    w = np.sqrt(100.0 / 0.35)
    assert np.allclose(_poles(mech.linearize().nominal()), [-1j * w, 1j * w], rtol=1e-12)
    assert np.allclose(_poles(mech.linearize_at([0.0], [0.0], a0=[0.0])), [-1j * w, 1j * w])


def test_preloaded_closure_with_dampers_and_a_rotational_spring():
    mech = _bar(E=[1.0, 0.5, 0])
    k, d, kr, dr = 100.0, 2.0, 5.0, 0.5
    mech.add_loop_closure(
        "spring",
        ("ground", "E"),
        ("bar", "tip"),
        stiffness=k,
        damping=d,
        rotational_stiffness=kr,
        rotational_damping=dr,
    )
    # the spring pulls the tip (1, 0, 0) towards E: torque k (tip x (E - tip)) = 50 about z,
    # held by -50; around it J_O s^2 + (d l^2 + dr) s + (k l^2 + kr), l = 1 (the preload
    # is normal to the bar, so it adds nothing to the stiffness of a zero-length spring)
    assert _at(mech.trim().effort["J"], {}) == pytest.approx(-50.0, rel=1e-12)
    poles = _poles(mech.linearize().nominal())
    ref = np.sort_complex(np.roots([0.35, d + dr, k + kr]))
    assert np.allclose(poles, ref, rtol=1e-12)
    assert np.allclose(_poles(mech.linearize_at([0.0], [0.0], a0=[0.0])), ref, rtol=1e-7)


def test_rotational_closure_spring_not_at_rest_is_refused():
    mech = _bar(E=[1.0, 0, 0])
    mech.joints["J"] = RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1], angle=0.2)
    mech.add_loop_closure(
        "twist", ("bar", "tip"), ("ground", "E"), stiffness=1.0, rotational_stiffness=2.0
    )
    for method in (mech.linearize, mech.trim):
        with pytest.raises(IllPosedError, match="loop closure 'twist'.*linearize_at"):
            method()


def _three_links(t0, angle1=0.5, t2=None, **closure_ports):
    """Three 3-D links, the first at an uncertain angle; a rotational closure spring
    between the last two (``b2`` aligned with ``b1`` when the angle of J2 is 0)."""
    inertia = [[0.2, 0.01, 0.02], [0.01, 0.3, 0.03], [0.02, 0.03, 0.25]]
    mech = Mechanism(acceleration=gravity(G))
    for i in range(3):
        mech.add_body(
            RigidBody(
                f"b{i}",
                mass=1.0 + 0.3 * i,
                inertia=inertia,
                cog=[0.1, 0.4, 0.05 * i],
                ports={"P": [0, 0, 0], "T": [0, 1.0, 0.1]},
            )
        )
    mech.add_joint(RevoluteJoint("J0", ("ground", "O"), ("b0", "P"), [1, 0, 0], tan_half=t0))
    mech.add_joint(RevoluteJoint("J1", ("b0", "T"), ("b1", "P"), [0, 0, 1], angle=angle1))
    j2 = {"tan_half": t2} if t2 is not None else {"angle": 0.0}
    mech.add_joint(RevoluteJoint("J2", ("b1", "T"), ("b2", "P"), [0.6, 0, 0.8], **j2))
    a, b = closure_ports.get("ends", (("b1", "T"), ("b2", "P")))
    mech.add_loop_closure("c", a, b, stiffness=100.0, damping=0.5, rotational_stiffness=4.0)
    return mech


def test_rotational_closure_under_an_uncertain_angle_above_both_bodies():
    # the uncertain J0 turns b1 and b2 alike: the spring stays at rest for every value,
    # so the LFT models it; it must match linearize_at (the nonlinear model) everywhere
    mech = _three_links(rmb.ureal("t0", 0.1, plusminus=0.02))
    sys = mech.linearize()
    tr = mech.trim()
    for t0 in (0.08, 0.1, 0.11, 0.12):
        vals = {"t0": t0}
        q0 = mech.equilibrium_coordinates(values=vals)
        assert q0[0] == pytest.approx(2.0 * np.arctan(t0), rel=1e-14)
        tau = mech.inverse_dynamics(q0, np.zeros(3), np.zeros(3), values=vals)
        got = [_at(tr.effort[j], vals) for j in ("J0", "J1", "J2")]
        assert np.allclose(got, tau, rtol=1e-10, atol=1e-10)
        ref = mech.linearize_at(q0, np.zeros(3), a0=np.zeros(3), values=vals).ss
        lft_at = sys.usubs(vals)
        for s in (0.5j, 1.0 + 2.0j):
            r = frequency_response(ref, s)[:3, :]  # linearize_at outputs [q; v]
            assert np.allclose(frequency_response(lft_at, s), r, rtol=1e-7, atol=1e-9)
        a_ref = np.asarray(ref.A)  # the same states [q; v] in the same order
        assert np.allclose(np.asarray(lft_at.A), a_ref, rtol=0, atol=1e-8 * np.abs(a_ref).max())


def test_rotational_closure_with_an_uncertain_angle_between_its_bodies_is_refused():
    # J2 is on the path from b1 to b2: the spring's rest would depend on t2
    mech = _three_links(0.1, t2=rmb.ureal("t2", 0.0, plusminus=0.01))
    _refused(mech, "loop closure 'c'")
    # to the ground, the path from it to b2 passes the uncertain J0 (at rest at its nominal)
    t0 = rmb.ureal("t0", 0.0, plusminus=0.01)
    _refused(_three_links(t0, angle1=0.0, ends=(("ground", "O"), ("b2", "P"))), "'c'")
    # numeric, b0 to b2: at rest with J1 and J2 at 0 (J0 above both), not with J1 at 0.5
    at_rest = _three_links(t0, angle1=0.0, ends=(("b0", "T"), ("b2", "P")))
    q0 = at_rest.equilibrium_coordinates(values={"t0": 0.01})
    ref = at_rest.linearize_at(q0, np.zeros(3), a0=np.zeros(3), values={"t0": 0.01}).ss
    got = np.asarray(at_rest.linearize().usubs({"t0": 0.01}).A)
    assert np.allclose(got, ref.A, rtol=0, atol=1e-8 * np.abs(ref.A).max())
    _refused(_three_links(t0, angle1=0.5, ends=(("b0", "T"), ("b2", "P"))), "'c'")


def test_loop_constraint_is_refused():
    mech = _bar(B=[1.0, 0, 0])
    mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
    _refused(mech, "loop constraint 'pin'")
    # pinned at both ends, the bar cannot turn whatever the torque
    assert mech.forward_dynamics([0.0], [0.0], [1.0]) == pytest.approx([0.0], abs=1e-12)


def test_joint_law_enters_the_lft_as_a_spring_and_damper():
    mech = _bob()
    mech.add_joint_law("J", lambda q, qd: -100.0 * q)
    poles = _poles(mech.linearize().nominal())
    # m l^2 q'' = -(k + m g l) q
    w = np.sqrt((100.0 + 2.0 * G) / 2.0)
    assert np.allclose(poles, [-1j * w, 1j * w], rtol=1e-12, atol=1e-12)
    assert np.allclose(_poles(mech.linearize_at([0.0], [0.0], a0=[0.0])), poles, rtol=1e-12)


def _chain(angle2, law2):
    """Two uncertain links in 3-D, a nonlinear law on the second joint (tilted)."""
    m1 = rmb.ureal("m1", 2.0, percent=20)
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(
        RigidBody(
            "A",
            mass=m1,
            inertia=[0.1, 0.2, 0.15],
            cog=[0, 0.2, -0.5],
            ports={"P": [0, 0, 0], "T": [0, 0.3, -1]},
        )
    )
    mech.add_body(RigidBody("B", mass=1.5, inertia=0.05, cog=[0.1, 0, -0.4], ports={"P": [0] * 3}))
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("A", "P"), [1, 0, 0], angle=0.3))
    mech.add_joint(
        RevoluteJoint(
            "J2", ("A", "T"), ("B", "P"), [1, 0.5, 0], angle=angle2, stiffness=2.0, damping=0.3
        )
    )
    mech.add_joint_law("J2", law2)
    return mech


@pytest.mark.parametrize(
    "law",
    [
        lambda q, qd: -3.0 * q**3 - 0.4 * qd - 2.0 * np.sin(q) * qd**2,  # complex step
        lambda q, qd: -3.0 * q * abs(q) - 0.4 * qd * abs(qd) - 0.7 * qd,  # central differences
    ],
)
def test_joint_law_lft_matches_linearize_at_and_inverse_dynamics(law):
    mech = _chain(0.6, law)
    G_lft = mech.linearize()
    tr = mech.trim()
    for m1 in (1.6, 2.0, 2.4):
        vals = {"m1": m1}
        q0 = mech.equilibrium_coordinates(values=vals)
        # the trim efforts hold the equilibrium with the law's share: the nonlinear
        # inverse dynamics at rest (which adds the law) gives the same efforts
        tau = mech.inverse_dynamics(q0, np.zeros(2), np.zeros(2), values=vals)
        got = [_at(tr.effort[j], vals) for j in ("J1", "J2")]
        assert np.allclose(got, tau, rtol=1e-12, atol=1e-12)
        ref = mech.linearize_at(q0, np.zeros(2), a0=np.zeros(2), values=vals).ss
        g_vals = G_lft.usubs(vals)
        for s in (0.5j, 2.0 + 3.0j):
            r = frequency_response(ref, s)[:2, :]  # linearize_at outputs [q; v]
            # central differences of a non-analytic law: ~1e-9 relative, as in linearize_at
            err = np.abs(frequency_response(g_vals, s) - r).max()
            assert err <= 1e-9 * np.abs(r).max()


def test_joint_law_at_an_uncertain_angle_is_refused():
    t = rmb.ureal("t", np.tan(0.3), percent=10)
    mech = _bob()
    mech.joints["J"] = RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], tan_half=t)
    mech.add_joint_law("J", lambda q, qd: -q)
    _refused(mech, "joint law on 'J' (its equilibrium coordinate is uncertain)")


def test_every_item_is_named():
    mech = _bar(E=[1.0, 0, 0])
    mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "E"), components="z")
    mech.add_loop_constraint("lock", ("bar", "P"), ("ground", "O"), components="", rotations="z")
    _refused(mech, "loop constraint 'pin'", "loop constraint 'lock'")


def test_balloon_gondola_trim_against_inverse_dynamics():
    mech, _, _ = rmb.examples.balloon_gondola()
    # at the hanging equilibrium the buoyancy (16 kg x g) holds everything: no base wrench
    qe = mech.equilibrium_coordinates()
    tau = mech.inverse_dynamics(qe, np.zeros(9), np.zeros(9))
    assert np.abs(tau).max() <= 1e-12 * 16.0 * G
    # without the buoyancy the base must carry the weight, 16 g along +y (gravity is -y,
    # base axes = inertial axes at equilibrium); the trim of the LFT path then agrees
    mech.applied_wrenches.clear()
    weight = [0.0, 16.0 * G, 0.0, 0.0, 0.0, 0.0]
    tau = mech.inverse_dynamics(qe, np.zeros(9), np.zeros(9))
    assert np.allclose(tau, weight + [0.0] * 3, rtol=1e-12, atol=1e-10)
    trim_wrench = np.asarray(mech.trim().base_wrench, dtype=float).ravel()
    assert np.allclose(trim_wrench, weight, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("closures", [False, True])
@pytest.mark.parametrize("name", ["revolute", "prismatic", "floating_weld"])
def test_applied_wrenches_enter_the_lft_exactly(name, closures):
    """Random 3-D chains (uncertain masses, port, angle) with applied wrenches, one of them
    uncertain, in inertial and body axes, and compliant closures: the LFT at sampled
    parameter values equals the linearisation of the nonlinear model, and the trim
    equals inverse dynamics.  ``linearize_at`` differentiates closures by central
    differences: agreement to 1e-6 with them, to 1e-9 without."""
    chains = {
        "revolute": dict(n_joints=3),
        "prismatic": dict(n_joints=3, prismatic=(1,)),
        "floating_weld": dict(n_joints=2, floating=True, weld_tip=True),
    }
    rng = np.random.default_rng(11)
    spec = random_chain(rng, **chains[name])
    mech = build_mechanism(spec)
    fz = rmb.ureal("fz", 3.0, range=(1.0, 5.0))
    loads = [("B1", "C", "inertial"), ("B0", "P", "body"), ("B0", "C", "inertial")]
    if name == "floating_weld":
        loads += [("base", "side", "inertial"), ("tip", "tool", "inertial")]
    for k, (body, port, frame) in enumerate(loads):
        w = list(rng.normal(scale=4.0, size=6))
        if k == 0:
            w[2] = fz
        mech.add_applied_wrench(f"L{k}", body, port, w, frame=frame)
    if closures:
        # preloaded spring-dampers: tip to ground, and between two links (uncertain k)
        mech.ground_ports["E"] = tuple(rng.normal(size=3))
        kc = rmb.ureal("kc", 20.0, percent=30)
        last = "tip" if name == "floating_weld" else "B2"
        mech.add_loop_closure(
            "C0", (last, "P"), ("ground", "E"), stiffness=kc, damping=0.7, rotational_damping=0.2
        )
        mech.add_loop_closure("C1", ("B0", "C"), ("B1", "C"), stiffness=8.0, damping=0.3)
    # a0 = 0 below holds a floating base by its inverse-dynamics wrench, in its own axes
    lft_model = mech.linearize(base_wrench="body")
    tr = mech.trim()
    for _ in range(2):
        vals = {**sample_values(spec, rng), "fz": float(rng.uniform(1.0, 5.0))}
        if closures:
            vals["kc"] = float(rng.uniform(14.0, 26.0))
        q0 = mech.equilibrium_coordinates(values=vals)
        tree = mech.rigid_tree(vals)
        zero = np.zeros(tree.nv)
        tau = mech.inverse_dynamics(q0, zero, zero, values=vals)
        n_base = 6 if tree.floating else 0
        efforts = [_at(tr.effort[j["name"]], vals) for j in spec["joints"] if j["type"] != "weld"]
        # inverse dynamics lists the joints breadth-first: a chain keeps the spec's order
        assert np.allclose(efforts, tau[n_base:], rtol=1e-10, atol=1e-10)
        if n_base:
            assert np.allclose(_value(tr.base_wrench, vals).ravel(), tau[:6], atol=1e-10)
        lin = mech.linearize_at(q0, zero, a0=zero, values=vals)
        g_lin = lft_model.usubs(vals)
        inputs = [lin.input_names.index(u) for u in lft_model.input_names]
        outputs = [lin.coordinate_names.index(y) for y in lft_model.output_names]
        for s in (0.3j, 1.7j, 4.0 + 9.0j):
            ref = frequency_response(g_lin, s)
            got = frequency_response(lin.ss, s)[np.ix_(outputs, inputs)]
            tol = 1e-6 if closures else 1e-9
            assert np.abs(got - ref).max() <= tol * max(1.0, np.abs(ref).max())


def test_balloon_gondola_lft_has_the_reference_modes():
    """Digest 001 Sec. 4.3/4.4 reference (checked there against Pinocchio): with the
    buoyancy in the LFT, 8 rigid-body eigenvalues and 5 oscillations."""
    mech, _, _ = rmb.examples.balloon_gondola()
    ev = np.linalg.eigvals(np.asarray(mech.linearize().nominal().A))
    assert np.sum(np.abs(ev) < 1e-6) == 8
    freqs = np.sort(np.abs(ev.imag[ev.imag > 1e-6]))
    assert np.allclose(freqs, [1.8195, 1.8348, 3.5712, 5.6056, 9.2056], atol=6e-5)
    assert np.abs(ev.real).max() < 1e-10
    # the buoyancy balances the weight: nothing holds the base at equilibrium
    assert np.abs(np.asarray(mech.trim().base_wrench, dtype=float)).max() <= 1e-12
