"""Stiff but stable models are analysed as stable, with their exact norms.

Reference: the two-mass chain's transfer function in closed form (force on the 1 kg mass
to its position, a 1e8 N/m spring to a 1 g mass), evaluated directly at ``s = jw``, its
peak found by a bounded scalar search and its H2 norm by quadrature; a lightly damped
resonator's closed-form norms under a badly scaled change of state coordinates.
"""

import control
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import minimize_scalar

import robustmb as rmb

M1, M2, K, C, K0, C0 = 1e-3, 1.0, 1e8, 1.0, 1.0, 1e-3


def _chain():
    A = np.array(
        [
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [-K / M1, K / M1, -C / M1, C / M1],
            [K / M2, -(K + K0) / M2, C / M2, -(C + C0) / M2],
        ]
    )
    return control.ss(A, [[0], [0], [0], [1 / M2]], [[0, 1, 0, 0]], [[0]])


def _chain_gain(w):
    """|G(jw)|, G = 1 / (m2 s^2 + c0 s + k0 + q m1 s^2 / (m1 s^2 + q)), q = k + c s."""
    s = 1j * np.asarray(w, float)
    q = K + C * s
    return np.abs(1.0 / (M2 * s**2 + C0 * s + K0 + q * M1 * s**2 / (M1 * s**2 + q)))


def test_stiff_chain_is_stable_with_exact_norms():
    G = _chain()
    assert np.max(np.linalg.eigvals(G.A).real) < 0
    # reference peak: near the slow resonance (the fast one is damped by c)
    r = minimize_scalar(
        lambda w: -_chain_gain(w), bounds=(0.99, 1.01), method="bounded", options={"xatol": 1e-12}
    )
    peak = -r.fun
    grid = np.geomspace(1e-3, 1e8, 200001)
    assert _chain_gain(grid).max() <= peak * (1 + 1e-9)
    gamma, fpeak = rmb.hinfnorm(G)
    assert gamma == pytest.approx(peak, rel=1e-7)
    assert fpeak == pytest.approx(r.x, rel=1e-5)
    # H2: (1/pi) int_0^inf |G|^2 dw, split at the resonances
    pts = [0.0, 0.9, 0.9995, 1.1, 10.0, 3e5, 3.2e5, 1e7]
    h2sq = sum(
        quad(lambda w: _chain_gain(w) ** 2, a, b, limit=500, epsabs=0, epsrel=1e-11)[0]
        for a, b in zip(pts[:-1], pts[1:], strict=False)
    )
    h2sq += quad(lambda w: _chain_gain(w) ** 2, pts[-1], np.inf, limit=200)[0]
    assert rmb.h2norm(G) == pytest.approx(np.sqrt(h2sq / np.pi), rel=1e-6)


def test_stiff_chain_worst_case_gain_is_finite():
    a = rmb.ureal("a", 1.0, percent=10)
    res = rmb.wcgain(rmb.uss(_chain()) * a)
    peak = 1.1 * rmb.hinfnorm(_chain())[0]
    assert res.certified
    assert res.lower == pytest.approx(peak, rel=1e-7)
    assert peak <= res.upper <= 1.02 * peak


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e6])
def test_badly_scaled_state_coordinates_do_not_change_the_norms(scale):
    """1/(s^2 + 0.1 s + 1): ||G||_2 = sqrt(1 / (2 * 0.1)), ||G||_inf = 1/(2 z sqrt(1 - z^2))."""
    R = control.ss([[0, 1], [-1, -0.1]], [[0], [1]], [[1, 0]], [[0]])
    T = np.diag([scale, 1 / scale])
    Ti = np.linalg.inv(T)
    R2 = control.ss(T @ R.A @ Ti, T @ R.B, R.C @ Ti, R.D)
    zeta = 0.05
    assert rmb.h2norm(R2) == pytest.approx(np.sqrt(5.0), rel=1e-9)
    assert rmb.hinfnorm(R2)[0] == pytest.approx(1 / (2 * zeta * np.sqrt(1 - zeta**2)), rel=1e-8)


def _chain_response(w):
    s = 1j * np.asarray(w, float)
    q = K + C * s
    return 1.0 / (M2 * s**2 + C0 * s + K0 + q * M1 * s**2 / (M1 * s**2 + q))


def test_stiff_chain_disk_margin():
    """Balanced disk margin 1 / ||S - 1/2||_inf, S = 1 / (1 + G), from the closed form."""
    grid = np.geomspace(1e-3, 1e7, 400001)
    dev = np.abs(1.0 / (1.0 + _chain_response(grid)) - 0.5)
    w0 = grid[np.argmax(dev)]
    r = minimize_scalar(
        lambda w: -np.abs(1.0 / (1.0 + _chain_response(w)) - 0.5),
        bounds=(w0 * 0.999, w0 * 1.001),
        method="bounded",
        options={"xatol": 1e-12},
    )
    alpha = 1.0 / max(-r.fun, dev.max())
    res = rmb.diskmargin(_chain())
    assert res.multiloop.alpha == pytest.approx(alpha, rel=1e-6)
