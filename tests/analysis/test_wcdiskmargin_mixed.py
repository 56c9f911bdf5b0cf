"""wcdiskmargin on loops with real parameters and dynamic (LTI) uncertainty together.

References: a brute-force pointwise worst case (numpy, independent of the mu machinery)
and the numbers MathWorks publishes for its ``wcdiskmargin`` reference example.
"""

import control
import numpy as np
import pytest

import robustmb as rmb


def _brute_force_worst_alpha(kmin, kmax, bound):
    """Worst disk margin (skew 0) of ``L = k (1 + D) / (s + 1)`` by a pointwise grid.

    For a fixed loop the disk margin is ``1 / max_w |S - 1/2| = 1 / max_w |1 - L| / |2 (1 + L)|``.
    A scalar LTI ``D`` with ``||D||_inf <= bound`` reaches any complex value of modulus
    ``<= bound`` at one frequency, so the worst case is the pointwise maximum over ``w``,
    ``k`` and the complex disk.  The grid maximum is below the true one: the value returned
    is at or above the true worst margin.
    """
    w = np.concatenate([[0.0], np.logspace(-3, 3, 3001)])
    k = np.linspace(kmin, kmax, 41)
    r = np.linspace(0.0, bound, 11)
    th = np.linspace(0.0, 2 * np.pi, 73)
    d = (r[:, None] * np.exp(1j * th)[None]).ravel()
    L = k[:, None, None] * (1 + d[None, :, None]) / (1j * w[None, None, :] + 1)
    return 1.0 / float(np.max(np.abs(1 - L) / np.abs(2 * (1 + L))))


@pytest.mark.slow
def test_real_and_ltidyn_together_against_brute_force():
    # Substituting only the real parameter at the box vertices left the LTI block
    # uncertain, and the margin estimate of that loop raised UncertainTypeError.
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, percent=10)
    D = rmb.ultidyn("D", (1, 1), bound=0.1)
    res = rmb.wcdiskmargin(k * (1 + D) / (s + 1), mode="siso")[0]
    reference = _brute_force_worst_alpha(0.9, 1.1, 0.1)
    assert 1.98 < reference < 2.0
    assert res.lower <= reference
    assert res.lower <= res.upper
    # the upper end is the margin of an actual member of the family
    assert abs(res.upper / reference - 1.0) < 1e-2
    assert set(res.worst) == {"k", "D"}


def test_real_and_ucomplex_together():
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, percent=10)
    c = rmb.ucomplex("c", 1.0, radius=0.1)
    res = rmb.wcdiskmargin(k * c / (s + 1))
    # a complex gain c is a constant D = c - 1 of modulus <= 0.1: the LTI family contains
    # this one, so the worst margin here is at or above the LTI one
    reference = _brute_force_worst_alpha(0.9, 1.1, 0.1)
    assert res.lower <= res.upper
    assert res.upper >= reference * (1 - 1e-3)
    assert set(res.worst) == {"k", "c"}


@pytest.mark.slow
def test_mathworks_wcdiskmargin_reference_example():
    # https://es.mathworks.com/help/robust/ref/wcdiskmargin.html (spinning body with an
    # uncertain rate p and input multiplicative ultidyn uncertainty).  Published for the
    # first channel: LowerBound 0.6147, UpperBound 0.6160, GainMargin [0.5298 1.8875].
    p = rmb.ureal("p", 10.0, percent=10)
    P = rmb.uss([[-0.2, p], [-p, -0.2]], np.eye(2), [[1.0, p], [-p, 1.0]], np.zeros((2, 2)))
    DEL = rmb.ultidyn("DEL", (2, 2), bound=0.1)
    L = P * (np.eye(2) + DEL) * np.array([[1.0, -2.0], [0.0, 1.0]])
    first = rmb.wcdiskmargin(L, mode="siso")[0]
    # MATLAB's upper end is the margin of a member of the family: the certified lower
    # bound cannot exceed it, and our worst member agrees with it
    assert first.lower <= 0.6160
    assert abs(first.upper - 0.6160) < 1e-3
    # MATLAB's lower bound (0.6147) is also below every member's margin
    assert first.upper >= 0.6147 - 1e-4
    assert first.lower > 0.5
