"""Every analysis result says why its bounds are what they are (``reason``)."""

import control
import numpy as np

import robustmb as rmb

s = control.tf("s")


def _open_loop():
    # k / (s - 2): an "open loop" whose pole at +2 does not depend on k
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    return k / (s - 2)


def test_robstab_on_unstable_centre_says_so():
    res = rmb.robstab(_open_loop())
    assert res.lower == 0.0 and res.upper == 0.0 and np.isnan(res.critical_frequency)
    assert "unstable" in res.reason and "centre" in res.reason
    # the unstable pole (closed form: +2) is named
    assert "2" in res.reason.split("half-plane:")[1]


def test_unstable_centre_names_off_nominal_elements():
    # range centre 2.5 differs from the nominal 1: s - k + 2 is unstable at the centre
    k = rmb.ureal("k", 1.0, range=(0.0, 5.0))
    res = rmb.robstab(1 / (s - k + 2))
    assert res.upper == 0.0
    assert "not the nominal values for k" in res.reason


def test_wcgain_and_robgain_on_unstable_centre_say_so():
    wc = rmb.wcgain(_open_loop())
    assert np.isinf(wc.lower) and np.isinf(wc.upper) and "unstable" in wc.reason
    rg = rmb.robgain(_open_loop(), 2.0)
    assert rg.lower == 0.0 and rg.upper == 0.0 and "unstable" in rg.reason


def test_reason_of_a_regular_result():
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    # a small all-real loop: the vertex polytope certifies the margin, no tight sweep
    res = rmb.robstab(1 / (s * s + c * s + 1))
    assert "lower bound 0.9995 from the vertex polytope" in res.reason and "rad/s" in res.reason
    # discrete time: the mu sweep certifies it
    z = control.tf([1, 0], [1], 0.1)
    a = rmb.ureal("a", 0.5, percent=40)
    loop = rmb.uss(control.ss(1 / z)) @ rmb.feedback(1.0, -a * rmb.uss(control.ss(1 / z)))
    res = rmb.robstab(loop)
    assert "from the mu upper bound on the whole frequency axis" in res.reason
    wc = rmb.wcgain(rmb.ureal("k", 1.0, range=(0.5, 2.0)) / (s + 1))
    assert wc.certified and "whole frequency axis" in wc.reason
    rg = rmb.robgain(rmb.ureal("k", 1.0, range=(0.5, 1.5)) / (s + 1), 1.25)
    assert "robgain" in rg.reason and np.isfinite(rg.upper)


def test_discrete_unstable_centre():
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    res = rmb.robstab(rmb.uss([[1.5]], [[1.0]], [[k]], [[0.0]], dt=0.1))
    assert res.upper == 0.0 and "unit circle" in res.reason


def test_open_loop_from_a_misspelt_signal_is_reported():
    # The controller reads "y_m" but the plant writes "ym": the loop stays open and the
    # plant's unstable pole (+1) remains.  robstab must say so, not answer a bare 0/0/nan.
    import warnings

    k = rmb.ureal("k", 2.0, percent=10)
    plant = rmb.uss(k / (s - 1))
    plant.name, plant.input_names, plant.output_names = "P", ["u"], ["ym"]
    ctrl = rmb.uss(control.ss([], [], [], [[3.0]]))
    ctrl.name, ctrl.input_names, ctrl.output_names = "C", ["y_m"], ["u"]
    summ = rmb.uss(control.ss([], [], [], [[1.0, -1.0]]))
    summ.name, summ.input_names, summ.output_names = "S", ["r", "ym"], ["e"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loop = rmb.connect([plant, ctrl, summ], inputs=["r"], outputs=["ym"])
    res = rmb.robstab(loop)
    assert res.upper == 0.0 and "unstable" in res.reason and "unconnected" in res.reason
    assert "1" in res.reason.split("half-plane:")[1]
