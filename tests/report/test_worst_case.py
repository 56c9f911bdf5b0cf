"""The worst-case analysis: its numbers equal direct robstab / wcgain calls and closed forms."""

import dataclasses

import control
import numpy as np
import pytest
from report_loops import resonance_peak, second_order, two_by_two

import robustmb as rmb
from robustmb.analysis.robust_stability import robstab
from robustmb.analysis.worst_case_gain import wcgain
from robustmb.errors import SignalError, UncertainTypeError
from robustmb.report import UnstableNominalError, worst_case_analysis


def test_numbers_equal_direct_calls_and_closed_form(oscillator):
    res = worst_case_analysis(oscillator, n_samples=20, seed=3)
    direct_rs, direct_wc = robstab(oscillator), wcgain(oscillator)
    rs, wc = res.robstab, res.channels[0].wcgain
    # identical numbers: the report is the direct calls
    assert (rs.lower, rs.upper, rs.critical_frequency, rs.certified) == (
        direct_rs.lower,
        direct_rs.upper,
        direct_rs.critical_frequency,
        direct_rs.certified,
    )
    assert rs.destabilizing == direct_rs.destabilizing
    assert rs.sensitivity == direct_rs.sensitivity
    assert (wc.lower, wc.upper, wc.critical_frequency, wc.certified, wc.worst) == (
        direct_wc.lower,
        direct_wc.upper,
        direct_wc.critical_frequency,
        direct_wc.certified,
        direct_wc.worst,
    )
    # closed forms: c = 0 (delta = -2) puts poles at +-1j, so the margin is 2
    assert rs.certified and 2.0 * (1 - 2e-3) <= rs.lower <= 2.0 * (1 + 1e-9)
    assert rs.upper == pytest.approx(2.0, rel=1e-6)
    assert rs.critical_frequency == pytest.approx(1.0, rel=1e-6)
    assert rs.destabilizing["c"] == pytest.approx(0.0, abs=1e-6)
    # the worst case is c = 0.5: resonance peak 1 / (2 z sqrt(1 - z^2)), z = 0.25
    peak, w_peak = resonance_peak(0.5)
    assert wc.lower == pytest.approx(peak, rel=1e-6)
    assert wc.certified and peak * (1 - 1e-9) <= wc.upper <= peak * 1.01
    assert wc.critical_frequency == pytest.approx(w_peak, rel=1e-4)
    assert wc.worst["c"] == pytest.approx(0.5, abs=1e-9)
    ch = res.channels[0]
    assert ch.nominal_peak == pytest.approx(resonance_peak(1.0)[0], rel=1e-8)
    # every sample's peak gain is its closed form, and below the worst case
    expected = [resonance_peak(v["c"])[0] for v in res.sample_values]
    np.testing.assert_allclose(ch.sampled_peaks, expected, rtol=1e-6)
    assert res.verdict == "robustly stable" and all(ok for _, ok in res.checks())
    # the checks do catch inconsistent results
    bad_sens = dataclasses.replace(res, robstab=dataclasses.replace(rs, sensitivity={"c": 1e-4}))
    assert [ok for text, ok in bad_sens.checks() if "sensitivities" in text] == [False]
    bad_mc = dataclasses.replace(res, sample_abscissa=np.r_[0.1, res.sample_abscissa[1:]])
    assert [ok for text, ok in bad_mc.checks() if "samples is stable" in text] == [False]
    high = dataclasses.replace(ch, sampled_peaks=ch.sampled_peaks + 10 * wc.upper)
    assert not all(ok for _, ok in dataclasses.replace(res, channels=[high]).checks())


def test_not_robustly_stable_is_a_valid_outcome():
    loop = second_order(-0.2, 2.2)  # c = 0 lies inside the range
    res = worst_case_analysis(loop, channels={}, n_samples=60, seed=0)
    assert res.verdict == "not robustly stable" and res.channels == []
    # c = 0 is at delta = -1 / 1.2 about the centre 1 with half-width 1.2
    assert res.robstab.upper == pytest.approx(1 / 1.2, rel=1e-6)
    assert res.robstab.destabilizing["c"] == pytest.approx(0.0, abs=1e-6)
    # samples with c < 0 are the unstable ones
    neg = np.array([v["c"] < 0 for v in res.sample_values])
    assert neg.any() and np.array_equal(res.sample_abscissa >= 0, neg)


def test_bad_input_is_named():
    s = control.tf("s")
    with pytest.raises(UncertainTypeError, match="certain python-control model"):
        worst_case_analysis(control.ss(1 / (s + 1)))
    with pytest.raises(UncertainTypeError, match="uncertain system"):
        worst_case_analysis(np.eye(2))
    with pytest.raises(SignalError, match="unknown output 'nope'"):
        worst_case_analysis(two_by_two(), channels={"bad": (["nope"], ["r1"])})
    with pytest.raises(SignalError, match="unknown input 7"):
        worst_case_analysis(two_by_two(), channels={"bad": (["e1"], [7])})
    with pytest.raises(SignalError, match="expected"):
        worst_case_analysis(two_by_two(), channels={"bad": "e1"})
    with pytest.raises(SignalError, match="dict"):
        worst_case_analysis(two_by_two(), channels=[("e1", "r1")])
    with pytest.raises(ValueError, match="n_samples"):
        worst_case_analysis(two_by_two(), n_samples=-1)
    k = rmb.ureal("k", 1.0, percent=10)
    with pytest.raises(UnstableNominalError, match=r"unstable: poles \[2"):
        worst_case_analysis(rmb.uss(k / (s - 2)))


def test_report_layer_is_reachable_from_the_top_level():
    import robustmb as rmb

    assert rmb.report.worst_case_analysis is worst_case_analysis
    assert rmb.report.UnstableNominalError is rmb.errors.UnstableNominalError
    assert issubclass(rmb.errors.UnstableNominalError, ValueError)
