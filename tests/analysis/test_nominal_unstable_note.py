"""Asymmetric ranges: the analyses measure about the range centre, and say so when the
nominal model (unlike the centre model) is unstable.

Closed forms: ``1 / (s + b)`` is stable iff ``b > 0`` and has peak gain ``1 / b`` (at
``w = 0``).  With ``b`` in ``[-0.2, 3]`` (centre 1.4, half-width 1.6) the stability
margin about the centre is ``1.4 / 1.6 = 0.875``, the margin for a peak gain below 5
(``b >= 0.2``) is ``1.2 / 1.6 = 0.75``; MATLAB's robstab, about the nominal ``-0.1``,
reports 0 (https://uk.mathworks.com/help/robust/ref/dynamicsystem.robstab.html).
"""

import control
import pytest

import robustmb as rmb

s = control.tf("s")


def _loop(nominal, rng):
    b = rmb.ureal("b", nominal, range=rng)
    return 1 / (s + b)


def test_robstab_margin_about_the_centre_and_the_note():
    rs = rmb.robstab(_loop(-0.1, (-0.2, 3.0)))
    assert rs.lower <= 0.875 <= rs.upper * (1 + 1e-9)
    assert rs.upper == pytest.approx(0.875, rel=1e-3)
    assert "nominal model" in rs.reason and "is unstable" in rs.reason
    assert "centre 1.4" in rs.reason


def test_robgain_note():
    rg = rmb.robgain(_loop(-0.1, (-0.2, 3.0)), 5.0)
    assert rg.lower <= 0.75 <= rg.upper * (1 + 1e-9)
    assert rg.upper == pytest.approx(0.75, rel=1e-3)
    assert "nominal model" in rg.reason and "is unstable" in rg.reason


def test_wcgain_note():
    wc = rmb.wcgain(_loop(-0.1, (-0.2, 3.0)))
    # the box holds b <= 0: no finite worst-case gain
    assert wc.upper == float("inf")
    assert "nominal model" in wc.reason and "is unstable" in wc.reason


@pytest.mark.parametrize("nominal, rng", [(1.0, (0.5, 1.5)), (1.0, (0.5, 3.0))])
def test_no_note_when_the_nominal_model_is_stable(nominal, rng):
    # symmetric range (centre = nominal), and asymmetric with a stable nominal model
    rs = rmb.robstab(_loop(nominal, rng))
    assert "nominal model" not in rs.reason
    centre, half = 0.5 * (rng[0] + rng[1]), 0.5 * (rng[1] - rng[0])
    assert rs.upper == pytest.approx(centre / half, rel=1e-3)
