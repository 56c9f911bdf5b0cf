"""robstab on a discrete loop whose pole sits 1e-12 inside the unit circle at z = 1.

The branch and bound's probe of a sub-box at its parent's critical frequency (0 here)
evaluated M at a pole of the sub-box centre within rounding of z = 1 and raised
IllPosedError ("M[0] has non-finite entries").  An unbounded response fails the box at
that frequency instead.  Exact reference (rational arithmetic): the pole 1 - gap + k
reaches z = 1 at k = gap as the double 1 - gap stores it.
"""

from fractions import Fraction

import numpy as np
import pytest

import robustmb as rmb


@pytest.mark.parametrize("gap", [1e-12, 1e-13])
def test_a_pole_next_to_z_equal_one_gives_a_true_bracket(gap):
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    A = np.array([[1.0 - gap, 0.0], [0.0, 0.5]]) + k * np.array([[1.0, 0.0], [0.0, 0.0]])
    loop = rmb.uss(A, np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)), dt=0.1)
    res = rmb.robstab(loop, sensitivity=False)
    exact = float(Fraction(1) - Fraction(1.0 - gap))
    assert res.lower <= exact <= res.upper
    assert res.upper < 1.1 * exact
