"""mussv on complex matrices: block sizes given as booleans are refused."""

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
