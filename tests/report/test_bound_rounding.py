"""Printed bounds are rounded outwards: lower bounds down, upper bounds up, everywhere.

Reference: exact rational arithmetic (:class:`fractions.Fraction` of the float) compared
with the printed decimal.
"""

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_loops import second_order

from robustmb.report import worst_case_analysis
from robustmb.report.bound_format import fmt_lower, fmt_upper
from robustmb.report.figures import margin_rows
from robustmb.report.html import render_html

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


@given(finite, st.integers(2, 8))
def test_printed_lower_is_below_and_upper_above(x, digits):
    lo, hi = fmt_lower(x, digits), fmt_upper(x, digits)
    assert Fraction(lo) <= Fraction(x) <= Fraction(hi)
    # and each is one step of the last printed digit from the value at most
    if x != 0:
        step = Fraction(10) ** (int(np.floor(np.log10(abs(x)))) - digits + 1)
        assert Fraction(x) - Fraction(lo) <= step and Fraction(hi) - Fraction(x) <= step


@given(st.floats(min_value=1e-6, max_value=10.0), st.integers(2, 6))
def test_percent_is_scaled_before_rounding(x, digits):
    assert Fraction(fmt_lower(x, digits, scale=100)) <= 100 * Fraction(x)
    assert Fraction(fmt_upper(x, digits, scale=100)) >= 100 * Fraction(x)


@pytest.fixture(scope="module")
def base():
    return worst_case_analysis(second_order(0.5, 1.5), {}, n_samples=0)


def test_margin_just_below_a_fifth_is_not_printed_as_20_percent(base):
    # a certified margin of 0.1999000502: ranges of 20 % are NOT guaranteed
    rs = dataclasses.replace(base.robstab, lower=0.19990005017491513, upper=0.2000000002)
    res = dataclasses.replace(base, robstab=rs)
    rows = dict(margin_rows(res))
    guaranteed = rows["Ranges guaranteed stable (% of the declared size)"]
    assert Fraction(guaranteed.split()[0]) <= 100 * Fraction(rs.lower) < 20
    assert rows["Robust stability margin"] == "[0.1999, 0.2001]"
    page = render_html(res, {})
    assert "20 %" not in page.replace("20.1 %", "")
