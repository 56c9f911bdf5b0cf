"""mussv on complex matrices: hostile input (boolean block sizes, entries spanning the
range of doubles)."""

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import UncertainTypeError


@pytest.mark.parametrize(
    "blk", [[(True, 0)], [(1, 0), (True, True)], np.array([[True, False]]), [(np.bool_(1), 0)]]
)
def test_boolean_block_size_is_refused(blk):
    M = np.eye(2, dtype=complex)[: len(blk), : len(blk)] * (1 + 1j)
    with pytest.raises(UncertainTypeError, match="blk"):
        rmb.mussv(M, blk)


def test_integer_sizes_still_accepted():
    """A complex scalar on ``1 + 1j``: ``mu = |1 + 1j|``."""
    r = rmb.mussv(np.array([[1 + 1j]]), [(np.int64(1), 0)])
    assert r.upper == pytest.approx(np.sqrt(2), rel=1e-9)
    assert r.lower == pytest.approx(np.sqrt(2), rel=1e-9)


@pytest.mark.parametrize(
    ("M", "blk", "mu"),
    [
        (np.array([[1e-200j, 0], [1, 1e-200]]), [(-1, 0), (-1, 0)], 1e-200),
        (np.array([[1e-150, 1e150], [0, 1e-150j]]), [(-1, 0), (-1, 0)], 1e-150),
        (np.array([[1e-200j, 0], [1, 1e-200]]), [(-1, 0), (1, 0)], 1e-200),
    ],
)
def test_widely_scaled_complex_matrix_raises_no_floating_point_warning(M, blk, mu):
    """Triangular, so ``mu`` is the largest admissible ``|M_ii|``: 1e-200 (the real
    ``1e-200``, or the complex block's entry), 1e-150.  The real-block search overflowed
    on the balanced matrix and leaked numpy RuntimeWarnings; the bounds stay valid."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = rmb.mussv(M, blk)
    assert r.lower <= mu * (1 + 1e-12)
    assert r.upper >= mu * (1 - 1e-12)


@pytest.mark.parametrize("e", [1e-160, 1e-150, 1e-120])
@pytest.mark.parametrize("blk", [[(-1, 0), (-1, 0)], [(-1, 0), (1, 0)], [(1, 0), (1, 0)]])
def test_triangular_with_huge_coupling_gives_valid_bounds(e, blk):
    """``[[e, 1/e], [0, j e]]`` is triangular: ``mu = e`` for every structure here (the
    real block reads the real diagonal entry).  The lower-bound search's perturbation,
    mapped back through the balancing, overflowed and the SVD of its block norm raised
    ``LinAlgError`` (1e-150 and 1e-160); now it is dropped and the bound is 0 there."""
    M = np.array([[e, 1 / e], [0, 1j * e]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = rmb.mussv(M, blk)
    assert r.lower <= e * (1 + 1e-12)
    assert r.upper >= e * (1 - 1e-12)
