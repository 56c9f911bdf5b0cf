"""Evidence of split pieces of the arm's partition certificate: file names, the split tree
(overlaps refused, uncovered leaves), exact coverage against a rasterised square, and a
real piece certificate re-checked by the replay and, independently, by python-control."""

import itertools
import json
import os
import types
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.errors import ArgumentError
from robustmb.report import arm_certificate
from robustmb.report.arm_certificate import load_evidence, load_shipped_design, replay_partition
from robustmb.report.evidence_keys import (
    covered_area,
    key_file_name,
    parse_key_file_name,
    uncovered_leaves,
)

PIECE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "arm_effort_piece")
# the design the test piece certifies (its README): arm_lpv_hard, not the shipped design
PIECE_DESIGN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(PIECE_DIR))), "case_studies", "robotic_arm",
    "checkpoints",
    "arm_lpv_hard.json",
)  # fmt: skip

# --- file names ---------------------------------------------------------------------------------

_steps = st.tuples(st.integers(1, 4), st.integers(1, 4)).filter(lambda s: s[0] * s[1] >= 2)


@st.composite
def _keys(draw):
    n = draw(st.integers(1, 12))
    i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
    path = []
    for p1, p2 in draw(st.lists(_steps, max_size=4)):
        path.append((p1, p2, draw(st.integers(0, p1 - 1)), draw(st.integers(0, p2 - 1))))
    return n, (i, j, tuple(path)) if path else (i, j)


@settings(max_examples=60)
@given(_keys())
def test_piece_file_names_round_trip(nk):
    n, key = nk
    name = key_file_name(key)
    assert parse_key_file_name(name, n) == key
    assert name.startswith(f"box_{key[0]}_{key[1]}") and name.endswith(".npz")


def test_piece_file_name_example():
    key = (6, 7, ((2, 2, 0, 1), (2, 2, 1, 1)))
    assert key_file_name(key) == "box_6_7_2x2-0-1_2x2-1-1.npz"
    assert key_file_name((6, 7)) == "box_6_7.npz"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("box_6_7_2x2-2-0.npz", "outside 2 x 2"),  # a >= P1
        ("box_6_7_2x2-0-2.npz", "outside 2 x 2"),  # b >= P2
        ("box_6_7_1x3-1-0.npz", "outside 1 x 3"),
        ("box_8_0.npz", "outside the 8 x 8"),  # cell outside n x n
        ("box_0_8_2x2-0-0.npz", "outside the 8 x 8"),
        ("box_6_7_1x1-0-0.npz", "fewer than 2"),
        ("box_6_7_2x2-0.npz", "with integers"),
        ("box_6_7_2x2_0_1.npz", "with integers"),
        ("box_6.npz", "with integers"),
        ("box_06_7.npz", "leading zeros"),
        ("box_6_7_2x2-01-1.npz", "leading zeros"),
    ],
)
def test_malformed_evidence_file_is_refused_naming_it(tmp_path, name, why):
    (tmp_path / "meta.json").write_text(json.dumps({"channel": "effort", "n": 8, "gamma": 14.5}))
    np.savez(tmp_path / name, omega=np.ones(2), scalings=np.ones((2, 3)))
    with pytest.raises(ArgumentError, match=rf"{name.replace('.', '[.]')}.*{why}"):
        load_evidence(str(tmp_path))


@pytest.mark.parametrize(
    ("names", "what"),
    [
        (["box_6_7.npz", "box_6_7_2x2-0-1.npz"], "inside"),
        (["box_6_7_2x2-0-1.npz", "box_6_7_2x2-0-1_1x2-0-0.npz"], "inside"),
        (["box_6_7_2x2-0-0.npz", "box_6_7_1x2-0-1.npz"], "two ways"),
        (["box_6_7_2x2-0-0_2x2-1-1.npz", "box_6_7_2x2-0-0_2x1-0-0.npz"], "two ways"),
    ],
)
def test_overlapping_evidence_is_refused_naming_both_files(tmp_path, names, what):
    (tmp_path / "meta.json").write_text(json.dumps({"channel": "effort", "n": 8, "gamma": 14.5}))
    for name in names:
        np.savez(tmp_path / name, omega=np.ones(2), scalings=np.ones((2, 3)))
    with pytest.raises(ArgumentError, match=what) as err:
        load_evidence(str(tmp_path))
    assert all(name in str(err.value) for name in names)


# --- the split tree against a rasterised square -------------------------------------------------

N = 4
R = 12  # raster cells per grid cell along each side: every piece below is a union of them
KEYS = [
    (0, 0),
    (1, 2),
    (2, 1, ((2, 2, 0, 0),)),
    (2, 1, ((2, 2, 1, 1),)),
    (3, 3, ((1, 2, 0, 1), (2, 1, 1, 0))),
    (3, 3, ((1, 2, 0, 0),)),
    (0, 3, ((3, 1, 2, 0),)),
    (0, 3, ((3, 1, 0, 0), (2, 2, 1, 0))),
    (1, 1, ((2, 2, 1, 0), (2, 2, 0, 1))),
    (1, 1, ((2, 2, 1, 0), (2, 2, 1, 1))),
]


def _raster_rect(key):
    """Raster index ranges of a key, by integer subdivision (no fractions, no cell_rect)."""
    i, j = key[0], key[1]
    lo1, hi1, lo2, hi2 = i * R, (i + 1) * R, j * R, (j + 1) * R
    for p1, p2, a, b in key[2] if len(key) == 3 else ():
        w1, w2 = (hi1 - lo1) // p1, (hi2 - lo2) // p2
        assert w1 * p1 == hi1 - lo1 and w2 * p2 == hi2 - lo2  # the raster resolves it
        lo1, lo2 = lo1 + a * w1, lo2 + b * w2
        hi1, hi2 = lo1 + w1, lo2 + w2
    return lo1, hi1, lo2, hi2


def _paint(keys):
    grid = np.zeros((N * R, N * R), int)
    for key in keys:
        lo1, hi1, lo2, hi2 = _raster_rect(key)
        grid[lo1:hi1, lo2:hi2] += 1
    return grid


def test_exact_coverage_against_a_rasterised_square():
    grid = _paint(KEYS)
    assert grid.max() == 1  # the hand-made keys do not overlap
    assert covered_area(N, KEYS) == Fraction(int(grid.sum()), grid.size)


def test_uncovered_leaves_against_a_rasterised_square():
    leaves = uncovered_leaves(KEYS, N)
    # the keys and the leaves tile the square: every raster cell painted exactly once
    assert np.all(_paint(KEYS) + _paint(leaves) == 1)
    # each leaf is a grid cell, or a sibling of a node on the path of some key
    nodes = {(k[0], k[1], k[2][:m]) for k in KEYS if len(k) == 3 for m in range(len(k[2]))}
    for leaf in leaves:
        assert len(leaf) == 2 or (leaf[0], leaf[1], leaf[2][:-1]) in nodes
    # the grid cells with no key at all are whole leaves
    touched = {k[:2] for k in KEYS}
    assert {lf for lf in leaves if len(lf) == 2} == set(itertools.product(range(N), repeat=2)) - (
        touched
    )


@pytest.fixture
def fake_checks(monkeypatch):
    """The frequency re-check replaced: evidence with one frequency covers, two leave gaps
    (the key geometry of the replay is under test, not the mu re-check)."""
    import robustmb.analysis.frequency_certificate as fc

    def check(sysdata, blk, level, w, x):
        covered = len(w) == 1
        return types.SimpleNamespace(covered=covered, gaps=[] if covered else [(1.0, 2.0)])

    monkeypatch.setattr(fc, "check_frequency_certificate", check)


def test_replay_coverage_is_the_exact_area_of_the_proven_keys(fake_checks):
    failing = {KEYS[1], KEYS[4]}
    ev = {k: (np.ones(2 if k in failing else 1), np.ones((1, 1))) for k in KEYS}
    meta = {"channel": "tracking", "n": N, "gamma": 0.95, "level": arm_certificate.LEVEL}
    rep = replay_partition(load_shipped_design()["values"], meta, ev, samples=False)
    proven = [k for k in KEYS if k not in failing]
    grid = _paint(proven)
    assert rep.coverage_exact == Fraction(int(grid.sum()), grid.size)
    assert rep.coverage == float(rep.coverage_exact)
    assert rep.whole_cells == 1 and rep.pieces == len(proven) - 1
    # the finest proven piece: the smallest raster rectangle, its sides as shares
    lo1, hi1, lo2, hi2 = min(
        (_raster_rect(k) for k in proven), key=lambda r: (r[1] - r[0]) * (r[3] - r[2])
    )
    assert rep.finest == (Fraction(hi1 - lo1, N * R), Fraction(hi2 - lo2, N * R))
    leaves = uncovered_leaves(KEYS, N)
    assert set(rep.status) == set(KEYS) | set(leaves)
    assert {k for k, s in rep.status.items() if s == "no evidence"} == set(leaves)
    assert all(rep.status[k].startswith("gaps") for k in failing)


# --- a real piece certificate -------------------------------------------------------------------


def _piece():
    meta, ev = load_evidence(PIECE_DIR)
    ((key, (w, x)),) = ev.items()
    return meta, key, w, x


def _piece_values():
    with open(PIECE_DESIGN) as fh:
        return json.load(fh)["values"]


def test_shipped_test_piece_is_small_and_named_for_its_key():
    meta, key, _, _ = _piece()
    assert key == (6, 7, ((2, 2, 0, 1), (2, 2, 0, 0)))
    assert os.path.getsize(os.path.join(PIECE_DIR, key_file_name(key))) < 50_000
    assert [list(key[:2]) + [[list(s) for s in key[2]]]] == meta["claimed_certified"]


def test_real_piece_is_proven_on_replay_and_refused_when_a_row_is_perturbed():
    from robustmb.analysis.frequency_certificate import check_frequency_certificate
    from robustmb.report.arm_certificate import (
        LEVEL,
        arm_channel_problem,
        check_design_hash,
        check_realisation,
        sub_box_system,
    )

    meta, key, w, x = _piece()
    values = _piece_values()
    check_design_hash(values, meta, PIECE_DIR)
    problem = arm_channel_problem(values, "effort")
    check_realisation(problem, PIECE_DIR)
    rep = replay_partition(values, meta, {key: (w, x)}, samples=False)
    assert rep.status[key] == "proven"
    assert rep.coverage_exact == Fraction(1, 64 * 16) and rep.pieces == 1
    assert rep.finest == (Fraction(1, 32), Fraction(1, 32))
    # the rest of cell (6, 7) and of its piece (2x2, 0, 1) is reported as uncovered
    for a, b in [(0, 0), (1, 0), (1, 1)]:
        assert rep.status[(6, 7, ((2, 2, a, b),))] == "no evidence"
    for a, b in [(0, 1), (1, 0), (1, 1)]:
        assert rep.status[(6, 7, ((2, 2, 0, 1), (2, 2, a, b)))] == "no evidence"
    sysdata, blk = sub_box_system(problem, meta["n"], 6, 7, meta["gamma"], key[2])
    chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
    k = int(np.argmax(chk.bounds))  # the point nearest the level: its scalings matter most
    bad = x.copy()
    bad[k] = 0.0  # D = I, G = 0
    rep = replay_partition(values, meta, {key: (w, bad)}, samples=False)
    assert rep.status[key].startswith("gaps") and rep.coverage == 0.0


def test_real_piece_sampled_independently_with_python_control():
    """The piece's (t1, t2) corners x the 32 physical vertices: python-control loops
    (``usubs`` of the uncertain model, SLICOT AB13DD through ``control.norm``) all stable
    with peak gain below the certified level."""
    import copy

    import control

    from robustmb.examples import arm_lpv_tuning_problem
    from robustmb.report.arm_lpv import arm_lpv_loop

    meta, key, _, _ = _piece()
    values = _piece_values()
    ctrl = copy.copy(
        arm_lpv_tuning_problem().controller.usubs({k: np.asarray(v) for k, v in values.items()})
    )
    ctrl.input_names, ctrl.output_names = ["e1", "e2"], ["u1", "u2"]
    loop, channels = arm_lpv_loop(ctrl)
    outs, ins, _ = channels["effort W_T K S"]
    model = loop[outs, ins]
    els = model.uncertainty
    # the piece's extent along t1 and t2 by hand: cell 6 (t1) and 7 (t2) of 8, its lower
    # t1 half and upper t2 half, then the lower quarter of each of those
    u1 = (Fraction(6, 8), Fraction(6, 8) + Fraction(1, 32))
    u2 = (Fraction(7, 8) + Fraction(1, 16), Fraction(7, 8) + Fraction(1, 16) + Fraction(1, 32))
    phys = ("m1", "J1", "rho1", "L2", "m3")
    worst = 0.0
    for f1, f2 in itertools.product(u1, u2):
        pt = {}
        for name, f in (("t1", f1), ("t2", f2)):
            lo, hi = els[name].range
            pt[name] = lo + float(f) * (hi - lo)
        for sides in itertools.product((0, 1), repeat=len(phys)):
            pt.update({name: els[name].range[s] for name, s in zip(phys, sides, strict=True)})
            sys = model.usubs(pt)
            assert np.all(np.linalg.eigvals(sys.A).real < 0)
            worst = max(worst, control.norm(sys, "inf"))  # SLICOT AB13DD
    assert worst < meta["gamma"]
