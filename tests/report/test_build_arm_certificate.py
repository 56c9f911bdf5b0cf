"""``benchmarks/build_arm_certificate.py`` builds replayable evidence of cells and split
pieces from the partition driver's records and stores: several runs of one channel
combined, stored evidence kept as it is when it covers, completed only when it does not."""

import hashlib
import json
import os
import shutil
import sys

import numpy as np
import pytest
from _scripts import ROOT, load_script

from robustmb.report.arm_certificate import load_evidence, replay_partition

PIECE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "arm_effort_piece")
DESIGN = os.path.join(ROOT, "case_studies", "robotic_arm", "checkpoints", "arm_lpv_hard.json")
PIECE = (6, 7, ((2, 2, 0, 1), (2, 2, 0, 0)))


@pytest.fixture(scope="module")
def build():
    return load_script("benchmarks", "build_arm_certificate.py", name="build_arm_certificate")


def _record(subs, gamma=14.5, channel="effort"):
    with open(DESIGN, "rb") as fh:
        sha = hashlib.sha256(fh.read()).hexdigest()
    return {"channel": channel, "gamma": gamma, "partition": "8 x 8 equal sub-boxes",
            "design_sha256": sha, "commit": "c0", "sub_boxes": subs}  # fmt: skip


def _hard_values():
    with open(DESIGN) as fh:
        return json.load(fh)["values"]


def _sub(box, path=(), status="certified"):
    return {"box": list(box), "path": [list(s) for s in path], "status": status, "time": 10.0}


def test_store_keys_are_the_drivers_flat_keys(build):
    assert build.store_key((6, 7)) == (6, 7)
    assert build.store_key((6, 7, 2, 2, 0, 1, 2, 2, 0, 0)) == PIECE
    with pytest.raises(SystemExit):
        build.store_key((6, 7, 2, 2, 0))


def test_merge_records_of_one_channel(build):
    w = np.ones(1)
    a = _record([_sub((0, 0)), _sub((6, 7), [(2, 2, 0, 1)], "failed"),
                 _sub((6, 7), [(2, 2, 0, 0)])])  # fmt: skip
    b = _record([_sub((6, 7), [(2, 2, 0, 0)]), _sub((6, 7), PIECE[2]),
                 _sub((0, 0), [(2, 2, 1, 1)]), _sub((3, 3))])  # fmt: skip
    sa = {(0, 0): (w, "a00"), (6, 7, ((2, 2, 0, 0),)): (w, "a670")}
    sb = {(6, 7, ((2, 2, 0, 0),)): (w, "b670"), PIECE: (w, "bpiece"),
          (0, 0, ((2, 2, 1, 1),)): (w, "b00")}  # fmt: skip
    rec, store, certified = build.merge_records([a, b], [sa, sb], ["a.json", "b.json"])
    # the piece of (0, 0) lies in the certified whole cell: dropped; (3, 3) has no store entry
    assert certified == [(0, 0), (3, 3), (6, 7, ((2, 2, 0, 0),)), PIECE]
    assert store[(6, 7, ((2, 2, 0, 0),))][1] == "a670"  # the first run's entry
    assert store[PIECE][1] == "bpiece" and (3, 3) not in store
    # the store holds certified keys only: the nested piece's entry went with it
    assert set(store) == set(certified) - {(3, 3)}
    assert (0, 0, ((2, 2, 1, 1),)) not in store
    assert len(rec["sub_boxes"]) == 7 and rec["commits"] == ["c0", "c0"]
    with pytest.raises(SystemExit, match="gamma"):
        build.merge_records([a, _record([], gamma=0.95)], [sa, {}], ["a.json", "c.json"])


def _store_file(tmp_path, name, entries):
    arrays = {}
    for key, (w, x) in entries.items():
        flat = "_".join(str(v) for v in (*key[:2], *(v for s in key[2] for v in s)))
        arrays[f"w_{flat}"], arrays[f"s_{flat}"] = w, x
    path = tmp_path / name
    np.savez(path, **arrays)
    return str(path)


def _run(build, monkeypatch, args):
    monkeypatch.setattr(sys, "argv", ["build_arm_certificate.py", *args])
    build.main()


def test_build_from_two_runs_writes_a_replayable_piece(build, tmp_path, monkeypatch, capsys):
    _, ev = load_evidence(PIECE_DIR)
    w, x = ev[PIECE]
    # the stored points as the driver keeps them (float64), with a useless extra row first
    w_st = np.concatenate([[0.37], w]).astype(float)
    x_st = np.concatenate([np.full((1, x.shape[1]), np.nan), x]).astype(float)
    rec_a = tmp_path / "a.json"
    rec_a.write_text(json.dumps(_record([_sub((6, 7), [(2, 2, 0, 1), (2, 2, 1, 1)], "failed")])))
    rec_b = tmp_path / "b.json"
    rec_b.write_text(json.dumps(_record([_sub((6, 7), PIECE[2])])))
    st_a = _store_file(tmp_path, "a.scalings.npz", {})
    st_b = _store_file(tmp_path, "b.scalings.npz", {PIECE: (w_st, x_st)})
    called = []
    monkeypatch.setattr(build, "complete_frequency_certificate", lambda *a, **k: called.append(1))
    out = tmp_path / "data" / "effort_145"
    _run(build, monkeypatch, ["--record", str(rec_a), str(rec_b), "--store", st_a, st_b,
                              "--design", DESIGN, "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert not called  # the stored points covered as they were: no completion
    assert "6_7_2x2-0-1_2x2-0-0:" in printed and "covered as stored" in printed
    assert f"{len(w_st)} stored -> " in printed and "kB" in printed
    assert sorted(os.listdir(out)) == [
        "box_6_7_2x2-0-1_2x2-0-0.npz", "meta.json", "realisation.npz",
    ]  # fmt: skip
    meta, got = load_evidence(str(out))
    assert meta["claimed_certified"] == [[6, 7, [[2, 2, 0, 1], [2, 2, 0, 0]]]]
    assert meta["source"] == "a.json, b.json"
    w2, x2 = got[PIECE]
    assert len(w2) <= len(w) and np.all(np.isfinite(x2))
    rep = replay_partition(_hard_values(), meta, got, samples=False)
    assert rep.status[PIECE] == "proven"


def test_build_completes_only_evidence_that_does_not_cover(build, tmp_path, monkeypatch, capsys):
    _, ev = load_evidence(PIECE_DIR)
    w, x = ev[PIECE]
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(_record([_sub((6, 7), PIECE[2])])))
    # two points only: gaps; the completion (replaced here) hands back the full evidence
    store = _store_file(tmp_path, "r.scalings.npz", {PIECE: (w[:2], x[:2])})
    calls = []

    def complete(sysdata, blk, level, w_in, x_in):
        calls.append(len(w_in))
        from robustmb.analysis.frequency_certificate import check_frequency_certificate

        return w, x, check_frequency_certificate(sysdata, blk, level, w, x)

    monkeypatch.setattr(build, "complete_frequency_certificate", complete)
    out = tmp_path / "data" / "effort_145"
    _run(build, monkeypatch, ["--record", str(rec), "--store", store, "--design", DESIGN,
                              "--out", str(out)])  # fmt: skip
    assert calls == [2]
    assert "2 stored -> " in capsys.readouterr().out
    assert os.path.exists(out / "box_6_7_2x2-0-1_2x2-0-0.npz")


def test_an_interrupted_write_leaves_no_evidence_named_file(build, tmp_path, monkeypatch):
    _, ev = load_evidence(PIECE_DIR)
    shutil.copytree(PIECE_DIR, tmp_path / "ev")
    path = tmp_path / "ev" / "box_3_3.npz"

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(build.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build._save_npz(str(path), {"omega": np.ones(2), "scalings": np.ones((2, 3))})
    left = [f for f in os.listdir(tmp_path / "ev") if "tmp" in f]
    assert len(left) == 1 and left[0].startswith(".")
    _, got = load_evidence(str(tmp_path / "ev"))  # the leftover is not read as evidence
    assert set(got) == set(ev)


def _piece_run(tmp_path):
    _, ev = load_evidence(PIECE_DIR)
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(_record([_sub((6, 7), PIECE[2]), _sub((2, 2), (), "failed")])))
    store = _store_file(tmp_path, "r.scalings.npz", {PIECE: ev[PIECE]})
    return ["--record", str(rec), "--store", store, "--design", DESIGN]


def test_boxes_must_be_keys_the_build_certified(build, tmp_path, monkeypatch):
    out = tmp_path / "data" / "effort_145"
    with pytest.raises(SystemExit, match="--boxes: 2_2 is not a key certified"):
        _run(build, monkeypatch, [*_piece_run(tmp_path), "--out", str(out), "--boxes", "2_2"])
    assert not out.exists()  # refused before anything was written


def test_out_holding_evidence_not_certified_is_refused(build, tmp_path, monkeypatch):
    out = tmp_path / "data" / "effort_145"
    out.mkdir(parents=True)
    np.savez(out / "box_1_1.npz", omega=np.ones(1), scalings=np.ones((1, 2)))
    with pytest.raises(SystemExit, match="box_1_1.npz"):
        _run(build, monkeypatch, [*_piece_run(tmp_path), "--out", str(out)])
    assert sorted(os.listdir(out)) == ["box_1_1.npz"]
