"""Exact re-check of stored whole-axis mu evidence (robustmb.analysis.frequency_certificate).

Independent references: the closed form of the bound at D = I, G = 0 (sigma_max),
a brute-force robust-stability grid of the real parameters (main loop theorem), and
the sweep's own lower bound (no re-check may certify below it).
"""

import numpy as np
import pytest

from robustmb.analysis.frequency_certificate import (
    bounds_at_scalings,
    check_frequency_certificate,
    complete_frequency_certificate,
    covering_subset,
    uncovered,
)
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.errors import ArgumentError, DimensionError

BLK = [(-1, 0), (-1, 0)]


def _data():
    # two lightly damped modes coupled through two real parameters
    a = np.array([[0, 1, 0, 0], [-4, -0.4, 1, 0], [0, 0, 0, 1], [1, 0, -25, -1.0]])
    b = np.array([[0, 0], [1, 0], [0, 0], [0, 1.0]])
    c = np.array([[1.0, 0.3, 0, 0], [0, 0, 2.0, 0.1]])
    return a, b, c, np.zeros((2, 2))


def _response(w):
    a, b, c, d = _data()
    return np.array([c @ np.linalg.solve(1j * x * np.eye(4) - a, b) + d for x in w])


@pytest.fixture(scope="module")
def evidence():
    """A sweep's evidence at a level 2 % above the certified peak (and its lower bound)."""
    peak = certified_mu_peak(_data(), BLK, lower=True)
    level = 1.02 * peak.upper
    sweep = certified_mu_peak(_data(), BLK, level=level, lower=False, relax=False)
    assert sweep.covered
    return level, peak.lower, peak.lower_frequency, sweep.omega, sweep.scalings


def test_stored_evidence_re_covers_the_axis(evidence):
    level, _, _, w, x = evidence
    chk = check_frequency_certificate(_data(), BLK, level, w, x)
    assert chk.covered and chk.gaps == []
    assert np.all(chk.bounds[[iv is not None for iv in chk.intervals]] <= level)


def test_no_level_below_the_lower_bound_is_re_certified(evidence):
    level, lower, _, w, x = evidence
    chk = check_frequency_certificate(_data(), BLK, 0.999 * lower, w, x)
    assert not chk.covered


def test_removing_a_point_of_the_smallest_cover_leaves_a_gap(evidence):
    level, _, _, w, x = evidence
    chk = check_frequency_certificate(_data(), BLK, level, w, x)
    keep = covering_subset(chk.intervals)
    assert len(keep) >= 2
    assert check_frequency_certificate(_data(), BLK, level, w[keep], x[keep]).covered
    for drop in range(len(keep)):
        sub = [k for j, k in enumerate(keep) if j != drop]
        gaps = check_frequency_certificate(_data(), BLK, level, w[sub], x[sub]).gaps
        assert gaps, f"cover still complete without point {drop}"


def test_perturbed_scaling_row_fails_the_replay(evidence):
    level, _, w_peak, w, x = evidence
    chk = check_frequency_certificate(_data(), BLK, level, w, x)
    keep = covering_subset(chk.intervals)
    ws, xs = w[keep], x[keep].copy()
    k = int(np.argmin([abs(np.log((v + 1e-9) / w_peak)) for v in ws]))  # the point at the peak
    xs[k] = 0.0  # D = I, G = 0: the bound becomes sigma_max(M(jw)) (closed form)
    sigma = np.linalg.norm(_response([ws[k]])[0], 2)
    assert sigma > level  # the real-parameter scalings were needed there
    beta, _, _ = bounds_at_scalings(_response([ws[k]]), BLK, xs[k : k + 1])
    assert beta[0] == pytest.approx(sigma, rel=1e-9)
    res = check_frequency_certificate(_data(), BLK, level, ws, xs)
    assert res.intervals[k] is None and not res.covered


def test_completion_closes_gaps_and_the_loop_is_robustly_stable(evidence):
    level, _, _, w, x = evidence
    w2, x2, chk = complete_frequency_certificate(_data(), BLK, level, w[:1], x[:1])
    assert chk.covered
    # main loop theorem: mu < level everywhere -> A + B diag(d) C Hurwitz for |d_i| < 1/level
    a, b, c, _ = _data()
    grid = np.linspace(-1 / level, 1 / level, 41) * (1 - 1e-9)
    worst = max(
        np.max(np.linalg.eigvals(a + b @ np.diag([d1, d2]) @ c).real) for d1 in grid for d2 in grid
    )
    assert worst < 0


def test_bad_inputs_are_named(evidence):
    level, _, _, w, x = evidence
    with pytest.raises(DimensionError, match="scalings"):
        check_frequency_certificate(_data(), BLK, level, w, x[:, :-1])
    with pytest.raises(ArgumentError, match="omega"):
        check_frequency_certificate(_data(), BLK, level, -w, x)
    with pytest.raises(ArgumentError, match="level"):
        check_frequency_certificate(_data(), BLK, 0.0, w, x)


def test_uncovered_and_cover_on_intervals():
    ivs = [(0.0, 1.0), (0.5, 3.0), (2.0, 2.5), (3.0, np.inf)]
    assert uncovered(ivs) == []
    assert covering_subset(ivs) == [0, 1, 3]
    assert uncovered([(0.0, 1.0), (1.5, np.inf)]) == [(1.0, 1.5)]
    assert uncovered([(0.1, np.inf)]) == [(0.0, 0.1)]
