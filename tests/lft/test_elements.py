"""Uncertain elements: ranges, normalisation and input validation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import NameConflictError, UncertainElementError


def test_range_percent_plusminus():
    assert rmb.ureal("a", 2.0, percent=20).range == pytest.approx((1.6, 2.4))
    assert rmb.ureal("a", -2.0, percent=20).range == pytest.approx((-2.4, -1.6))
    assert rmb.ureal("a", 2.0, percent=(-10, 50)).range == pytest.approx((1.8, 3.0))
    assert rmb.ureal("a", 1.0).range == (0.0, 2.0)  # default plusminus 1
    assert rmb.ureal("a", 1.0, plusminus=(-0.5, 1.0)).range == (0.5, 2.0)
    assert rmb.ureal("a", 1.0, range=(0.0, 4.0)).range == (0.0, 4.0)


def test_affine_normalisation_about_centre_keeps_nominal():
    k = rmb.ureal("k", 1.0, range=(0.0, 4.0))
    assert k.center == 2.0 and k.half_width == 2.0
    assert float(k.normalize(1.0)) == -0.5
    assert float(k.denormalize(1.0)) == 4.0
    # The LFT of the element is affine in delta and its nominal is the declared nominal.
    M, blocks = rmb.lftdata(k)
    assert np.allclose(M, [[0, 1], [2, 2]])
    assert blocks == [("k", "real", 1, (1, 1))]
    assert float(rmb.umat(k).nominal()[0, 0]) == 1.0


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(nominal=5.0, range=(0.0, 1.0)), "outside the range"),
        (dict(nominal=0.0, percent=10), "nonzero nominal"),
        (dict(nominal=1.0, range=(1.0, 1.0)), "zero width"),
        (dict(nominal=1.0, range=(2.0, 0.0)), "empty"),
        (dict(nominal=math.nan), "finite"),
        (dict(nominal=1.0, plusminus=math.inf), "finite"),
        (dict(nominal=1.0, plusminus=(0.2, 0.3)), "first entry <= 0"),
        (dict(nominal=1.0, range=(0, 2), percent=3), "only one"),
        (dict(nominal="1"), "real number"),
    ],
)
def test_ureal_bad_input_names_the_element(kwargs, fragment):
    with pytest.raises(UncertainElementError) as exc:
        rmb.ureal("mass", **kwargs)
    assert "mass" in str(exc.value) and fragment in str(exc.value)


def test_ucomplex_and_ultidyn_validation():
    with pytest.raises(UncertainElementError, match="'c'.*radius"):
        rmb.ucomplex("c", 1.0, radius=0.0)
    with pytest.raises(UncertainElementError, match="'d'.*shape"):
        rmb.ultidyn("d", (0, 2))
    with pytest.raises(UncertainElementError, match="'d'.*bound"):
        rmb.ultidyn("d", (1, 1), bound=-1)
    with pytest.raises(UncertainElementError, match="identifier"):
        rmb.ureal("not a name", 1.0)


def test_one_name_two_definitions_is_an_error():
    a1 = rmb.ureal("a", 1.0)
    a2 = rmb.ureal("a", 1.0, percent=10)
    with pytest.raises(NameConflictError, match="'a'"):
        a1 + a2
    # The same definition under one name is one shared element.
    a3 = rmb.ureal("a", 1.0)
    assert (a1 + a3).blocks == {"a": 2}
    assert rmb.simplify(a1 + a3).blocks == {"a": 1}


def test_complex_parameter_value_and_sampling():
    c = rmb.ucomplex("c", 1 + 1j, radius=0.5)
    X = rmb.umat([[c, 2 * c]])
    assert np.allclose(X.nominal(), [[1 + 1j, 2 + 2j]])
    samples, values = X.usample(200, seed=3)
    for smp, v in zip(samples, values, strict=True):
        assert abs(v["c"] - (1 + 1j)) <= 0.5 + 1e-12
        assert np.allclose(smp, [[v["c"], 2 * v["c"]]])


@settings(max_examples=200, deadline=None)
@given(
    lo=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    log_width=st.floats(-6, 6),
)
def test_range_ends_normalise_to_exactly_minus_one_and_one(lo, log_width):
    hi = lo + 10.0**log_width
    if not hi > lo:
        return
    k = rmb.ureal("k", lo, range=(lo, hi))
    np.testing.assert_array_equal(k.normalize(np.array([lo, hi])), [-1.0, 1.0])
