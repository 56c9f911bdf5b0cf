"""Parameter values and inertial data are checked, with errors naming what is at fault.

- ``values=`` must be a mapping of the mechanism's uncertain elements (a misspelt
  name would leave its parameter at the nominal value silently);
- inertia is positive semidefinite and masses non-negative: numbers at once,
  ureals at their nominal and, where that is exact (one ureal as a mass or a
  diagonal entry), at the ends of their range; everything again after ``values``.
"""

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, NonphysicalInertiaWarning, SignalError
from robustmb.multibody import Mechanism, RevoluteJoint, RigidBody, gravity

G = 9.81


def _double_pendulum(m2, inertia_b=0.01):
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(
        RigidBody(
            "A", mass=2.0, inertia=0.1, cog=[0, 0, -0.5], ports={"P": [0, 0, 0], "T": [0, 0, -1]}
        )
    )
    mech.add_body(
        RigidBody("B", mass=m2, inertia=inertia_b, cog=[0, 0, -0.5], ports={"P": [0] * 3})
    )
    mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("A", "P"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J2", ("A", "T"), ("B", "P"), [1, 0, 0]))
    return mech


Q, V, Z = [0.3, 0.2], [0.0, 0.0], [0.0, 0.0]


def test_values_substitute_the_named_element():
    mech = _double_pendulum(rmb.ureal("m2", 1.0, range=(0.5, 1.5)))
    # the same mechanism with the number in place of the ureal: an independent build
    ref = _double_pendulum(1.4)
    got = mech.forward_dynamics(Q, V, Z, values={"m2": 1.4})
    assert np.allclose(got, ref.forward_dynamics(Q, V, Z), rtol=1e-13, atol=0)
    assert not np.allclose(got, mech.forward_dynamics(Q, V, Z))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, vals: m.forward_dynamics(Q, V, Z, values=vals),
        lambda m, vals: m.inverse_dynamics(Q, V, Z, values=vals),
        lambda m, vals: m.mass_matrix(Q, values=vals),
        lambda m, vals: m.equilibrium_coordinates(values=vals),
        lambda m, vals: m.simulate((0.0, 0.01), Q, V, values=vals),
        lambda m, vals: m.linearize_at(Q, V, values=vals),
        lambda m, vals: m.linearize_at(Q, V, values=vals, uncertain=True),
    ],
)
def test_a_misspelt_name_raises_listing_the_elements(call):
    mech = _double_pendulum(rmb.ureal("m2", 1.0, range=(0.5, 1.5)))
    with pytest.raises(SignalError, match=r"'M2' is not an uncertain element.*\['m2'\]"):
        call(mech, {"M2": 1.4})
    for bad in ([("m2", 1.4)], 3):
        with pytest.raises(ArgumentError, match="values must be a mapping"):
            call(mech, bad)
    with pytest.raises(ArgumentError, match=r"values\['m2'\] must be a finite real number"):
        call(mech, {"m2": np.nan})


def test_a_mechanism_without_elements_says_so():
    with pytest.raises(SignalError, match="'m' is not an uncertain element.*has none"):
        _double_pendulum(1.0).mass_matrix(Q, values={"m": 1.0})


@pytest.mark.parametrize(
    "inertia, match",
    [
        (-0.5, r"'b': inertia must be non-negative.*-0\.5"),
        ([1.0, 1.0, -1.0], r"'b': inertia\[2\] must be non-negative"),
        ([[1, 2, 0], [2, 1, 0], [0, 0, 1]], "'b': inertia must be positive semidefinite"),
    ],
)
def test_indefinite_numeric_inertia_is_refused(inertia, match):
    with pytest.raises(DimensionError, match=match):
        RigidBody("b", mass=1.0, inertia=inertia)


def test_semidefinite_and_opted_in_triangle_breaking_inertias_are_kept():
    # point masses (zero inertia), a thin rod (0 + 1 = 1, on the boundary) and, when
    # asked for, principal moments 3, 5, 17 (the balloon's: 3 + 5 < 17 breaks the
    # triangle inequality of a real body; the published data set is kept as it is)
    RigidBody("point", mass=1.0, inertia=0.0)
    RigidBody("rod", mass=1.0, inertia=[0.0, 1.0, 1.0])
    balloon = [[5, 0, 0], [0, 10, -7], [0, -7, 10]]
    RigidBody("balloon", mass=10.0, inertia=balloon, allow_nonphysical_inertia=True)
    with pytest.warns(NonphysicalInertiaWarning, match="'balloon': inertia .* 3 \\+ 5 < 17"):
        RigidBody("balloon", mass=10.0, inertia=balloon)
    mech, _, _ = rmb.examples.balloon_gondola()
    assert mech.mass_matrix(mech.equilibrium_coordinates()).shape == (9, 9)


@pytest.mark.parametrize("diag", [[1e-13, 1e-13, -5e-13], [2e-7, 2e-7, -5e-13], [1.0, 1.0, -1e-17]])
def test_small_negative_moments_are_refused_in_both_forms(diag):
    # a diagonal inertia is checked exactly, as a list or as a 3x3 (no absolute floor)
    with pytest.raises(DimensionError, match=r"inertia\[2\] must be non-negative"):
        RigidBody("b", mass=1e-6, inertia=diag)
    with pytest.raises(DimensionError, match="inertia must be positive semidefinite"):
        RigidBody("b", mass=1e-6, inertia=np.diag(diag))


@pytest.mark.parametrize("scale", [1e-9, 1.0, 1e6])
def test_rotated_inertia_tolerance_is_relative_to_the_body(scale):
    # R diag(0, 1, 1) R^T rounds to eigenvalues ~ -eps |J|: kept at any scale; the same
    # matrix shifted by -1e-6 |J| (clearly indefinite) is refused even for a tiny body
    c, s_ = np.cos(0.7), np.sin(0.7)
    rot = np.array([[1, 0, 0], [0, c, -s_], [0, s_, c]]) @ np.array(
        [[c, 0, s_], [0, 1, 0], [-s_, 0, c]]
    )
    rod = scale * rot @ np.diag([0.0, 1.0, 1.0]) @ rot.T
    RigidBody("rod", mass=1.0, inertia=rod)
    RigidBody("point", mass=1.0, inertia=np.zeros((3, 3)))
    bad = rod - 1e-6 * scale * rot @ np.diag([1.0, 0.0, 0.0]) @ rot.T
    assert np.linalg.eigvalsh(bad)[0] < -0.5e-6 * scale  # independent: indefinite
    with pytest.raises(DimensionError, match="inertia must be positive semidefinite"):
        RigidBody("rod", mass=1.0, inertia=bad)


def test_uncertain_mass_and_inertia_are_checked_where_exact():
    with pytest.raises(DimensionError, match="'b': mass must be non-negative.*'mneg'"):
        RigidBody("b", mass=rmb.ureal("mneg", 0.5, range=(-1.0, 1.0)))
    with pytest.raises(DimensionError, match=r"'b': inertia must be non-negative.*'J'"):
        RigidBody("b", mass=1.0, inertia=rmb.ureal("J", 0.5, range=(-0.1, 1.0)))
    with pytest.raises(DimensionError, match=r"'b': inertia\[1\] must be non-negative.*'Jy'"):
        RigidBody("b", mass=1.0, inertia=[1.0, rmb.ureal("Jy", 0.5, range=(-0.1, 1.0)), 1.0])
    # a full tensor: checked at the nominal
    jxy = rmb.ureal("Jxy", 2.0, range=(0.0, 3.0))
    with pytest.raises(DimensionError, match=r"'b': inertia must be positive semidefinite \(nom"):
        RigidBody("b", mass=1.0, inertia=[[1, jxy, 0], [jxy, 1, 0], [0, 0, 1]])
    # ranges that stay non-negative are fine
    RigidBody(
        "b", mass=rmb.ureal("m", 1.0, range=(0.0, 2.0)), inertia=rmb.ureal("J", 0.1, percent=20)
    )


def test_values_that_make_a_body_unphysical_are_refused():
    mech = _double_pendulum(rmb.ureal("m2", 1.0, range=(0.5, 1.5)))
    with pytest.raises(DimensionError, match=r"body 'B': mass is -0\.3 .*'m2'"):
        mech.forward_dynamics(Q, V, Z, values={"m2": -0.3})
    jxy = rmb.ureal("Jxy", 0.0, range=(-0.5, 0.5))
    mech = _double_pendulum(1.0, inertia_b=[[1.0, jxy, 0], [jxy, 1.0, 0], [0, 0, 1.0]])
    mech.mass_matrix(Q, values={"Jxy": 0.9})  # eigenvalues 0.1, 1, 1.9
    with pytest.raises(DimensionError, match="body 'B': inertia must be positive semidefinite"):
        mech.mass_matrix(Q, values={"Jxy": 1.2})


def test_unclear_arguments_name_themselves():
    with pytest.raises(ArgumentError, match="base_position must be 3 finite numbers"):
        Mechanism(base_position=[0, 1])
    with pytest.raises(ArgumentError, match=r"ground_ports\['A'\] must be 3 finite numbers"):
        Mechanism(ground_ports={"A": [0, 1]})
    with pytest.raises(ArgumentError, match="ground_ports must be a mapping"):
        Mechanism(ground_ports=[("A", [0, 1, 0])])
    mech = _double_pendulum(1.0)
    with pytest.raises(ArgumentError, match="q must be an array of real numbers"):
        mech.forward_dynamics(["a", 0.0], V, Z)
    with pytest.raises(ArgumentError, match="v must be an array of real numbers"):
        mech.forward_dynamics(Q, ["a", 0.0], Z)


def test_substituted_moments_that_break_the_triangle_inequality_warn():
    # nominal moments (1, 1, 1.5) are those of a body; J3 = 5 substituted through values=
    # gives 1 + 1 < 5, which no mass distribution has (I1 + I2 - I3 = 2 s_3 >= 0)
    j3 = rmb.ureal("J3", 1.5, range=(1.0, 10.0))

    def pendulum(**opt):
        mech = Mechanism(acceleration=gravity(9.81))
        body = RigidBody("b", mass=1.0, inertia=[1.0, 1.0, j3], ports={"P": [0, 0, 1.0]}, **opt)
        mech.add_body(body)
        mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("b", "P"), [1, 0, 0], angle=0.0))
        return mech

    with warnings.catch_warnings():
        warnings.simplefilter("error", NonphysicalInertiaWarning)
        pendulum().mass_matrix([0.0], values={"J3": 2.0})  # 1 + 1 >= 2: a flat body
        pendulum(allow_nonphysical_inertia=True).mass_matrix([0.0], values={"J3": 5.0})
    with pytest.warns(NonphysicalInertiaWarning, match=r"'b': inertia .*1 \+ 1 < 5.*'J3': 5"):
        m = pendulum().mass_matrix([0.0], values={"J3": 5.0})
    # the value is still used as given (warned, not refused): I_xx + m l^2 about the pivot
    assert np.isclose(m[0, 0], 1.0 + 1.0)
