"""h2norm of models proved stable only by the verified inclusion or the exact test.

A pole within rounding of the boundary makes the Lyapunov operator ill-conditioned
beyond ``1 / eps``: the floating-point Gramian is then meaningless, and so is its own
error estimate.  Expected values are closed forms evaluated in rational arithmetic from
the stored floats.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import scipy.linalg

from robustmb.analysis import h2norm

B = np.array([[0.0], [1.0]])
C = np.array([[1.0, 0.0]])
D = np.zeros((1, 1))


def _exact(value_squared: Fraction) -> float:
    return float(value_squared) ** 0.5


@pytest.mark.parametrize("c", [1e-16, 1e-17])
def test_lightly_damped_oscillator(c):
    # 1 / (s^2 + c s + 1): ||G||_2^2 = 1 / (2 c) for the stored c
    A = np.array([[0.0, 1.0], [-1.0, -c]])
    # the pole is closer to the boundary than eps ||A||: the value is that of the stored
    # matrices, with a warning that rounding of the realisation sets it
    with pytest.warns(RuntimeWarning, match="rounding distance of the stability boundary"):
        value = h2norm((A, B, C, D))
    assert value == pytest.approx(_exact(1 / (2 * Fraction(c))), rel=1e-12)


def test_lightly_damped_fast_oscillator():
    # w0 / (s^2 + c s + w0^2): ||G||_2^2 = w0^2 / (2 c w0^2) = 1 / (2 c)
    A = np.array([[0.0, 1e3], [-1e3, -1e-17]])
    # the pole is closer to the boundary than eps ||A||: the value is that of the stored
    # matrices, with a warning that rounding of the realisation sets it
    with pytest.warns(RuntimeWarning, match="rounding distance of the stability boundary"):
        value = h2norm((A, B, C, D))
    assert value == pytest.approx(_exact(1 / (2 * Fraction(1e-17))), rel=1e-12)


def test_discrete_poles_one_ulp_inside_the_circle():
    # r / (z^2 + r^2): impulse response r (-r^2)^m at 2 m + 2, so ||G||_2^2 = r^2 / (1 - r^4)
    r = 1 - 2.0**-53
    A = r * np.array([[0.0, -1.0], [1.0, 0.0]])
    Bd = np.array([[1.0], [0.0]])
    Cd = np.array([[0.0, 1.0]])
    # the pole is closer to the boundary than eps ||A||: the value is that of the stored
    # matrices, with a warning that rounding of the realisation sets it
    with pytest.warns(RuntimeWarning, match="rounding distance of the stability boundary"):
        value = h2norm((A, Bd, Cd, D, 1.0))
    rf = Fraction(r)
    assert value == pytest.approx(_exact(rf**2 / (1 - rf**4)), rel=1e-12)


def test_too_many_states_for_the_exact_gramian_gives_inf_with_warning():
    # nine states (beyond the exact Gramian, within the exact stability test): the
    # oscillator's share, about 2e8, cannot be computed in floating point
    A = scipy.linalg.block_diag(
        np.array([[0.0, 1.0], [-1.0, -1e-17]]), -np.diag(np.arange(1.0, 8.0))
    )
    ones = np.ones((9, 1))
    with pytest.warns(RuntimeWarning, match="not computed to accuracy"):
        value = h2norm((A, ones, ones.T, D))
    assert value == np.inf


def test_well_damped_model_is_unaffected():
    # 1 / (s^2 + 0.5 s + 1): ||G||_2^2 = 1 / (2 * 0.5 * 1) = 1
    A = np.array([[0.0, 1.0], [-1.0, -0.5]])
    assert h2norm((A, B, C, D)) == pytest.approx(1.0, rel=1e-14)
