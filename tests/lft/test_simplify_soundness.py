"""simplify keeps the map to rounding, whatever the scaling of the channels.

A direction small on the input side of the Delta channels but multiplied by a large gain
on the output side is part of the map: ``A(k) = A0 + g (k r1) - g (k r2)`` with
``g = [G, 0]^T`` and ``r1 - r2 = [dl, 0]`` has ``A00 = A0[0, 0] + G dl k``.  References
are computed with exact rational arithmetic (``fractions``) or with numpy from the
matrices the model is built of, never through the reduction.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.occurrence_reduction import reduce_occurrences

EPS = np.finfo(float).eps
A0 = np.array([[-4e-7, 1.0], [-1.0, -4e-7]])


def _difference_model(gain, dl, k):
    g = np.array([[gain], [0.0]])
    r1, r2 = np.array([[1.0 + dl, 1.0]]), np.array([[1.0, 1.0]])
    return rmb.uss(A0 + (g @ (k * r1) - g @ (k * r2)), [[1.0], [0.0]], [[1.0, 0.0]], [[0.0]])


@pytest.mark.parametrize("gain, dl", [(1e4, 1e-11), (1e3, 5e-11), (1e8, 1e-14), (1e6, 1e-14)])
def test_a_direction_amplified_on_the_output_side_is_kept(gain, dl):
    k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    model = _difference_model(gain, dl, k)
    # A00 at k = 1 in exact arithmetic from the stored floats
    exact = Fraction(A0[0, 0]) + Fraction(gain) * (Fraction(1.0 + dl) - 1)
    # the rounding bound of the products g r1, g r2 the entry is made of
    bound = 64 * EPS * (2 * gain + abs(A0[0, 0]))
    for x in (rmb.simplify(model), rmb.simplify(model, rtol=1e-6)):
        a00 = np.asarray(rmb.usubs(x, {"k": 1.0}).A)[0, 0]
        assert abs(a00 - float(exact)) <= bound


def test_exactly_cancelling_elements_are_absent_for_the_analyses():
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0)
    z = rmb.ureal("z", 5.0, range=(4.0, 7.0))
    assert reduce_occurrences(b - b + 3 * a)[0].blocks == {"a": 1}
    assert reduce_occurrences(b - b + 3 * a)[1] == {"b": 2.0}
    assert reduce_occurrences(z - z + 2 * a)[1] == {"z": 5.0}
    assert reduce_occurrences(a * a + 0 * b - a * a + 3 * a)[0].blocks == {"a": 1}
    x = reduce_occurrences(b - b + 3 * a)[0]
    assert np.asarray(rmb.usubs(x, {"a": 0.5})).item() == pytest.approx(1.5, rel=4 * EPS)
    # simplify keeps the map; the element may stay with a rounding-level residue
    y = rmb.simplify(b - b + 3 * a)
    assert y.blocks["a"] == 1 and y.blocks.get("b", 0) <= 1


def test_the_existing_reductions_still_happen():
    a = rmb.ureal("a", 1.0)
    x = rmb.hstack(a * (a + 4), 6 * a * a)
    assert rmb.simplify(x).blocks == {"a": 2}
    t = rmb.ureal("t", np.tan(np.pi / 8), range=(-1.0, 1.0))
    c, s = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
    assert rmb.simplify(rmb.umat([[c, -s], [s, c]])).blocks == {"t": 2}


@st.composite
def _scaled_sums(draw):
    """``X = sum_t G_t v_t R_t`` with ``v_t`` one of ``a, b, a*a, a*b`` (repeated elements),
    ``G_t`` and ``R_t`` random with rows/columns scaled by 1e-8 .. 1e8, and sometimes a
    term that cancels an earlier one up to a relative 1e-14 on one side."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    nterms = draw(st.integers(2, 5))
    terms = []
    for _ in range(nterms):
        kind = draw(st.sampled_from(["a", "b", "aa", "ab"]))
        g = rng.standard_normal((2, 1)) * 10.0 ** rng.uniform(-8, 8, (2, 1))
        r = rng.standard_normal((1, 2)) * 10.0 ** rng.uniform(-8, 8, (1, 2))
        terms.append((kind, g, r))
    if draw(st.booleans()):
        kind, g, r = terms[0]
        terms.append((kind, -g, r * (1 + 1e-14 * rng.standard_normal((1, 2)))))
    return terms


def _value(kind, av, bv):
    return {"a": av, "b": bv, "aa": av * av, "ab": av * bv}[kind]


@settings(max_examples=40, deadline=None)
@given(_scaled_sums())
def test_reduced_map_equals_the_original_within_its_rounding_bound(terms):
    a = rmb.ureal("a", 0.0, range=(-1.0, 1.0))
    b = rmb.ureal("b", 0.0, range=(-1.0, 1.0))
    elems = {"a": a, "b": b, "aa": a * a, "ab": a * b}
    x = 0 * rmb.umat([[a, b], [a, b]])
    for kind, g, r in terms:
        x = x + g @ (elems[kind] * r)
    red = rmb.simplify(x)
    assert set(red.blocks) <= set(x.blocks)
    assert all(red.blocks[n] <= x.blocks[n] for n in red.blocks)
    rng = np.random.default_rng(7)
    corners = [(s1, s2) for s1 in (-1.0, 1.0) for s2 in (-1.0, 1.0)]
    for av, bv in corners + [tuple(rng.uniform(-1, 1, 2)) for _ in range(6)]:
        # numpy from the terms, and the rounding bound of that sum of products
        ref = sum(g @ (_value(kind, av, bv) * r) for kind, g, r in terms)
        bound = 64 * EPS * sum(np.abs(g) @ np.abs(_value(kind, av, bv) * r) for kind, g, r in terms)
        # an element the map does not depend on is closed at its nominal value (0)
        vals = {n: v for n, v in (("a", av), ("b", bv)) if n in red.blocks}
        got = np.asarray(rmb.usubs(red, vals) if vals else red.D, dtype=float)
        assert np.all(np.abs(got - ref) <= bound + 1e-300)
