"""h2syn on a plant without states whose feedthrough no controller cancels: the message
quotes the residual in a form independent of the internal rescaling of the plant."""

import control
import pytest

import robustmb as rmb
from robustmb.errors import IllPosedError


@pytest.mark.parametrize("d11", [1e-9, 3.0])
def test_static_h2_residual_relative_to_d11(d11):
    # D12 = 0: no controller reaches z, the least residual is D11 itself
    P = control.ss([], [], [], [[d11, 0.0], [1.0, 0.0]])
    with pytest.raises(IllPosedError) as info:
        rmb.h2syn(P, 1, 1)
    msg = str(info.value)
    assert "is 1 times that of D11" in msg
    assert "1.07374" not in msg  # the residual of the plant rescaled by 2^30


def test_static_h2_residual_partial():
    # z = [w1 + u; w1], y = w1: u = -w1 cancels the first row only, residual 1 of sqrt(2)
    P = control.ss([], [], [], [[1.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(IllPosedError, match="is 0.707107 times that of D11"):
        rmb.h2syn(P, 1, 1)
