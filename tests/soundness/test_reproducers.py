"""Minimal reproducers of false certificates and wrong numbers, each against brute force.

Every test computes its reference with numpy/scipy/slycot only (``_soundness_brute``)
and is marked ``xfail(strict=True)`` while the defect stands, so it turns into a
failure to remove the mark once the cause is fixed.
"""

import control
import numpy as np
import pytest
from _soundness_brute import boundary_pole, complex_disc_margin, grid_peak, unstable

import robustmb as rmb

s = control.tf("s")


def _companion(coeffs):
    """State matrix of the monic polynomial ``coeffs`` (highest power first)."""
    coeffs = np.asarray(coeffs, complex)
    n = len(coeffs) - 1
    a = np.zeros((n, n), complex)
    a[0] = -coeffs[1:] / coeffs[0]
    a[1:, :-1] = np.eye(n - 1)
    return a


def test_complex_nominal_in_a_feedback_loop():
    # 1 + c / (s + 1)^3 = 0  <=>  (s + 1)^3 + c = 0, c = 0.5 + 1j + delta, |delta| <= 1
    c = rmb.ucomplex("c", 0.5 + 1j, radius=1)
    res = rmb.robstab(rmb.feedback(c / (s + 1) ** 3, 1))
    a0 = _companion([1, 3, 3, 1 + 0.5 + 1j])
    e = np.zeros((3, 3), complex)
    e[0, 2] = -1.0  # d a / d c
    exact, _ = complex_disc_margin(a0, e)
    assert exact == pytest.approx(0.711, abs=1e-3)  # the brute-force value
    assert res.lower <= exact * (1 + 1e-6)


def test_complex_pole_crossing_frequency():
    # 1 / (s + 1 + c), c = 1j + 0.1 delta: pole -1 - c reaches the axis at c = -1 + 1j,
    # i.e. s = -1j (|omega| = 1), at |delta| = 10
    res = rmb.robstab(1 / (s + 1 + rmb.ucomplex("c", 1j, radius=0.1)))
    assert res.upper == pytest.approx(10.0, rel=1e-4)
    pole = -1 - res.destabilizing["c"]
    assert abs(pole.real) <= 1e-6
    # signed: a complex-coefficient loop has no conjugate twin pole
    assert res.critical_frequency == pytest.approx(pole.imag, rel=1e-3)


def test_destabilizing_mass_puts_a_pole_on_the_axis():
    # 1 / (m s^2 + s + 1), m in [0.25, 2]: stable for every m > 0; robstab reports a
    # destabilising m, which must then give a pole on the imaginary axis
    res = rmb.robstab(1 / (rmb.ureal("m", 1, range=(0.25, 2)) * s * s + s + 1))
    m = res.destabilizing["m"]
    a = np.array([[0.0, 1.0], [-1.0 / m, -1.0 / m]])  # m x'' + x' + x = u
    on, _ = boundary_pole(a)
    assert on, f"m = {m!r}: poles {np.linalg.eigvals(a)}"


def test_robgain_of_a_nominally_unstable_loop():
    # k / (s - 1) is unstable for every k: its peak gain is infinite at any scaling, so
    # no positive scaling keeps it below gamma and the certified lower bound must be 0
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    assert unstable(np.array([[1.0]]))
    res = rmb.robgain(k / (s - 1), 1.25)
    assert res.lower == 0.0


def test_robgain_ultidyn_upper_is_realised():
    # G = (1 + 0.5 d) / (s + 1): the peak gain at scaling alpha is 1 + 0.5 alpha (at
    # omega = 0 with d = alpha), so gamma = 2 is reached exactly at alpha = 2
    d = rmb.ultidyn("d", (1, 1))
    res = rmb.robgain((1 + 0.5 * d) / (s + 1), 2.0)
    one = np.ones((1, 1))
    g_at_2 = grid_peak(-one, one, 2 * one, 0 * one)[0]
    assert g_at_2 == pytest.approx(2.0, rel=1e-9)
    assert res.lower <= 2.0 * (1 + 1e-6)
    assert res.upper == pytest.approx(2.0, rel=1e-3)
