"""robstab on a frequency band against brute force over the band and closed forms.

The two-mass chain ``x1'' = -(k1 + k2) x1 + k2 x2 - (c1 + c2) x1' + c2 x2'``,
``x2'' = k2 (x1 - x2) + c2 (x1' - x2')`` with real ``k1``, ``c1``: its characteristic
polynomial is ``a(s) + k1 b(s) + c1 s b(s)`` with ``b = s^2 + c2 s + k2`` and
``a = b^2 - (c2 s + k2)^2``, so a pole at ``s = jW`` needs ``k1 + jW c1 = -a / b``: the
parameter values that put a pole at each frequency are explicit, and the band margin is
the smallest scaling of them over a dense grid of the band.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.frequency_band import _band_end_pole
from robustmb.analysis.occurrence_reduction import reduced_problem

K2, C2 = 1.0, 2e-4
KC, KH = 1.0, 0.5  # k1: centre, half width
CC, CH = 0.001, 0.002  # c1: centre, half width


def _two_masses():
    k1 = rmb.ureal("k1", KC, range=(KC - KH, KC + KH))
    c1 = rmb.ureal("c1", CC, range=(CC - CH, CC + CH))

    def amat(k, c):
        stiff = np.array([[k + K2, -K2], [-K2, K2]])
        damp = np.array([[c + C2, -C2], [-C2, C2]])
        return np.block([[np.zeros((2, 2)), np.eye(2)], [-stiff, -damp]])

    a0 = amat(0.0, 0.0)
    a = a0 + (amat(1.0, 0.0) - a0) * k1 + (amat(0.0, 1.0) - a0) * c1
    return rmb.uss(a, np.array([[0.0], [0.0], [0.0], [1.0]]), np.eye(1, 4), np.zeros((1, 1)))


def _brute_margin(band, n=400_001):
    """Smallest scaling of the ranges putting a pole at ``jW``, ``W`` on a dense grid of
    the band (``W = 0``: ``k1 = 0``, any ``c1``)."""
    w = np.linspace(band[0], band[1], n)
    w = w[w > 0]
    s = 1j * w
    b = s * s + C2 * s + K2
    q = -(b * b - (C2 * s + K2) ** 2) / b
    need = np.maximum(np.abs(q.real - KC) / KH, np.abs(q.imag / w - CC) / CH)
    best = float(need.min())
    return min(best, KC / KH) if band[0] == 0 else best


@pytest.fixture(scope="module")
def two_masses():
    return _two_masses()


@pytest.mark.parametrize("band", [(0.0, 10.0), (0.55, 0.7), (0.6, 0.7), (0.3, 0.5)])
def test_band_margin_brackets_the_brute_force_margin_tightly(two_masses, band):
    exact = _brute_margin(band)
    res = rmb.robstab(two_masses, band=band)
    assert res.certified
    # the grid minimum is above the true one by at most its spacing's effect
    assert res.lower <= exact * (1 + 1e-6)
    assert exact * (1 - 1e-5) <= res.upper <= exact * (1 + 1e-3)
    # the certificate is close to the crossing (whole-axis level or band level)
    assert res.lower >= 0.99 * exact
    assert band[0] <= res.critical_frequency <= band[1]


def test_crossing_at_a_band_end_is_reported_at_the_end(two_masses):
    # the margin over [0.6, 0.7] grows with W: its crossing is at the lower end
    band = (0.6, 0.7)
    res = rmb.robstab(two_masses, band=band)
    assert res.critical_frequency == pytest.approx(0.6, rel=1e-7)
    assert band[0] <= res.critical_frequency <= band[1]
    sys = two_masses.usubs(res.destabilizing)
    poles = np.linalg.eigvals(np.asarray(sys.A))
    # the destabilising values put a pole on (or just beyond) the axis near the end
    k = int(np.argmax(poles.real))
    assert poles[k].real >= -1e-12
    assert abs(abs(poles[k].imag) - 0.6) <= 1e-6


def test_band_crossing_with_another_unstable_pole_is_a_witness(two_masses):
    # over [1, 1.2] the margin is at W = 1.2 with k1 < 0: that loop also has a real
    # unstable pole (k1 = 0 is the static crossing, outside the band); the band asks
    # only for a pole at a frequency of it
    band = (1.0, 1.2)
    exact = _brute_margin(band)
    res = rmb.robstab(two_masses, band=band)
    assert res.lower <= exact * (1 + 1e-6)
    assert exact * (1 - 1e-5) <= res.upper <= exact * (1 + 1e-3)
    assert res.critical_frequency == pytest.approx(1.2, rel=1e-12)
    a = np.asarray(two_masses.usubs(res.destabilizing).A)
    smin = np.linalg.svd(1.2j * np.eye(4) - a, compute_uv=False)[-1]
    assert smin <= 1e-12 * np.linalg.norm(a, 1)


def test_band_away_from_the_only_axis_pole_has_no_witness():
    # 1 / (s^2 + c s + 1), c in [0, 2]: a pole on the axis only for c = 0, at w = 1;
    # bands missing w = 1 by 1e-9 have an infinite margin
    s = control.tf("s")
    for band in [(1 + 1e-9, 10.0), (1 + 5e-9, 10.0), (0.1, 1 - 1e-9)]:
        c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
        res = rmb.robstab(1 / (s * s + c * s + 1), band=band)
        assert res.upper == np.inf, band
        assert np.isnan(res.critical_frequency)
        assert res.destabilizing == {}
        assert "outside the band" in res.reason
        assert 0.99 <= res.lower <= res.upper
    # a band ending exactly at w = 1 has the margin 1, with the pole at its end
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    res = rmb.robstab(1 / (s * s + c * s + 1), band=(0.1, 1.0))
    assert res.upper == pytest.approx(1.0, rel=1e-6)
    assert 0.1 <= res.critical_frequency <= 1.0


def test_band_end_pole_is_decided_at_the_end_frequency_itself():
    s = control.tf("s")
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    problem, _ = reduced_problem(1 / (s * s + c * s + 1), "robstab")
    # c = 0: poles at +-j exactly; |det(jw I - A)| = |1 - w^2| elsewhere
    assert _band_end_pole(problem, {"c": 0.0}, 1.0)
    assert not _band_end_pole(problem, {"c": 0.0}, 1 + 1e-9)
    assert not _band_end_pole(problem, {"c": 0.0}, 1 - 1e-9)
    assert not _band_end_pole(problem, {"c": 1e-9}, 1.0)
