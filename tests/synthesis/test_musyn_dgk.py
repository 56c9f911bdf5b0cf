"""musyn with real parameters (D,G-K iteration) and full D scalings for repeated scalars."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.synthesis.musyn import (
    _fit_scalings,
    _rp_structure,
    _scaled_plant,
    fit_factor,
    fit_skew,
    skew_coprime,
)


def _cplx_ct(X):
    return np.conj(np.swapaxes(X, -1, -2))


def test_fit_factor_reproduces_a_spectral_factor_and_is_bistable():
    w = np.logspace(-2, 2, 60)
    s = 1j * w
    T = np.zeros((w.size, 3, 3), complex)
    T[:, 0, 0] = 2 * (s + 0.1) / (s + 1)
    T[:, 0, 1] = 0.5 / (s + 3)
    T[:, 0, 2] = 0.2
    T[:, 1, 1] = (s + 5) / (s + 0.5)
    T[:, 1, 2] = 1 / (s + 0.05)
    T[:, 2, 2] = 3.0
    P = _cplx_ct(T) @ T
    F, target = fit_factor(w, P)
    Fw = np.array([F(x) for x in s])
    # the factor reproduces P (not T: any unitary U(w) T(w) is as good)
    assert np.max(np.abs(_cplx_ct(Fw) @ Fw - P) / np.abs(P).max()) < 1e-3
    assert np.allclose(_cplx_ct(target) @ target, P, rtol=1e-10)
    # stable with a stable inverse (minimum phase), and a nonsingular feedthrough
    assert np.max(np.linalg.eigvals(F.A).real) < 0
    Ai = F.A - F.B @ np.linalg.solve(F.D, F.C)
    assert np.max(np.linalg.eigvals(Ai).real) < 0


def test_fit_skew_and_coprime_factors_of_an_imaginary_odd_function():
    # -j g(w) with g odd: what a real block's G scaling looks like on the axis; no stable
    # function has it as its response, H - H~ (poles mirrored) does
    w = np.logspace(-2, 2, 60)
    g = 2 * w / (w**2 + 1) + 0.5 * w / (w**2 + 100)
    S = (-1j * g)[:, None, None]
    H, err = fit_skew(w, S, max_order=4, fit_tol=1e-6)
    assert np.max(np.linalg.eigvals(H.A).real) < 0
    Hw = np.array([np.atleast_2d(H(1j * x))[0, 0] for x in w])
    assert np.max(np.abs((Hw - np.conj(Hw)) - S[:, 0, 0])) < 1e-5 * np.max(g)
    # coprime factors: stable, h = N / M, |M|^2 = 1 / (1 + |h|^2) (closed forms, no fit)
    Ac, Bc, CM, DM, CN = skew_coprime(H)
    assert np.max(np.linalg.eigvals(Ac).real) < 0
    for x, h in zip(w[::7], (Hw - np.conj(Hw))[::7], strict=True):
        R = np.linalg.solve(1j * x * np.eye(Ac.shape[0]) - Ac, Bc)
        m, n = (CM @ R + DM)[0, 0], (CN @ R)[0, 0]
        assert n / m == pytest.approx(h, rel=1e-8, abs=1e-12)
        assert abs(m) ** 2 == pytest.approx(1 / (1 + abs(h) ** 2), rel=1e-8)


def test_mixed_certificate_in_the_one_sided_form_used_by_the_fit():
    # mussv stores D = (I + G^2)^(1/4) Dl; the fit uses Dl and the one-sided condition
    # sigma_max((Dl M Dr^-1 / beta - j G)(I + G^2)^(-1/2)) <= 1, checked here directly
    rng = np.random.default_rng(3)
    blk = [(-2, 0), (-1, 0), (1, 1), (2, 1)]
    M = rng.normal(size=(6, 5, 6)) + 1j * rng.normal(size=(6, 5, 6))  # 5 = sum c, 6 = sum r
    res = rmb.mussv(M, blk, lower=False)
    from robustmb.analysis.mu_structure import hermitian_power
    from robustmb.analysis.mu_upper import expand_scalings

    for k in range(M.shape[0]):
        Gl = res.G[k]
        Dl = hermitian_power(Gl, -0.25) @ res.D[k]
        Dl_, Dr, _, Gm, _ = expand_scalings(blk, Dl, Gl)
        X = Dl_ @ M[k] @ np.linalg.inv(Dr) / res.upper[k] - 1j * Gm
        GhG = _cplx_ct(Gm) @ Gm
        lam, V = np.linalg.eigh(np.eye(GhG.shape[0]) + GhG)
        W = (V / np.sqrt(lam)) @ _cplx_ct(V)
        assert np.linalg.norm(X @ W, 2) <= 1 + 1e-6


def test_scaled_plant_is_the_scaled_closed_loop_channel_by_channel():
    # K-step plant: DL M DR^-1 diag(Mg, I) + beta [[Ng, 0], [0, 0]], at one frequency
    blocks = [("a", "real", 2, (1, 1)), ("b", "ultidyn", 1, (1, 2))]
    nw, nz = 1, 1
    blk, info = _rp_structure(blocks, nw, nz, mixed=True)
    assert blk == [(-2, 0), (1, 2), (1, 1)]
    nzd, nwd = 2 + 2, 2 + 1
    np.random.seed(2)  # control.rss draws from numpy's global generator
    M = control.rss(4, nzd + nz + 1, nwd + nw + 1)
    M = control.ss(M.A - 3 * np.eye(4), M.B, M.C, M.D)
    w = np.logspace(-1, 1, 30)
    N = np.array([M(1j * x) for x in w])[:, : nzd + nz, : nwd + nw]
    res = rmb.mussv(N, blk, lower=False)
    peak = float(np.max(res.upper))
    sc = _fit_scalings(w, res, info, peak, max_order=2, full_dg=True, weight=None)
    assert sc[0].T is not None and sc[1].T is None
    Ps = _scaled_plant(M, sc, peak, nz + 1, nw + 1)
    from scipy.linalg import block_diag

    x = 0.7
    DL = [sc[0].DL(1j * x), sc[1].DL(1j * x)]
    DRi = [sc[0].DRinv(1j * x), sc[1].DRinv(1j * x)]
    L = block_diag(*DL, np.eye(nz + 1))
    Ri = block_diag(*DRi, np.eye(nw + 1))
    MN = sc[0].T(1j * x)
    Mg, Ng = MN[:2], MN[2:]
    W = block_diag(Mg, np.eye(1 + nw + 1))
    NN = np.zeros((nzd + nz + 1, nwd + nw + 1), complex)
    NN[:2, :2] = Ng
    expect = L @ M(1j * x) @ Ri @ W + peak * NN
    assert np.abs(Ps(1j * x) - expect).max() <= 1e-8 * np.abs(expect).max()
    # the ultidyn block's D is a scalar on its 2 outputs and 1 input
    assert np.allclose(DL[1], DL[1][0, 0] * np.eye(2)) and np.allclose(DRi[1] * DL[1][0, 0], 1)
