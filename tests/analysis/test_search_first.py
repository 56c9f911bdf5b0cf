"""All-real robstab: the direct parameter search runs before the real-mu lower bound.

Reference loop with a closed-form margin: ``L = K / (s (s + 1) (s / p + 1))`` in unit
negative feedback, characteristic polynomial ``s^3 / p + (1 + 1 / p) s^2 + s + K``, stable
(Routh-Hurwitz) iff ``K < p + 1``.  With ``K = 2 (1 + 0.5 d_K)`` and ``p = 5 (1 + 0.4 d_p)``
the boundary is first reached at the corner ``d_K = a, d_p = -a`` with
``a = (5 + 1 - 2) / (2 * 0.5 + 5 * 0.4) = 4 / 3``, at ``w^2 = K / (1 + 1 / p) = p``.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import robust_stability
from robustmb.analysis.mu_sweep import certified_mu_peak, peak_lower_search
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.errors import ArgumentError

EXACT = 4.0 / 3.0


def _loop():
    s = control.tf("s")
    k = rmb.ureal("K", 2.0, percent=50)
    p = rmb.ureal("p", 5.0, percent=40)
    lag = rmb.feedback(p * rmb.uss(control.ss(1 / s)), 1.0)  # p / (s + p)
    return rmb.feedback(k * rmb.uss(control.ss(1 / (s * (s + 1)))) @ lag, 1.0)


def _stable(kv, pv):
    """Routh-Hurwitz of s^3 / p + (1 + 1/p) s^2 + s + K, written out."""
    return pv > 0 and kv > 0 and (1 + 1 / pv) > kv / pv


def test_search_first_margin_is_exact_and_sound():
    res = rmb.robstab(_loop(), sensitivity=False)
    assert res.certified
    assert res.lower <= EXACT <= res.upper
    assert res.upper / res.lower - 1 <= 5e-3
    # the destabilising corner and its crossing frequency (w^2 = p there)
    v = res.destabilizing
    assert v["K"] == pytest.approx(2 * (1 + 0.5 * EXACT), rel=1e-6)
    assert v["p"] == pytest.approx(5 * (1 - 0.4 * EXACT), rel=1e-6)
    assert res.critical_frequency == pytest.approx(np.sqrt(v["p"]), rel=1e-5)
    # the reported mu lower bound is the search's crossing: det(I - M(jw) Delta) = 0,
    # with M(jw) formed here from the LFT data
    a, b, c, d = uncertain_problem(_loop()).m11
    w = res.mu.lower_frequency
    m = c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d
    delta = res.mu.lower_delta
    assert abs(np.linalg.det(np.eye(m.shape[0]) - m @ delta)) < 1e-6
    assert np.max(np.abs(delta)) == pytest.approx(1 / res.mu.lower)
    # sound: every loop in the box scaled by the certified margin is stable
    t = np.linspace(-1, 1, 41) * res.lower
    assert all(_stable(2 * (1 + 0.5 * x), 5 * (1 + 0.4 * y)) for x in t for y in t)


@pytest.mark.slow
def test_a_missed_worst_case_falls_back_to_the_mu_lower_bound(monkeypatch):
    # The first search returns a crossing along d = (1, 0) (at 4, not the worst case):
    # its fixed level is below the peak of mu, so the sweep must fall back to the free
    # one and the mu lower bound, and still close the gap on the exact margin.
    real = robust_stability._parameter_search
    calls = []

    def poor_first(problem, alpha_max, **kw):
        calls.append(alpha_max)
        if len(calls) == 1:
            a = robust_stability._crossing_scale(problem, {"K": 1.0, "p": 0.0}, alpha_max)
            return a, {"K": 1.0, "p": 0.0}
        return real(problem, alpha_max, **kw)

    monkeypatch.setattr(robust_stability, "_parameter_search", poor_first)
    res = rmb.robstab(_loop(), sensitivity=False)
    assert len(calls) == 2
    assert res.certified and res.lower <= EXACT <= res.upper
    assert res.upper / res.lower - 1 <= 5e-3
    assert res.upper == pytest.approx(EXACT, rel=1e-6)


def test_peak_lower_search_respects_its_floor():
    problem = uncertain_problem(_loop())
    peak = certified_mu_peak(problem.m11, problem.blk, lower=False)
    assert peak.lower == 0 and peak.lower_delta is None
    found = peak_lower_search(problem.m11, problem.blk, 0.0, peak)
    # a mu lower bound is the inverse of a destabilising scaling: at most 1 / margin
    assert 0 < found.lower <= 1 / EXACT * (1 + 1e-9)
    assert found.lower >= 0.99 / EXACT
    # nothing can beat a floor at the certified upper bound: the peak comes back as is
    assert peak_lower_search(problem.m11, problem.blk, 0.0, peak, floor=peak.upper) is peak


@pytest.mark.parametrize("bad", [-1e-3, np.nan, np.inf, "x"])
def test_gap_tol_is_checked(bad):
    with pytest.raises(ArgumentError, match="gap_tol"):
        rmb.robstab(_loop(), gap_tol=bad)


def _values_of(delta):
    """Physical K, p of a normalised Delta of the reference loop (channels by name)."""
    diag = np.real(np.diag(delta))
    vals = {bi.name: diag[bi.w][0] for bi in uncertain_problem(_loop()).blocks}
    return 2 * (1 + 0.5 * vals["K"]), 5 * (1 + 0.4 * vals["p"])


def test_reported_lower_delta_is_destabilising():
    res = rmb.robstab(_loop(), sensitivity=False)
    kv, pv = _values_of(res.mu.lower_delta)
    # hand-written characteristic polynomial: a pole on or beyond the axis
    roots = np.roots([1 / pv, 1 + 1 / pv, 1.0, kv])
    assert roots.real.max() >= -1e-9 * np.abs(roots).max()
    # and the eigenvalues of the substituted closed loop
    a = np.asarray(_loop().usubs({"K": kv, "p": pv}).A)
    ev = np.linalg.eigvals(a)
    assert ev.real.max() >= -1e-9 * np.abs(ev).max()
    assert not _stable(kv, pv) or kv == pytest.approx(pv + 1, rel=1e-12)
    # the bound is that of the verified values, which are the destabilising ones
    assert res.mu.lower == pytest.approx(1 / res.upper, rel=1e-12)
    assert res.destabilizing["K"] == pytest.approx(kv, rel=1e-12)


def test_search_lower_bound_is_in_the_pointwise_bounds():
    mu = rmb.robstab(_loop(), sensitivity=False).mu
    k = int(np.argmax(mu.mu_lower))
    assert mu.mu_lower[k] == mu.lower > 0
    assert mu.omega[k] == mu.lower_frequency
    assert np.all(mu.mu_upper >= mu.mu_lower)
    # mu at the crossing frequency from a brute-force scan of the corner direction:
    # the smallest scaling t of the worst corner Delta = t diag(1, -1) with
    # det(I - M(jw) Delta) = 0 is near 1 / mu_lower
    problem = uncertain_problem(_loop())
    a, b, c, d = problem.m11
    w = mu.omega[k]
    m = c @ np.linalg.solve(1j * w * np.eye(a.shape[0]) - a, b) + d
    direction = np.real(np.diag(mu.lower_delta)) * mu.lower
    ts = np.linspace(0.9, 1.1, 20001) / mu.lower
    dets = [abs(np.linalg.det(np.eye(len(m)) - t * m * direction[None, :])) for t in ts]
    assert ts[int(np.argmin(dets))] == pytest.approx(1 / mu.lower, rel=2e-3)


def test_bench_switch_is_a_keyword_of_the_analysis():
    from robustmb._progress import ProgressBar

    problem = uncertain_problem(_loop())
    bar = ProgressBar(3, "robstab", enabled=False)
    res = robust_stability._robstab(problem, None, False, bar, 5e-3, 0, search_first=False)
    assert res.lower <= EXACT <= res.upper
    assert not hasattr(robust_stability, "_SEARCH_FIRST")


def test_mu_plot_draws_the_search_lower_bound():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustmb import plotting

    res = rmb.robstab(_loop(), sensitivity=False)
    out = plotting.mu_bounds(res)
    try:
        assert out.lines["lower"]
        x, y = out.lines["lower"][0].get_data()
        assert res.mu.lower_frequency in x and res.mu.lower in y
    finally:
        plt.close(out.figure)
