"""The level-set H-infinity test from a seed frequency, and the one-call eigen-decomposition.

A seed (SLICOT AB13DD's peak frequency inside ``hinfnorm``) only decides where the
iteration starts: a wrong seed must still give the certified norm.  References: the
unseeded iteration, SLICOT AB13DD at a tighter tolerance, and a dense grid.
"""

import control
import numpy as np
import pytest
import scipy.linalg
import slycot

from robustmb.analysis.balancing import eigenvectors, pole_bands
from robustmb.analysis.norms import h2norm, hinfnorm, peak_gain


def _ab13dd(G, tol=1e-12):
    A, B, C, D = (np.asarray(x, float) for x in (G.A, G.B, G.C, G.D))
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    dico = "D" if G.dt else "C"
    return slycot.ab13dd(dico, "I", "N", "D", n, m, p, A, np.eye(n), B, C, D, tol)[0]


@pytest.mark.parametrize("dt", [0.0, 0.05])
def test_any_seed_gives_the_certified_norm(dt):
    rng = np.random.default_rng(11)
    for trial in range(8):
        np.random.seed(trial)  # noqa: NPY002  (control.rss draws from the global generator)
        G = control.rss(int(rng.integers(2, 12)), 3, 2, strictly_proper=bool(trial % 2))
        if dt:
            G = control.c2d(G, dt)
        A, B, C, D = (np.asarray(x, float) for x in (G.A, G.B, G.C, G.D))
        plain = peak_gain(A, B, C, D, dt, tol=1e-9)
        top = np.pi if dt else 1e3
        for seed in (0.0, float(rng.uniform(0, top)), top):
            seeded = peak_gain(A, B, C, D, dt, tol=1e-9, seed=seed)
            assert seeded.upper >= plain.lower and plain.upper >= seeded.lower, (trial, seed)
            assert seeded.lower == pytest.approx(plain.lower, rel=2e-9), (trial, seed)
        ref = _ab13dd(G)
        gamma, fpeak = hinfnorm(G, tol=1e-9)
        assert ref * (1 - 2e-9) <= gamma <= ref * (1 + 1e-10), trial
        # attained at the reported frequency
        s = np.exp(1j * fpeak * dt) if dt else 1j * fpeak
        resp = C @ np.linalg.solve(s * np.eye(A.shape[0]) - A, B) + D
        assert np.linalg.norm(resp, 2) == pytest.approx(gamma, rel=1e-9), trial


def test_eigenvectors_match_scipy_and_pole_bands_are_unchanged():
    rng = np.random.default_rng(5)
    mats = [
        rng.standard_normal((9, 9)),
        rng.standard_normal((6, 6)) + 1j * rng.standard_normal((6, 6)),
        np.diag([1.0, 1.0, -2.0]),  # repeated eigenvalue
        np.array([[0.0, 1.0], [-1.0, 0.0]]),
    ]
    for A in mats:
        w, vl, vr = eigenvectors(A)
        w2, vl2, vr2 = scipy.linalg.eig(A, left=True, right=True)
        np.testing.assert_allclose(w, w2, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(A @ vr, vr * w, atol=1e-12)
        np.testing.assert_allclose(vl.conj().T @ A, w[:, None] * vl.conj().T, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(vr, axis=0), 1.0, rtol=1e-14)
        p, dist, band = pole_bands(A)
        assert np.all(band > 0) and np.allclose(np.sort_complex(p), np.sort_complex(w2))


def test_h2_with_repeated_poles_matches_the_gramian():
    # a repeated pole: left and right eigenvectors of one eigenvalue need not pair up
    A = np.diag([-1.0, -1.0, -2.0, -2.0])
    B = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, -1.0]])
    C = np.array([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    P = scipy.linalg.solve_continuous_lyapunov(A, -B @ B.T)
    assert h2norm((A, B, C, np.zeros((2, 2)))) == pytest.approx(
        np.sqrt(np.trace(C @ P @ C.T)), rel=1e-12
    )
