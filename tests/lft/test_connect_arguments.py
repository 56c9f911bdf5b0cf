"""connect's argument forms and the signal names accepted on an uncertain object.

The reference for a single-string signal list is ``control.interconnect``, which
reads ``inputs="ref"`` as the one signal ``ref``.
"""

import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, SignalError


def _loop():
    P = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], inputs="u", outputs="y", name="P")
    K = control.ss([], [], [], [[2.0]], inputs="e", outputs="u", name="K")
    S = rmb.sumblk("e = ref - y")
    return P, K, S


def _response(sys, s):
    return complex(np.asarray(sys(s)).ravel()[0])


def test_single_string_inputs_outputs_are_one_signal_each():
    P, K, S = _loop()
    T = rmb.connect([P, K, S], inputs="ref", outputs="y")
    assert T.input_names == ["ref"] and T.output_names == ["y"]
    ref = control.interconnect(
        [P, K, control.summing_junction(["ref", "-y"], "e")], inputs="ref", outputs="y"
    )
    assert ref.input_labels == ["ref"]
    for s in (0.0, 0.5j, 3j):
        # T = 2/(s + 3), from python-control's interconnection of the same blocks
        assert np.isclose(_response(T.nominal(), s), _response(ref, s), rtol=1e-12)
        assert np.isclose(_response(T.nominal(), s), 2 / (s + 3), rtol=1e-12)


def test_single_string_equals_one_element_list():
    P, K, S = _loop()
    T1 = rmb.connect([P, K, S], inputs="ref", outputs="u")
    T2 = rmb.connect([P, K, S], inputs=["ref"], outputs=["u"])
    assert T1.output_names == T2.output_names == ["u"]
    assert np.allclose(T1.nominal().D, T2.nominal().D)


def test_single_string_ignore_lists():
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0]], [[0.0, 0.0]], name="P")
    P = rmb.uss(P)
    P.name, P.input_names, P.output_names = "P", ["u", "dist"], ["y"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T = rmb.connect([P], inputs="u", outputs="y", ignore_inputs="dist")
    assert T.shape == (1, 1)


@pytest.mark.parametrize("systems", ["P", "single", 5, None])
def test_systems_must_be_a_list(systems):
    P, _, _ = _loop()
    arg = P if systems == "single" else systems
    with pytest.raises(ArgumentError, match="systems"):
        rmb.connect(arg, inputs="u", outputs="y")


def test_empty_systems_list():
    with pytest.raises(ArgumentError, match="systems"):
        rmb.connect([], inputs="u", outputs="y")


@pytest.mark.parametrize(
    "kw", [{"inputs": 5}, {"outputs": 2.5}, {"ignore_inputs": 3}, {"ignore_outputs": object()}]
)
def test_non_list_signal_arguments(kw):
    P, _, _ = _loop()
    args = {"inputs": "u", "outputs": "y"} | kw
    name = next(iter(kw))
    with pytest.raises(ArgumentError, match=name):
        rmb.connect([P], **args)


@pytest.mark.parametrize(
    "names, what",
    [(5, "must be a list"), ([""], "blank"), (["  "], "blank"), ([" u"], "surrounding")],
)
def test_bad_input_names(names, what):
    X = rmb.uss(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]))
    with pytest.raises((ArgumentError, SignalError), match=what) as info:
        X.input_names = names
    assert "input_names" in str(info.value)
    with pytest.raises((ArgumentError, SignalError), match="output_names"):
        X.output_names = names


def test_inner_spaces_kept():
    X = rmb.uss(control.ss(np.diag([-1.0, -2.0]), np.eye(2), np.eye(2), np.zeros((2, 2))))
    # python-control accepts a name with an inner space; connect finds it by that name.
    X.name, X.input_names, X.output_names = "X", ["u 1", "u2"], ["y 1", "y2"]
    T = rmb.connect([X], inputs=["u 1"], outputs="y 1", check_unused=False)
    assert np.isclose(_response(T.nominal(), 0.0), 1.0)
