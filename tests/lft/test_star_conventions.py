"""``rmb.star`` follows MATLAB's ``lft(P, Q, nu, ny)``: the first ``nu`` outputs of Q
feed the last ``nu`` inputs of P, the last ``ny`` outputs of P feed the first ``ny``
inputs of Q (MathWorks, ``lft`` reference page).  The reference below is the star
product written out with numpy from that definition."""

import numpy as np
import pytest

import robustmb as rmb


def matlab_lft(P, Q, nu, ny):
    """Star product of constant matrices by MATLAB's definition (numpy only)."""
    p11, p12 = P[:-ny, :-nu], P[:-ny, -nu:]
    p21, p22 = P[-ny:, :-nu], P[-ny:, -nu:]
    q11, q12 = Q[:nu, :ny], Q[:nu, ny:]
    q21, q22 = Q[nu:, :ny], Q[nu:, ny:]
    # u = q11 y + q12 w2,  y = p21 w1 + p22 u
    e = np.linalg.solve(np.eye(nu) - q11 @ p22, np.hstack([q11 @ p21, q12]))
    u_w1, u_w2 = e[:, : p21.shape[1]], e[:, p21.shape[1] :]
    y_w1, y_w2 = p21 + p22 @ u_w1, p22 @ u_w2
    top = np.hstack([p11 + p12 @ u_w1, p12 @ u_w2])
    bottom = np.hstack([q21 @ y_w1, q21 @ y_w2 + q22])
    return np.vstack([top, bottom])


@pytest.mark.parametrize("nu, ny", [(1, 2), (2, 1), (2, 2), (1, 1), (3, 1)])
def test_star_matches_matlab_definition_on_non_square_loops(nu, ny):
    rng = np.random.default_rng(10 * nu + ny)
    P = 0.4 * rng.standard_normal((ny + 2, nu + 2))
    Q = 0.4 * rng.standard_normal((nu + 1, ny + 3))
    got = rmb.star(P, Q, nu, ny).nominal()
    np.testing.assert_allclose(got, matlab_lft(P, Q, nu, ny), rtol=1e-12, atol=1e-14)


def test_lft_lower_with_a_non_square_controller_is_star_with_its_shape():
    rng = np.random.default_rng(3)
    P = 0.4 * rng.standard_normal((3, 4))  # 2 controls (last inputs), 1 measurement
    K = 0.4 * rng.standard_normal((2, 1))
    ref = matlab_lft(P, K, 2, 1)
    np.testing.assert_allclose(rmb.lft_lower(P, K).nominal(), ref, rtol=1e-12)
    np.testing.assert_allclose(rmb.star(P, K, 2, 1).nominal(), ref, rtol=1e-12)


def test_star_refuses_a_loop_larger_than_the_systems_and_names_nu():
    with pytest.raises(rmb.errors.DimensionError, match="nu=3"):
        rmb.star(np.ones((2, 2)), np.ones((2, 2)), 3, 1)
