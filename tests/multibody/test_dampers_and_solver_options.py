"""Dampers must dissipate, joint angles must be finite, simulation options must be known.

References: the energy of a pendulum with a torsion spring written out by hand
(``m l^2 v^2 / 2 - m g l cos q + k q^2 / 2``), scipy's ``solve_ivp`` option names,
and the argument at fault written in each case.
"""

import numpy as np
import pytest
from scipy.special import ellipk

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError
from robustmb.multibody import (
    FlexibleBody,
    Mechanism,
    PrismaticJoint,
    RevoluteJoint,
    RigidBody,
    gravity,
    rotation_matrix,
    simulate_scheduled_loop,
)

M, L, G = 2.0, 1.0, 9.81


def _pendulum(**joint):
    mech = Mechanism(acceleration=gravity(G))
    mech.add_body(RigidBody("bob", mass=M, ports={"P": [0, 0, L]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], **joint))
    return mech


@pytest.mark.parametrize("joint_class", [RevoluteJoint, PrismaticJoint])
def test_a_negative_joint_damping_is_refused_naming_the_joint(joint_class):
    with pytest.raises(DimensionError, match=r"joint 'J': damping must be non-negative"):
        joint_class("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], damping=-0.5)


def test_an_uncertain_damping_must_be_non_negative_on_its_whole_box():
    crossing = rmb.ureal("c", 0.1, range=(-0.1, 0.3))
    with pytest.raises(DimensionError, match=r"joint 'J': damping .*\{'c': -0\.1\}"):
        RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], damping=crossing)
    # zero damping at a vertex is a legal (undamped) joint
    ok = RevoluteJoint(
        "J", ("ground", "O"), ("bob", "P"), [1, 0, 0], damping=rmb.ureal("d", 0.1, range=(0, 1))
    )
    assert ok.damping.name == "d"


@pytest.mark.parametrize("which", ["damping", "rotational_damping"])
def test_a_negative_loop_closure_damping_is_refused_naming_the_closure(which):
    mech = _pendulum()
    gains = {"stiffness": 10.0, which: -1.0}
    with pytest.raises(DimensionError, match=rf"loop closure 'tie': {which} must be non-neg"):
        mech.add_loop_closure("tie", ("bob", "P"), ("ground", "O"), **gains)
    assert "tie" not in getattr(mech, "loop_closures", {})


def test_a_negative_spring_is_legal_and_conservative():
    # k = -5 N m/rad (weaker than the gravity stiffness m g l = 19.6): the energy
    # written out by hand is conserved along a large swing
    k = -5.0
    mech = _pendulum(stiffness=k)
    res = mech.simulate((0.0, 5.0), [1.2], [0.0])
    q, v = res.q[:, 0], res.v[:, 0]
    energy = 0.5 * M * L**2 * v**2 - M * G * L * np.cos(q) + 0.5 * k * q**2
    assert np.ptp(energy) < 1e-7 * abs(energy[0])
    assert np.allclose(res.energy, energy, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("angle", [np.nan, np.inf, -np.inf])
def test_a_revolute_joint_angle_must_be_finite(angle):
    # it used to be kept: equilibrium_coordinates() gave [nan] and linearize() a bare
    # numpy LinAlgError ("SVD did not converge")
    with pytest.raises(DimensionError, match=r"joint 'J': angle must be finite"):
        _pendulum(angle=angle)


@pytest.mark.parametrize("angle", [np.nan, np.inf, "x", True, 1j])
def test_rotation_matrix_refuses_a_non_finite_or_non_real_angle(angle):
    with pytest.raises(DimensionError, match=r"rotation_matrix: angle must be a finite real"):
        rotation_matrix([0, 0, 1], angle)


def test_rotation_matrix_accepts_numpy_scalars():
    c, s = np.cos(0.3), np.sin(0.3)
    ref = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    for angle in (0.3, np.float32(0.3), np.array(0.3)):
        assert np.allclose(rotation_matrix([0, 0, 2.0], angle), ref, atol=1e-7)


@pytest.mark.parametrize(
    "options", [{"rtoll": 1e-6}, {"vectorized": True}, {"args": (1,)}, {"max_stpe": 0.1}]
)
def test_simulate_refuses_an_unknown_option_naming_it(options):
    # a misspelt rtol used to run with scipy's default tolerance after a mere warning;
    # vectorized and args ended in a bare IndexError or TypeError
    (name,) = options
    with pytest.raises(ArgumentError, match=rf"simulate: unknown integrator .*\['{name}'\]"):
        _pendulum().simulate((0.0, 1.0), [0.1], [0.0], **options)


def test_simulate_passes_the_known_options_on():
    # half a swing of amplitude a with an event at the lowest point: a quarter period is
    # sqrt(l / g) K(sin^2(a / 2)) (complete elliptic integral, closed form)
    mech = _pendulum()
    amplitude = 0.3
    quarter = np.sqrt(L / G) * ellipk(np.sin(amplitude / 2) ** 2)
    res = mech.simulate(
        (0.0, 2 * quarter),
        [amplitude],
        [0.0],
        method="LSODA",
        min_step=1e-12,
        events=lambda t, y: y[0],
        rtol=1e-10,
        atol=1e-12,
    )
    assert abs(res.sol.t_events[0][0] - quarter) < 1e-8
    assert abs(res.q[-1, 0] + amplitude) < 1e-8


def test_simulate_scheduled_loop_checks_its_integrator_options():
    mech = _pendulum(angle=0.2)
    c = rmb.ureal("c", 0.5, range=(0.0, 1.0))
    K = rmb.uss([[-10.0]], [[10.0]], [[-40.0 * (1 + c)]], [[60.0 + 50.0 * c]])

    def schedule(q):
        return {"c": float(np.cos(q[0]))}

    with pytest.raises(ArgumentError, match=r"simulate_scheduled_loop: method must be one of"):
        simulate_scheduled_loop(mech, K, schedule, [0.4], (0, 1), method="lsoda")
    with pytest.raises(ArgumentError, match=r"simulate_scheduled_loop: unknown .*\['rtoll'\]"):
        simulate_scheduled_loop(mech, K, schedule, [0.4], (0, 1), rtoll=1e-6)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"atol": [1e-8, 1e-8, 1e-8]}, r"atol must be one number or one per state \(2"),
        ({"events": 3}, r"events must be a callable"),
        ({"events": []}, r"events must be a callable"),
        ({"dense_output": "no"}, r"dense_output must be True or False"),
    ],
)
def test_simulate_checks_the_shape_and_type_of_its_options(options, message):
    # they used to end in scipy's "`atol` has wrong shape.", a bare TypeError, or (a
    # string for dense_output) be taken as True
    with pytest.raises(ArgumentError, match=rf"simulate: {message}"):
        _pendulum().simulate((0.0, 1.0), [0.1], [0.0], **options)


def test_simulate_accepts_one_absolute_tolerance_per_state():
    res = _pendulum().simulate((0.0, 0.5), [0.1], [0.0], atol=[1e-11, 1e-10])
    assert res.t[-1] == 0.5


def test_gravity_refuses_a_negative_magnitude():
    # gravity(-9.81) used to return a field pointing up (a = [0, 0, -9.81]): a pendulum
    # "hanging" at q = 0 then sat at its unstable top
    with pytest.raises(DimensionError, match=r"gravity: g_magnitude must be non-negative"):
        gravity(-9.81)
    assert np.array_equal(gravity(0.0), np.zeros(3))
    assert np.allclose(gravity(9.81, (0, 0, 1)), [0, 0, -9.81])


@pytest.mark.parametrize(
    "frequency", [-1.0, 0.0, np.nan, "fast", rmb.ureal("w", 1.0, range=(-1.0, 2.0))]
)
def test_a_flexible_body_frequency_error_names_the_body(frequency):
    with pytest.raises(ArgumentError, match=r"FlexibleBody 'panel': frequencies\[0\]"):
        FlexibleBody(
            "panel", 1.0, 0.1 * np.eye(3), [0.5, 0, 0], [[0, 0, 0.5, 0, 0, 0]], [frequency], 0.02
        )
