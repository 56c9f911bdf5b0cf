"""Transfer-function arithmetic with uncertain coefficients: sampling times and negation.

The reference of every value is the same expression evaluated in Python complex
arithmetic at numbers (the substituted element values and a point ``s``), with no
robustmb code in it.
"""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.errors import DimensionError

POINTS = (0.3j, 1.7j, 0.5 + 2.0j, 10.0j)


def _elements():
    return {
        "a": rmb.ureal("a", 1.0, range=(0.5, 3.0)),
        "b": rmb.ureal("b", 2.0, range=(1.0, 3.0)),
    }


def _assert_matches(expr, values, points=POINTS, s=None):
    """``expr(elements, s)`` substituted at ``values`` equals ``expr(values, point)``."""
    s = control.tf("s") if s is None else s
    X = rmb.uss(expr(_elements(), s))
    g = X.usubs({n: values[n] for n in X.blocks}) if X.blocks else X.nominal()
    for p in points:
        got = complex(g(p))
        ref = complex(expr(values, p))
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12), p


# ------------------------------------------------------------------- sampling times
Z = control.tf([1, 0], [1], 0.1)


@pytest.mark.parametrize(
    "expr",
    [
        lambda e, s: (s + e["a"]) * (1 / (Z + 0.5)),
        lambda e, s: (s + e["a"]) / (Z * Z + 0.5),
        lambda e, s: (Z + e["a"]) / (s + 2),
        lambda e, s: (e["a"] * s) / (Z + 0.5),
        lambda e, s: 1 / (s + e["a"]) + 1 / (Z + e["b"]),
    ],
    ids=["(s+a)*1/(z+.5)", "(s+a)/(z^2+.5)", "(z+a)/(s+2)", "(a s)/(z+.5)", "1/(s+a)+1/(z+b)"],
)
def test_transfer_functions_of_different_sampling_times_are_refused(expr):
    # python-control refuses the same expression with numbers (its reference behaviour)
    with pytest.raises(ValueError):
        expr({"a": 1.0, "b": 2.0}, control.tf("s"))
    with pytest.raises(DimensionError, match=r"sampling times \[0, 0\.1\]"):
        expr(_elements(), control.tf("s"))


def test_discrete_rational_keeps_its_sampling_time_and_value():
    av = 0.7
    for expr in (
        lambda e, z: (z + e["a"]) / (z * z + 0.5),
        lambda e, z: (e["a"] - z) / (z + 0.5),
    ):
        X = rmb.uss(expr(_elements(), Z))
        assert X.dt == 0.1
        g = X.usubs({"a": av})
        assert g.dt == 0.1
        for p in (0.3 + 0.2j, np.exp(0.4j), -0.9):
            assert complex(g(p)) == pytest.approx(complex(expr({"a": av}, p)), rel=1e-12)


def test_constant_rational_keeps_the_sampling_time_of_its_transfer_function():
    a = _elements()["a"]
    X = a * control.tf([2.0], [1.0], 0.1)  # a constant: degree 0 over degree 0
    assert X.dt == 0.1
    assert X.usubs({"a": 1.5}).D[0, 0] == pytest.approx(3.0, rel=1e-14)
    with pytest.raises(DimensionError, match="sampling times"):
        X + rmb.uss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])


# ------------------------------------------------------------------------- negation
NEGATIONS = {
    "(a-s)/(s+a)": lambda e, s: (e["a"] - s) / (s + e["a"]),
    "(2a-s)/(s+a)": lambda e, s: (2 * e["a"] - s) / (s + e["a"]),
    "(s-a)/(s+a)": lambda e, s: (s - e["a"]) / (s + e["a"]),
    "-(s)/(s+a)": lambda e, s: -(s) / (s + e["a"]),
    "(a+(-s))/(s+a)": lambda e, s: (e["a"] + (-s)) / (s + e["a"]),
    "(a*(-s))/(s^2+a)": lambda e, s: (e["a"] * (-s)) / (s * s + e["a"]),
    "((-s)*a)/(s^2+a)": lambda e, s: ((-s) * e["a"]) / (s * s + e["a"]),
    "(-(s+a))/(s^2+b)": lambda e, s: (-(s + e["a"])) / (s * s + e["b"]),
    "(a-s^2)/(s^2+a s+b)": lambda e, s: (e["a"] - s * s) / (s * s + e["a"] * s + e["b"]),
    "(a-s/b)/(s+1)": lambda e, s: (e["a"] - s / e["b"]) / (s + 1),
    "(a-s-(-s))/(s+a)": lambda e, s: (e["a"] - s - (-s)) / (s + e["a"]),
    "((a-s)-s)/(s+b)": lambda e, s: ((e["a"] - s) - s) / (s + e["b"]),
    "(a-s)^2/((s+a)(s+1))": lambda e, s: (e["a"] - s) ** 2 / ((s + e["a"]) * (s + 1)),
    "1-a s/(s+b)": lambda e, s: 1 - e["a"] * s / (s + e["b"]),
}


@pytest.mark.parametrize("expr", NEGATIONS.values(), ids=NEGATIONS.keys())
def test_negated_improper_intermediates(expr):
    for values in ({"a": 2.0, "b": 1.5}, {"a": 0.6, "b": 2.9}):
        _assert_matches(expr, values)


SCALINGS = {
    "((a s) 3.4)/s": lambda e, s: ((e["a"] * s) * 3.4) / s,
    "3.4 (a s)/(s+1)": lambda e, s: 3.4 * (e["a"] * s) / (s + 1),
    "(a s)/2/(s+1)": lambda e, s: (e["a"] * s) / 2.0 / (s + 1),
    "((a s) @ 2)/(s+1)": lambda e, s: _at(e["a"] * s, 2.0) / (s + 1),
    "(a s) np.float64(2)/(s+b)": lambda e, s: (e["a"] * s) * np.float64(2.0) / (s + e["b"]),
    "(a s) 0-d array/(s+b)": lambda e, s: (e["a"] * s) * np.array(2.0) / (s + e["b"]),
}


def _at(x, y):
    """``x @ y``, or ``x * y`` for Python numbers (the reference)."""
    return x * y if isinstance(x, complex | float) else x @ y


@pytest.mark.parametrize("expr", SCALINGS.values(), ids=SCALINGS.keys())
def test_numbers_scale_improper_intermediates(expr):
    for values in ({"a": 2.0, "b": 1.5}, {"a": 0.6, "b": 2.9}):
        _assert_matches(expr, values)


# A term c * s**k of a numerator: c is a number, an element or a number times one
# (before or after the power of s).
_term = st.tuples(
    st.sampled_from(["+", "-"]),
    st.sampled_from(["a", "b", "num", "num*a", "a*num"]),
    st.floats(0.5, 3.0).map(lambda x: round(x, 2)),
    st.integers(0, 2),
)


def _numerator(terms, e, s):
    acc = None
    for sign, kind, c, k in terms:
        if kind == "a*num":
            t = e["a"] * s**k * c if k else e["a"] * c
        else:
            coef = {"a": e["a"], "b": e["b"], "num": c, "num*a": c * e["a"]}[kind]
            t = coef if k == 0 else coef * s**k
        if acc is None:
            acc = -t if sign == "-" else t
        else:
            acc = acc - t if sign == "-" else acc + t
    return acc


@settings(max_examples=40, deadline=None)
@given(
    terms=st.lists(_term, min_size=1, max_size=4),
    root=st.sampled_from(["b", "num"]),
    av=st.floats(0.5, 3.0),
    bv=st.floats(1.0, 3.0),
)
def test_sums_and_differences_of_terms_over_a_proper_denominator(terms, root, av, bv):
    """``(+-c0 s^k0 +- c1 s^k1 ...) / ((s + a)(s + r))``: proper whatever the order of terms."""

    def expr(e, s):
        r = e["b"] if root == "b" else 1.5
        return _numerator(terms, e, s) / ((s + e["a"]) * (s + r))

    _assert_matches(expr, {"a": av, "b": bv})
