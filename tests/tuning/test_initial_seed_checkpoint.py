"""Arguments of tuning checked before any tuning: ``initial=``, ``seed``, ``checkpoint``;
and the checkpoint's atomic write."""

import json
import os

import control
import numpy as np
import pytest
from _loops import error_feedback_loop

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning import Gain, WeightedGain
from robustmb.tuning.checkpoint import read_checkpoint, write_checkpoint


def _loop():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    k = rmb.realp("k", 1.0, minimum=0.0, maximum=5.0)
    kf = rmb.realp("kf", 0.5, free=False)
    km = rmb.realp("km", [[1.0, 2.0]], free=[[True, False]])
    P = rmb.feedback(rmb.uss(control.tf([1.0], [1.0, 0.0])), a)  # 1/(s + a)
    # km enters through its first entry only (times 0.1): its second one is fixed
    CL = rmb.feedback(P * (k + kf + 0.1 * (km @ np.array([[1.0], [0.0]]))), 1.0)
    CL.input_names, CL.output_names = ["r"], ["y"]
    return CL


def _tune(CL, **kw):
    return rmb.systune(CL, [Gain("r", "y", 2.0)], robust=True, certify=False, max_rounds=1, **kw)


@pytest.mark.parametrize(
    ("initial", "match"),
    [
        ({"k": np.nan}, "initial value of 'k' must be finite"),
        ({"k": np.inf}, "initial value of 'k' must be finite"),
        ({"k": "x"}, "initial value of 'k' must be real numbers"),
        ({"k": True}, "initial value of 'k' must be real numbers"),
        ({"k": 1j}, "initial value of 'k' must be real numbers"),
        ({"k": [1.0, 2.0]}, r"initial value of 'k' has shape \(2,\)"),
        ({"k": -3.0}, r"initial value of 'k' \[-3.0\] lies outside its bounds \[0.0, 5.0\]"),
        ({"k": 6.0}, "initial value of 'k'.*outside its bounds"),
        ({"kf": 0.7}, "initial value of 'kf' differs from its fixed"),
        ({"km": [[1.0, 3.0]]}, "initial value of 'km' differs from its fixed"),
        ({"nope": 1.0}, "initial names 'nope', not a tunable"),
        ([("k", 1.0)], "initial must be a dict"),
    ],
)
def test_bad_initial_is_named_before_tuning(initial, match):
    with pytest.raises(ArgumentError, match=match):
        _tune(_loop(), initial=initial)


@pytest.mark.filterwarnings("ignore:robust tuning did not converge")
def test_good_initial_starts_there():
    # a scalar for a 1x1 matrix and the fixed entries repeated are accepted; the start is
    # the first run's start point
    res = _tune(_loop(), initial={"k": 2.5, "kf": 0.5, "km": np.array([[0.25, 2.0]])})
    start = res.runs[-1].start
    assert sorted(start.tolist()) == [0.25, 2.5]


@pytest.mark.filterwarnings("ignore:robust tuning did not converge")
def test_scalar_initial_for_a_1x1_block():
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    CL = error_feedback_loop(rmb.uss(1 / (s - a)), rmb.tunable_gain("K", 1, 1))
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    res = rmb.systune(CL, goals, seed=0, certify=False, initial={"K": 4.0}, max_rounds=1)
    assert res.runs[-1].start.tolist() == [4.0]


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True])
def test_bad_seed(seed):
    CL = _loop()
    with pytest.raises(ArgumentError, match="systune: seed must be None or an integer"):
        rmb.systune(CL, [Gain("r", "y", 2.0)], robust=False, seed=seed)
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ArgumentError, match="hinfstruct: seed must be None or an integer"):
        rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), seed=seed)


def test_numpy_integer_seed_is_fine():
    P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), seed=np.int64(2))
    assert np.isfinite(res.verify())


def test_bad_checkpoint_fails_before_tuning(tmp_path):
    CL = _loop()
    with pytest.raises(ArgumentError, match="checkpoint must be a file name"):
        _tune(CL, checkpoint=5)
    missing = tmp_path / "no" / "such" / "ck.json"
    with pytest.raises(ArgumentError, match="checkpoint folder .* does not exist"):
        _tune(CL, checkpoint=missing)
    with pytest.raises(ArgumentError, match="is not a file name"):
        _tune(CL, checkpoint=tmp_path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_checkpoint_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ArgumentError, match="is not writable"):
            _tune(_loop(), checkpoint=folder / "ck.json")
    finally:
        folder.chmod(0o700)


def test_checkpoint_folder_refusing_files(tmp_path, monkeypatch):
    # as an unwritable folder does for a user other than root
    import robustmb.tuning.checkpoint as ck

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(ck.tempfile, "mkstemp", refuse)
    with pytest.raises(ArgumentError, match="is not writable .Permission denied"):
        _tune(_loop(), checkpoint=tmp_path / "ck.json")


def test_checkpoint_write_is_atomic_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "ck.json"
    # a corrupt leftover of the old fixed temporary name is neither read nor reused
    (tmp_path / "ck.json.tmp").write_text("{corrupt")
    write_checkpoint(path, {"k": np.array(2.0)}, [{"a": 1.0}], [{"round": 0}])
    assert read_checkpoint(path)["values"]["k"] == 2.0
    # a failing replace (the target is a folder) removes its temporary file
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(OSError):
        write_checkpoint(tmp_path / "dir.json", {"k": 1.0}, [], [])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["ck.json", "ck.json.tmp", "dir.json"]
    assert json.loads(path.read_text())["values"] == {"k": 2.0}
