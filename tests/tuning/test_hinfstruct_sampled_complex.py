"""hinfstruct on samples of plants with a ``ucomplex`` (or ``ultidyn``) element: held at
its nominal in every sample, as systune does."""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError


def _plants():
    """Two generalised plants of ``G = (1 + c)/(s - a)`` under ``u = K y``: ``d -> 2.5 y``
    with ``y = -x`` and ``r -> 0.25 u`` with ``y = r - x``.  At ``c = 0`` their norms are
    ``2.5/(K - a)`` and ``0.25 K`` (first order: the larger of the gains at 0 and inf;
    ``0.25 K a/(K - a) <= 0.25 K`` for ``K >= 2 a``)."""
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    c = rmb.ucomplex("c", 0.0, radius=0.3)
    g = 1 + c
    p1 = rmb.uss([[a]], [[g, g]], [[2.5], [-1.0]], [[0.0, 0.0], [0.0, 0.0]])
    p2 = rmb.uss([[a]], [[0.0, g]], [[0.0], [-1.0]], [[0.0, 0.25], [1.0, 0.0]])
    return [p1, p2]


def _k_ref(a_max):
    # 2.5 / (K - a_max) = K / 4
    return (a_max + np.sqrt(a_max**2 + 40.0)) / 2


def test_drawn_samples_hold_a_complex_element_at_its_nominal():
    plants = _plants()
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        # was: "cannot use an object of type ComplexStateSpace in an LFT"
        res = rmb.hinfstruct(plants, rmb.tunable_gain("K", 1, 1), samples=3, seed=1)
    # the drawn values of a (the same stream as before: one draw of every element)
    a_max = max(max(p["a"] for p in plant.usample(3, seed=1)[1]) for plant in plants)
    a_max = max(a_max, 1.0)
    k = float(res.values["K"][0, 0])
    assert k == pytest.approx(_k_ref(a_max), rel=1e-6)
    assert res.gamma == pytest.approx(_k_ref(a_max) / 4, rel=1e-6)
    assert len(res.closed_loop) == 2 * 4  # nominal + 3 samples of each plant
    # every closed loop is real and the plant's at c = 0: 2.5/(K - a) or K/4
    for cl in res.closed_loop:
        assert isinstance(cl, control.StateSpace) and not np.iscomplexobj(cl.A)


def test_given_samples_hold_a_complex_element_at_its_nominal():
    samples = [{"a": 1.5}, {"a": 0.7, "c": 0.0}]
    res = rmb.hinfstruct(_plants(), rmb.tunable_gain("K", 1, 1), samples=samples)
    assert float(res.values["K"][0, 0]) == pytest.approx(_k_ref(1.5), rel=1e-6)  # = 4
    assert res.gamma == pytest.approx(1.0, rel=1e-6)


def test_a_given_sample_of_a_complex_element_is_refused():
    with pytest.raises(ArgumentError, match=r"samples\[1\] sets the complex element 'c'"):
        rmb.hinfstruct(_plants(), rmb.tunable_gain("K", 1, 1), samples=[{"a": 1.5}, {"c": 0.2j}])


def test_an_ultidyn_element_is_held_at_its_nominal():
    delta = rmb.ultidyn("D", (1, 1), bound=0.2)
    plants = [(1 + delta) * p for p in _plants()]  # gains 1 + D, the same at D = 0
    res = rmb.hinfstruct(plants, rmb.tunable_gain("K", 1, 1), samples=[{"a": 1.5}])
    assert float(res.values["K"][0, 0]) == pytest.approx(_k_ref(1.5), rel=1e-6)
    with pytest.raises(ArgumentError, match=r"samples\[0\] sets the ltidyn element 'D'"):
        rmb.hinfstruct(plants, rmb.tunable_gain("K", 1, 1), samples=[{"D": 0.1}])


def test_a_complex_nominal_is_refused():
    c = rmb.ucomplex("c", 1.0 + 1.0j, radius=0.3)
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    P = rmb.uss([[a]], [[1 + c, 1 + c]], [[2.5], [-1.0]], [[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ArgumentError, match=r"complex at its nominal values \(elements \['c'\]\)"):
        rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), samples=1)
