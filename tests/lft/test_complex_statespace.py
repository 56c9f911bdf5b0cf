"""ComplexStateSpace: matrices of inconsistent shapes are refused, naming the matrix."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError, UncertainTypeError
from robustmb.lft.complex_statespace import ComplexStateSpace


@pytest.mark.parametrize(
    ("mats", "bad"),
    [
        (([[-1.0, 0.0]], [[1.0]], [[1.0]], [[0.0]]), "A"),
        (([[-1.0]], [[1.0], [2.0]], [[1.0]], [[0.0]]), "B"),
        (([[-1.0]], [[1.0]], [[1.0, 2.0]], [[0.0]]), "C"),
        (([[-1.0]], [[1.0]], [[1.0]], [1.0]), "D"),
    ],
)
def test_inconsistent_shapes_are_refused(mats, bad):
    with pytest.raises(DimensionError, match=f"ComplexStateSpace: {bad} "):
        ComplexStateSpace(*mats)


def test_non_numeric_matrix_is_refused():
    with pytest.raises(UncertainTypeError, match="ComplexStateSpace: B"):
        ComplexStateSpace([[-1.0]], [["x"]], [[1.0]], [[0.0]])


def test_static_and_substituted_models_still_build():
    """No states (``A`` 0 x 0) and the models ``usubs`` returns for complex values."""
    G = ComplexStateSpace(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((1, 0)), [[1j, 2.0]])
    assert (G.nstates, G.noutputs, G.ninputs) == (0, 1, 2)
    np.testing.assert_array_equal(G(1j), [[1j, 2.0]])
    c = rmb.ucomplex("c", 1 + 1j, radius=0.5)
    H = rmb.uss([[-2.0]], [[1.0]], [[1.0]], [[0.0]]) * c
    Hc = H.usubs({"c": 2 - 1j})
    assert isinstance(Hc, ComplexStateSpace)
    # (2 - 1j) / (s + 2) at s = j
    assert complex(Hc(1j)[0, 0]) == pytest.approx((2 - 1j) / (1j + 2), rel=1e-12)
