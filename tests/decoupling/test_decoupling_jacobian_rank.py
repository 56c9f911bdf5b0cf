"""A Jacobian decoupling needs full-column-rank Jacobians: a rank-deficient one leaves a
frame direction unactuated or unmeasured and is refused, naming the Jacobian and its rank;
an ill-conditioned one of full rank is still exact."""

import numpy as np
import pytest

from robustmb import decoupling as dc
from robustmb.decoupling.geometry import point_sensor_jacobian
from robustmb.errors import ArgumentError, IllPosedError
from robustmb.examples import gravimeter


def _numerical_rank(J):
    s = np.linalg.svd(J, compute_uv=False)
    return int(np.count_nonzero(s > 1e-12 * s[0]))


def test_coinciding_vertical_struts_leave_mz_unactuated():
    """Two coinciding vertical struts: Mz is not actuated (rank 2 of 3). Given la = 0, the
    old code returned a plant labelled Fx, Fy, Mz with mixed channels (Gershgorin 1.18)."""
    g = gravimeter()
    Ja = g.actuator_jacobian().copy()
    Ja[2] = Ja[1]  # the third strut moved onto the second
    assert _numerical_rank(Ja) == 2
    with pytest.raises(IllPosedError, match=r"actuator_jacobian has rank 2 < 3"):
        dc.jacobian_decouple(g.plant(), actuator_jacobian=Ja, sensor_jacobian=g.sensor_jacobian())
    # the model itself refuses la = 0 earlier (its stiffness matrix is singular there)
    with pytest.raises(ArgumentError, match="la must be positive"):
        gravimeter(la=0.0)


def test_coinciding_accelerometers_do_not_measure_the_rotation():
    """Two biaxial accelerometers at one point: the rotation is not measured (rank 2)."""
    g = gravimeter()
    Js = point_sensor_jacobian([[0.0, 0.85], [0.0, 0.85]])
    assert _numerical_rank(Js) == 2
    with pytest.raises(IllPosedError, match=r"sensor_jacobian has rank 2 < 3"):
        dc.jacobian_decouple(g.plant(), actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=Js)


def test_fewer_actuators_than_coordinates_is_refused():
    G = np.ones((3, 2))
    with pytest.raises(IllPosedError, match=r"actuator_jacobian has rank 2 < 3"):
        dc.jacobian_decouple(G, actuator_jacobian=np.array([[1.0, 0, 0], [0, 1.0, 0]]))


def test_ill_conditioned_full_rank_jacobian_is_still_exact():
    """la = 1e-9 (cond(J) 1.3e9, full rank): the decoupled plant equals the closed form
    s^2 (K - w^2 M + jw C)^-1 in {M}."""
    g = gravimeter(la=1e-9)
    Ja = g.actuator_jacobian()
    assert _numerical_rank(Ja) == 3 and np.linalg.cond(Ja) > 1e9
    d = dc.jacobian_decouple(g.plant(), actuator_jacobian=Ja, sensor_jacobian=g.sensor_jacobian())
    w = 2 * np.pi * np.array([0.1, 10.0])
    pm = g.manipulator
    M, K, C = pm.mass_matrix(), pm.stiffness_matrix(), pm.damping_matrix()
    ref = np.array([-(x**2) * np.linalg.inv(K - x**2 * M + 1j * x * C) for x in w])
    H = dc.frequency_response(d.plant, w)
    assert np.abs(H - ref).max() <= 1e-6 * np.abs(ref).max()
