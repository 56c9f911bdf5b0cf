"""The two independent references agree: numerical-kinematics Lagrangian vs Pinocchio."""

import numpy as np
import pytest
from lagrange_reference import LagrangeReference
from mechanism_specs import random_chain, reference_spec, sample_values

pinocchio_reference = pytest.importorskip("pinocchio_reference")

CASES = {
    "chain4": dict(n_joints=4),
    "prismatic": dict(n_joints=3, prismatic=(1,)),
    "floating": dict(n_joints=2, floating=True, weld_tip=True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_lagrange_reference_matches_pinocchio(name):
    rng = np.random.default_rng(11)
    spec = random_chain(rng, **CASES[name])
    vals = sample_values(spec, rng)
    rspec, vv = reference_spec(spec, vals)
    ref = LagrangeReference(rspec, vv)
    m, k = ref.mass_matrix(), ref.stiffness()
    mp, kp, grav = pinocchio_reference.linearisation(ref)
    assert np.abs(m - mp).max() <= 1e-12 * np.abs(m).max()
    assert np.abs(k - kp).max() <= 1e-12 * np.abs(k).max()
    efforts = np.array(list(ref.trim_efforts().values()))
    assert np.allclose(grav[len(grav) - len(efforts) :], efforts, rtol=1e-12, atol=1e-12)
    if ref.base:
        assert np.allclose(grav[:6], ref.base_wrench(), rtol=1e-12, atol=1e-12)
