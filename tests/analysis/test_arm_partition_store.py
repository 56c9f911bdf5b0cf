"""The arm partition driver's warm-start store and checkpoint helpers (no arm model)."""

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from _scripts import load_script


@pytest.fixture(scope="module")
def driver():
    return load_script(
        "case_studies", "robotic_arm", "certify_lpv_partition.py", name="arm_partition_driver"
    )


def test_scalings_store_round_trip(driver, tmp_path):
    store = {
        (6, 1): (np.array([0.0, 1.0, np.inf]), np.arange(6.0).reshape(3, 2)),
        (3, 3): (np.array([2.0]), np.array([[np.nan, 1.0]])),
    }
    path = str(tmp_path / "s.scalings.npz")
    driver.save_scalings(path, store)
    back = driver.load_scalings(path)
    assert set(back) == set(store)
    for key, (w, x) in store.items():
        assert np.array_equal(back[key][0], w)
        assert np.array_equal(back[key][1], x, equal_nan=True)
    # no temporary file is left next to it
    assert [p.name for p in tmp_path.iterdir()] == ["s.scalings.npz"]
    assert driver.load_scalings(str(tmp_path / "missing.npz")) == {}


def test_warm_start_takes_the_nearest_certified_neighbour(driver):
    store = {(6, 1): (np.zeros(1), np.zeros((1, 1))), (3, 3): (np.ones(1), np.ones((1, 1)))}
    assert driver.warm_start(store, 7, 2)[2] == (6, 1)
    assert driver.warm_start(store, 5, 5)[2] == (3, 3)
    assert driver.warm_start(store, 4, 2)[2] == (3, 3)  # distance 1 beats distance 2
    assert driver.warm_start(store, 0, 7) is None  # nothing within distance 2


def test_sub_box_partition_covers_the_square(driver):
    names = ["t1", "m1", "t2"]
    n = 4
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    vol = 0.0
    for i in range(n):
        for j in range(n):
            c, r = driver.sub_box(names, n, i, j)
            assert r[1] == 1.0 and c[1] == 0.0  # the physical parameter stays whole
            lo, hi = np.minimum(lo, c - r), np.maximum(hi, c + r)
            vol += float(np.prod(2 * r[[0, 2]]))
    assert np.allclose(lo, -1.0) and np.allclose(hi, 1.0) and vol == pytest.approx(4.0)


def test_scalings_store_keeps_the_keys_of_split_cells(driver, tmp_path):
    store = {
        (0, 1): (np.array([0.0]), np.zeros((1, 2))),
        (0, 0, 2, 2, 1, 0): (np.array([1.0]), np.ones((1, 2))),
        (0, 0, 2, 2, 1, 0, 1, 2, 0, 1): (np.array([2.0]), np.full((1, 2), 2.0)),
    }
    path = str(tmp_path / "s.scalings.npz")
    driver.save_scalings(path, store)
    back = driver.load_scalings(path)
    assert set(back) == set(store)
    for key, (w, x) in store.items():
        assert np.array_equal(back[key][0], w) and np.array_equal(back[key][1], x)


def test_warm_start_prefers_a_certified_sibling_of_a_piece(driver):
    store = {(1, 2): (np.zeros(1), np.zeros((1, 1))), (0, 0, 2, 2, 0, 0): (np.ones(1),) * 2}
    # piece (1, 1) of cell (0, 0): centre (0.75, 0.75) cells, sibling (0, 0) at 0.5
    assert driver.warm_start(store, 0, 0, ((2, 2, 1, 1),))[2] == (0, 0, 2, 2, 0, 0)
    # piece (0, 1) of cell (0, 1): the whole cell (1, 2) at 1.0 beats the sibling at 1.5
    assert driver.warm_start(store, 0, 1, ((2, 2, 0, 1),))[2] == (1, 2)


def test_cell_names_round_trip_and_bad_names_are_named(driver):
    from robustmb.errors import ArgumentError

    for text in ["3,4", "0,0/2x2:1,0", "7,7/1x2:0,1/2x1:1,0", "0,1/4x4:3,2"]:
        assert driver.cell_name(*driver.parse_cell(text, 8)) == text
    for bad, what in [
        ("8,0", "outside the 8 x 8 grid"),
        ("0,0/2x2", "not of the form P1xP2:a,b"),
        ("0,0/2x2:0,2", "outside 2x2"),
        ("0,0/1x1:0,0", "at least 2 pieces"),
        ("x,0", "must start with 'i,j'"),
    ]:
        with pytest.raises(ArgumentError, match=what) as err:
            driver.parse_cell(bad, 8)
        assert repr(bad) in str(err.value)
    with pytest.raises(ArgumentError, match="--pieces"):
        driver.parse_pieces("2by2")


def test_pieces_of_a_cell_are_the_cells_of_a_finer_grid(driver):
    """A 2 x 2 split of cell (i, j) of n x n gives cells (2i + a, 2j + b) of 2n x 2n; a
    1 x 2 split halves only t2; every split tiles its cell."""
    names = ["t2", "m1", "t1"]
    for i, j in [(0, 0), (0, 1), (7, 7), (3, 5)]:
        for a, b in itertools.product(range(2), repeat=2):
            c, r = driver.sub_box(names, 8, i, j, ((2, 2, a, b),))
            c2, r2 = driver.sub_box(names, 16, 2 * i + a, 2 * j + b)
            assert np.allclose(c, c2, rtol=0, atol=1e-15) and np.array_equal(r, r2)
        (lo1, hi1), (lo2, hi2) = driver.cell_rect(8, i, j)
        for pieces in [(2, 2), (1, 2), (2, 1), (4, 4), (3, 2)]:
            area = 0
            for a, b in itertools.product(range(pieces[0]), range(pieces[1])):
                (u1, v1), (u2, v2) = driver.cell_rect(8, i, j, ((*pieces, a, b),))
                assert lo1 <= u1 < v1 <= hi1 and lo2 <= u2 < v2 <= hi2
                area += (v1 - u1) * (v2 - u2)
                assert driver.cell_area(8, ((*pieces, a, b),)) == (v1 - u1) * (v2 - u2)
            assert area == (hi1 - lo1) * (hi2 - lo2) == Fraction(1, 64)
    c, r = driver.sub_box(names, 8, 2, 5, ((1, 2, 0, 1),))
    c0, r0 = driver.sub_box(names, 8, 2, 5)
    assert c[2] == c0[2] and r[2] == r0[2]  # t1 untouched
    assert r[0] == r0[0] / 2 and c[0] == c0[0] + r0[0] / 2  # upper half of t2


def test_coverage_and_split_rules(driver):
    from robustmb.errors import ArgumentError

    recs = [
        {"box": [0, 0], "status": "sweep failed"},
        {"box": [0, 0], "path": [[2, 2, 0, 0]], "status": "certified"},
        {"box": [0, 0], "path": [[2, 2, 0, 1]], "status": "sweep failed"},
        {"box": [0, 0], "path": [[2, 2, 0, 1], [1, 2, 0, 1]], "status": "certified"},
        {"box": [3, 3], "status": "certified"},
        {"box": [7, 7], "status": "screened out"},
    ]
    # 1/64 + 1/256 + 1/512
    assert driver.coverage(recs, 8) == Fraction(8 + 2 + 1, 512)
    # pieces already recorded (certified or failed) are not run again
    assert driver.split_children(recs, 0, 0, (), (2, 2)) == [((2, 2, 1, 0),), ((2, 2, 1, 1),)]
    assert driver.split_children(recs, 0, 0, ((2, 2, 0, 1),), (1, 2)) == [
        ((2, 2, 0, 1), (1, 2, 0, 0))
    ]
    assert len(driver.split_children(recs, 7, 7, (), (1, 2))) == 2
    with pytest.raises(ArgumentError, match="already split as 2x2, not 1x2"):
        driver.split_children(recs, 0, 0, (), (1, 2))
    with pytest.raises(ArgumentError, match="the cell is certified"):
        driver.split_children(recs, 3, 3, (), (2, 2))
    with pytest.raises(ArgumentError, match="inside the certified cell 0,0/2x2:0,0"):
        driver.split_children(recs, 0, 0, ((2, 2, 0, 0), (2, 2, 1, 1)), (2, 2))


def _square_rect(rec, n):
    """The record's cell as fractions of the square, from its box and path (written here,
    not with the driver's helpers)."""
    i, j = rec["box"]
    x = [Fraction(i, n), Fraction(j, n)]
    w = [Fraction(1, n), Fraction(1, n)]
    for p1, p2, a, b in rec.get("path", []):
        w = [w[0] / p1, w[1] / p2]
        x = [x[0] + a * w[0], x[1] + b * w[1]]
    return x, w


@pytest.mark.parametrize(
    "name", ["arm_lpv_hard_certificate.json", "arm_lpv_hard_certificate_095.json"]
)
def test_stored_checkpoint_is_consistent(name):
    from _scripts import ROOT

    path = f"{ROOT}/case_studies/robotic_arm/checkpoints/{name}"
    with open(path) as fh:
        rec = json.load(fh)
    n = int(rec["partition"].split(" x ")[0])
    recs = rec["sub_boxes"]
    rects = [_square_rect(b, n) for b in recs]
    # every record's t_ranges is its cell of one (t1, t2) square
    top = next(b for b in recs if not b.get("path"))
    lo, step = [], []
    for k in range(2):
        a, b = top["t_ranges"][k]
        step.append((b - a) * n)
        lo.append(a - top["box"][k] * (b - a))
    for b, (x, w) in zip(recs, rects, strict=True):
        for k in range(2):
            want = (lo[k] + float(x[k]) * step[k], lo[k] + float(x[k] + w[k]) * step[k])
            assert b["t_ranges"][k] == pytest.approx(want, rel=1e-12, abs=1e-12)
    done = [k for k, b in enumerate(recs) if b["status"] == "certified"]
    # certified cells do not overlap (a piece is never run inside a certified cell)
    for k, m in itertools.combinations(done, 2):
        (x, w), (y, v) = rects[k], rects[m]
        overlap = [min(x[d] + w[d], y[d] + v[d]) - max(x[d], y[d]) for d in range(2)]
        assert min(overlap) <= 0, (recs[k]["box"], recs[m]["box"])
    area = sum((rects[k][1][0] * rects[k][1][1] for k in done), Fraction(0))
    assert rec["coverage"] == pytest.approx(float(area), rel=1e-12)
    if "coverage_exact" in rec:
        assert Fraction(rec["coverage_exact"]) == area
    for k in done:
        # every certified cell was sampled independently and stayed below the level
        chk = recs[k]["check"]
        assert chk["below_bound"] and chk["worst"] < rec["gamma"] and chk["max_real"] < 0
        assert chk.get("unstable", 0) == 0 and chk["loops"] > 0
        assert "scalings" not in recs[k]  # kept out of the checkpoint


def test_split_run_records_pieces_and_resplits_failures(driver, tmp_path, monkeypatch):
    """The driver's loop with the certificate and the sampler replaced by stubs that
    record what they were asked: pieces run after the grid, a failing piece is split
    again within --depth, recorded pieces are skipped on the next run."""
    import types

    els = {
        "t1": types.SimpleNamespace(range=(0.0, 1.0)),
        "t2": types.SimpleNamespace(range=(0.0, 2.0)),
    }
    monkeypatch.setattr(
        driver, "arm_channel", lambda *a, **k: types.SimpleNamespace(uncertainty=els)
    )
    blocks = [types.SimpleNamespace(name=v) for v in ("t1", "m1", "t2")]
    monkeypatch.setattr(driver, "uncertain_problem", lambda m: types.SimpleNamespace(blocks=blocks))
    calls = []

    def fake_certify(problem, names, n, i, j, gamma, hint, grid, rounds, warm, path=()):
        calls.append(driver.cell_name(i, j, path))
        c, r = driver.sub_box(names, n, i, j, path)
        # "certified" iff the cell lies within t1 > -0.75 or is small enough
        ok = c[0] - r[0] >= -0.75 or r[0] <= 1 / 16
        out = {"box": [i, j], "status": "certified" if ok else "sweep failed"}
        if path:
            out["path"] = [list(s) for s in path]
        return out

    monkeypatch.setattr(driver, "certify_sub_box", fake_certify)
    monkeypatch.setattr(
        driver,
        "check",
        lambda values, grid, n_random, ranges: {
            "gamma1": 0.5, "gamma2": 0.4, "where1": {}, "where2": {},
            "max_real": -1.0, "unstable": 0, "loops": 3,
        },
    )  # fmt: skip
    design = tmp_path / "design.json"
    design.write_text(json.dumps({"values": {}}))
    out = tmp_path / "cert.json"
    base = ["x", "--design", str(design), "--n", "4", "--gamma", "0.9", "--out", str(out)]
    base += ["--check", "2"]
    monkeypatch.setattr("sys.argv", base)
    driver.main()
    rec = json.loads(out.read_text())
    # cells (0, j) fail (t1 in [-1, -0.5]); the rest certify
    assert sorted(calls) == sorted(f"{i},{j}" for i in range(4) for j in range(4))
    assert rec["coverage"] == 12 / 16
    calls.clear()
    monkeypatch.setattr("sys.argv", [*base, "--split", "0,0", "0,1", "--depth", "2", "--boxes"])
    driver.main()
    rec = json.loads(out.read_text())
    # 2x2 pieces have t1 radius 1/8: the lower-t1 pieces fail and are split again at once
    want = []
    for cell in ("0,0", "0,1"):
        for piece in ("0,0", "0,1"):
            want.append(f"{cell}/2x2:{piece}")
            want += [f"{cell}/2x2:{piece}/2x2:{a},{b}" for a in range(2) for b in range(2)]
        want += [f"{cell}/2x2:1,0", f"{cell}/2x2:1,1"]
    assert calls == want
    names = [driver.cell_name(*driver.key_cell(driver.record_key(b))) for b in rec["sub_boxes"]]
    assert len(names) == len(set(names))
    # (0,0) and (0,1): both lower-t1 pieces fail, their 4 pieces each certify;
    # the upper-t1 pieces certify: coverage 12/16 + 2 * (1/16)
    assert Fraction(rec["coverage_exact"]) == Fraction(14, 16)
    failed = {n for n, b in zip(names, rec["sub_boxes"], strict=True) if b["status"] != "certified"}
    assert failed == {
        "0,0",
        "0,1",
        "0,2",
        "0,3",
        "0,0/2x2:0,0",
        "0,0/2x2:0,1",
        "0,1/2x2:0,0",
        "0,1/2x2:0,1",
    }
    for b in rec["sub_boxes"]:
        if b["status"] == "certified":
            assert b["check"]["below_bound"]
    # a second run skips every recorded piece
    calls.clear()
    driver.main()
    assert calls == []


def test_tracking_certificate_at_095_covers_the_square():
    """The tracking channel's 0.95 checkpoint certifies the whole (t1, t2) square: the
    certified cells (whole sub-boxes and split pieces, which the test above shows do not
    overlap) add up to the square's area, each with its sweep below the scaled level and
    its independent AB13DD sample (4 x 4 (t1, t2) grid x 37 physical points) below 0.95.
    The largest sample over the cells, 0.9411, is the bracket's lower end: [0.9411, 0.95],
    a gap below 1 %."""
    from _scripts import ROOT

    path = f"{ROOT}/case_studies/robotic_arm/checkpoints/arm_lpv_hard_certificate_095.json"
    with open(path) as fh:
        rec = json.load(fh)
    n = int(rec["partition"].split(" x ")[0])
    done = [b for b in rec["sub_boxes"] if b["status"] == "certified"]
    area = sum((w[0] * w[1] for _, w in (_square_rect(b, n) for b in done)), Fraction(0))
    assert area == 1 and Fraction(rec["coverage_exact"]) == 1
    assert all(b["largest_mu_upper"] < 1.0 for b in done)
    assert all(b["check"]["loops"] == 4 * 4 * 37 for b in done)
    worst = max(b["check"]["worst"] for b in done)
    assert 0.94 < worst < rec["gamma"] == 0.95
    assert rec["gamma"] / worst - 1 < 0.01
