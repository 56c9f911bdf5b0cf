"""The demo closed loop: pole placement of the baseline PID and the weighted channels."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError
from robustmb.report.arm_demo import (
    DEMO_ANGLES,
    EFFORT_WEIGHT,
    TRACKING_WEIGHT,
    arm_closed_loop,
    baseline_pid,
    joint_axis_model,
)


def test_joint_axis_model_rebuilds_the_plant():
    plant = rmb.examples.two_link_arm(*DEMO_ANGLES, uncertain=False).nominal()
    m, d, k = joint_axis_model(plant)
    np.testing.assert_allclose(m, m.T, atol=1e-12)  # a mass matrix is symmetric
    assert np.all(np.linalg.eigvalsh(m) > 0)
    minv = np.linalg.inv(m)
    a = np.block([[np.zeros((2, 2)), np.eye(2)], [-minv @ k, -minv @ d]])
    np.testing.assert_allclose(a, plant.A, atol=1e-12)
    np.testing.assert_allclose(np.vstack([np.zeros((2, 2)), minv]), plant.B, atol=1e-12)
    with pytest.raises(DimensionError, match="states"):
        joint_axis_model(control.ss(np.eye(3), np.ones((3, 2)), np.ones((1, 3)), 0))


@pytest.mark.parametrize(("w", "zeta"), [(4.0, 0.7), (6.0, 0.5)])
def test_pid_places_the_nominal_poles(w, zeta):
    plant = rmb.examples.two_link_arm(*DEMO_ANGLES, uncertain=False).nominal()
    # With an (almost) ideal derivative, every joint gets (s + w)(s^2 + 2 zeta w s + w^2).
    pid = baseline_pid(plant, bandwidth=w, damping=zeta, filter_ratio=1e7)
    loop = control.feedback(plant * pid, np.eye(2))
    target = np.roots(np.polymul([1, w], [1, 2 * zeta * w, w * w]))
    poles = loop.poles()
    slow = poles[np.abs(poles) < 100 * w]  # the filter poles sit near -1e7 w
    assert len(slow) == 6
    for p in target:  # each target pole appears twice (two joints)
        assert np.sum(np.abs(slow - p) < 1e-3 * w) == 2


def test_channels_equal_the_weighted_sensitivities():
    loop, channels, pid = arm_closed_loop()
    values = {"m1": 3.3, "J1": 0.17, "rho1": 0.34, "L2": 0.9, "m3": 5.8}
    plant = rmb.examples.two_link_arm(*DEMO_ANGLES).usubs(values)
    # Independent loop algebra with python-control: S = (I + G K)^-1.
    w = np.array([0.05, 0.7, 3.0, 20.0])
    g = control.frequency_response(plant, w).frdata
    k = control.frequency_response(pid, w).frdata
    we = control.frequency_response(control.tf(*TRACKING_WEIGHT), w).frdata[0, 0]
    sub = loop.usubs(values)
    for name, (outs, ins) in channels.items():
        rows = [loop.output_names.index(o) for o in outs]
        cols = [loop.input_names.index(i) for i in ins]
        got = control.frequency_response(sub, w).frdata[np.ix_(rows, cols)]
        for i in range(len(w)):
            s = np.linalg.inv(np.eye(2) + g[:, :, i] @ k[:, :, i])
            ref = we[i] * s if name.startswith("tracking") else EFFORT_WEIGHT * k[:, :, i] @ s
            np.testing.assert_allclose(got[:, :, i], ref, rtol=1e-8, atol=1e-12)
    assert np.all(sub.poles().real < 0)
