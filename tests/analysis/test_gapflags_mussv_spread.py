"""mussv upper bound of a block-triangular matrix whose D scalings must spread far
beyond e^80: for M = [[e, 1/e], [0, j e]] and two 1 x 1 complex blocks,
det(I - M Delta) = (1 - e d1)(1 - j e d2), so mu(M) = e exactly."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.mussv import verify_upper_bound


@pytest.mark.parametrize("e", [1e-20, 1e-30, 1e-40])
def test_triangular_upper_reaches_mu(e):
    M = np.array([[e, 1 / e], [0.0, 1j * e]])
    res = rmb.mussv(M, [(1, 0), (1, 0)])
    # was 0.625 at e = 1e-30 (6e9 at 1e-40): the scalings were capped at a spread e^108
    assert e * (1 - 1e-12) <= res.lower <= res.upper <= e * (1 + 1e-9)
    assert verify_upper_bound(M, [(1, 0), (1, 0)], res.upper, res.D, res.G)
    # the destabilising perturbation is in the structure, of size 1 / lower
    d = np.asarray(res.delta)
    assert abs(np.linalg.det(np.eye(2) - M @ d)) < 1e-9


def test_triangular_real_blocks():
    e = 1e-30
    M = np.array([[e, 1 / e], [0.0, -2 * e]])
    res = rmb.mussv(M, [(-1, 0), (-1, 0)])
    assert 2 * e * (1 - 1e-9) <= res.upper <= 2 * e * (1 + 1e-9)
