"""Robust LPV synthesis of the two-link arm, problem (27) of seed 000 (slow)."""

import itertools

import control
import numpy as np
import pytest

from robustmb.examples import PAPER_GAMMA2, arm_lpv_synthesis, arm_lpv_tuning_problem

PHYSICAL = ["m1", "J1", "rho1", "L2", "m3"]


def test_problem_structure_shares_the_scheduling_elements():
    prob = arm_lpv_tuning_problem()
    cl = prob.closed_loop
    assert set(cl.uncertainty) == {"t1", "t2", *PHYSICAL}
    assert cl.uncertainty["t2"] is prob.plant.uncertainty["t2"]
    assert set(prob.controller.uncertainty) == {"t1", "t2"}
    assert cl.input_names == ["r[0]", "r[1]"]
    assert cl.output_names == ["e[0]", "e[1]", "T1", "T2"]
    t1, t2 = cl.uncertainty["t1"], cl.uncertainty["t2"]
    assert t1.range == pytest.approx(np.tan(np.radians([22.5, 45.0])))
    assert t2.range == pytest.approx(np.tan(np.radians([22.5, 67.5])))


def _independent_closed_loops(res, t_grid, param_points):
    """Closed loops built with python-control from the substituted plant and controller.

    Returns the worst ||W_e S||, ||W_T K S|| (AB13DD via control.norm) and stability.
    """
    prob = res.problem
    We = control.ss(prob.We)
    We2 = control.append(We, We)
    worst_e = worst_t = 0.0
    stable = True
    for t1, t2 in t_grid:
        K = prob.controller.usubs({"t1": t1, "t2": t2})
        for pt in param_points:
            G = prob.plant.usubs({"t1": t1, "t2": t2, **pt})
            L = control.series(K, G)  # G K
            S = control.feedback(control.ss([], [], [], np.eye(2)), L)
            KS = control.series(S, K)
            if np.max(np.linalg.eigvals(S.A).real) >= 0:
                stable = False
                continue
            worst_e = max(worst_e, control.norm(control.series(S, We2), "inf"))
            worst_t = max(worst_t, control.norm(KS, "inf") * prob.WT)
    return worst_e, worst_t, stable


@pytest.mark.slow
@pytest.mark.xfail(
    reason="the synthesis from scratch run here has not reached the hard goal over the box "
    "(benchmarks/RESULTS.md, robust LPV synthesis of the arm), and gamma2 < 1.2 x 0.69 is "
    "out of reach of the 3-state structure (docs/tuning.md). The stored designs are "
    "certified over the whole box by partition certificates: arm_lpv_guarded (gamma1 < 1, "
    "gamma2 < 10.3; shipped, re-checked by `robustmb demo`, tests/test_cli.py, and sampled "
    "independently in tests/report/test_shipped_design_sampled.py) and arm_lpv_hard "
    "(gamma1 < 0.95, gamma2 < 14.5; checkpoints/arm_lpv_hard_certificate_*.json)",
    strict=False,
)
def test_arm_lpv_synthesis_certified_and_checked_independently():
    res = arm_lpv_synthesis(seed=0)
    # hard goal met on the active set and certified over the whole box
    assert res.gamma1 < 1
    assert res.gamma1_certified < 1
    assert res.tuning.certified[1].certified and res.tuning.certified[0].certified
    # Bound ordering: worst found over the box <= certified upper bound.
    assert res.gamma2_found <= res.gamma2_certified * (1 + 1e-9)
    assert res.gamma1_found <= res.gamma1_certified * (1 + 1e-9)
    assert res.gamma2_certified < 1.2 * PAPER_GAMMA2
    # Independent check: dense (t1, t2) grid x (vertices + random samples) of the five
    # physical parameters, closed loops by python-control, norms by SLICOT AB13DD.
    cl = res.problem.closed_loop
    els = cl.uncertainty
    t1s = np.linspace(*els["t1"].range, 7)
    t2s = np.linspace(*els["t2"].range, 7)
    verts = [
        {n: els[n].range[i] for n, i in zip(PHYSICAL, idx, strict=True)}
        for idx in itertools.product((0, 1), repeat=5)
    ]
    rng = np.random.default_rng(1)
    rand = [{n: rng.uniform(*els[n].range) for n in PHYSICAL} for _ in range(6)]
    nominal = [{n: els[n].nominal for n in PHYSICAL}]
    pts = nominal + verts + rand
    worst_e, worst_t, stable = _independent_closed_loops(res, itertools.product(t1s, t2s), pts)
    assert stable
    assert worst_e <= res.gamma1_certified
    assert worst_t <= res.gamma2_certified
    # The worst cases found by the search are realised values, so the grid cannot be
    # much above them (it samples the same box).
    assert worst_t <= res.gamma2_found * (1 + 1e-6)


def test_design_and_initial_are_exclusive(tmp_path):
    # design= used to overwrite a user's initial= silently
    from robustmb.errors import ArgumentError

    with pytest.raises(ArgumentError, match="initial"):
        arm_lpv_synthesis(design=tmp_path / "none.json", initial={"K": np.zeros((1, 1))})


class _Captured(Exception):
    pass


@pytest.mark.parametrize("random_start, expected", [(None, 0), (3, 3)])
def test_design_starts_from_the_stored_values(tmp_path, monkeypatch, random_start, expected):
    # the stored design replaces the random starts unless the caller asks for some
    import importlib
    import json

    systune_module = importlib.import_module("robustmb.tuning.systune")

    def capture(*args, **kwargs):
        raise _Captured(kwargs)

    monkeypatch.setattr(systune_module, "systune", capture)
    path = tmp_path / "ck.json"
    active = [{"t1": 0.6}, {"t1": 0.5, "t2": 0.5}]
    path.write_text(json.dumps({"values": {"K": [[2.0]]}, "active_set": active}))
    with pytest.raises(_Captured) as info:
        arm_lpv_synthesis(design=path, random_start=random_start)
    kwargs = info.value.args[0]
    assert kwargs["random_start"] == expected
    np.testing.assert_array_equal(kwargs["initial"]["K"], [[2.0]])
    assert kwargs["samples"] == active[1:]
    with pytest.raises(_Captured) as info:
        arm_lpv_synthesis()  # without a design: two random starts, the grid samples
    assert info.value.args[0]["random_start"] == 2
    assert "initial" not in info.value.args[0]
