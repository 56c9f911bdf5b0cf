"""The stored arm designs made from a multi-model (robust) 3-state start, re-checked.

``case_studies/robotic_arm/checkpoints/arm_lpv_robust_start.json`` (``robust_start.py``:
one LTI controller, ``M1 = M2 = 0``), ``arm_lpv_robust_start_grown.json`` (then
``chained_schedule.py``'s box continuation), ``arm_lpv_scheduled_multimodel.json``
(``scheduled_multimodel.py``: ``M0, M1, M2`` tuned together on an active set of frozen
plants, from the lam-0.3 LTI start) and ``arm_lpv_scheduled_growth.json``
(``scheduled_growth.py``: the same tuning continued in small box steps, in coordinates
normalised over the current box), all stored by ``chained_schedule.py check`` and
``store``, record a sampled check of ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)``:
worst ``gamma1 = ||W_e S||``, ``gamma2 = ||W_T K S||`` and where they occur, on the box
each claims (``checks.independent.box``: the arm's box scaled by ``lam`` about one frozen
plant; NOT the whole box when ``lam < 1``).  The controller is rebuilt from the stored matrices, the
loops are closed with python-control, poles by numpy, both norms by SLICOT AB13DD (tol
1e-6 and 1e-8, the larger kept) and a numpy 3000-point grid, with the weights written out
in ``test_arm_chained_design.py`` (whose helpers are reused).  Only the frozen plant comes
from the package.  Sampled: this certifies nothing between the points.
"""

import json
import os

import numpy as np
import pytest
from _scripts import ARM_STUDY
from test_arm_chained_design import (
    PHYSICAL,
    _box,
    _check,
    _check_points_in_box,
    _controller,
    _plant,
)

pytestmark = pytest.mark.slow

SCHEDULED = "arm_lpv_scheduled_multimodel.json"
GROWN = "arm_lpv_scheduled_growth.json"
FILES = ("arm_lpv_robust_start.json", "arm_lpv_robust_start_grown.json", SCHEDULED, GROWN)


def _load(name):
    with open(os.path.join(ARM_STUDY, "checkpoints", name)) as fh:
        return json.load(fh)


@pytest.fixture(scope="module", params=FILES)
def design(request):
    return _load(request.param)


@pytest.fixture(scope="module")
def prob():
    from robustmb.examples import arm_lpv_tuning_problem

    return arm_lpv_tuning_problem()


def test_checked_box_is_the_recorded_one(design):
    """The independent check covers the box the design claims (and says it is sampled)."""
    box = design["checks"]["independent"]["box"]
    assert box["centre"] == design["box"]["centre"]
    assert box["lam"] == pytest.approx(design["box"]["lam"], rel=1e-12)
    assert 0 < box["lam"] <= 1
    assert design["certified"] is None
    assert "NOT a certified design" in design["provenance"]


def test_recorded_points_lie_in_the_checked_box(design, prob):
    centre, lam = _box(design)
    els = prob.closed_loop.uncertainty
    chk = design["checks"]["independent"]
    for part in ("grid", "random"):
        for key in ("where1", "where2"):
            for n, v in chk[part][key].items():
                lo, hi = els[n].range
                assert lo - 1e-12 <= v <= hi + 1e-12
                reach = lam * max(hi - centre[n], centre[n] - lo)
                assert abs(v - centre[n]) <= reach + 1e-12


def test_recorded_worst_points_reproduce(design, prob):
    chk = design["checks"]["independent"]
    for part in ("grid", "random"):
        rec = chk[part]
        assert rec["loops"] > 0 and rec["unstable"] == 0
        for key, idx in (("where1", 1), ("where2", 2)):
            p = rec[key]
            r = _check(_plant(prob, p), _controller(design["values"], prob, p["t1"], p["t2"]))
            assert r[0] < 0
            assert max(r[idx], r[idx + 2]) == pytest.approx(rec[f"gamma{idx}"], rel=1e-6)
            # the grid is a lower bound of the norm and close to it on these loops
            assert r[idx + 2] <= r[idx] * (1 + 1e-9)
            assert r[idx + 2] >= 0.99 * r[idx]
    worst1 = max(chk[p]["gamma1"] for p in ("grid", "random"))
    assert worst1 * (1 + 2e-6) < 1


def test_corners_and_fresh_random_points_stay_within_the_record(design, prob):
    chk = design["checks"]["independent"]
    worst2 = max(chk[p]["gamma2"] for p in ("grid", "random"))
    els = prob.closed_loop.uncertainty
    rng = np.random.default_rng(1415)
    # the four (t1, t2) corners at the worst physical vertex of the order study and nominal
    levels = [(0, 0, 0, 0, 0), (1, 1, 1, -1, 1)]
    points = [
        {"t1": float(a), "t2": float(b)}
        | {n: float(els[n].nominal) * (1 + 0.2 * s) for n, s in zip(PHYSICAL, lv, strict=True)}
        for a in els["t1"].range
        for b in els["t2"].range
        for lv in levels
    ]
    points += [
        {n: float(rng.uniform(*els[n].range)) for n in ("t1", "t2", *PHYSICAL)} for _ in range(16)
    ]
    _check_points_in_box(design, prob, points, worst2)


@pytest.mark.parametrize("name", (SCHEDULED, GROWN))
def test_multimodel_design_is_scheduled(prob, name):
    """``M1``, ``M2`` are not zero: the controller differs between (t1, t2) corners."""
    design = _load(name)
    els = prob.closed_loop.uncertainty
    (a0, a1), (b0, b1) = els["t1"].range, els["t2"].range
    centre, lam = _box(design)
    lo = {
        "t1": centre["t1"] + lam * (a0 - centre["t1"]),
        "t2": centre["t2"] + lam * (b0 - centre["t2"]),
    }
    hi = {
        "t1": centre["t1"] + lam * (a1 - centre["t1"]),
        "t2": centre["t2"] + lam * (b1 - centre["t2"]),
    }
    K0 = _controller(design["values"], prob, lo["t1"], lo["t2"])
    K1 = _controller(design["values"], prob, hi["t1"], hi["t2"])
    d0 = np.block([[K0.A, K0.B], [K0.C, K0.D]])
    d1 = np.block([[K1.A, K1.B], [K1.C, K1.D]])
    assert np.linalg.norm(d1 - d0) > 1e-3 * np.linalg.norm(d0)


def test_grown_design_claims_a_larger_box_than_its_start():
    """The growth run started from the lam-0.4 multi-model design and checked a larger box
    about the same frozen plant."""
    grown, start = _load(GROWN), _load(SCHEDULED)
    assert grown["box"]["centre"] == start["box"]["centre"]
    assert grown["box"]["lam"] > start["box"]["lam"]


def test_box_coordinates_give_the_same_controller(prob):
    """``scheduled_growth.py`` tunes in coordinates normalised over the current box; mapped
    back, the surface equals the one written in whole-box coordinates (rebuilt here from the
    whole-box formula, not by the driver)."""
    import sys

    sys.path.insert(0, ARM_STUDY)
    import chained_schedule as cs
    import scheduled_growth as sg

    values = _load(SCHEDULED)["values"]
    values = {k: np.asarray(v, float) for k, v in values.items()}
    rng = np.random.default_rng(7)
    for lam in (0.3, 0.55, 1.0):
        vb = sg.to_box(values, lam, cs.CENTRES["c"])
        back = sg.from_box(vb, lam, cs.CENTRES["c"])
        for k in values:
            np.testing.assert_allclose(back[k], values[k], rtol=0, atol=1e-10)
        ctrl = sg.box_controller(lam, cs.CENTRES["c"])
        rng_box = sg.box_ranges(lam, cs.CENTRES["c"])
        for _ in range(3):
            t = {n: float(rng.uniform(*rng_box[n])) for n in ("t1", "t2")}
            K1 = _controller(values, prob, t["t1"], t["t2"])
            K2 = ctrl.usubs(vb | t)
            for m1, m2 in zip((K1.A, K1.B, K1.C, K1.D), (K2.A, K2.B, K2.C, K2.D), strict=True):
                np.testing.assert_allclose(np.asarray(m2), m1, rtol=1e-10, atol=1e-9)
        # the box coordinate b1 spans [-1, 1] over the box, s1 only 2 lam wide there (t1's
        # range is scaled by lam about the centre): the box coefficient is lam M1
        np.testing.assert_allclose(vb["K.M1"], lam * values["K.M1"], rtol=1e-12)
