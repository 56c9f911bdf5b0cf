"""The LFT model equals the trimmed-and-linearised reference at random samples (exactness)."""

import numpy as np
import pytest
from lagrange_reference import LagrangeReference
from mechanism_specs import (
    build_mechanism,
    frequency_response,
    random_chain,
    reference_spec,
    sample_values,
)

import robustmb.lft as rmb

CASES = {
    "chain3_3d": dict(n_joints=3),
    "prismatic": dict(n_joints=3, prismatic=(1,)),
    "floating_base_weld": dict(n_joints=2, floating=True, weld_tip=True),
    "zero_rotor_inertia": dict(n_joints=3, rotor=False),
}
S_POINTS = (0.7j, 2.0j, 1.3 + 0.5j)


def _subs(x, vals):
    """Numeric value of a trim quantity at a sample (numbers pass through)."""
    if not hasattr(x, "usubs"):
        return np.asarray(x, dtype=float)
    return np.asarray(x.usubs({k: v for k, v in vals.items() if k in x.blocks}), dtype=float)


def _relative_error(h1, h2):
    return np.abs(h1 - h2).max() / np.abs(h2).max()


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    rng = np.random.default_rng(5)
    spec = random_chain(rng, **CASES[request.param])
    mech = build_mechanism(spec)
    last = [b for b in spec["bodies"]][-1]
    ports = [(last, "P")]
    # a floating base under gravity is held as the references hold it: by a wrench
    # constant in its own axes (stated explicitly; the default refuses the residual)
    return spec, mech, mech.linearize(ports=ports, base_wrench="body"), ports


def test_lft_equals_reference_at_random_samples(case):
    spec, _, model, ports = case
    rng = np.random.default_rng(99)
    for _ in range(3):
        vals = sample_values(spec, rng)
        rspec, vv = reference_spec(spec, vals)
        ref = LagrangeReference(rspec, vv)
        sys = model.usubs(vals)
        for s in S_POINTS:
            assert _relative_error(frequency_response(sys, s), ref.transfer(s, ports)) < 1e-9


def test_model_names_follow_the_mechanism(case):
    spec, mech, model, ports = case
    ref = LagrangeReference(spec)
    assert model.output_names[: ref.n] == ref.coord_names
    assert model.output_names[ref.n : ref.n + 1] == [f"{ports[0][0]}_{ports[0][1]}_dx"]
    efforts = [j["input"] for j in spec["joints"] if j["type"] != "weld"]
    assert model.input_names[: len(efforts)] == efforts
    assert model.nstates == 2 * ref.n
    assert set(model.blocks) == set(spec["params"])


def test_trim_efforts_are_lfts_of_the_parameters(case):
    spec, mech, _, _ = case
    trim = mech.trim()
    rng = np.random.default_rng(3)
    for _ in range(3):
        vals = sample_values(spec, rng)
        rspec, vv = reference_spec(spec, vals)
        ref = LagrangeReference(rspec, vv)
        expected = ref.trim_efforts()
        for j in spec["joints"]:
            if j["type"] == "weld":
                continue
            got = _subs(trim.effort[j["name"]], vals)
            assert np.isclose(float(got[0, 0]), expected[j["name"]], rtol=1e-10, atol=1e-10)
        if ref.base:
            got = _subs(trim.base_wrench, vals)
            assert np.allclose(got.ravel(), ref.base_wrench(), rtol=1e-10, atol=1e-10)


def test_simplify_keeps_the_map_and_reduces_occurrences():
    rng = np.random.default_rng(21)
    spec = random_chain(rng, n_joints=3)
    mech = build_mechanism(spec)
    raw = mech.linearize(simplify=False)
    red = rmb.simplify(raw)
    assert sum(red.blocks.values()) < sum(raw.blocks.values())
    for name, count in red.blocks.items():
        assert count <= raw.blocks[name]
    for _ in range(3):
        vals = sample_values(spec, rng)
        a, b = raw.usubs(vals), red.usubs(vals)
        for s in S_POINTS:
            assert _relative_error(frequency_response(a, s), frequency_response(b, s)) < 1e-10


def test_pendulum_stiffness_follows_the_sampled_mass():
    from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

    m = rmb.ureal("m", 2.0, percent=30)
    length = 0.8
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("bob", mass=m, ports={"pivot": [0.0, 0.0, length]}))
    mech.add_joint(
        RevoluteJoint(
            "J", ("ground", "O"), ("bob", "pivot"), [0, 1, 0], input_name="T", output_name="theta"
        )
    )
    model = mech.linearize()
    assert model.blocks.get("m", 0) >= 1
    for mv in (1.4, 2.0, 2.6):
        sys = model.usubs({"m": mv})
        # hanging point mass: theta/T = 1 / (m l^2 s^2 + m g l)
        h0 = frequency_response(sys, 0.0)[0, 0].real
        assert np.isclose(1.0 / h0, mv * 9.81 * length, rtol=1e-12)
        h1 = frequency_response(sys, 1.0)[0, 0].real
        assert np.isclose(1.0 / h1, mv * length**2 + mv * 9.81 * length, rtol=1e-12)
        # hanging: no trim torque, whatever the mass
        assert abs(float(_subs(mech.trim().effort["J"], {"m": mv})[0, 0])) < 1e-12
