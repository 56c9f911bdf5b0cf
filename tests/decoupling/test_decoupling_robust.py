"""Robustness of decoupling: uncertain plants and worst-case Gershgorin ratios."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.decoupling import (
    ParallelManipulator,
    frequency_response,
    gershgorin_ratios,
    jacobian_decouple,
    svd_decouple,
)
from robustmb.decoupling.robust_coupling import gershgorin_mu_problem, worst_case_gershgorin
from robustmb.decoupling.uncertain_plants import uncertain_line_jacobian, uncertain_mechanical_plant
from robustmb.errors import UncertainTypeError
from robustmb.examples.gravimeter import gravimeter, uncertain_gravimeter


# -- uncertain plant builders ----------------------------------------------------------
def test_uncertain_gravimeter_matches_the_numeric_model_at_sampled_values():
    la = rmb.ureal("la", 0.5, percent=30)
    ha = rmb.ureal("ha", 0.85, percent=30)
    k1 = rmb.ureal("k1", 15e3, percent=10)
    Gu = uncertain_gravimeter(la=la, ha=ha, k=[k1, 15e3, 15e3])
    assert Gu.input_names == ["F1", "F2", "F3"]
    w = 2 * np.pi * np.logspace(-1, 2, 9)
    rng = np.random.default_rng(0)
    for _ in range(3):
        v = {
            "la": rng.uniform(0.35, 0.65),
            "ha": rng.uniform(0.595, 1.105),
            "k1": rng.uniform(13.5e3, 16.5e3),
        }
        pm = ParallelManipulator(
            mass=400,
            inertia=115,
            spring_points=[[-0.5, -v["ha"]], [-v["la"], -0.85], [v["la"], -0.85]],
            spring_directions=[[1, 0], [0, 1], [0, 1]],
            stiffness=[v["k1"], 15e3, 15e3],
            damping=20,
        )
        ref = pm.model().state_space(pm.accelerometers([[-0.5, -0.85], [0.0, 0.85]]))
        np.testing.assert_allclose(
            frequency_response(Gu.usubs(v), w), frequency_response(ref, w), rtol=1e-9, atol=1e-15
        )
    # the nominal plant is the seed's gravimeter
    np.testing.assert_allclose(
        frequency_response(Gu.nominal(), w),
        frequency_response(gravimeter().plant(), w),
        rtol=1e-10,
        atol=1e-15,
    )


def test_uncertain_line_jacobian_spatial_cross_products():
    z = rmb.ureal("z", 0.2, plusminus=0.05)
    J = uncertain_line_jacobian([[0.1, -0.3, z]], [[1.0, 0.0, 0.0]])
    for zv in (0.15, 0.25):
        b = np.array([0.1, -0.3, zv])
        np.testing.assert_allclose(
            J.usubs({"z": zv})[0], np.r_[1, 0, 0, np.cross(b, [1, 0, 0])], atol=1e-15
        )


def test_uncertain_mechanical_plant_velocity_and_errors():
    k = rmb.ureal("k", 4.0, percent=25)
    G = uncertain_mechanical_plant(
        np.eye(1),
        rmb.umat([[k]]),
        0.1 * np.eye(1),
        input_matrix=[[1.0]],
        output_matrix=[[1.0]],
        output_kind="velocity",
    )
    ref = control.tf([1.0, 0.0], [1.0, 0.1, 5.0])
    np.testing.assert_allclose(
        frequency_response(G.usubs({"k": 5.0}), [0.3, 3.0]),
        frequency_response(ref, [0.3, 3.0]),
        rtol=1e-10,
    )
    with pytest.raises(ValueError, match="nonsingular"):
        uncertain_mechanical_plant(
            np.zeros((1, 1)), np.eye(1), input_matrix=[[1.0]], output_matrix=[[1.0]]
        )


# -- the mu problem ------------------------------------------------------------------------
def _dynamic_example():
    # G(s, a) = [[1/(s + a), 0.3/(s + 1)], [0.2, 1]], a in [0.5, 1.5]:
    # row 0 ratio 0.3 |jw + a| / |jw + 1| (largest at a = 1.5), row 1 ratio 0.2
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    A = [[-a, 0.0], [0.0, -1.0]]
    B = [[1.0, 0.0], [0.0, 1.0]]
    C = [[1.0, 0.3], [0.0, 0.0]]
    D = [[0.0, 0.0], [0.2, 1.0]]
    return rmb.uss(A, B, C, D)


def test_mu_matrix_is_singular_exactly_at_the_realised_ratio():
    # with beta = zeta(Delta) and phases d_j aligned, det(I - Q(beta) diag(Delta, d)) = 0
    Gu = _dynamic_example()
    M, blocks = rmb.lftdata(Gu)
    w = np.array([0.7])
    for aval in (0.6, 1.3):
        Gs = Gu.usubs({"a": aval})
        H = frequency_response(Gs, w)[0]
        beta = gershgorin_ratios(H)[0]
        Q, blk = gershgorin_mu_problem(Gu, w, 0, beta)
        assert blk == [(-blocks[0][2], 0), (1, 0)]
        delta = rmb.ureal("a", 1.0, range=(0.5, 1.5)).normalize(aval)
        d = np.exp(1j * (np.angle(H[0, 0]) - np.angle(H[0, 1])))
        Dt = np.diag(np.r_[np.full(blocks[0][2], delta), d])
        smin = np.linalg.svd(np.eye(Q.shape[1]) - Q[0] @ Dt, compute_uv=False)[-1]
        assert smin < 1e-10
        # a level above the realised ratio does not make the same perturbation singular
        Q2, _ = gershgorin_mu_problem(Gu, w, 0, 1.5 * beta)
        assert np.linalg.svd(np.eye(Q.shape[1]) - Q2[0] @ Dt, compute_uv=False)[-1] > 1e-3


def test_realised_worst_case_matches_the_closed_form():
    Gu = _dynamic_example()
    w = np.logspace(-1, 1, 25)
    r = worst_case_gershgorin(Gu, w, upper=False, samples=8)
    exact0 = 0.3 * np.abs(1j * w + 1.5) / np.abs(1j * w + 1.0)  # a = 1.5 maximises row 0
    np.testing.assert_allclose(r.lower[:, 0], exact0, rtol=1e-10)
    np.testing.assert_allclose(r.nominal[:, 0], 0.3 * np.ones_like(w), rtol=1e-10)
    np.testing.assert_allclose(r.lower[:, 1], 0.2, rtol=1e-10)
    assert r.worst_values[0] == {"a": pytest.approx(1.5)}
    np.testing.assert_allclose(r.verified_peak, [exact0.max(), 0.2], rtol=1e-9)
    assert "grid" in r.coverage


def test_worst_case_of_decoupled_gravimeter_is_realised_by_substitution():
    la = rmb.ureal("la", 0.5, percent=30)
    ha = rmb.ureal("ha", 0.85, percent=30)
    Gu = uncertain_gravimeter(la=la, ha=ha)
    g = gravimeter()
    jac = jacobian_decouple(
        g.plant(), actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=g.sensor_jacobian()
    )
    w = 2 * np.pi * np.array([10.0, 100.0, 1e4])
    r = worst_case_gershgorin(jac.apply(Gu), w, rows=[2], upper=False, samples=16)
    # High-frequency limit: the decoupled plant tends to M^-1 J'^T J^-T (J' the true strut
    # Jacobian, J the nominal one), so the Rz row ratio tends to (|P20| + |P21|) / |P22|
    # with P = J'^T J^-T; brute force over the parameter box.
    Jn = g.actuator_jacobian()
    best = 0.0
    for hp in np.linspace(0.595, 1.105, 41):
        for lp in np.linspace(0.35, 0.65, 41):
            Jp = np.array([[1.0, 0, hp], [0, 1, -lp], [0, 1, lp]])
            P = Jp.T @ np.linalg.inv(Jn.T)
            best = max(best, (abs(P[2, 0]) + abs(P[2, 1])) / abs(P[2, 2]))
    assert r.lower[-1, 0] == pytest.approx(best, rel=1e-3)
    assert r.lower[-1, 0] >= r.nominal[-1, 0]
    vals = r.worst_values[0]
    Hs = frequency_response(jac.apply(Gu.usubs(vals)), [r.worst_frequency[0]])[0]
    assert gershgorin_ratios(Hs)[2] == pytest.approx(r.lower.max(), rel=1e-9)


def test_worst_case_errors():
    with pytest.raises(UncertainTypeError, match="numeric plant"):
        worst_case_gershgorin(np.eye(2), [1.0], upper=False)
    d = rmb.ultidyn("D", (1, 1))
    with pytest.raises(UncertainTypeError, match="ureal"):
        worst_case_gershgorin(rmb.uss(np.eye(2)) + rmb.block_diag(d, 0.0) * 0.1, [1.0], upper=False)


def test_certified_upper_bound_brackets_the_closed_form():
    Gu = _dynamic_example()
    w = np.logspace(-1, 1, 9)
    r = worst_case_gershgorin(Gu, w, samples=4)
    exact0 = 0.3 * np.abs(1j * w + 1.5) / np.abs(1j * w + 1.0)
    assert np.all(r.upper[:, 0] >= exact0 * (1 - 1e-9))
    assert np.all(r.upper[:, 0] <= exact0 * 1.01)
    # row 1 does not depend on a: mu = max(mu_a, 0.2 / beta) exactly; the fast mixed-mu
    # bound reaches it within a few per cent (it is a valid bound in any case)
    assert np.all(r.upper[:, 1] >= 0.2 * (1 - 1e-9))
    assert np.all(r.upper[:, 1] <= 0.2 * 1.05)
    assert np.all(r.upper >= r.lower * (1 - 1e-9))
    # every certified level is re-verified from its D/G scalings, without the mu solver
    assert r.verify(Gu).all()


def _svd_decoupled_uncertain_gravimeter():
    la = rmb.ureal("la", 0.5, percent=30)
    ha = rmb.ureal("ha", 0.85, percent=30)
    svd = svd_decouple(gravimeter().plant(), 2 * np.pi * 10)
    return svd.apply(uncertain_gravimeter(la=la, ha=ha))


def test_certified_upper_bound_on_the_decoupled_uncertain_gravimeter():
    Gd = _svd_decoupled_uncertain_gravimeter()
    w = 2 * np.pi * np.array([10.0, 20.0])
    r = worst_case_gershgorin(Gd, w, rows=[0], samples=16, rtol=1e-2)
    assert np.all(np.isfinite(r.upper))
    assert np.all(r.upper >= r.lower * (1 - 1e-9))
    assert np.all(r.upper <= 1.3 * r.lower)  # the gap left by the real-parameter mu bound
    assert r.verify(Gd).all()


@pytest.mark.slow
def test_certified_upper_bound_all_rows_decoupled_gravimeter():
    Gd = _svd_decoupled_uncertain_gravimeter()
    w = 2 * np.pi * np.array([5.0, 10.0, 20.0, 100.0])
    r = worst_case_gershgorin(Gd, w, samples=16)
    assert np.all(r.upper >= r.lower * (1 - 1e-9))
    assert r.verify(Gd).all()
    # a certificate does not survive a tampered level
    r.upper[0, 0] *= 0.5
    r.certificates[0]["level"][0] *= 0.5
    assert not r.verify(Gd)[0, 0]
