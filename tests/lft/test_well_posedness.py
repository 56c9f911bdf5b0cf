"""Well-posedness is decided on actual loops and does not depend on units.

A series product has no algebraic loop (its loop matrix is unit triangular, with
determinant exactly 1), however large its entries; a genuine loop is tested after
a diagonal balancing, so rescaling a signal never changes the verdict.  The
reference values are closed forms computed with plain floats.
"""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import IllPosedError


def test_series_of_large_diagonal_matrices_is_not_a_loop():
    d = np.diag([1e8, 1.0])
    out = rmb.umat(d) @ rmb.umat(d)
    np.testing.assert_array_equal(out.nominal(), d @ d)


def test_series_of_large_uncertain_scalars():
    a = rmb.ureal("a", 1.0)
    out = rmb.umat([[1e7 * a]]) @ rmb.umat([[1e7 * a]])
    assert out.blocks == {"a": 2}
    for v in (0.0, 0.3, 1.0, 1.7, 2.0):
        got = float(out.usubs({"a": v})[0, 0])
        assert got == pytest.approx(1e14 * v * v, rel=1e-12, abs=1e-2)


@pytest.mark.parametrize("k", [20, 40, 80])
def test_high_powers_are_series_chains(k):
    a = rmb.ureal("a", 2.0, percent=50)  # range [1, 3], centre = nominal
    out = a**k
    assert out.blocks == {"a": k}
    for v in (2.0, 2.5, 3.0):
        assert float(out.usubs({"a": v})[0, 0]) == pytest.approx(v**k, rel=1e-12)


def test_badly_scaled_well_posed_feedback_loop():
    # Loop gain g*k = 0.5 although g = 1e8 and k = 5e-9: well posed, g / (1 - g k) = 2e8.
    out = rmb.feedback(rmb.umat([[1e8]]), rmb.umat([[5e-9]]), sign=+1)
    assert float(out.nominal()[0, 0]) == pytest.approx(2e8, rel=1e-14)


def test_badly_scaled_singular_loop_still_refused():
    # g*k = 1 exactly: I - g k = 0 whatever the split of the scale between g and k.
    with pytest.raises(IllPosedError, match="ill-posed"):
        rmb.feedback(rmb.umat([[1e8]]), rmb.umat([[1e-8]]), sign=+1)


def test_singular_loop_in_connect_names_its_signals():
    g = rmb.uss(control.ss([], [], [], [[1e6]]))
    g.name, g.input_names, g.output_names = "G", ["u"], ["y"]
    k = rmb.uss(control.ss([], [], [], [[1e-6]]))
    k.name, k.input_names, k.output_names = "K", ["y"], ["u"]
    with pytest.raises(IllPosedError, match=r"G\.y.*K\.u|K\.u.*G\.y"):
        rmb.connect([g, k], inputs=[("G", "u")], outputs=["y"])


def test_uncertain_loop_at_large_scale():
    # Fu with a loop through a scaled parameter: (1e6 a) (1e-6 b) stays below 1 on the box.
    a = rmb.ureal("a", 0.5, range=(0.0, 0.9))
    out = rmb.feedback(1e6 * a, 1e-6 * rmb.umat([[1.0]]), sign=+1)
    for v in (0.0, 0.45, 0.9):
        assert float(out.usubs({"a": v})[0, 0]) == pytest.approx(1e6 * v / (1 - v), rel=1e-12)


def test_inverse_of_badly_scaled_diagonal():
    d = np.diag([1e10, 1e-10])
    np.testing.assert_allclose(rmb.inv(rmb.umat(d)).nominal(), np.diag([1e-10, 1e10]), rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(
    e=st.integers(-12, 12),
    g=st.floats(0.1, 10.0),
    loop=st.floats(-0.9, 0.9),
)
def test_rescaling_a_loop_changes_nothing(e, g, loop):
    """``feedback(10^e g, 10^-e k, +1)`` equals ``10^e g / (1 - g k)`` for every split."""
    k = loop / g
    out = rmb.feedback(rmb.umat([[10.0**e * g]]), rmb.umat([[10.0**-e * k]]), sign=+1)
    ref = 10.0**e * g / (1.0 - g * k)
    assert float(out.nominal()[0, 0]) == pytest.approx(ref, rel=1e-12)


def test_loop_singular_at_the_centre_of_the_ranges_says_so():
    # k in [0, 2] (nominal 0.5): the LFT is built about the centre k = 1, where the
    # positive loop 1 - k is singular; the message names that value
    k = rmb.ureal("k", 0.5, range=(0.0, 2.0))
    with pytest.raises(IllPosedError, match=r"at the centre of the ranges \(k = 1\.0\)"):
        rmb.feedback(k, 1.0, sign=+1)
    m = rmb.ureal("m", 3.0, range=(2.0, 4.0))
    with pytest.raises(IllPosedError, match=r"centre of the ranges \(k = 1\.0, m = 3\.0\)"):
        rmb.feedback(k * rmb.umat([[1.0]]) + 0 * m, 1.0, sign=+1)
    # without uncertain elements the loop is singular everywhere: no centre to name
    with pytest.raises(IllPosedError) as info:
        rmb.feedback(rmb.umat([[1.0]]), 1.0, sign=+1)
    assert "centre" not in str(info.value)


def test_loop_with_a_regular_centre_is_built_and_exact():
    # k in [0, 1.5]: centre 0.75, loop 1 - k regular there; y = k / (1 - k) u
    k = rmb.ureal("k", 0.5, range=(0.0, 1.5))
    out = rmb.feedback(k, 1.0, sign=+1)
    for v in (0.0, 0.5, 0.9, 1.5):
        assert float(out.usubs({"k": v})[0, 0]) == pytest.approx(v / (1.0 - v), rel=1e-12)
