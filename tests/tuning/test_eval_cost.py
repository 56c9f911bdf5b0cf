"""The cheaper inner evaluation: each shortcut against the computation it replaces."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.balancing import _balanced_matrix, balance_realization, pole_bands
from robustmb.analysis.norms_stability import stability_verdict
from robustmb.tuning.gradients import hinf_gradient, hinf_peaks
from robustmb.tuning.level_set_core import (
    _pow2_transform,
    _sigma_max,
    balanced_peak_gradient,
    peak_gradient,
    poles,
)


def _graded(rng, n, m, p, *, triangular=False):
    """A stable ``(A, B, C, D = 0)`` with entries over twelve decades (balancing matters),
    upper triangular when asked (``dgebal`` then permutes)."""
    a = rng.standard_normal((n, n)) * 10.0 ** rng.integers(-6, 7, (n, n))
    if triangular:
        a = np.triu(a)
    a -= (np.max(np.linalg.eigvals(a).real) + 1.0) * np.eye(n)
    b = rng.standard_normal((n, m)) * 10.0 ** rng.integers(-3, 4, (n, 1))
    c = rng.standard_normal((p, n)) * 10.0 ** rng.integers(-3, 4, (1, n))
    return a, b, c, np.zeros((p, m))


@settings(max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), triangular=st.booleans())
def test_pow2_transform_is_the_balancing_and_its_change_of_coordinates(seed, triangular):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    a, b, c, _ = _graded(rng, n, 2, 3, triangular=triangular)
    (ab, bb, cb), (perm, scale, k) = _pow2_transform(a, b, c)
    # the same balancing as hinfnorm's (balance_realization), bit for bit
    ra, rb, rc = balance_realization(a, b, c)
    assert np.array_equal(ab, ra)
    assert np.array_equal(bb, np.ldexp(rb, k)) and np.array_equal(cb, np.ldexp(rc, -k))
    # and T = P diag(scale) is its change of coordinates: A T = T Ab, B = 2^-k T Bb, ...
    t = np.zeros((n, n))
    t[perm, np.arange(n)] = scale
    assert np.allclose(a @ t, t @ ab, rtol=1e-12, atol=1e-12 * np.abs(a).max() * scale.max())
    assert np.allclose(b, np.ldexp(t @ bb, -k), rtol=1e-12, atol=0)
    assert np.allclose(c @ t, np.ldexp(cb, k), rtol=1e-12, atol=0)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), triangular=st.booleans())
def test_balanced_peak_gradient_is_the_given_realisations_gradient(seed, triangular):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    a, b, c, d = _graded(rng, n, 2, 3, triangular=triangular)
    bal, t = _pow2_transform(a, b, c)
    w = float(10.0 ** rng.uniform(-2, 2))
    sv, g = balanced_peak_gradient(bal, t, d, w)
    ref_sv, ref_g = peak_gradient(a, b, c, d, 0.0, w)
    # the response by LU on the given and on the balanced realisation: the same G(jw)
    assert abs(sv - ref_sv) <= 1e-8 * ref_sv
    assert np.allclose(g, ref_g, rtol=1e-6, atol=1e-8 * np.abs(ref_g).max())


def test_balanced_peak_gradient_against_finite_differences():
    # sigma_max of a 2x2 response at a fixed frequency, a simple singular value
    # a loop balancing rescales (diagonal similarity of condition 1e3)
    rng = np.random.default_rng(3)
    t0 = np.diag([1.0, 10.0, 100.0, 0.1])
    a0 = rng.standard_normal((4, 4))
    a0 -= (np.max(np.linalg.eigvals(a0).real) + 0.5) * np.eye(4)
    a = t0 @ a0 @ np.linalg.inv(t0)
    b, c = t0 @ rng.standard_normal((4, 2)), rng.standard_normal((2, 4)) @ np.linalg.inv(t0)
    d = rng.standard_normal((2, 2))
    w = 0.8
    sv, g = balanced_peak_gradient(*_pow2_transform(a, b, c), d, w)
    s = np.block([[a, b], [c, d]])
    n = a.shape[0]

    def sigma(s):
        r = s[n:, :n] @ np.linalg.solve(1j * w * np.eye(n) - s[:n, :n], s[:n, n:]) + s[n:, n:]
        return np.linalg.svd(r, compute_uv=False)[0]

    fd = np.zeros_like(s)
    for i in range(s.shape[0]):
        for j in range(s.shape[1]):
            h = 1e-6 * max(abs(s[i, j]), 1e-2)
            e = np.zeros_like(s)
            e[i, j] = h
            fd[i, j] = (sigma(s + e) - sigma(s - e)) / (2 * h)
    assert abs(sv - sigma(s)) <= 1e-12 * sv
    assert np.allclose(g, fd, rtol=1e-5, atol=1e-7 * np.abs(fd).max())


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31 - 1), p=st.integers(1, 9), m=st.integers(1, 9))
def test_sigma_max_of_a_stack_against_the_svd(seed, p, m):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 40))
    g = rng.standard_normal((k, p, m)) + 1j * rng.standard_normal((k, p, m))
    g *= 10.0 ** rng.integers(-8, 9, (k, 1, 1))
    g[0] *= 0.0  # a zero response
    ref = np.array([np.linalg.svd(x, compute_uv=False)[0] for x in g])
    got = _sigma_max(g)
    assert got.shape == (k,)
    assert np.all(np.abs(got - ref) <= 1e-13 * ref)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), triangular=st.booleans())
def test_pole_bands_balancing_is_scipys(seed, triangular):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 10))
    a = _graded(rng, n, 1, 1, triangular=triangular)[0]
    if n > 2:
        a[int(rng.integers(n))] = 0.0  # an isolated eigenvalue: dgebal permutes
    assert np.array_equal(_balanced_matrix(a), sla.matrix_balance(a, permute=True)[0])
    got, ref = pole_bands(a), pole_bands(sla.matrix_balance(a, permute=True)[0], balanced=True)
    assert all(np.array_equal(x, y) for x, y in zip(got, ref, strict=True))


def test_hinf_peaks_with_the_callers_peak_equals_its_own():
    # two lightly damped modes of nearly equal peak gain (the multi-peak set has both)
    a = np.diag([-0.1, -0.1, -1.0, -1.0]) + np.diag([1.0, 0, 10.0], 1)
    a -= np.diag([1.0, 0, 10.0], -1)
    b = np.array([[0.0], [0.5], [0.0], [5.0]])
    c = np.array([[0.0, 1.0, 0.0, 1.0]])
    d = np.zeros((1, 1))
    g, w, grad = hinf_gradient(a, b, c, d)
    own = hinf_peaks(a, b, c, d, g, w)
    given_peak = hinf_peaks(a, b, c, d, g, w, peak=(g, grad))
    assert given_peak[0][0] == g and np.array_equal(given_peak[2][0], grad)
    ref = peak_gradient(a, b, c, d, 0.0, w)
    assert abs(own[0][0] - ref[0]) <= 1e-12 * ref[0]
    assert np.allclose(own[2][0], grad, rtol=1e-8, atol=1e-12)
    assert np.allclose(own[1], given_peak[1]) and np.allclose(own[0][1:], given_peak[0][1:])


@settings(max_examples=60)
@given(seed=st.integers(0, 2**31 - 1), margin=st.sampled_from([-1e-2, -1e-6, -1e-12, 1e-9]))
def test_band_verdict_from_the_given_poles_as_from_the_balanced_ones(seed, margin):
    # the inner evaluation passes the given A's poles (memo of the objective's stability
    # test) to hinfnorm's band test on the balanced A: the same verdict as with the
    # balanced A's own poles, near the axis too
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 8))
    a, b, c, _ = _graded(rng, n, 1, 1)
    a += (margin * np.abs(a).max() - np.max(np.linalg.eigvals(a).real)) * np.eye(n)
    ab = _pow2_transform(a, b, c)[0][0]
    got = stability_verdict(ab, 0.0, raw=a, poles=poles(a), verify=False)[0]
    ref = stability_verdict(ab, 0.0, raw=a, poles=np.linalg.eigvals(ab), verify=False)[0]
    assert got == ref
