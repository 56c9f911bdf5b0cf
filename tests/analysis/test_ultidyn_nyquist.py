"""The ``ultidyn`` interpolant of a destabilising value at the Nyquist frequency.

At ``w0 = +-pi/dt`` (``z = -1``) a stable system with real coefficients is real, so a
non-real value cannot be interpolated there; the all-pass built for it had a pole on
the unit circle (``|z| = 1`` to rounding: not stable).  The interpolant is now the real
static gain ``+-|delta|`` (the dominant term without its phase for a matrix).  Checked
against numpy's poles of the realisation and its value at ``z = -1``.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.uncertain_problem import ltidyn_interpolant

DT = 0.1
NYQUIST = np.pi / DT


def _poles(sys):
    return np.linalg.eigvals(np.asarray(sys.A)) if sys.nstates else np.zeros(0)


@pytest.mark.parametrize("value", [0.5j, -0.5j, 0.7 + 1e-3j, -0.69 + 0.099j, 0.3 - 0.4j])
@pytest.mark.parametrize("w0", [NYQUIST, -NYQUIST, NYQUIST * (1 - 1e-12)])
def test_scalar_value_at_the_nyquist_frequency_gives_a_stable_real_gain(value, w0):
    g = ltidyn_interpolant(np.array([[value]]), w0, DT)
    assert np.all(np.abs(_poles(g)) < 1 - 1e-6)  # the old all-pass: a pole at |z| = 1
    assert np.isrealobj(g.A) and np.isrealobj(g.D)
    at_minus_one = complex(np.atleast_2d(g(-1.0))[0, 0])
    sign = 1.0 if value.real >= 0 else -1.0
    assert at_minus_one == pytest.approx(sign * abs(value), abs=1e-14)


def test_matrix_value_at_the_nyquist_frequency():
    rng = np.random.default_rng(5)
    real = np.outer(rng.standard_normal(2), rng.standard_normal(3))
    for delta, expect in ((real + 0j, real), (-real + 0j, -real)):
        g = ltidyn_interpolant(delta, NYQUIST, DT)
        assert np.all(np.abs(_poles(g)) < 1)
        np.testing.assert_allclose(np.atleast_2d(g(-1.0)), expect, atol=1e-14)
    # a genuinely complex value: a real gain of the same norm, stable
    g = ltidyn_interpolant(1j * real, NYQUIST, DT)
    gain = np.atleast_2d(g(-1.0))
    assert np.all(np.abs(_poles(g)) < 1) and np.allclose(gain.imag, 0)
    assert np.linalg.norm(gain, 2) == pytest.approx(np.linalg.norm(real, 2), rel=1e-12)


def test_away_from_nyquist_the_all_pass_still_interpolates():
    w0 = 0.9 * NYQUIST
    g = ltidyn_interpolant(np.array([[0.3 - 0.4j]]), w0, DT)
    assert g.nstates == 1 and np.all(np.abs(_poles(g)) < 1)
    value = complex(np.atleast_2d(g(np.exp(1j * w0 * DT)))[0, 0])
    assert value == pytest.approx(0.3 - 0.4j, abs=1e-12)


def test_robstab_of_a_loop_critical_at_the_nyquist_frequency():
    # G(z) = 1/(z + 0.5) peaks at z = -1 (|G| = 2), so the ultidyn margin is exactly
    # 1/2 and its critical frequency pi/dt; the sensitivities were computed on
    # frequencies up to 1.25 pi/dt, beyond the axis (ArgumentError before)
    g = control.ss([[-0.5]], [[1.0]], [[1.0]], [[0.0]], DT)
    res = rmb.robstab(rmb.feedback(g, rmb.ultidyn("D", (1, 1))))
    assert res.lower <= 0.5 <= res.upper
    assert res.upper - res.lower < 1e-2
    assert np.isclose(res.critical_frequency, NYQUIST)
    assert 0.0 < res.sensitivity["D"] <= 1.0
