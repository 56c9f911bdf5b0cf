"""``wcgain(..., initial_split=)``: the branch and bound starts from a grid of sub-boxes.

Reference loop with a closed-form worst-case gain (as in test_gain_branch_and_bound):
``x'' + p x' + (1 - c d1 d2) x = u``, ``y = x``, ``d1, d2`` in ``[-1, 1]``.  The peak gain
over frequency is ``1 / (p sqrt(k - p^2 / 4))`` with ``k = 1 - c d1 d2`` when
``k > p^2 / 2`` (else ``1 / k``); the worst case is at ``d1 d2 = 1``.  Brute-force checks
evaluate the hand-written frequency response on a dense parameter x frequency grid.
"""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import control
import numpy as np
import pytest
from test_gain_branch_and_bound import _gain, _loop  # the same c d1 d2 loop and its closed form

import robustmb as rmb
from robustmb.analysis.branch_and_bound import _grid_boxes, certify_scaled_box
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.errors import ArgumentError


def _brute_max(c, p, n=81):
    t = np.linspace(-1.0, 1.0, n)
    d1, d2 = np.meshgrid(t, t, indexing="ij")
    w = np.concatenate([np.linspace(0.0, 3.0, 3001), np.geomspace(3.0, 1e3, 200)])
    return float(_gain(c, p, d1[..., None], d2[..., None], w[None, None, :]).max())


def _exact(c, p):
    k = 1.0 - c
    return 1.0 / (p * np.sqrt(k - p * p / 4)) if k > p * p / 2 else 1.0 / k


def test_grid_boxes_tile_the_box():
    boxes = _grid_boxes(0.5, [3, 1, 2])
    assert len(boxes) == 6
    vol = sum(float(np.prod(hi - lo)) for lo, hi in boxes)
    assert vol == pytest.approx(1.0**3, rel=1e-12)  # (2 * 0.5)^3
    # every random point of the box lies in exactly one sub-box (interiors disjoint)
    pts = np.random.default_rng(0).uniform(-0.5, 0.5, (500, 3))
    inside = np.array([[np.all((lo < x) & (x < hi)) for lo, hi in boxes] for x in pts])
    assert np.all(inside.sum(axis=1) == 1)


def test_split_start_certifies_a_box_whose_single_bound_fails():
    # 1/(s^2 + s + 1 - c d1 d2) with c = 1: stable iff d1 d2 < 1, margin exactly 1.
    # At 0.98 times the box the single D,G bound fails; the 2 x 2 start certifies it.
    problem = uncertain_problem(_loop(c=1.0))
    assert not certify_scaled_box(problem, problem.blocks, 0.98, max_boxes=1).certified
    cover = certify_scaled_box(problem, problem.blocks, 0.98, max_boxes=12, split=[2, 2])
    assert cover.certified and cover.coverage == pytest.approx(1.0)
    assert cover.boxes >= 4 and cover.evaluated >= 4
    # hand-written check of the certified box: every sampled polynomial is Hurwitz
    t = np.linspace(-0.98, 0.98, 41)
    worst = max(np.max(np.roots([1.0, 1.0, 1.0 - x * y]).real) for x in t for y in t)
    assert worst < 0


@pytest.mark.slow
def test_wcgain_initial_split_is_sound_and_tight():
    c, p = 0.3, 1.0
    res = rmb.wcgain(_loop(c, p), initial_split={"d1": 2, "d2": 2}, max_boxes=24)
    assert res.boxes is not None and res.boxes.certified and res.certified
    assert res.boxes.boxes >= 4
    # sound: no sample of the box above the certified bound (closed form and brute force)
    assert res.upper >= _brute_max(c, p) and res.upper >= _exact(c, p)
    assert res.lower <= _exact(c, p) * (1 + 1e-9)
    assert res.upper / res.lower - 1 <= 5e-3 + 1e-12
    # the lower bound is realised by the reported worst case (written-out response)
    v = res.worst
    realised = _gain(c, p, v["d1"], v["d2"], np.linspace(0.0, 3.0, 30001)).max()
    assert realised == pytest.approx(res.lower, rel=1e-6)


@pytest.mark.slow
def test_wcgain_executors_give_the_serial_result():
    c, p = 0.3, 1.0
    opts = {"initial_split": {"d1": 2, "d2": 2}, "max_boxes": 24}
    serial = rmb.wcgain(_loop(c, p), **opts)
    with ThreadPoolExecutor(2) as ex:
        threads = rmb.wcgain(_loop(c, p), executor=ex, **opts)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=ctx) as ex:
        procs = rmb.wcgain(_loop(c, p), executor=ex, **opts)
    for other in (threads, procs):
        assert (other.lower, other.upper) == (serial.lower, serial.upper)
        assert (other.boxes.boxes, other.boxes.evaluated) == (
            serial.boxes.boxes,
            serial.boxes.evaluated,
        )
    assert serial.certified and serial.upper >= _brute_max(c, p)


@pytest.mark.parametrize(
    "bad, words",
    [
        ([2, 2], "must be a dict"),
        ({"d3": 2}, "initial_split['d3']: no uncertain element"),
        ({"d1": 0}, "initial_split['d1'] must be an integer >= 1"),
        ({"d1": 1.5}, "initial_split['d1'] must be an integer >= 1"),
        ({"d1": True}, "initial_split['d1'] must be an integer >= 1"),
        ({"d1": 5, "d2": 5}, "initial_split makes 25 sub-boxes, more than max_boxes=16"),
    ],
)
def test_initial_split_errors_name_the_entry(bad, words):
    with pytest.raises(ArgumentError) as err:
        rmb.wcgain(_loop(), initial_split=bad)
    assert words in str(err.value)


def test_initial_split_of_a_dynamic_uncertainty_is_refused():
    """Only real parameters are split: a split of an ``ultidyn`` would be ignored."""
    s = control.tf("s")
    loop = rmb.uss(control.ss(1 / (s + 1))) * (1 + 0.2 * rmb.ultidyn("D", (1, 1)))
    with pytest.raises(ArgumentError) as err:
        rmb.wcgain(loop, initial_split={"D": 4})
    assert "initial_split['D']: 'D' is not a real parameter" in str(err.value)


def test_sweep_scalings_restart_a_neighbouring_problem():
    # MuPeak.scalings of a covered fixed-level sweep warm-start the sweep of a nearby
    # problem: the same verdict on either side of its exact margin, from the same start.
    # 1/(s^2 + s + 1 + q), q in [-k, k]: stable iff k < 1 (margin exactly 1/k).
    s = control.tf("s")

    def m11(k):
        q = rmb.ureal("q", 0.0, range=(-k, k))
        return uncertain_problem(1 / (s * s + s + 1 + q))

    first = m11(0.9)
    peak = certified_mu_peak(first.m11, first.blk, level=0.999, lower=False, relax=False)
    assert peak.covered and peak.scalings.shape[0] == len(peak.omega)
    start = (peak.omega, peak.scalings)
    for k, stable in ((0.99, True), (1.01, False)):
        other = m11(k)
        warm = certified_mu_peak(
            other.m11, other.blk, level=0.999, lower=False, relax=False, start=start
        )
        assert warm.covered is stable
