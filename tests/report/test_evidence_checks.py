"""Checks of the arm evidence and of what the replay may say: bad files and meta.json
refused naming the file, keys of integers only, exact coverage in the headlines, a sample
contradicting a proven key refused, the replay's clocks, and the recorded certificates
matched to their design."""

import math
import os
import shutil
from decimal import ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np
import pytest

from robustmb.errors import ArgumentError
from robustmb.report import arm_certificate
from robustmb.report.arm_certificate import (
    PartitionReplay,
    channel_verdict,
    evidence_folders,
    load_evidence,
    load_shipped_design,
    replay_partition,
)
from robustmb.report.evidence_keys import (
    covered_area,
    key_file_name,
    key_parts,
    key_rect,
    normalised_keys,
)
from robustmb.report.replay_html import _share_cell, percent_down, render_replay_html
from robustmb.report.replay_text import channel_summary, summary_text


@pytest.fixture(scope="module")
def tracking():
    """``(folder, meta, evidence)`` of the shipped tracking channel (found, not named)."""
    folder = evidence_folders()["tracking"]
    meta, ev = load_evidence(folder)
    return folder, meta, ev


def _folder(tmp_path, tracking, files=None, meta=None):
    """A copy of the shipped folder's meta.json and one of its files, plus ``files``."""
    src, _, ev = tracking
    d = tmp_path / "ev"
    d.mkdir()
    if meta is None:
        shutil.copy(os.path.join(src, "meta.json"), d)
    else:
        (d / "meta.json").write_text(meta)
    shutil.copy(os.path.join(src, key_file_name(sorted(ev)[0])), d)
    for name, arrays in (files or {}).items():
        np.savez(d / name, **arrays)
    return d


# --- F1: evidence files checked when loaded, naming the file -------------------------------------

_W = np.array([0.0, 1.0, np.inf])
_X = np.ones((3, 4))


@pytest.mark.parametrize(
    "omega, scalings, what",
    [
        (np.array([0.0, np.nan, 2.0]), _X, "NaN"),
        (np.array([0.0, -1.0, 2.0]), _X, "negative"),
        (np.ones((3, 1)), _X, "not 1-D"),
        (np.array(["0", "1", "2"]), _X, "dtype"),
        (_W.astype(complex), _X, "dtype"),
        (_W, np.ones(3), "shape"),
        (_W, np.ones((2, 4)), "shape"),
        (_W, np.ones((3, 4), bool), "dtype"),
    ],
)
def test_bad_evidence_arrays_are_refused_naming_the_file(tmp_path, tracking, omega, scalings, what):
    d = _folder(tmp_path, tracking, {"box_0_1.npz": {"omega": omega, "scalings": scalings}})
    with pytest.raises(ArgumentError, match=f"box_0_1.npz.*{what}"):
        load_evidence(str(d))


def test_good_arrays_load_as_floats_with_inf_allowed(tmp_path, tracking):
    ints = {"omega": np.array([0, 1, 2]), "scalings": np.ones((3, 2), np.int32)}
    inf = {"omega": _W.astype(np.float32), "scalings": _X.astype(np.float32)}
    d = _folder(tmp_path, tracking, {"box_0_1.npz": ints, "box_1_0.npz": inf})
    _, ev = load_evidence(str(d))
    w, x = ev[(1, 0)]
    assert w.dtype == x.dtype == np.float64 and w[-1] == np.inf
    assert ev[(0, 1)][0].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.slow
def test_a_recheck_error_names_the_keys_file_also_in_a_worker(tracking):
    _, meta, ev = tracking
    good, bad = sorted(ev)[:2]
    w, x = ev[bad]
    # one parameter short per frequency: only the re-check knows the block structure
    evidence = {good: ev[good], bad: (w, x[:, :-1])}
    for workers in (1, 2):
        with pytest.raises(ArgumentError, match=key_file_name(bad).replace(".", r"\.")):
            replay_partition(load_shipped_design()["values"], meta, evidence, samples=False,
                             workers=workers)  # fmt: skip


# --- F7: malformed meta.json ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, what",
    [
        ("{bad json", "not readable JSON"),
        ("[1, 2]", "holds a list"),
        ('{"n": 8, "gamma": 1.0}', "no channel"),
        ('{"channel": "tracking", "gamma": 1.0}', "no n"),
        ('{"channel": "tracking", "n": 8}', "no gamma"),
        ('{"channel": "tracking", "n": 8.0, "gamma": 1.0}', "meta.n"),
    ],
)
def test_malformed_meta_json_is_refused_naming_the_file(tmp_path, tracking, text, what):
    d = _folder(tmp_path, tracking, meta=text)
    with pytest.raises(ArgumentError, match=f"meta.json.*{what}"):
        load_evidence(str(d))
    if "meta.n" not in what:
        with pytest.raises(ArgumentError, match=f"meta.json.*{what}"):
            evidence_folders(str(tmp_path))


def test_meta_without_channel_given_to_the_replay_is_refused(tracking):
    _, meta, _ = tracking
    meta = {k: v for k, v in meta.items() if k != "channel"}
    with pytest.raises(ArgumentError, match="meta.channel"):
        replay_partition(load_shipped_design()["values"], meta, {}, samples=False)


# --- F6: keys of integers only, one spelling per key ----------------------------------------------


_NOT_INTEGERS = [(0.7, 1), (True, 0), ("3", "4"), (0, 0, ((2, 2, 0.0, 1),)),
                 (1, np.float64(2.0)), (0, 0, ((2, 2, np.bool_(1), 0),))]  # fmt: skip


@pytest.mark.parametrize("key", _NOT_INTEGERS)
def test_keys_with_non_integers_are_refused(key):
    with pytest.raises(ArgumentError, match="of integers"):
        key_parts(key)


def test_numpy_integer_keys_are_the_same_keys():
    assert key_parts((np.int64(6), np.int32(7), ((np.uint8(2), 2, 0, 1),))) == (
        6, 7, ((2, 2, 0, 1),),
    )  # fmt: skip


def test_two_spellings_of_one_key_are_refused_naming_both(tracking):
    _, meta, ev = tracking
    key = sorted(ev)[0]
    i, j, _ = key_parts(key)
    # the whole cell (i, j), spelt twice: refused before anything is re-checked
    with pytest.raises(ArgumentError, match=r"keys \(\d+, \d+\) and \(\d+, \d+, \(\)\)"):
        normalised_keys({(i, j): 1, (i, j, ()): 2})
    with pytest.raises(ArgumentError, match="are the same key"):
        replay_partition(load_shipped_design()["values"], meta,
                         {(i, j): ev[key], (i, j, ()): ev[key]}, samples=False)  # fmt: skip
    assert normalised_keys({(i, j, ()): 1}) == {(i, j): 1}


def test_a_key_listed_twice_is_not_counted_twice():
    piece = (1, 1, ((2, 2, 0, 1),))
    for keys in ([(0, 0), (0, 0, ())], [piece, (1, 1, [(2, 2, 0, 1)])], [(0, 0), (0, 0)]):
        with pytest.raises(ArgumentError, match="are the same key"):
            covered_area(8, keys)
    # once each: 1/64 + 1/256, by hand
    assert covered_area(8, [(0, 0), piece]) == Fraction(1, 64) + Fraction(1, 256)


# --- F2: the headline decided by the exact coverage -----------------------------------------------


def _decimal_floor_percent(share, digits):
    """``100 * share`` rounded down to ``digits`` significant digits, by long division."""
    ctx = Context(prec=200, rounding=ROUND_FLOOR)
    value = ctx.multiply(ctx.divide(Decimal(share.numerator), Decimal(share.denominator)), 100)
    return Context(prec=digits, rounding=ROUND_FLOOR).plus(value)


@pytest.mark.parametrize(
    "share",
    [Fraction(1), Fraction(0), Fraction(1, 8), 1 - Fraction(1, 64 * 4**25),
     Fraction(999, 1000), Fraction(9991, 10000), Fraction(1, 3), Fraction(2, 3)],
)  # fmt: skip
def test_exact_shares_are_rounded_down(share):
    want = Decimal(math.floor(share * 1000)) / 10
    assert Decimal(percent_down(share)) == want
    assert percent_down(share) == f"{want:.1f}"
    cell = _share_cell(share)
    text = cell[cell.index(">") + 1 : cell.index("</td>")]
    if share == 0:
        assert Decimal(text) == 0
    else:
        assert Decimal(text) == _decimal_floor_percent(share, 6)
    assert (Decimal(text) == 100) == (share == 1)


def _summary(rep):
    return {
        "design": "d",
        "guarantee": "g",
        "channels": {
            "tracking W_e S": channel_summary(rep, None, 1.0, arm_certificate.channel_verdict(rep))
        },
    }


def test_a_share_just_below_one_is_never_shown_as_all_of_the_square():
    cov = 1 - Fraction(1, 64 * 4**25)
    assert float(cov) == 1.0  # the float cannot tell
    rep = PartitionReplay("tracking", 0.95, 8, {(0, 0): "proven"}, float(cov), 0.5,
                          coverage_exact=cov)  # fmt: skip
    summary = _summary(rep)
    assert summary["channels"]["tracking W_e S"]["verdict"] == "not proven"
    line = summary_text(summary).splitlines()[3]
    assert "on 99.9 %" in line and "100.0" not in line and "not proven on the rest" in line
    page = render_replay_html(summary)
    assert "on 99.9 % of the" in page and "100.0 %" not in page
    assert "not proven elsewhere" in page
    # exactly 1: all of the square, no "rest"
    full = PartitionReplay("tracking", 0.95, 8, {(0, 0): "proven"}, 1.0, np.nan,
                           coverage_exact=Fraction(1))  # fmt: skip
    line = summary_text(_summary(full)).splitlines()[3]
    assert "on 100.0 %" in line and "not proven" not in line.split("verdict")[0]


# --- F3: a sample inside a proven key at or above its level ---------------------------------------


def test_a_fully_proven_square_with_a_sample_above_its_level_is_an_error():
    for worst in (0.97, 0.95, np.inf):
        rep = PartitionReplay("tracking", 0.95, 1, {(0, 0): "proven"}, 1.0, np.nan,
                              coverage_exact=Fraction(1), square_worst=worst)  # fmt: skip
        with pytest.raises(ArgumentError, match="contradiction"):
            channel_verdict(rep)
        with pytest.raises(ArgumentError, match="contradiction"):
            channel_summary(rep, None, 1.0, arm_certificate.channel_verdict(rep))
    below = PartitionReplay("tracking", 0.95, 1, {(0, 0): "proven"}, 1.0, np.nan,
                            coverage_exact=Fraction(1), square_worst=0.9499)  # fmt: skip
    assert channel_verdict(below) == "pass"


def _holding_the_centre(n, keys):
    """The keys whose closed rectangle holds the square's centre (exact fractions)."""
    half = Fraction(1, 2)
    out = []
    for k in keys:
        (lo1, hi1), (lo2, hi2) = key_rect(n, k)
        if lo1 <= half <= hi1 and lo2 <= half <= hi2:
            out.append(k)
    return out


def test_a_sample_above_the_level_inside_a_proven_key_is_refused(tracking, monkeypatch):
    _, meta, ev = tracking
    n, gamma = meta["n"], meta["gamma"]
    centre = _holding_the_centre(n, ev)
    away = [k for k in sorted(ev) if k not in centre]
    assert centre and away
    calls = []

    def too_high(problem, rows):  # every loop sampled above the certified level
        calls.append(len(rows))
        return gamma * 1.01, np.asarray(rows)[0], 0

    monkeypatch.setattr(arm_certificate, "sampled_gain", too_high)
    values = load_shipped_design()["values"]
    # sample_n = 1: the one grid point is the square's centre, inside the proven key
    with pytest.raises(ArgumentError, match=key_file_name(centre[0]).replace(".", r"\.")):
        replay_partition(values, meta, {centre[0]: ev[centre[0]]}, sample_n=1)
    # proven away from the centre: the high sample is on a part not proven, a plain fail
    rep = replay_partition(values, meta, {away[0]: ev[away[0]]}, sample_n=1)
    assert rep.status[away[0]] == "proven" and channel_verdict(rep, spec=gamma) == "fail"


# --- F8: the replay's clocks start once the problem is built --------------------------------------


def test_the_replay_clock_does_not_count_building_the_problem(tracking, monkeypatch):
    _, meta, _ = tracking
    clock = {"t": 0.0}
    build = arm_certificate.arm_channel_problem

    def slow_build(values, channel="tracking"):
        clock["t"] += 1000.0  # building the problem "takes" 1000 s of this fake clock
        return build(values, channel)

    monkeypatch.setattr(arm_certificate, "arm_channel_problem", slow_build)
    monkeypatch.setattr(arm_certificate.time, "perf_counter", lambda: clock["t"])
    rep = replay_partition(load_shipped_design()["values"], meta, {}, samples=False)
    assert clock["t"] == 1000.0 and rep.seconds == 0.0
