"""``connect`` never returns an open loop silently: unused signals warn, typos are named."""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import SignalError, UnusedSignalWarning


def _named(sys, name, inputs, outputs):
    m = rmb.uss(sys)
    m.name, m.input_names, m.output_names = name, inputs, outputs
    return m


def _blocks(plant_output="ym"):
    k = rmb.ureal("k", 2.0, percent=10)
    G = _named(control.tf([1.0], [1.0, 1.0]) * k, "G", ["u"], [plant_output])
    C = _named(control.ss([], [], [], [[3.0]]), "C", ["e"], ["u"])
    S = _named(control.ss([], [], [], [[1.0, -1.0]]), "S", ["r", "ym"], ["e"])
    return G, C, S


def test_closed_loop_connects_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T = rmb.connect(list(_blocks()), inputs=["r"], outputs=["ym"])
    # Closed loop 6/(s + 7) at k = 2: dc gain 6/7 (open loop would give 6).
    assert T.nominal().dcgain() == pytest.approx(6.0 / 7.0, rel=1e-12)


def test_misspelt_signal_warns_and_names_both_ends():
    with pytest.warns(UnusedSignalWarning) as rec:
        T = rmb.connect(list(_blocks("y_m")), inputs=["r"], outputs=["u"])
    text = " ".join(str(w.message) for w in rec)
    assert "S.ym" in text and "G.y_m" in text
    assert "'y_m'" in text and "misspelt" in text
    assert "held at zero" in text
    # What the warning says is what happened: u = 3 r, the loop is open.
    assert float(T.nominal().dcgain()) == pytest.approx(3.0, rel=1e-12)


def test_ignored_signals_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rmb.connect(
            list(_blocks("y_m")),
            inputs=["r"],
            outputs=["u"],
            ignore_inputs=["ym"],
            ignore_outputs=["G.y_m"],
        )
        rmb.connect(list(_blocks("y_m")), inputs=["r"], outputs=["u"], check_unused=False)


def test_only_the_unignored_side_warns():
    with pytest.warns(UnusedSignalWarning, match=r"unused output\(s\).*G\.y_m") as rec:
        rmb.connect(list(_blocks("y_m")), inputs=["r"], outputs=["u"], ignore_inputs=["S.ym"])
    assert all("unused input" not in str(w.message) for w in rec)


def test_unknown_signal_in_connection_suggests_the_near_name():
    G, C, S = _blocks()
    with pytest.raises(SignalError, match=r"unknown output signal 'G\.y_m'.*did you mean 'ym'"):
        rmb.connect(
            [G, C, S],
            connections=[["G.u", "C.u"], ["C.e", "S.e"], ["S.ym", "G.y_m"]],
            inputs=["r"],
            outputs=["ym"],
        )


def test_unknown_ignore_spec_is_an_error():
    with pytest.raises(SignalError, match="'yy'"):
        rmb.connect(list(_blocks()), inputs=["r"], outputs=["ym"], ignore_outputs=["yy"])


def test_explicit_connections_track_usage():
    G, C, S = _blocks()
    conns = [["G.u", "C.u"], ["C.e", "S.e"], ["S.ym", "G.ym"]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T = rmb.connect([G, C, S], connections=conns, inputs=["r"], outputs=["ym"])
    T2 = rmb.connect([G, C, S], inputs=["r"], outputs=["ym"])
    for v in (1.8, 2.2):
        np.testing.assert_allclose(
            T.usubs({"k": v}).dcgain(), T2.usubs({"k": v}).dcgain(), rtol=1e-13
        )
    with pytest.warns(UnusedSignalWarning, match=r"S\.ym"):
        rmb.connect([G, C, S], connections=conns[:2], inputs=["r"], outputs=["ym"])
