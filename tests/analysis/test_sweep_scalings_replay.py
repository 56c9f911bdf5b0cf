"""The D,G parameters a fixed-level sweep hands out are those of its final certificates.

``certified_mu_peak(..., level=...)`` returns ``scalings``: one row of D,G parameters
per frequency.  Replayed through the exact re-check of
:func:`~robustmb.analysis.frequency_certificate.check_frequency_certificate` (no
optimisation, no completion step), they must re-cover the whole frequency axis, also
where the sweep replaced a certificate after the fact: the full re-optimisation of the
bounds next to a persistent gap (a level that mu nearly reaches, repeated real blocks),
and the certificates of the relaxed (complex) structure.

Independent references: a mu lower bound's perturbation, verified to put an eigenvalue
of ``A + B Delta C`` on the imaginary axis (so the level is within 0.5 % of mu), and a
brute-force grid of the real parameters for the main loop theorem (``mu < level`` on
the whole axis implies ``A + B Delta C`` Hurwitz for ``|delta_i| < 1 / level``).
"""

import numpy as np
import pytest

from robustmb.analysis.frequency_certificate import check_frequency_certificate
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.analysis.mu_upper import ScalingParametrization
from robustmb.analysis.mussv import mussv

BLK = [(-2, 0), (-1, 0)]  # a real scalar repeated twice, and a single real scalar


def _data(seed):
    """Three lightly damped modes (about 1, 3, 8 rad/s), mildly coupled; 3 real channels."""
    rng = np.random.default_rng(seed)
    a = np.zeros((6, 6))
    for k in range(3):
        w = (1.0, 3.0, 8.0)[k] * (1 + 0.3 * rng.random())
        a[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[0, 1], [-w * w, -0.15 * w]]
    a += 0.06 * rng.standard_normal((6, 6))
    b = rng.standard_normal((6, 3))
    c = rng.standard_normal((3, 6))
    return a, b, c, np.zeros((3, 3))


def _delta(d1, d2):
    return np.diag([d1, d1, d2])


def _hurwitz_on_grid(data, radius, n=21):
    a, b, c, _ = data
    grid = np.linspace(-radius, radius, n)
    worst = max(
        np.max(np.linalg.eigvals(a + b @ _delta(d1, d2) @ c).real) for d1 in grid for d2 in grid
    )
    return worst < 0


def _replay(data, level, **options):
    sweep = certified_mu_peak(data, BLK, level=level, lower=False, **options)
    assert sweep.covered
    assert sweep.scalings.shape == (len(sweep.omega), 10)
    return sweep, check_frequency_certificate(data, BLK, level, sweep.omega, sweep.scalings)


@pytest.mark.parametrize("level", [pytest.param(36.15, marks=pytest.mark.slow), 36.2])
def test_parameters_of_re_optimised_points_re_cover_the_axis(level):
    data = _data(5)
    a, b, c, _ = data
    # the level is within 0.5 % of mu: a verified destabilising perturbation of size
    # 1 / lower at 1.2511 rad/s, the peak (so the sweep re-optimises next to its gaps;
    # the unfixed sweep handed out the early-stopped parameters there, leaving a gap at
    # 1.246-1.251 rad/s)
    w0 = 1.2511271833784101
    m0 = c @ np.linalg.solve(1j * w0 * np.eye(6) - a, b)
    low = mussv(m0, BLK)
    assert level / 1.005 < low.lower < level
    delta = np.asarray(low.delta)
    assert np.allclose(delta, np.diag(np.diag(delta)))
    # a real structure on a complex M: the lower bound is the perturbation's, less the
    # 1e-8 (relative) mussv takes off where it cannot certify it in floating point
    assert np.max(np.abs(delta)) <= 1 / low.lower
    assert np.max(np.abs(delta)) == pytest.approx(1 / low.lower, rel=2e-8)
    eig = np.linalg.eigvals(a + b @ delta.real @ c)
    assert np.min(np.abs(eig - 1j * w0)) < 1e-6 * w0

    sweep, chk = _replay(data, level, relax=False)
    assert chk.covered and chk.gaps == []
    # every point's row gives a bound (a finite row) and the bounds used are below the level
    assert np.all(np.isfinite(sweep.scalings))
    assert chk.largest_bound <= level
    # the whole-axis claim, checked on the parameters themselves
    assert _hurwitz_on_grid(data, (1 - 1e-9) / level)


def test_parameters_of_relaxed_certificates_re_cover_the_axis():
    data = _data(3)
    # one refinement round, relaxed at once: the gap next to the 0.88 rad/s peak is
    # closed by complex-structure certificates (G = 0), handed out as rows of the real
    # structure (the unfixed sweep handed out NaN rows there)
    sweep, chk = _replay(data, 40.2, relax=True, max_rounds=1)
    assert len(sweep.relaxed) > 0
    assert chk.covered and chk.gaps == []
    at = np.isin(sweep.omega, sweep.relaxed)
    n_d = ScalingParametrization(BlockStructure(BLK)).n_d
    assert np.all(sweep.scalings[at][:, n_d:] == 0.0)  # the G parameters of the relaxed points
    assert _hurwitz_on_grid(data, (1 - 1e-9) / 40.2)
