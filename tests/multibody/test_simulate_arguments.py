"""Time spans, singular Euler samples and the errors of the simulations name their cause.

References: the steady spin of a free body about a principal axis (closed form),
and the argument at fault written in each case.
"""

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, IntegrationError
from robustmb.examples import arm_step_check
from robustmb.multibody import (
    Mechanism,
    RevoluteJoint,
    RigidBody,
    gravity,
    simulate_scheduled_loop,
)


def _spinning_body():
    mech = Mechanism(floating_base="b")
    mech.add_body(RigidBody("b", mass=1.0, inertia=[1.0, 2.0, 3.0]))
    return mech


def test_euler_angles_at_pitch_90_deg_are_nan_with_one_warning_and_the_run_is_kept():
    # a torque-free spin about the principal axis y at pi/2 rad/s: pitch = pi t / 2,
    # through +90 deg at t = 1 (phi = psi = 0 before, pi after, pitch pi - pi t / 2)
    mech = _spinning_body()
    t = np.linspace(0.0, 2.0, 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mech.simulate((0, 2), [0, 0, 0, 0, 0, 0, 1.0], [0, 0, 0, 0, np.pi / 2, 0], t_eval=t)
    singular = [w for w in caught if "singular" in str(w.message)]
    assert len(singular) == 1 and singular[0].category is RuntimeWarning
    assert "floating base 'b'" in str(singular[0].message)
    assert "t = 1:" in str(singular[0].message)
    theta = res.outputs["b_theta"]
    assert np.isnan(theta[2]) and np.isnan(res.outputs["b_phi"][2])
    assert np.isnan(res.outputs["b_psi"][2])
    ok = [0, 1, 3, 4]
    pitch = np.where(t <= 1, np.pi * t / 2, np.pi - np.pi * t / 2)
    np.testing.assert_allclose(theta[ok], pitch[ok], atol=1e-8)
    np.testing.assert_allclose(np.cos(res.outputs["b_phi"][ok]), [1, 1, -1, -1], atol=1e-8)
    np.testing.assert_allclose(np.cos(res.outputs["b_psi"][ok]), [1, 1, -1, -1], atol=1e-8)
    # the quaternion (x, y, z, w) at t = 1: a quarter turn about y, still valid
    quat = res.q[2, 3:7] * np.sign(res.q[2, 6])
    np.testing.assert_allclose(quat, [0, np.sqrt(0.5), 0, np.sqrt(0.5)], atol=1e-8)
    # no warning when no sample is singular
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = mech.simulate((0, 2), [0, 0, 0, 0, 0, 0, 1.0], [0, 0, 0, 0, np.pi / 2, 0])
    assert np.isfinite(res.outputs["b_theta"]).all()


def _pendulum():
    mech = Mechanism(acceleration=gravity(9.81))
    mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], angle=0.2))
    return mech


@pytest.mark.parametrize("span", [(0, 0), (0, -1), (2.0, 1.0), 1.0, (0, np.nan)])
def test_simulations_need_a_forward_time_span(span):
    mech = _pendulum()
    with pytest.raises(ArgumentError, match="t_span"):
        mech.simulate(span, [0.1], [0.0])
    c = rmb.ureal("c", 0.5, range=(0.0, 1.0))
    gain = rmb.uss([[-10.0]], [[10.0]], [[-40.0 * (1 + c)]], [[60.0 + 50.0 * c]])
    with pytest.raises(ArgumentError, match="t_span"):
        simulate_scheduled_loop(mech, gain, lambda q: {"c": np.cos(q[0])}, [0.4], span)


@pytest.mark.parametrize(
    ("t_eval", "message"),
    [
        ([0.0, 1.0, 3.0], r"within t_span = \(0, 2\); t_eval\[2\] = 3"),
        ([np.nan, 1.0], r"finite; t_eval\[0\] = nan"),  # scipy returned a NaN sample
        ([[0.0, 1.0]], "non-empty 1-D"),
        ([], "non-empty 1-D"),
        ([1.0, 0.5], r"strictly increasing; t_eval\[1\] = 0.5 follows 1"),
        ([0.1, 0.1, 0.2], r"strictly increasing; t_eval\[1\] = 0.1 follows 0.1"),
        ([0.5 + 1j], "real times"),
        ([True], "real times"),
    ],
)
def test_simulations_name_bad_output_times_t_eval(t_eval, message):
    mech = _pendulum()
    with pytest.raises(ArgumentError, match=message):
        mech.simulate((0, 2), [0.1], [0.0], t_eval=t_eval)
    c = rmb.ureal("c", 0.5, range=(0.0, 1.0))
    gain = rmb.uss([[-10.0]], [[10.0]], [[-40.0 * (1 + c)]], [[60.0 + 50.0 * c]])
    with pytest.raises(ArgumentError, match=message):
        simulate_scheduled_loop(
            mech, gain, lambda q: {"c": np.cos(q[0])}, [0.4], (0, 2), t_eval=t_eval
        )


def test_simulate_names_a_non_finite_initial_state_q0():
    mech = _pendulum()
    with pytest.raises(ArgumentError, match=r"q0\[0\] \(J_q\) is not finite"):
        mech.simulate((0, 1), [np.nan], [0.0])
    with pytest.raises(DimensionError, match="q0 has 2 entries"):
        mech.simulate((0, 1), [0.1, 0.2], [0.0])


def test_the_scheduled_loop_names_the_argument_at_fault():
    mech = _pendulum()
    c = rmb.ureal("c", 0.5, range=(0.0, 1.0))
    gain = rmb.uss([[-10.0]], [[10.0]], [[-40.0 * (1 + c)]], [[60.0 + 50.0 * c]])

    def sched(q):
        return {"c": np.cos(q[0])}

    with pytest.raises(ArgumentError, match=r"q0\[0\] \(J_q\) is not finite"):
        simulate_scheduled_loop(mech, gain, sched, [0.4], (0, 1), q0=[np.nan])
    with pytest.raises(ArgumentError, match=r"reference\[0\] \(J_q\) is not finite"):
        simulate_scheduled_loop(mech, gain, sched, [np.nan], (0, 1))
    late = lambda t: [np.nan if t > 0.5 else 0.4]  # noqa: E731
    with pytest.raises(ArgumentError, match=r"reference\(t\)\[0\] \(J_q\) is not finite at t"):
        simulate_scheduled_loop(mech, gain, sched, late, (0, 1))
    with pytest.raises(DimensionError, match=r"reference\(t\) gave 2 entries"):
        simulate_scheduled_loop(mech, gain, sched, lambda t: [0.4, 0.1], (0, 1))
    with pytest.raises(ArgumentError, match=r"schedule\(q\)\['c'\] = nan .* at t = 0"):
        simulate_scheduled_loop(mech, gain, lambda q: {"c": np.nan}, [0.4], (0, 1))
    # positive feedback of gain 1e6: the state overflows; the error gives the time reached
    unstable = rmb.uss([[1.0]], [[1.0]], [[-1e6]], [[0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow on the way out
        with pytest.raises(IntegrationError, match="stopped at t = ") as info:
            simulate_scheduled_loop(mech, unstable, lambda q: {}, [0.4], (0, 50))
    reached = float(str(info.value).split("stopped at t = ")[1].split(":")[0])
    assert 0 < reached < 50


@pytest.fixture(scope="module")
def pid():
    from robustmb.report.arm_lpv import scheduled_pid

    return scheduled_pid()[0]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"t_final": 0.0}, "t_final"),
        ({"t_final": -1.0}, "t_final"),
        ({"t_final": np.inf}, "t_final"),
        ({"t_final": "1"}, "t_final"),
        ({"n": 0}, "n "),
        ({"n": 1}, "n "),
        ({"n": 2.5}, "n "),
    ],
)
def test_arm_step_check_names_a_bad_horizon(pid, kwargs, name):
    args = {"t_final": 1.0, "n": 5} | kwargs
    with pytest.raises(ArgumentError, match=f"arm_step_check: {name}"):
        arm_step_check(pid, (60.0, 90.0), (61.0, 91.0), **args)
