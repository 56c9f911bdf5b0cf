"""Warnings name the user's line, not a line inside robustmb.

The warnings below are raised at different depths below the public call (a method of a
search class, a helper of a batch path); each must be attributed to this file.
"""

import warnings

import control
import numpy as np

import robustmb as rmb
from robustmb.errors import warn


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    assert caught, "the call was expected to warn"
    return caught


def _oscillators_in_series(k, zeta):
    G = control.ss([[0.0, 1.0], [-1.0, -2.0 * zeta]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])
    out = G
    for _ in range(k - 1):
        out = out * G
    return out


def test_hinfnorm_cluster_warning_points_at_the_caller():
    # three identical modes of damping 1e-5 in series: the uncertified-bound warning
    caught = _caught(lambda: rmb.hinfnorm(_oscillators_in_series(3, 1e-5)))
    assert {w.filename for w in caught} == {__file__}


def test_freqresp_on_a_pole_points_at_the_caller():
    caught = _caught(lambda: rmb.freqresp(control.tf([1.0], [1.0, 0.0, 1.0]), [1.0]))
    assert {w.filename for w in caught} == {__file__}


def test_connect_unused_signal_points_at_the_caller():
    G = rmb.uss(control.tf([1.0], [1.0, 1.0]))
    G.name, G.input_names, G.output_names = "G", ["u"], ["y"]
    C = rmb.uss(control.ss([], [], [], [[2.0]]))
    C.name, C.input_names, C.output_names = "C", ["e"], ["v"]
    caught = _caught(lambda: rmb.connect([G, C], inputs=["u"], outputs=["y"]))
    assert {w.filename for w in caught} == {__file__}


def test_warn_outside_the_package_is_the_direct_caller():
    caught = _caught(lambda: warn("direct"))
    assert caught[0].filename == __file__
    assert np.isfinite(caught[0].lineno)
