"""The cheaper inner evaluation: each shortcut against the computation it replaces."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.balancing import _balanced_matrix, pole_bands
from robustmb.analysis.norms_stability import stability_verdict
from robustmb.tuning.level_set_core import _pow2_balanced, poles


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
def test_pole_bands_balancing_is_scipys(seed, triangular):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 10))
    a = _graded(rng, n, 1, 1, triangular=triangular)[0]
    if n > 2:
        a[int(rng.integers(n))] = 0.0  # an isolated eigenvalue: dgebal permutes
    assert np.array_equal(_balanced_matrix(a), sla.matrix_balance(a, permute=True)[0])
    got, ref = pole_bands(a), pole_bands(sla.matrix_balance(a, permute=True)[0], balanced=True)
    assert all(np.array_equal(x, y) for x, y in zip(got, ref, strict=True))


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
    ab = _pow2_balanced(a, b, c)[0]
    got = stability_verdict(ab, 0.0, raw=a, poles=poles(a), verify=False)[0]
    ref = stability_verdict(ab, 0.0, raw=a, poles=np.linalg.eigvals(ab), verify=False)[0]
    assert got == ref
