"""ParallelManipulator models and measurements in the coordinates of a frame {O}: the
measured signals do not depend on {O}; a measurement of another frame is refused."""

import numpy as np
import pytest

from robustmb.decoupling import frequency_response, transmissibility
from robustmb.errors import ArgumentError
from robustmb.examples.gravimeter import collocated_manipulator

W = np.array([0.3, 1.0, 3.0, 10.0, 30.0])
ORIGINS = [np.array([0.3, -0.7]), "stiffness", np.array([-1.2, 0.4])]


def _pm():
    return collocated_manipulator().manipulator


def _direct_strut_response(pm, w):
    """``J (K + jw C - w^2 M)^{-1} J_act^T`` in {M} (CoM), from the raw geometry."""
    J = pm.spring_jacobian()
    Ja = pm.actuator_jacobian()
    M = np.diag([pm.mass, pm.mass, pm.inertia])
    K = J.T @ np.diag(pm.stiffness) @ J
    C = J.T @ np.diag(pm.damping) @ J
    return np.array([J @ np.linalg.solve(K + 1j * x * C - x**2 * M, Ja.T) for x in w])


@pytest.mark.parametrize("origin", ORIGINS, ids=["point", "stiffness", "far-point"])
def test_sensors_built_for_the_models_frame_give_the_frame_independent_plant(origin):
    pm = _pm()
    ref = _direct_strut_response(pm, W)
    model = pm.model(origin)
    H = frequency_response(model.state_space(pm.elongation_sensors(origin=origin)), W)
    np.testing.assert_allclose(H, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(
        frequency_response(pm.plant(pm.elongation_sensors(origin=origin), origin=origin), W),
        ref,
        rtol=1e-9,
        atol=1e-12 * np.abs(ref).max(),
    )
    # accelerometers at fixed physical points: -w^2 times the point displacements
    pts = np.array([[0.2, 0.1], [-0.4, 0.3]])
    acc = frequency_response(model.state_space(pm.accelerometers(pts, origin=origin)), W)
    acc_m = frequency_response(pm.model().state_space(pm.accelerometers(pts)), W)
    np.testing.assert_allclose(acc, acc_m, rtol=1e-9, atol=1e-12 * np.abs(acc_m).max())


def test_sensors_of_another_frame_are_refused():
    pm = _pm()
    o = np.array([0.3, -0.7])
    with pytest.raises(ArgumentError, match=r"frame at \[0.0, 0.0\].*frame at \[0.3, -0.7\]"):
        pm.model(o).state_space(pm.elongation_sensors())
    with pytest.raises(ArgumentError, match="frame"):
        pm.model().frequency_response(W, pm.accelerometers([[0.2, 0.1]], origin=o))
    with pytest.raises(ArgumentError, match="frame"):
        pm.plant(pm.elongation_sensors(origin=o))
    with pytest.raises(ArgumentError, match="frame"):
        transmissibility(pm.model(o), W, sensors=pm.elongation_sensors(), controller=np.eye(3))
    # the model's own body-motion measurement is in its frame
    pm.model(o).state_space(pm.model(o).body_motion("position"))


def test_body_motion_sensors_are_mapped_to_the_decoupling_frame():
    """Stewart platform with an IMU at the centre of mass, decoupled at the centre of
    stiffness {O}: the plant is the wrench at {O} to the motion of {O},
    ``s^2 (T^T Z T)^-1`` with ``q_M = T q_O`` and ``Z = K - w^2 M + jw C`` in {M}, built
    here by hand. The outputs used to stay the motion of {M} (Gershgorin 4.8 at 0.1 Hz
    instead of 7.6e-4)."""
    from robustmb.decoupling import frame_translation, gershgorin_ratios
    from robustmb.examples.stewart_platform import stewart_platform

    sp = stewart_platform()
    pm = sp.manipulator
    O = pm.center_of_stiffness()
    assert abs(O[2] + 5.9e-3) < 1e-12  # (0, 0, -5.9 mm)
    d = sp.jacobian_decoupling("stiffness")
    w = 2 * np.pi * np.array([0.1, 1.0, 100.0])
    T = frame_translation(O)
    M, K, C = pm.mass_matrix(), pm.stiffness_matrix(), pm.damping_matrix()
    ref = np.array([-(x**2) * np.linalg.inv(T.T @ (K - x**2 * M + 1j * x * C) @ T) for x in w])
    H = frequency_response(d.plant, w)
    assert np.abs(H - ref).max() <= 1e-12 * np.abs(ref).max()
    # low-frequency coupling of the translations x, y through the stiffness frame
    np.testing.assert_allclose(
        gershgorin_ratios(d.plant, omega=w), gershgorin_ratios(ref), rtol=1e-6, atol=1e-9
    )
    assert gershgorin_ratios(ref)[0, :2].max() < 1e-3
    # the sensor Jacobian is the IMU matrix (identity) times T
    np.testing.assert_allclose(sp.sensor_jacobian(O), T, atol=0)


def test_body_motion_sensors_at_the_centre_of_mass_stay_untransformed():
    """At the centre of mass T = I: the decoupled plant is the IMU's own outputs."""
    from robustmb.examples.stewart_platform import stewart_platform

    sp = stewart_platform()
    d = sp.jacobian_decoupling("com")
    assert d.sensor_jacobian is None
    w = np.array([1.0, 30.0])
    pm = sp.manipulator
    M, K, C = pm.mass_matrix(), pm.stiffness_matrix(), pm.damping_matrix()
    ref = np.array([-(x**2) * np.linalg.inv(K - x**2 * M + 1j * x * C) for x in w])
    H = frequency_response(d.plant, w)
    assert np.abs(H - ref).max() <= 1e-12 * np.abs(ref).max()
