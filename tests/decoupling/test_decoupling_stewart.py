"""Stewart platform (seed 004, section 7) on the digest's reconstructed surrogate."""

import numpy as np
import pytest
from decoupling_seed_values import (
    STEWART_G0_CEN,
    STEWART_GRID_HZ,
    STEWART_MODES_HZ,
    TABLE16_J,
    TABLE17,
    TABLE17_SIGMA,
    assert_printed,
)

from robustmb.decoupling import (
    closed_loop_poles,
    diagonal_lowpass_controller,
    frequency_response,
    gershgorin_ratios,
    jacobian_decouple,
    real_approximation,
    svd_decouple,
)
from robustmb.examples.stewart_platform import stewart_platform

W0 = 2 * np.pi * 30
WC = 2 * np.pi * 80
WP = 2 * np.pi * 0.1


@pytest.fixture(scope="module")
def study():
    sp = stewart_platform()
    G = sp.plant()
    return {
        "sp": sp,
        "G": G,
        "jac": jacobian_decouple(G, actuator_jacobian=sp.actuator_jacobian()),
        "svd": svd_decouple(G, W0),
    }


def test_imu_at_the_com_needs_only_the_input_jacobian(study):
    d = study["sp"].jacobian_decoupling("com")
    assert d.sensor_jacobian is None
    np.testing.assert_allclose(d.input_matrix, study["jac"].input_matrix)


def test_jacobian_table_16(study):
    np.testing.assert_allclose(study["sp"].actuator_jacobian(), TABLE16_J, atol=5e-5)
    assert_printed(study["sp"].actuator_jacobian().round(3), TABLE16_J.round(3))


def test_real_approximation_table_17_and_modes(study):
    H = frequency_response(study["G"], [W0])[0]
    Hr = real_approximation(H)
    # the plant is almost real at 30 Hz (Tables 17 and 18 are identical)
    assert np.linalg.norm(Hr - H.real) < 1e-3 * np.linalg.norm(H.real)
    assert np.linalg.norm(Hr - TABLE17) / np.linalg.norm(TABLE17) < 5e-3
    assert_printed(Hr, TABLE17, slack=2.0)
    assert_printed(
        np.sort(np.abs(study["sp"].model().poles()))[::2] / (2 * np.pi), STEWART_MODES_HZ
    )
    sigma_tab = np.linalg.svd(TABLE17, compute_uv=False)
    assert_printed(sigma_tab, TABLE17_SIGMA)
    # Weyl: |sigma_i(A) - sigma_i(B)| <= ||A - B||_F; the table is rounded to 0.05 per entry
    bound = np.linalg.norm(Hr - TABLE17) + 0.05 * 6
    assert np.abs(study["svd"].sigma - sigma_tab).max() <= bound


def test_svd_output_matrix_is_a_signed_permutation(study):
    # Table 19: columns ~ Ary, Arx, Arz, Az, Ax, Ay (rotations first)
    U = study["svd"].U
    order = np.abs(U).argmax(axis=0)
    np.testing.assert_array_equal(order, [4, 3, 5, 2, 0, 1])
    assert np.all(np.abs(U).max(axis=0) > 0.99)


def test_controller_gains_and_stability(study):
    cen = diagonal_lowpass_controller(study["jac"].plant, WC, WP)
    assert_printed(cen.gains[:3], STEWART_G0_CEN[:3])
    # rotational gains depend on the fitted bushing height: agree to 1 %
    np.testing.assert_allclose(cen.gains[3:], STEWART_G0_CEN[3:], rtol=0.01)
    sv = diagonal_lowpass_controller(study["svd"].plant, WC, WP)
    G = study["G"]
    for K in (study["jac"].controller(cen.controller), study["svd"].controller(sv.controller)):
        p = closed_loop_poles(G, K)
        assert p.real.max() == pytest.approx(-0.65, abs=0.01)


def test_gershgorin_levels(study):
    w = 2 * np.pi * STEWART_GRID_HZ
    coupled = gershgorin_ratios(study["G"], omega=w)
    svd = gershgorin_ratios(study["svd"].plant, omega=w)
    # coupled plant: flat between 3 and 5 away from the modes; SVD ~0.3 at low frequency
    # with a notch at the decoupling frequency
    assert 2.9 < coupled[0].min() and coupled[0].max() < 5.1
    assert svd[0].max() == pytest.approx(0.27, abs=0.05)
    k30 = np.argmin(np.abs(STEWART_GRID_HZ - 30))
    assert svd[k30].max() < 2e-3
