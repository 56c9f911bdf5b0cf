"""Vectorised sampling of ``ultidyn``: each sample equals the substitution of its values.

The reference is ``usubs`` (an upper LFT built per sample, no shared code with
the batched closing) evaluated on a frequency grid.
"""

import control
import numpy as np
import pytest

import robustmb as rmb


def _model(dt):
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    D = rmb.ultidyn("D", (1, 2), bound=0.3)
    base = control.tf([0.5], [1.0, 0.2], dt) if dt else control.tf([1.0], [1.0, 2.0])
    G = rmb.uss(control.ss(base) * np.ones((2, 2)))
    W = rmb.uss(a * np.eye(2))
    # D enters twice (two occurrences), a three times: repeated and mixed blocks.
    return G @ (W + rmb.vstack([D, D])) + rmb.vstack([D, a * D])


@pytest.mark.parametrize("dt", [0, 0.1])
def test_samples_equal_substitution_of_their_values(dt):
    P = _model(dt)
    samples, values = P.usample(6, seed=4)
    assert len(samples) == len(values) == 6
    w = np.array([0.05, 0.7, 3.0])
    pts = np.exp(1j * w * dt) if dt else 1j * w
    for smp, val in zip(samples, values, strict=True):
        ref = P.usubs(val)
        for p in pts:
            np.testing.assert_allclose(
                np.asarray(smp(p)), np.asarray(ref(p)), rtol=1e-10, atol=1e-12
            )


@pytest.mark.parametrize("dt", [0, 0.1])
def test_ltidyn_samples_are_stable_within_bound(dt):
    P = rmb.uss(rmb.ultidyn("D", (2, 3), bound=0.3))
    if dt:
        P.dt = dt
    samples, values = P.usample(50, seed=1)
    for smp, val in zip(samples, values, strict=True):
        d = val["D"]
        assert isinstance(d, control.StateSpace) and d.dt == dt
        poles = d.poles()
        assert np.all(np.abs(poles) < 1) if dt else np.all(poles.real < 0)
        # All-pass times a contraction: the gain is the same at every frequency.
        w = np.geomspace(1e-3, 1e3, 7) if not dt else np.linspace(0.01, 3.1, 7) / dt
        pts = np.exp(1j * w * dt) if dt else 1j * w
        gains = [np.linalg.norm(np.asarray(d(p)), 2) for p in pts]
        assert max(gains) <= 0.3 * (1 + 1e-12)
        assert np.ptp(gains) <= 1e-10
        np.testing.assert_allclose(np.asarray(smp(pts[0])), np.asarray(d(pts[0])), atol=1e-13)


@pytest.mark.parametrize("shape", [(1, 2), (2, 1)])
def test_a_scalar_after_a_non_square_block_is_sampled_on_its_own_channels(shape):
    # After a non-square ultidyn the scalar's w and z channel indices differ; the
    # reference is the closed form E(s) [G; 2] + k G (or 2 + E k), built by hand.
    E = rmb.ultidyn("E", shape, bound=0.5)
    k = rmb.ureal("k", 3.0, range=(2.0, 4.0))
    G = control.tf(1, [1, 1])
    X = E @ rmb.vstack(G, 2.0) + k * G if shape == (1, 2) else 2.0 + E * k
    assert list(X.blocks) == ["E", "k"]
    samples, values = rmb.usample(X, 3, seed=0)
    for smp, val in zip(samples, values, strict=True):
        for w in (0.0, 1.0, 5.0):
            s = 1j * w
            e = np.asarray(val["E"](s)).reshape(shape)
            if shape == (1, 2):
                hand = e @ np.array([[1 / (s + 1)], [2.0]]) + val["k"] / (s + 1)
            else:
                hand = 2.0 + e * val["k"]
            np.testing.assert_allclose(np.asarray(smp(s)).reshape(hand.shape), hand, rtol=1e-12)
