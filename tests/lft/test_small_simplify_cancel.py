"""simplify drops an element whose part of the map cancels exactly (``p - p``).

``simplify`` promises the same map with no more occurrences of any element; an element
the map does not depend on needs none.  The analyses' reduction
(:func:`robustmb.analysis.occurrence_reduction.reduce_occurrences`) already dropped such
elements; ``simplify`` kept one or two occurrences of each.  The maps are checked against
numpy evaluations of the substituted models at random values.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.occurrence_reduction import reduce_occurrences


def _values(rng):
    return {"a": rng.uniform(1.8, 2.2), "k": rng.uniform(2.4, 3.6)}


def _same_values(x, y, rng, n=20):
    """``x`` and ``y`` agree at ``n`` random values of a and k (entrywise, to 1e-12)."""
    for _ in range(n):
        v = _values(rng)
        X = np.asarray(x.usubs({k: v[k] for k in x.uncertainty}), float)
        Y = np.asarray(y.usubs({k: v[k] for k in y.uncertainty}), float) if y.uncertainty else (
            np.asarray(y.nominal(), float)
        )  # fmt: skip
        np.testing.assert_allclose(Y, X, rtol=0, atol=1e-12 * max(1.0, np.abs(X).max()))


def test_simplify_drops_the_elements_of_an_exactly_cancelling_matrix():
    a = rmb.ureal("a", 2.0, percent=10)
    k = rmb.ureal("k", 3.0, percent=20)
    p = rmb.umat([[a, k], [1.0, a * k]])
    x = p - p
    assert x.blocks == {"a": 4, "k": 4}
    s = rmb.simplify(x)
    # was {'a': 2, 'k': 1}: the map is exactly 0 for every a and k
    assert s.blocks == {} and s.uncertainty == {}
    np.testing.assert_array_equal(np.asarray(s.nominal(), float), np.zeros((2, 2)))
    _same_values(x, s, np.random.default_rng(0))


@pytest.mark.parametrize("level", ["full", "basic"])
def test_simplify_drops_only_the_cancelling_element(level):
    a = rmb.ureal("a", 2.0, percent=10)
    k = rmb.ureal("k", 3.0, percent=20)
    x = a * a + k - k  # was {'a': 2, 'k': 1}
    s = rmb.simplify(x, level)
    assert s.blocks == {"a": 2}
    assert list(s.uncertainty) == ["a"]
    _same_values(x, s, np.random.default_rng(1))
    # a - a alone: nothing left (was one occurrence of a)
    assert rmb.simplify(a - a, level).blocks == {}
    # hstack(a, k) - hstack(a, k): was {'a': 1, 'k': 1}
    h = rmb.hstack(a, k)
    assert rmb.simplify(h - h, level).blocks == {}


def test_simplify_keeps_an_element_the_state_matrices_depend_on():
    # k G - k G with G = 1/(s + 1): y = k x1 - k x2 depends on k (the states are kept, so
    # one occurrence stays, as documented), and the transfer function is exactly 0
    k = rmb.ureal("k", 3.0, percent=20)
    G = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])
    x = k * G - k * G
    s = rmb.simplify(x)
    assert s.blocks == {"k": 1}
    for kv in (2.4, 3.0, 3.6):
        sys = s.usubs({"k": kv})
        resp = control.evalfr(sys, 1j * 0.7)
        assert abs(resp) <= 1e-14


def test_simplify_agrees_with_the_analyses_reduction_on_a_dropped_element():
    # the analyses' reduction (entrywise acceptance, unchanged) and simplify agree here
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0)
    x = a * a + 0 * b - a * a + 3 * a
    model, dropped = reduce_occurrences(x)
    assert model.blocks == {"a": 1} and dropped == {"b": 2.0}
    assert rmb.simplify(x).blocks == {"a": 1}


def test_simplify_keeps_a_small_element_beside_cancelling_large_products():
    # 1e8 k + 1e-8 b - 1e8 k: k cancels (to the rounding of its own products, ~1.5e-8),
    # b is in the map (slope 1e-8) although below that rounding; only k may go
    k = rmb.ureal("k", 1.0)
    b = rmb.ureal("b", 1.0, range=(0.0, 2.0))
    x = k * 1e8 + b * 1e-8 - k * 1e8
    s = rmb.simplify(x)
    assert s.blocks == {"b": 1}
    values = [np.asarray(s.usubs({"b": v}), float).item() for v in (0.0, 1.0, 2.0)]
    np.testing.assert_allclose(np.diff(values), 1e-8, rtol=1e-6)
    for kv in (0.5, 1.3):
        original = [np.asarray(x.usubs({"k": kv, "b": v}), float).item() for v in (0.0, 2.0)]
        np.testing.assert_allclose(original[1] - original[0], 2e-8, rtol=1e-6)
        # the same map, its rounding residue included (1.5e-8 is the products' rounding)
        np.testing.assert_allclose(original, values[::2], rtol=0, atol=3e-8)
