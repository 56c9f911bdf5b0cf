"""Linearisation at any point as an exact LFT of uncertain inertial parameters (seed 002, 5.4)."""

import numpy as np
import pytest
from mechanism_specs import build_mechanism, frequency_response
from nonlinear_specs import random_state, random_tree

from robustmb import lft
from robustmb.errors import DimensionError, UncertainTypeError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody


def _uncertain_tree(seed, floating):
    rng = np.random.default_rng(seed)
    spec = random_tree(rng, 5, floating=floating)
    names = list(spec["bodies"])
    spec["params"] = {"mA": (2.0, 0.5, 4.0), "JA": (1.0, 0.5, 2.0), "kS": (0.5, 0.1, 1.0)}
    spec["bodies"][names[1]]["mass"] = "mA"
    inertia = np.asarray(spec["bodies"][names[2]]["inertia"], dtype=object)
    # JA replaces J_yy: without y-couplings the inertia stays semidefinite over JA's range
    inertia[0, 1] = inertia[1, 0] = inertia[1, 2] = inertia[2, 1] = 0.0
    inertia[1, 1] = "JA"
    spec["bodies"][names[2]]["inertia"] = inertia
    next(j for j in spec["joints"] if j["type"] != "weld")["stiffness"] = "kS"
    return rng, spec, build_mechanism(spec)


@pytest.mark.parametrize("floating", [False, True])
def test_lft_equals_linearisation_at_every_parameter_value(floating):
    rng, spec, mech = _uncertain_tree(4, floating)
    q, v, a = random_state(rng, mech.rigid_tree())
    ul = mech.linearize_at(q, v, a0=a, uncertain=True)
    assert set(ul.ss.blocks) == {"mA", "JA", "kS"}
    assert ul.ss.blocks["kS"] == 1  # a spring is a rank-one coefficient
    for _ in range(3):
        vals = {k: rng.uniform(lo, hi) for k, (_, lo, hi) in spec["params"].items()}
        ref = mech.linearize_at(q, v, a0=a, values=vals)
        got = ul.ss.usubs(vals)
        for s in (0.4j, 3.0 + 2.0j):
            r = frequency_response(ref.ss, s)
            assert np.abs(frequency_response(got, s) - r).max() <= 1e-9 * np.abs(r).max()
        vm = {k: vals[k] for k in ul.M.blocks}
        assert np.allclose(ul.M.usubs(vm), ref.M, rtol=1e-12, atol=1e-12)
        vt = {k: vals[k] for k in ul.tau0.blocks}
        assert np.allclose(np.ravel(ul.tau0.usubs(vt)), ref.tau0, rtol=1e-12, atol=1e-11)


def test_non_affine_parameters_are_refused_by_name():
    L = lft.ureal("L", 1.0, percent=10)
    m = lft.ureal("m", 1.0, percent=10)
    mech = Mechanism(acceleration=[0, 0, 9.81])
    mech.add_body(RigidBody("bob", mass=m, ports={"P": [0, 0, L]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    with pytest.raises(UncertainTypeError, match="'L'.*body 'bob' geometry"):
        mech.linearize_at([0.3], [0.0], uncertain=True)
    ul = mech.linearize_at([0.3], [0.0], uncertain=True, values={"L": 1.05})
    assert set(ul.ss.blocks) == {"m"}
    sq = Mechanism(acceleration=[0, 0, 9.81])
    sq.add_body(RigidBody("bob", mass=m * m, ports={"P": [0, 0, 1.0]}))
    sq.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    with pytest.raises(UncertainTypeError, match="not affine in parameter 'm'"):
        sq.linearize_at([0.3], [0.0], uncertain=True)


def _tilted_link(ixy, k=0.0):
    """One link on a revolute joint about (1, 1, 0)/sqrt(2), gravity along -z."""
    mech = Mechanism(acceleration=[0, 0, 9.81])
    mech.add_body(
        RigidBody(
            "link",
            mass=1.0,
            inertia=[[0.2, ixy, 0], [ixy, 0.3, 0], [0, 0, 0.25]],
            cog=[0, 0, 0.4],
            ports={"P": [0, 0, 0]},
        )
    )
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("link", "P"), [1, 1, 0], stiffness=k))
    return mech


def test_a_small_uncertain_product_of_inertia_is_linearised_over_its_own_range():
    """Ixy in (-0.02, 0.02) keeps the inertia definite; stepping it by +1 would not.
    Closed form: M = n^T (J + m (|c|^2 I - c c^T)) n = 0.41 + Ixy for n = (1, 1, 0)/sqrt 2."""
    ixy = lft.ureal("Ixy", 0.01, range=(-0.02, 0.02))
    q0, v0 = [0.3], [0.7]
    ul = _tilted_link(ixy).linearize_at(q0, v0, uncertain=True)
    assert ul.ss.blocks == {"Ixy": 1}
    rng = np.random.default_rng(5)
    for v in (-0.02, 0.02, 0.01, *rng.uniform(-0.02, 0.02, 3)):
        np.testing.assert_allclose(ul.M.usubs({"Ixy": v}), [[0.41 + v]], rtol=1e-13)
        ref = _tilted_link(v).linearize_at(q0, v0, a0=ul.a0)
        for f in ("M", "P1", "P2"):
            um = getattr(ul, f)
            got = um.usubs({"Ixy": v}) if um.blocks else um.nominal()
            want = getattr(ref, f)
            assert np.abs(got - want).max() <= 1e-12 * max(1.0, np.abs(want).max())
        r = frequency_response(ref.ss, 2.0j)
        assert (
            np.abs(frequency_response(ul.ss.usubs({"Ixy": v}), 2.0j) - r).max()
            <= 1e-12 * np.abs(r).max()
        )


def test_a_large_stiffness_and_a_product_of_parameters_are_handled():
    """k = 3e12 +- 10 %: the coefficient read over k's own range is exact at its ends; a mass
    m1 * m2 (each affine alone) is refused as a product."""
    k = lft.ureal("k", 3e12, percent=10)
    mech = _tilted_link(0.0, k=k)
    ul = mech.linearize_at([0.2], [0.0], uncertain=True)
    for kv in (2.7e12, 3.3e12):
        ref = _tilted_link(0.0, k=kv).linearize_at([0.2], [0.0], a0=ul.a0)
        # the spring enters P2 as -k: exact to rounding of k itself
        np.testing.assert_allclose(ul.P2.usubs({"k": kv}), ref.P2, rtol=1e-15, atol=0)
    m1, m2 = lft.ureal("m1", 1.0, percent=10), lft.ureal("m2", 2.0, percent=10)
    prod = Mechanism(acceleration=[0, 0, 9.81])
    prod.add_body(RigidBody("bob", mass=m1 * m2, ports={"P": [0, 0, 1.0]}))
    prod.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    with pytest.raises(UncertainTypeError, match="'m1' and 'm2' multiply each other in M"):
        prod.linearize_at([0.3], [0.0], uncertain=True)


def _bob(mass, k=0.0):
    """A point mass at distance 1 on a revolute joint about x: M = mass, closed form."""
    mech = Mechanism(acceleration=[0, 0, 9.81])
    mech.add_body(RigidBody("bob", mass=mass, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], stiffness=k))
    return mech


@pytest.mark.parametrize("v0", [0.0, 0.7])
def test_products_whose_cross_terms_cancel_are_refused(v0):
    """Each mass below is affine in every parameter alone; a single check point stepping all
    parameters at once sees the cross terms cancel (rho L1 + rho L2 with opposite steps,
    m1 m2 - m1 m3, and d1 d2 d3 which vanishes on every pair through the nominal)."""
    m1 = lft.ureal("m1", 1.0, percent=10)
    m2, m3 = lft.ureal("m2", 2.0, percent=10), lft.ureal("m3", 2.0, percent=10)
    rho = lft.ureal("rho", 2.0, range=(1.8, 2.3))
    l1, l2 = lft.ureal("L1", 1.0, range=(0.95, 1.10)), lft.ureal("L2", 1.0, range=(0.90, 1.05))
    cases = [
        (rho * (l1 + l2), "'rho' and 'L1' multiply each other in M"),
        (5 + m1 * m2 - m1 * m3, "'m1' and 'm2' multiply each other in M"),
        (5 + (m1 - 1.0) * (m2 - 2.0) * (m3 - 2.0), "'m1', 'm2', 'm3' multiply each other in M"),
    ]
    for mass, message in cases:
        with pytest.raises(UncertainTypeError, match=message):
            _bob(mass).linearize_at([0.3], [v0], uncertain=True)
    # the first one is genuinely not affine: at the upper corner the true mass is 4.945, the
    # sum of the one-parameter changes 4.9
    corner = _bob(2.3 * (1.10 + 1.05)).linearize_at([0.3], [v0])
    np.testing.assert_allclose(corner.M, [[4.945]], rtol=1e-14)


def test_a_product_of_masses_is_not_hidden_by_a_large_stiffness():
    """The residuals are compared entry by entry, each with its own size: a stiffness of 3e12
    in P2 does not hide m1 m2 in M."""
    m1, m2 = lft.ureal("m1", 1.0, percent=10), lft.ureal("m2", 2.0, percent=10)
    k = lft.ureal("k", 3e12, percent=10)
    with pytest.raises(UncertainTypeError, match="'m1' and 'm2' multiply each other in M"):
        _bob(m1 * m2, k=k).linearize_at([0.0], [0.0], uncertain=True)


def test_an_affine_combination_of_several_parameters_stays_exact():
    """mass m1 + 2 m2 - m3 with a spring k: accepted, and equal to the numerical linearisation
    at every corner of the box and at random points (closed form M = m1 + 2 m2 - m3)."""
    els = {
        "m1": lft.ureal("m1", 1.0, percent=10),
        "m2": lft.ureal("m2", 2.0, range=(1.7, 2.1)),
        "m3": lft.ureal("m3", 2.0, percent=10),
        "k": lft.ureal("k", 50.0, range=(40.0, 55.0)),
    }
    mech = _bob(els["m1"] + 2 * els["m2"] - els["m3"], k=els["k"])
    ul = mech.linearize_at([0.3], [0.7], uncertain=True)
    rng = np.random.default_rng(7)
    ranges = {n: tuple(float(x) for x in el.range) for n, el in els.items()}
    points = [
        dict(zip(ranges, c, strict=True))
        for c in np.array(np.meshgrid(*ranges.values())).reshape(4, -1).T
    ]
    points += [{n: rng.uniform(*r) for n, r in ranges.items()} for _ in range(3)]
    for vals in points:
        mass = vals["m1"] + 2 * vals["m2"] - vals["m3"]
        ref = _bob(mass, k=vals["k"]).linearize_at([0.3], [0.7], a0=ul.a0)
        np.testing.assert_allclose(ref.M, [[mass]], rtol=1e-14)
        for f in ("M", "P1", "P2", "tau0"):
            um = getattr(ul, f)
            got = np.ravel(um.usubs({n: vals[n] for n in um.blocks}) if um.blocks else um.nominal())
            want = np.ravel(getattr(ref, f))
            assert np.abs(got - want).max() <= 1e-12 * max(1.0, np.abs(want).max())


def test_a_product_that_leaves_the_legal_set_between_legal_points_is_refused_by_name():
    """Ixy = 10 (p - 1)(q - 1) is zero whenever p or q is nominal (every one-parameter point is
    legal) but 0.625 at their average, where the inertia is indefinite: an affine inertia
    could not leave the (convex) legal set there, so the pair is named as a product."""
    p, q = lft.ureal("p", 1.0, percent=50), lft.ureal("q", 1.0, percent=50)
    ixy = 10 * (p - 1.0) * (q - 1.0)
    mech = Mechanism(acceleration=[0, 0, 9.81])
    inertia = [[0.5, ixy, 0], [ixy, 0.5, 0], [0, 0, 1.0]]
    # the body itself refuses it: indefinite at the vertex p = q = 0.5 (Ixy = 2.5) ...
    with pytest.raises(DimensionError, match=r"inertia must be positive semidefinite \(at the"):
        RigidBody("link", mass=1.0, inertia=inertia)
    # ... so it is slipped into a legal body to reach the check of linearize_at
    link = RigidBody("link", mass=1.0, inertia=[0.5, 0.5, 1.0], ports={"P": [0, 0, 0.4]})
    link.inertia = inertia
    mech.add_body(link)
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("link", "P"), [1, 1, 0]))
    with pytest.raises(UncertainTypeError, match="'p' and 'q' multiply each other.*illegal"):
        mech.linearize_at([0.3], [0.7], uncertain=True)
