"""mussv on block-upper-triangular complex matrices with mixed real and complex blocks.

``M = [[A, B], [0, C]]`` (random complex 2x2 blocks), two real scalars on the first two
channels and a 2x2 complex full block on the last two: a reducible matrix, on which the
Osborne balancing of the lower-bound search does not converge.  The lower bound must be
returned (possibly 0), lie below the upper bound, and its perturbation must have the
structure, norm ``1 / lower`` and make ``I - M Delta`` singular (numpy's SVD).
"""

import numpy as np
import pytest

import robustmb as rmb

BLK = [(-1, 0), (-1, 0), (2, 2)]


def _matrices(seed, count=40):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        a, b, c = (rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2)) for _ in "abc")
        out.append(np.block([[a, b], [np.zeros((2, 2)), c]]))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_block_triangular_lower_bound_is_a_valid_perturbation(seed):
    found = 0
    for m in _matrices(seed):
        res = rmb.mussv(m, BLK)
        assert 0.0 <= res.lower <= res.upper * (1 + 1e-12)
        if res.lower == 0:
            continue
        found += 1
        delta = np.asarray(res.delta)
        # the structure: real diagonal entries on the scalars, zero off the blocks
        assert np.allclose(delta[:2, :2], np.diag(np.diag(delta[:2, :2]).real), atol=0)
        assert not np.any(delta[:2, 2:]) and not np.any(delta[2:, :2])
        size = max(abs(delta[0, 0]), abs(delta[1, 1]), np.linalg.norm(delta[2:, 2:], 2))
        assert size == pytest.approx(1 / res.lower, rel=1e-9)
        smin = np.linalg.svd(np.eye(4) - m @ delta, compute_uv=False)[-1]
        assert smin <= 1e-8 * (1 + np.linalg.norm(m, 2) * size)
    # the upper bound of a random M is within a few percent of mu: most lower bounds are found
    assert found >= 30
