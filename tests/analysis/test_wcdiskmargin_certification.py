"""Certification of wcdiskmargin's lower bound: found whenever a level is certifiable.

The reference margins are exact closed forms: for skew 0 and ``L = N/D`` the disk margin is
``1 / sup_w |S(jw) - 1/2| = 1 / sup_w |D - N| / (2 |D + N|)`` (Seiler, Packard & Gahinet
2020), whose peak lies at w = 0, at w -> inf or at a real root of the derivative of the
rational function ``|D - N|^2 / |D + N|^2`` of ``w``.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import worst_case_disk_margin as wcdm

s = control.tf("s")


def _on_axis(p):
    """Coefficients (in w) of ``|p(jw)|^2`` for a real polynomial ``p`` in s."""
    n = len(p) - 1
    pj = np.array([c * (1j) ** (n - i) for i, c in enumerate(p)])
    return np.real(np.polymul(pj, np.conj(pj)))


def _exact_disk_margin(num, den):
    """Skew-0 disk margin of ``num/den`` from the stationary points of ``|S - 1/2|^2``."""
    p, q = np.polysub(den, num), np.polyadd(den, num)
    if np.any(np.roots(q).real >= 0):
        return 0.0
    P, Q = _on_axis(p), _on_axis(q)
    R = np.polysub(np.polymul(np.polyder(P), Q), np.polymul(P, np.polyder(Q)))
    roots = np.roots(np.trim_zeros(R, "f"))
    w = roots.real[(np.abs(roots.imag) <= 1e-8 * (1 + np.abs(roots))) & (roots.real > 0)]
    values = [np.polyval(P, 0.0) / np.polyval(Q, 0.0)]
    values += list(np.polyval(P, w) / np.polyval(Q, w))
    # w -> inf: ratio of the leading coefficients when the degrees agree, else 0 or inf.
    P, Q = np.trim_zeros(P, "f"), np.trim_zeros(Q, "f")
    values.append(P[0] / Q[0] if len(P) == len(Q) else (0.0 if len(P) < len(Q) else np.inf))
    return 1.0 / (0.5 * np.sqrt(max(values)))


def test_exact_disk_margin_reference_matches_known_values():
    # k/s: margin 2 for every k; 2/(s+1): S - 1/2 = (1 - s)/(2 (s + 3)) peaks 1/2 at infinity.
    assert _exact_disk_margin([3.0], [1.0, 0.0]) == pytest.approx(2.0, rel=1e-12)
    assert _exact_disk_margin([2.0], [1.0, 1.0]) == pytest.approx(2.0, rel=1e-12)
    # A loop with an interior peak, against robustmb's diskmargin (hinfnorm-based).
    num, den = [6.0], np.polymul(np.polymul([1, 1], [1, 1.5]), [0.2, 1])
    ref = _exact_disk_margin(num, den)
    assert rmb.diskmargin(control.tf(num, den)).upper == pytest.approx(ref, rel=1e-8)


def test_repeated_gain_loop_gets_a_certified_lower_bound():
    # L = 6k/((s+1)(s+k)(0.2s+1)), k in [0.5, 2], is robustly stable: the certificate
    # exists (the worst case is near k = 1.95, margin 0.3683).
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    L = k * 6 / ((s + 1) * (s + k) * (0.2 * s + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rmb.wcdiskmargin(L)
    ks = np.linspace(0.5, 2.0, 301)
    margins = [
        _exact_disk_margin([6.0 * x], np.polymul(np.polymul([1, 1], [1, x]), [0.2, 1])) for x in ks
    ]
    brute = min(margins)
    assert res.certified
    # Certified and below every sampled margin; reached 0.3632 (brute force 0.368313).
    assert 0.36 < res.lower <= brute
    assert res.lower <= res.upper
    assert res.upper == pytest.approx(brute, rel=1e-3)
    # Within the documented factor of the pointwise level (lower * 1.02 above brute).
    assert res.lower * (1 + 2 * wcdm._WC_REL_GAP) ** 2 >= brute


def _search(monkeypatch, threshold, levels, refined=0.0):
    """``_certified_level`` against a fake certificate: every ``beta >= threshold`` passes.

    The refined pointwise levels are all ``refined``.
    """
    calls = []

    def fake(M, nz, blk, dt, beta):
        calls.append(beta)
        return (True, None) if beta >= threshold else (False, np.array([1.5]))

    monkeypatch.setattr(wcdm, "_certifies", fake)
    monkeypatch.setattr(wcdm, "_response", lambda M, w, dt: w)
    monkeypatch.setattr(wcdm, "_worst_case_levels", lambda w, *args: np.full(len(w), refined))
    problem = type("P", (), {"nz": 1, "nw": 1, "dt": 0.0})()
    beta = wcdm._certified_level(None, problem, None, np.array([1.0, 2.0]), np.asarray(levels))
    return beta, calls


def test_level_search_doubles_then_bisects_back(monkeypatch):
    # First trial 1.02 fails; doublings reach 4.08 (first pass above 2.5); the bisection
    # ends with a passing level within 1.02 of a failing one, hence of the threshold.
    beta, calls = _search(monkeypatch, 2.5, [1.0, 0.5])
    slack = 1 + 2 * wcdm._WC_REL_GAP
    assert 2.5 <= beta <= 2.5 * slack
    assert len(calls) <= 1 + wcdm._WC_DOUBLINGS + wcdm._WC_BISECTIONS
    # Every level tried below the threshold failed and the result is one that passed.
    assert beta in calls


def test_level_search_refines_the_pointwise_level_first(monkeypatch):
    # The grid missed the peak: the refined level 2.45 (x 1.02 = 2.499) still fails, the
    # second refinement gives nothing new, doublings and bisection follow.
    beta, calls = _search(monkeypatch, 2.5, [1.0, 0.5], refined=2.45)
    slack = 1 + 2 * wcdm._WC_REL_GAP
    assert calls[:2] == pytest.approx([slack, 2.45 * slack])
    assert calls[2] == pytest.approx(2 * 2.45 * slack)
    assert 2.5 <= beta <= 2.5 * slack
    # A refinement that explains the failure is certified at once.
    beta, calls = _search(monkeypatch, 2.5, [1.0, 0.5], refined=2.46)
    assert calls == pytest.approx([slack, 2.46 * slack])
    assert beta == pytest.approx(2.46 * slack)


def test_level_search_first_trial_passes(monkeypatch):
    beta, calls = _search(monkeypatch, 1.0, [1.0, 0.5])
    assert beta == pytest.approx(1.0 + 2 * wcdm._WC_REL_GAP)
    assert len(calls) == 1


def test_level_search_gives_up(monkeypatch):
    beta, calls = _search(monkeypatch, np.inf, [1.0, 0.5])
    assert beta is None
    assert len(calls) == 1 + wcdm._WC_DOUBLINGS


def test_uncertified_result_warns(monkeypatch):
    monkeypatch.setattr(wcdm, "_certifies", lambda *args: (False, np.zeros(0)))
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    with pytest.warns(RuntimeWarning, match="no certificate"):
        res = rmb.wcdiskmargin(k * 2 / (s + 1) ** 2)
    assert not res.certified
    assert res.lower == 0.0
    assert res.upper > 0
    assert "not certified" in repr(res)
