"""Mechanical models and frequency responses: state space vs dynamic stiffness."""

import control
import numpy as np
import pytest

from robustmb.decoupling import (
    Measurement,
    ParallelManipulator,
    SecondOrderSystem,
    frequency_response,
    transform,
    transmissibility,
)
from robustmb.errors import ArgumentError, DimensionError, SignalError
from robustmb.examples.gravimeter import gravimeter
from robustmb.examples.stewart_platform import stewart_platform


def _random_model(rng, n=4, m=2, r=3):
    A = rng.standard_normal((n, n))
    M = A @ A.T + n * np.eye(n)
    B = rng.standard_normal((n, n))
    K = B @ B.T + np.eye(n)
    C = 0.05 * K + 0.01 * M
    return SecondOrderSystem(
        M,
        K,
        C,
        input_matrix=rng.standard_normal((n, m)),
        ground_stiffness=rng.standard_normal((n, r)),
        ground_damping=0.1 * rng.standard_normal((n, r)),
    )


def test_frequency_response_matches_python_control_evaluation():
    rng = np.random.default_rng(0)
    sys = control.rss(6, 3, 2)
    w = np.logspace(-2, 2, 9)
    H = frequency_response(sys, w)
    for k, wk in enumerate(w):
        np.testing.assert_allclose(H[k], np.asarray(sys(1j * wk)), rtol=1e-10, atol=1e-12)
    tf = control.tf([[[1, 2]], [[3]]], [[[1, 3, 2]], [[1, 1]]])
    np.testing.assert_allclose(frequency_response(tf, w)[:, 1, 0], 3 / (1j * w + 1), rtol=1e-12)
    del rng


@pytest.mark.parametrize("kind", ["position", "velocity", "acceleration"])
def test_state_space_agrees_with_dynamic_stiffness(kind):
    rng = np.random.default_rng(1)
    mdl = _random_model(rng)
    S = rng.standard_normal((3, 4))
    meas = Measurement(S, kind)
    w = np.logspace(-1, 1.5, 25)
    ground = kind != "acceleration"
    G = mdl.state_space(meas, ground=ground)
    np.testing.assert_allclose(
        frequency_response(G, w),
        mdl.frequency_response(w, meas, ground=ground),
        rtol=1e-9,
        atol=1e-12,
    )


def test_acceleration_with_ground_displacement_is_rejected():
    rng = np.random.default_rng(2)
    mdl = _random_model(rng)
    with pytest.raises(ValueError, match="improper"):
        mdl.state_space(mdl.body_motion("acceleration"), ground=True)


def test_relative_sensors_subtract_the_support_motion():
    # a single spring: elongation = x - w; with no force, x follows w at DC -> zero elongation
    pm = ParallelManipulator(
        mass=2.0,
        inertia=1.0,
        spring_points=[[0, 0], [0, 0], [1, 0]],
        spring_directions=[[1, 0], [0, 1], [0, 1]],
        stiffness=[4.0, 4, 4],
        damping=0.1,
    )
    meas = pm.elongation_sensors()
    G = pm.plant(meas, ground=True)
    np.testing.assert_allclose(np.asarray(G.dcgain())[:, :3], 0.0, atol=1e-12)
    w = [0.3, 3.0]
    np.testing.assert_allclose(
        frequency_response(G, w), pm.model().frequency_response(w, meas, ground=True), rtol=1e-10
    )


def test_signal_names_and_errors():
    g = gravimeter()
    G = g.plant(ground=False)
    assert list(G.input_labels) == ["F1", "F2", "F3"]
    assert list(G.output_labels) == ["Ax1", "Ay1", "Ax2", "Ay2"]
    P = g.plant(ground=True, body_outputs="position", sensors=False)
    assert list(P.input_labels) == ["Dx", "Dy", "DRz", "F1", "F2", "F3"]
    assert list(P.output_labels) == ["x", "y", "Rz"]
    with pytest.raises(ValueError, match="improper"):
        g.plant(ground=True)
    with pytest.raises(ArgumentError, match="body_outputs: no outputs requested"):
        g.plant(body_outputs=None, sensors=False)
    with pytest.raises(DimensionError):
        Measurement(np.eye(2), "position", ["a"])
    with pytest.raises(ValueError, match="kind"):
        Measurement(np.eye(2), "jerk")
    with pytest.raises(SignalError, match="duplicate"):
        SecondOrderSystem(np.eye(2), np.eye(2), input_matrix=np.eye(2), input_names=["u", "u"])
    with pytest.raises(ValueError, match="singular"):
        SecondOrderSystem(np.zeros((2, 2)), np.eye(2), input_matrix=np.eye(2))


def test_transform_is_the_same_on_systems_and_stacks():
    rng = np.random.default_rng(3)
    sys = control.rss(5, 3, 2)
    To, Ti = rng.standard_normal((2, 3)), rng.standard_normal((2, 2))
    w = np.logspace(-1, 1, 5)
    np.testing.assert_allclose(
        frequency_response(transform(sys, To, Ti), w),
        To @ frequency_response(sys, w) @ Ti,
        rtol=1e-10,
        atol=1e-12,
    )
    with pytest.raises(DimensionError, match="T_out"):
        transform(sys, np.eye(2), None)
    with pytest.raises(DimensionError, match="T_in"):
        transform(sys, None, np.eye(3))


def test_transmissibility_formula_against_state_space_loop():
    # second route: q = [P_qw - P_qt K (I + P_at K)^{-1} P_aw] w from proper open-loop blocks
    g = gravimeter()
    mdl = g.model()
    rng = np.random.default_rng(4)
    K = control.ss(
        -np.diag([1.0, 2.0]),
        rng.standard_normal((2, 4)),
        rng.standard_normal((3, 2)),
        rng.standard_normal((3, 4)),
    )
    w = np.logspace(-1.5, 1.5, 12)
    T = transmissibility(mdl, w, sensors=g.sensors, controller=K)
    P = frequency_response(mdl.state_space(mdl.body_motion("position"), ground=True), w)
    Pqw, Pqt = P[:, :, :3], P[:, :, 3:]
    s2 = (1j * w)[:, None, None] ** 2
    Ja = g.sensors.matrix
    Pat, Paw = s2 * (Ja @ Pqt), s2 * (Ja @ Pqw)
    Kj = frequency_response(K, w)
    ref = Pqw - Pqt @ Kj @ np.linalg.solve(np.eye(4) + Pat @ Kj, Paw)
    np.testing.assert_allclose(T, ref, rtol=1e-8, atol=1e-12)
    # open loop equals the position response
    np.testing.assert_allclose(transmissibility(mdl, w), Pqw, rtol=1e-10)


def test_stewart_surrogate_sizes():
    sp = stewart_platform()
    G = sp.plant()
    assert (G.noutputs, G.ninputs, G.nstates) == (6, 6, 12)
    assert list(G.output_labels) == ["Ax", "Ay", "Az", "Arx", "Ary", "Arz"]
