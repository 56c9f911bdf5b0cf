"""A given ``wcgain`` certificate is re-proved on the channel's own model before it is used.

Closed form: ``1 / (s^2 + c s + 1)`` peaks at ``1 / (c sqrt(1 - c^2 / 4))`` for
``c < sqrt(2)``: 2.0656 at ``c = 0.5``.  A certificate computed over ``c`` in
``[0.8, 1.5]`` (upper bound about 1.371) is therefore false for the channel with ``c``
in ``[0.5, 1.5]``: its worst values (``c = 0.8``) lie inside the wider range and
substitute to its lower bound, so only a re-check of its upper bound can refuse it.
"""

import control
import numpy as np
import pytest
from report_loops import resonance_peak

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.report import worst_case_analysis
from robustmb.report.worst_case import check_certificate, reverified_upper

S = control.tf("s")


def _oscillator(lo, hi, name="c"):
    c = rmb.ureal(name, 1.0, range=(lo, hi))
    loop = rmb.uss(1 / (S * S + c * S + 1))
    loop.input_names, loop.output_names = ["r"], ["y"]
    return loop


@pytest.fixture(scope="module")
def stale():
    """wcgain of the channel over the narrower range c in [0.8, 1.5]."""
    return rmb.wcgain(_oscillator(0.8, 1.5))


def test_certificate_of_narrower_ranges_is_refused(stale, monkeypatch):
    from robustmb.report import worst_case

    # the stale bound is false for the declared ranges (closed form at c = 0.5)
    assert stale.certified and stale.upper < resonance_peak(0.5)[0]
    assert stale.worst["c"] == pytest.approx(0.8, abs=1e-9)  # inside [0.5, 1.5]

    def robstab_must_not_run(*args, **kwargs):  # refused before the long analyses
        raise AssertionError("robstab ran")

    monkeypatch.setattr(worst_case, "robstab", robstab_must_not_run)
    with pytest.raises(ArgumentError, match=r"certificates\['g'\].*does not prove the upper"):
        worst_case_analysis(
            _oscillator(0.5, 1.5), {"g": ("y", "r", 1.5)}, n_samples=0, certificates={"g": stale}
        )


def test_genuine_certificate_is_accepted_and_re_proved():
    loop = _oscillator(0.5, 1.5)
    own = rmb.wcgain(loop)
    assert own.lower == pytest.approx(resonance_peak(0.5)[0], rel=1e-6)
    assert check_certificate("g", own, loop) is own
    assert reverified_upper(own, loop) == (own.upper, "")
    # the same certificate does not prove a level of the wider ranges c in [0.3, 1.5]
    # (closed-form peak 3.3 there)
    assert resonance_peak(0.3)[0] > own.upper
    assert reverified_upper(own, _oscillator(0.3, 1.5))[0] is None


def test_certificate_naming_other_elements_is_refused():
    other = rmb.wcgain(_oscillator(0.5, 1.5, name="d"))
    with pytest.raises(ArgumentError, match=r"name the elements \['d'\], the channel has \['c'\]"):
        check_certificate("g", other, _oscillator(0.5, 1.5))


def test_certificate_without_mu_evidence_is_refused():
    import dataclasses

    own = rmb.wcgain(_oscillator(0.5, 1.5))
    bare = dataclasses.replace(own, mu=None)
    with pytest.raises(ArgumentError, match="no whole-axis mu evidence"):
        check_certificate("g", bare, _oscillator(0.5, 1.5))


def _product_loop(c=0.3):
    """``1 / (s^2 + s + 1 - c d1 d2)``, ``d1, d2`` in ``[-1, 1]``: a parameter product."""
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    g = rmb.uss(control.ss(1 / (S * S + S + 1)))
    return rmb.feedback(g, -(c * d1 * d2))


def _brute_peak(c=0.3):
    """Largest gain over a dense grid of (d1, d2, w), from the closed-form transfer."""
    w = np.logspace(-2, 2, 4001)
    t = np.linspace(-1, 1, 41)
    return max(np.max(np.abs(1 / ((1j * w) ** 2 + 1j * w + 1 - c * x * y))) for x in t for y in t)


def test_branch_and_bound_certificate_is_replaced_by_a_re_proved_bound():
    loop = _product_loop()
    res = rmb.wcgain(loop)
    if res.boxes is None or not res.boxes.certified:
        pytest.skip("wcgain closed the gap without its branch and bound")
    used = check_certificate("g", res, loop)
    brute = _brute_peak()
    # sound: the bound the report uses is re-proved on the channel, above every gain
    assert used.upper >= brute * (1 - 1e-9) and used.upper >= res.upper
    assert used.lower == res.lower and used.certified
    if used is not res:
        assert "re-proved on this channel" in used.reason
