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
    rng = np.random.default_rng(2)
    A = rng.normal(size=(4, 4))
    A -= (np.max(np.linalg.eigvals(A).real) + 1.0) * np.eye(4)
    ny, nu = nzd + nz + 1, nwd + nw + 1
    M = control.ss(A, rng.normal(size=(4, nu)), rng.normal(size=(ny, 4)), rng.normal(size=(ny, nu)))
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


def _real_parameter_plant():
    """Mass-spring-damper 1 / (s^2 + c s + k) with real c, k (each once), weighted S and KS."""
    k = rmb.ureal("k", 1.0, percent=40)
    c = rmb.ureal("c", 0.2, percent=50)
    integ = rmb.uss(control.tf([1.0], [1.0, 0.0]))
    G = rmb.feedback(integ * rmb.feedback(integ, c), k)
    Wp = rmb.uss(control.tf([0.3, 0.15], [1.0, 0.01]))
    Wu = rmb.uss(control.tf([0.1, 0.1], [0.01, 1.0]))
    Wout = rmb.vstack(rmb.hstack(Wp, 0.0), rmb.hstack(0.0, Wu), rmb.hstack(1.0, 0.0))
    # inputs [r; u], outputs [Wp e; Wu u; e] with e = r - G u
    return Wout * rmb.vstack(rmb.hstack(1.0, -G), rmb.hstack(0.0, 1.0))


@pytest.mark.slow
def test_dgk_on_real_parameters_is_certified_and_no_worse_than_complexified_dk():
    P = _real_parameter_plant()
    om = np.logspace(-2, 3, 50)
    dgk = rmb.musyn(P, 1, 1, max_iter=3, omega=om)
    dk = rmb.musyn(P, 1, 1, max_iter=3, omega=om, mixed_mu=False)
    assert dgk.blk == [(-1, 0), (-1, 0), (1, 2)] and dk.blk == [(1, 0), (1, 0), (1, 2)]
    # the certified robust performance of D,G-K is no worse than D-K's
    assert dgk.mu <= dk.mu * (1 + 1e-6)
    assert dgk.mu < 1
    # .mu is the whole-axis peak of the returned loop: recomputed on a dense grid from
    # the plant's frequency response and a matrix LFT (no closed-loop realisation)
    M, _ = rmb.lftdata(rmb.simplify(P))
    K = dgk.controller
    w = np.logspace(-3, 4, 1500)
    Nw = []
    for x in w:
        Mx, Kx = M(1j * x), np.atleast_2d(K(1j * x))
        P11, P12, P21, P22 = Mx[:-1, :-1], Mx[:-1, -1:], Mx[-1:, :-1], Mx[-1:, -1:]
        Nw.append(P11 + P12 @ Kx @ np.linalg.solve(np.eye(1) - P22 @ Kx, P21))
    dense = rmb.mussv(np.array(Nw), dgk.blk, lower=False)
    assert np.max(dense.upper) <= dgk.mu * (1 + 1e-6)
    assert np.max(dense.upper) >= dgk.mu / 1.02  # certified with a 1 % relative gap
    # brute force, no mu code: every sampled plant in the box (and its corners) is
    # stabilised with a gain from r to the weighted outputs below the certified bound
    samples, _ = P.usample(20, seed=4)
    corners = [P.usubs({"k": kv, "c": cv}) for kv in (0.6, 1.4) for cv in (0.1, 0.3)]
    wb = np.logspace(-3, 4, 600)
    for Ps in list(samples) + corners:
        cl = Ps.lft(K)
        assert np.max(cl.poles().real) < 0
        gain = max(np.linalg.norm(np.atleast_2d(cl(1j * x)), 2) for x in wb)
        assert gain <= dgk.mu * (1 + 1e-6)
