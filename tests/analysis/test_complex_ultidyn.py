"""``ultidyn`` witnesses at negative frequencies (models with complex coefficients).

An ``ultidyn`` is a stable LTI system with real coefficients, so its value at ``-j w`` is
the conjugate of its value at ``j w``.  On a model with complex coefficients the worst
frequency can be negative; the witness that robstab / wcgain return must still be stable,
take the required value there, and keep its peak gain.  References: numpy evaluation of
the realisation, its eigenvalues, and the closed-loop poles by numpy.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.uncertain_problem import ltidyn_interpolant


def _value(G, x):
    A, B, C, D = (np.asarray(m, dtype=complex) for m in (G.A, G.B, G.C, G.D))
    if A.shape[0] == 0:
        return D
    return C @ np.linalg.solve(x * np.eye(A.shape[0]) - A, B) + D


@pytest.mark.parametrize("dt", [0, 0.1])
@pytest.mark.parametrize("w0", [-1.3, -0.2, -25.0])
def test_interpolant_at_negative_frequency_is_stable_and_exact(w0, dt):
    if dt and abs(w0) * dt >= np.pi:
        w0 = -0.9 * np.pi / dt
    delta = np.array([[0.3 - 0.4j, 0.1j], [-0.2 + 0.1j, 0.05]])
    G = ltidyn_interpolant(delta, w0, dt)
    x = np.exp(1j * w0 * dt) if dt else 1j * w0
    u, s, vh = np.linalg.svd(delta)
    rank_one = s[0] * np.outer(u[:, 0], vh[0])
    np.testing.assert_allclose(_value(G, x), rank_one, atol=1e-12)
    poles = np.linalg.eigvals(np.asarray(G.A)) if G.nstates else np.zeros(0)
    if dt:
        assert np.all(np.abs(poles) < 1)
    else:
        assert np.all(poles.real < 0)
    grid = np.linspace(-np.pi / (dt or 1.0), np.pi / (dt or 1.0), 801)
    pts = np.exp(1j * grid * dt) if dt else 1j * 10.0 ** np.linspace(-3, 3, 801)
    peak = max(np.linalg.norm(_value(G, p), 2) for p in pts)
    assert peak == pytest.approx(s[0], rel=1e-9)


def test_robstab_ultidyn_witness_at_negative_frequency_is_stable():
    """``1 + 2 P c (1 + d) = 0`` with ``c ~ 0.5 + 0.5 j``: the crossing is at ``w < 0``.

    Before, the all-pass built for ``w0 < 0`` had its pole at ``+0.83`` (an unstable
    ``ultidyn``) and the reported critical frequency was ``-0.0836`` rad/s; the brute
    force over the axis puts it at ``-1.37`` rad/s.
    """
    c0 = 0.5 + 0.5j
    c = rmb.ucomplex("c", c0, radius=1e-3)
    d = rmb.ultidyn("d", (1, 1), bound=0.3)
    P = control.tf([1], [1, 1, 1])
    T = rmb.feedback(P * c * 2.0 * (1 + d), 1)
    r = rmb.robstab(T)
    # brute force: the smallest |d| / 0.3 with c at c0 (c's radius is tiny)
    w = np.linspace(-20, 20, 400001)
    Pw = 1 / ((1j * w) ** 2 + 1j * w + 1)
    need = np.abs(-1 / (2 * Pw * c0) - 1) / 0.3
    w_ref = w[np.argmin(need)]
    assert r.lower <= np.min(need) * (1 + 1e-3)
    assert r.critical_frequency == pytest.approx(w_ref, abs=0.05)
    D = r.destabilizing["d"]
    if isinstance(D, control.StateSpace) and D.nstates:
        assert np.all(np.linalg.eigvals(D.A).real < 0)
    Tw = T.usubs(r.destabilizing)
    ev = np.linalg.eigvals(np.asarray(Tw.A))
    k = np.argmin(np.abs(ev - 1j * r.critical_frequency))
    assert abs(ev[k] - 1j * r.critical_frequency) < 1e-6
    assert np.max(ev.real) < 1e-6


def test_wcgain_ultidyn_worst_case_at_negative_frequency():
    """The worst gain peaks at ``w ~ -1.37``; before, the worst ``d`` built there was
    unstable (pole ``+0.75``) and wcgain reported ``lower = upper = inf`` as certified.

    Brute force: the closed-loop gain over ``c`` on its disc and ``d`` on the circle
    ``|d| = 0.1`` (a constant ``d`` per frequency, which a stable all-pass realises).
    """
    c0 = 0.5 + 0.5j
    c = rmb.ucomplex("c", c0, radius=1e-3)
    d = rmb.ultidyn("d", (1, 1), bound=0.1)
    P = control.tf([1], [1, 1, 1])
    T = rmb.feedback(P * c * 2.0 * (1 + d), 1)
    g = rmb.wcgain(T)
    w = np.linspace(-1.45, -1.3, 1501)
    Pw = 1 / ((1j * w) ** 2 + 1j * w + 1)
    ref = 0.0
    for t in np.linspace(0, 2 * np.pi, 181):
        for t2 in np.linspace(0, 2 * np.pi, 37):
            L = 2 * Pw * (c0 + 1e-3 * np.exp(1j * t2)) * (1 + 0.1 * np.exp(1j * t))
            ref = max(ref, float(np.abs(L / (1 + L)).max()))
    assert np.isfinite(g.lower)
    assert g.lower == pytest.approx(ref, rel=2e-3)
    assert g.upper >= ref
    assert g.critical_frequency == pytest.approx(-1.37, abs=0.03)
    D = g.worst["d"]
    if isinstance(D, control.StateSpace) and D.nstates:
        assert np.all(np.linalg.eigvals(D.A).real < 0)
