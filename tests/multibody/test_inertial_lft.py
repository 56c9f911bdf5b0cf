"""Linearisation at any point as an exact LFT of uncertain inertial parameters (seed 002, 5.4)."""

import numpy as np
import pytest
from mechanism_specs import build_mechanism, frequency_response
from nonlinear_specs import random_state, random_tree

from robustmb import lft
from robustmb.errors import UncertainTypeError
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
