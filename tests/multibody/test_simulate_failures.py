"""``simulate`` stops with an error instead of hanging or returning a short trajectory."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from robustmb.errors import ArgumentError, DimensionError, IntegrationError
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody

Q0 = [0, 0, 0, 0, 0, 0, 1.0]


def _satellite():
    mech = Mechanism(floating_base="sat")
    mech.add_body(RigidBody("sat", mass=10.0, inertia=[1.0, 2.0, 3.0], ports={"c": [0, 0, 0]}))
    return mech


def test_a_zero_quaternion_is_refused_naming_its_coordinates():
    mech = _satellite()
    zero = [0, 0, 0, 0, 0, 0, 0.0]
    match = r"sat_qx, sat_qy, sat_qz, sat_qw\): the quaternion .* 'sat' is zero"
    with pytest.raises(DimensionError, match=match):
        mech.forward_dynamics(zero, np.zeros(6), np.zeros(6))
    with pytest.raises(DimensionError, match=match):
        mech.linearize_at(zero, np.zeros(6))
    # squares that underflow leave no direction either
    with pytest.raises(DimensionError, match=match):
        mech.mass_matrix([0, 0, 0, 1e-200, 0, 0, 0])


def test_simulate_from_a_zero_quaternion_raises_rather_than_hangs():
    # solve_ivp looped for ever on the NaN state: run it where a hang is a failure
    code = textwrap.dedent(
        """
        import numpy as np
        from robustmb.errors import DimensionError
        from robustmb.multibody import Mechanism, RigidBody
        mech = Mechanism(floating_base="sat")
        mech.add_body(RigidBody("sat", mass=10.0, inertia=[1.0, 2.0, 3.0]))
        try:
            mech.simulate((0, 0.1), [0, 0, 0, 0, 0, 0, 0.0], np.ones(6))
        except DimensionError as e:
            print("raised:", e)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "raised:" in out.stdout and "sat_qw" in out.stdout


def test_non_finite_inputs_and_wrenches_name_the_effort_and_the_time():
    mech = _satellite()
    mech.add_wrench_input("push", "sat", "c")

    def late_nan(t, q, v):
        return np.full(6, np.nan) if t > 0.05 else np.zeros(6)

    with pytest.raises(
        ArgumentError, match=r"inputs\(t, q, v\)\[0\] \(sat_Fx\) is not finite at t"
    ):
        mech.simulate((0, 0.1), Q0, np.zeros(6), inputs=late_nan)
    with pytest.raises(ArgumentError, match=r"inputs\[2\] \(sat_Fz\) is not finite"):
        mech.simulate((0, 0.1), Q0, np.zeros(6), inputs=[0, 0, np.inf, 0, 0, 0])
    with pytest.raises(ArgumentError, match=r"wrenches\['push'\]\(t, q, v\)\[4\] \(push_Ty\)"):
        mech.simulate(
            (0, 0.1), Q0, np.zeros(6), wrenches={"push": lambda t, q, v: [0, 0, 0, 0, np.nan, 0]}
        )
    with pytest.raises(ArgumentError, match=r"wrenches\['push'\]\[0\] \(push_Fx\)"):
        mech.simulate((0, 0.1), Q0, np.zeros(6), wrenches={"push": [np.nan, 0, 0, 0, 0, 0]})


def test_non_finite_joint_efforts_are_named_by_their_input_names():
    # the entries of inputs / tau are efforts: named by the joints' effort inputs, not rates
    mech = Mechanism()
    mech.add_body(RigidBody("a", mass=1.0, ports={"P": [0, 0, 0], "T": [0, 0, 1.0]}))
    mech.add_body(RigidBody("b", mass=1.0, ports={"P": [0, 0, 0]}))
    mech.add_joint(RevoluteJoint("J0", ("ground", "O"), ("a", "P"), [1, 0, 0]))
    mech.add_joint(RevoluteJoint("J1", ("a", "T"), ("b", "P"), [1, 0, 0], input_name="motor"))
    with pytest.raises(ArgumentError, match=r"inputs\[1\] \(motor\) is not finite: nan"):
        mech.simulate((0, 0.1), [0.1, 0.0], [0.0, 0.0], inputs=[0.0, np.nan])
    with pytest.raises(ArgumentError, match=r"inputs\(t, q, v\)\[0\] \(J0_effort\) is not"):
        mech.simulate((0, 0.1), [0.1, 0.0], [0.0, 0.0], inputs=lambda t, q, v: [np.inf, 0.0])
    with pytest.raises(ArgumentError, match=r"tau\[1\] \(motor\) is not finite"):
        mech.forward_dynamics([0.1, 0.0], [0.0, 0.0], [0.0, np.nan])
    with pytest.raises(DimensionError, match=r"3 entries, the mechanism has 2 efforts"):
        mech.forward_dynamics([0.1, 0.0], [0.0, 0.0], [0.0, 0.0, 0.0])


def test_an_integration_that_stops_early_raises_with_the_time_reached():
    # q'' = 1.5 q^2, q(0) = q'(0) = 1: q = (1 - t / 2)^-2 escapes to infinity at t = 2
    mech = Mechanism()
    mech.add_body(RigidBody("s", mass=1.0, ports={"P": [0, 0, 0]}))
    mech.add_joint(PrismaticJoint("J", ("ground", "O"), ("s", "P"), [1, 0, 0]))
    mech.add_joint_law("J", lambda q, qd: 1.5 * q**2)
    res = mech.simulate((0.0, 1.5), [1.0], [1.0])
    assert res.q[-1, 0] == pytest.approx(16.0, rel=1e-8)
    with pytest.raises(IntegrationError, match="stopped at t = ") as info:
        mech.simulate((0.0, 3.0), [1.0], [1.0])
    reached = float(str(info.value).split("stopped at t = ")[1].split(":")[0])
    assert 1.9 < reached <= 2.0


def test_bad_time_spans_name_t_span():
    mech = _satellite()
    for bad in (1.0, (0.0, np.nan), (0.0, "a"), (0.0, 1.0, 2.0)):
        with pytest.raises(ArgumentError, match="t_span"):
            mech.simulate(bad, Q0, np.zeros(6))
