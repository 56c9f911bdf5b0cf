"""The gravimeter of the decoupling study (seed 004, section 1) against its printed and
reproduced numbers (see decoupling_seed_values.py for provenance)."""

import numpy as np
import pytest
from decoupling_seed_values import (
    DAMPING_GERSHGORIN_10HZ,
    DAMPING_IMAG_RATIO,
    GRAVIMETER_CL_POLES_CEN,
    GRAVIMETER_G0_CEN,
    GRAVIMETER_G0_SVD,
    GRAVIMETER_GERSHGORIN,
    GRAVIMETER_JAC_DIAG_10HZ,
    GRAVIMETER_POLES,
    GRAVIMETER_RGA_NUMBERS,
    GRAVIMETER_SIGMA,
    GRAVIMETER_TABLE1,
    GRAVIMETER_U,
    GRAVIMETER_V,
    MOVED_FREQS_HZ,
    MOVED_TXX_1HZ,
    TRANSMISSIBILITY_CEN,
    TRANSMISSIBILITY_HZ,
    TRANSMISSIBILITY_OL,
    TRANSMISSIBILITY_PEAKS_CEN,
    assert_printed,
    on_grid,
)

from robustmb.decoupling import (
    closed_loop_poles,
    diagonal_lowpass_controller,
    frequency_response,
    gershgorin_ratios,
    jacobian_decouple,
    loop_gains,
    point_sensor_jacobian,
    rga_abs_sum_minus_n,
    rga_number,
    svd_decouple,
    transmissibility,
)
from robustmb.examples.gravimeter import gravimeter

WC = 2 * np.pi * 10
WP = 2 * np.pi * 0.1


@pytest.fixture(scope="module")
def study():
    g = gravimeter()
    G = g.plant()
    jac = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=g.sensor_jacobian()
    )
    svd = svd_decouple(G, WC)
    cen = diagonal_lowpass_controller(jac.plant, WC, WP)
    sv = diagonal_lowpass_controller(svd.plant, WC, WP)
    return {
        "g": g,
        "G": G,
        "jac": jac,
        "svd": svd,
        "K_cen": jac.controller(cen.controller),
        "K_svd": svd.controller(sv.controller),
        "cen": cen,
        "sv": sv,
    }


def test_open_loop_poles(study):
    p = study["g"].model().poles()
    upper = np.sort_complex(p[p.imag > 0])
    ref = np.sort_complex(GRAVIMETER_POLES)
    np.testing.assert_allclose(upper.real, ref.real, rtol=1e-4)
    np.testing.assert_allclose(upper.imag, ref.imag, rtol=1e-4)
    assert study["G"].nstates == 6


def test_real_approximation_table_1_and_svd_tables_2_3(study):
    svd = study["svd"]
    np.testing.assert_allclose(svd.real_response, GRAVIMETER_TABLE1, atol=5e-5)
    np.testing.assert_allclose(svd.sigma, GRAVIMETER_SIGMA, rtol=1e-3)
    # singular vectors: equal up to a simultaneous sign flip of (u_i, v_i)
    for i in range(3):
        sgn = np.sign(svd.U[:, i] @ GRAVIMETER_U[:, i])
        np.testing.assert_allclose(sgn * svd.U[:, i], GRAVIMETER_U[:, i], atol=0.01)
        np.testing.assert_allclose(sgn * svd.V[:, i], GRAVIMETER_V[:, i], atol=0.01)
    u4 = svd.U[:, 3] * np.sign(svd.U[:, 3] @ GRAVIMETER_U[:, 3])
    np.testing.assert_allclose(u4, GRAVIMETER_U[:, 3], atol=0.01)
    assert_printed(svd.imaginary_ratio, DAMPING_IMAG_RATIO[20.0])


def test_jacobian_plant_gains_and_controller_gains(study):
    Gx = frequency_response(study["jac"].plant, [WC])[0]
    np.testing.assert_allclose(np.abs(np.diag(Gx)), GRAVIMETER_JAC_DIAG_10HZ, rtol=1e-4)
    np.testing.assert_allclose(study["cen"].gains, GRAVIMETER_G0_CEN, rtol=1e-3)
    np.testing.assert_allclose(study["sv"].gains, GRAVIMETER_G0_SVD, rtol=1e-3)
    # the tuning rule: unit diagonal loop gains at the crossover
    for dec, c in ((study["jac"], study["cen"]), (study["svd"], study["sv"])):
        np.testing.assert_allclose(
            np.abs(loop_gains(c.controller, dec.plant, [WC])), 1.0, rtol=1e-12
        )


@pytest.mark.parametrize("f", sorted(GRAVIMETER_GERSHGORIN))
def test_gershgorin_ratios_at_the_stated_frequencies(study, f):
    w = 2 * np.pi * on_grid(f)
    coupled, jac, svd = GRAVIMETER_GERSHGORIN[f]
    for plant, ref in ((study["G"], coupled), (study["jac"].plant, jac), (study["svd"].plant, svd)):
        r = gershgorin_ratios(plant, omega=w)[0]
        for val, exp in zip(r, ref, strict=True):
            if exp is None:
                assert val < 1e-12
            else:
                assert_printed(val, exp)


@pytest.mark.parametrize("f", sorted(GRAVIMETER_RGA_NUMBERS))
def test_rga_numbers_both_definitions(study, f):
    w = 2 * np.pi * on_grid(f)
    exp = GRAVIMETER_RGA_NUMBERS[f]
    got = (
        rga_number(study["jac"].plant, omega=w)[0],
        rga_abs_sum_minus_n(study["jac"].plant, omega=w)[0],
        rga_number(study["svd"].plant, omega=w)[0],
        rga_abs_sum_minus_n(study["svd"].plant, omega=w)[0],
    )
    assert_printed(got, exp)


def test_closed_loops_are_stable_with_the_reproduced_poles(study):
    p_cen = closed_loop_poles(study["G"], study["K_cen"])
    ref = GRAVIMETER_CL_POLES_CEN
    np.testing.assert_allclose(np.sort(p_cen.real), np.sort(ref.real), rtol=3e-3, atol=1e-3)
    np.testing.assert_allclose(np.sort(np.abs(p_cen.imag)), np.sort(np.abs(ref.imag)), atol=1e-3)
    assert np.all(closed_loop_poles(study["G"], study["K_svd"]).real < 0)


def test_transmissibility_table(study):
    g = study["g"]
    w = 2 * np.pi * TRANSMISSIBILITY_HZ
    T_cen = transmissibility(g.model(), w, sensors=g.sensors, controller=study["K_cen"])
    T_ol = transmissibility(g.model(), w)
    for T, ref in ((T_cen, TRANSMISSIBILITY_CEN), (T_ol, TRANSMISSIBILITY_OL)):
        assert_printed(np.abs(np.diagonal(T, axis1=1, axis2=2)).T, ref)
    # SVD control gives almost the same transmissibility (seed Figure 17)
    T_svd = transmissibility(g.model(), w, sensors=g.sensors, controller=study["K_svd"])
    np.testing.assert_allclose(np.abs(T_svd), np.abs(T_cen), rtol=0.05, atol=1e-4)


def test_transmissibility_peaks_below_the_low_pass_pole(study):
    g = study["g"]
    f = np.logspace(-2, 2, 1000)
    T = transmissibility(g.model(), 2 * np.pi * f, sensors=g.sensors, controller=study["K_cen"])
    d = np.abs(np.diagonal(T, axis1=1, axis2=2))
    for i, (peak, fpk) in enumerate(TRANSMISSIBILITY_PEAKS_CEN):
        assert_printed(d[:, i].max(), peak)
        assert_printed(f[d[:, i].argmax()], fpk)


def test_moved_actuators_keep_both_loops_stable(study):
    gb = gravimeter(la=0.7 * 0.5, ha=0.7 * 0.85)
    p = gb.model().poles()
    assert_printed(np.sort(np.abs(p[p.imag > 0])) / (2 * np.pi), MOVED_FREQS_HZ)
    Gb = gb.plant()
    assert np.all(closed_loop_poles(Gb, study["K_cen"]).real < 0)
    assert np.all(closed_loop_poles(Gb, study["K_svd"]).real < 0)
    T = transmissibility(gb.model(), [2 * np.pi], sensors=gb.sensors, controller=study["K_cen"])
    assert_printed(abs(T[0, 0, 0]), MOVED_TXX_1HZ)


def test_jacobian_frame_choice():
    g = gravimeter()
    G = g.plant()
    f_lo, f_hi = on_grid([0.1, 100.0])
    w = 2 * np.pi * np.array([f_lo, f_hi])
    # {M} at the CoM: decoupled at high frequency. Asymptotically
    # G_x(jw) = M^-1 + M^-1 (K + jw C) M^-1 / w^2 + O(w^-2 |K + jwC|^2 / w^2); the coupling
    # falls like |K + jw C| / w^2 (between 1/w and 1/w^2 for this damping).
    GM = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=g.sensor_jacobian()
    ).plant
    pm = g.manipulator
    Mi = np.linalg.inv(pm.mass_matrix())
    for w_hi in 2 * np.pi * np.array([1e3, 1e4]):
        E = Mi @ (pm.stiffness_matrix() + 1j * w_hi * pm.damping_matrix()) @ Mi / w_hi**2
        approx = (np.abs(E).sum(axis=1) - np.abs(np.diag(E))) / np.diag(Mi)
        np.testing.assert_allclose(
            gershgorin_ratios(GM, omega=[w_hi])[0], approx, rtol=2e-3, atol=1e-14
        )
    # {K} at the centre of stiffness (0, -h/2): decoupled at low frequency, coupled at high
    O_K = g.manipulator.center_of_stiffness()
    np.testing.assert_allclose(O_K, [0.0, -0.85], atol=1e-12)
    np.testing.assert_allclose(
        g.manipulator.stiffness_matrix(O_K), np.diag([15e3, 30e3, 7.5e3]), atol=1e-8
    )
    GK = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(O_K), sensor_jacobian=g.sensor_jacobian(O_K)
    ).plant
    rK = gershgorin_ratios(GK, omega=w)
    assert_printed(rK[:, [0, 2]], [[0.018, 0.009], [0.84, 0.85]])
    # the seed's own {K} sensor Jacobian JKa (CCW rows) equals ours
    np.testing.assert_allclose(
        g.sensor_jacobian(O_K), [[1, 0, 0], [0, 1, -0.5], [1, 0, -1.7], [0, 1, 0]], atol=1e-12
    )
    np.testing.assert_allclose(
        point_sensor_jacobian([[-0.5, -0.85], [0, 0.85]], origin=O_K), g.sensor_jacobian(O_K)
    )


def test_jacobian_decoupling_by_frame_name(study):
    g = study["g"]
    w = 2 * np.pi * on_grid([0.1, 100.0])
    com = g.jacobian_decoupling("com")
    np.testing.assert_allclose(
        frequency_response(com.plant, w), frequency_response(study["jac"].plant, w), rtol=1e-12
    )
    K = g.jacobian_decoupling("stiffness")
    assert_printed(gershgorin_ratios(K.plant, omega=w)[:, [0, 2]], [[0.018, 0.009], [0.84, 0.85]])
    pt = g.jacobian_decoupling([0.0, -0.85])
    np.testing.assert_allclose(pt.output_matrix, K.output_matrix, atol=1e-14)


def test_actuator_at_the_com_height_decouples_at_all_frequencies():
    g = gravimeter(ha=0.0)
    np.testing.assert_allclose(
        g.manipulator.stiffness_matrix(), np.diag([15e3, 30e3, 7.5e3]), atol=1e-9
    )
    G = g.plant()
    GKM = jacobian_decouple(
        G, actuator_jacobian=g.actuator_jacobian(), sensor_jacobian=g.sensor_jacobian()
    ).plant
    H = frequency_response(GKM, 2 * np.pi * np.logspace(-1, 3, 200))
    off = np.abs(H - np.einsum("kii->ki", H)[:, :, None] * np.eye(3))
    assert off.max() < 1e-12 * np.abs(H).max()
    p = g.model().poles()
    np.testing.assert_allclose(
        np.sort(np.abs(p[p.imag > 0])) / (2 * np.pi), [0.975, 1.285, 1.378], rtol=1e-3
    )


def test_svd_decoupling_degrades_with_damping():
    for c in (20.0, 500.0):
        g = gravimeter(c=c)
        svd = svd_decouple(g.plant(), WC)
        assert_printed(svd.imaginary_ratio, DAMPING_IMAG_RATIO[c])
        assert_printed(gershgorin_ratios(svd.plant, omega=[WC])[0], DAMPING_GERSHGORIN_10HZ[c])
