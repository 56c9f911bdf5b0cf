"""``robustmb demo --replay`` finds each channel's evidence folder by its meta.json: one per
channel (two refused, naming both), the folder's pieces handed to the replay."""

import json
import os
import shutil

import numpy as np
import pytest

from robustmb.errors import ArgumentError
from robustmb.report import arm_certificate
from robustmb.report.arm_certificate import DATA_DIR, PartitionReplay, evidence_folders

# the shipped evidence folders' names (whichever levels they certify)
TRACKING = os.path.basename(evidence_folders()["tracking"])
EFFORT = os.path.basename(evidence_folders()["effort"])


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """A copy of the package data whose effort evidence, renamed ``effort_piece``, keeps
    one split piece of the shipped effort evidence (the first by name) and no other key."""
    data = tmp_path / "arm_lpv"
    shutil.copytree(DATA_DIR, data)
    (data / EFFORT).rename(data / "effort_piece")
    boxes = sorted((data / "effort_piece").glob("box_*.npz"))
    piece = next(f for f in boxes if f.stem.count("_") > 2)  # box_i_j_2x2-a-b
    for f in boxes:
        if f != piece:
            f.unlink()
    monkeypatch.setattr(arm_certificate, "DATA_DIR", str(data))
    return data


def test_one_folder_per_channel_found_by_its_meta(data_dir):
    (data_dir / "notes").mkdir()  # a folder with no meta.json is not evidence
    got = evidence_folders()
    assert {k: os.path.basename(v) for k, v in got.items()} == {
        "tracking": TRACKING,
        "effort": "effort_piece",
    }


def test_two_folders_of_one_channel_are_refused_naming_both(data_dir):
    shutil.copytree(data_dir / TRACKING, data_dir / "tracking_zz")
    with pytest.raises(ArgumentError, match=f"{TRACKING}.*tracking_zz"):
        evidence_folders()
    with pytest.raises(ArgumentError, match=f"{TRACKING}.*tracking_zz"):
        arm_certificate.certified_demo(str(data_dir.parent / "out"))


def test_a_meta_naming_no_channel_is_refused(data_dir):
    meta = json.loads((data_dir / "effort_piece" / "meta.json").read_text())
    meta["channel"] = "torque"
    (data_dir / "effort_piece" / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ArgumentError, match=r"effort_piece.*meta\.json.*torque"):
        evidence_folders()


def test_demo_replays_each_channel_from_its_folder(data_dir, monkeypatch):
    seen = {}

    def fake(values, meta, ev, **kw):
        seen[meta["channel"]] = (meta, sorted(ev))
        return PartitionReplay(meta["channel"], meta["gamma"], meta["n"], {}, 0.0, np.nan)

    monkeypatch.setattr(arm_certificate, "replay_partition", fake)
    summary = arm_certificate.certified_demo(str(data_dir.parent / "out"))
    meta, ev = arm_certificate.load_evidence(str(data_dir / "effort_piece"))
    assert seen["effort"][0] == meta and seen["effort"][1] == sorted(ev)
    ((key, _),) = ev.items()
    assert len(key) == 3  # the one split piece left in the folder
    meta, ev = arm_certificate.load_evidence(str(data_dir / TRACKING))
    assert seen["tracking"][0] == meta and seen["tracking"][1] == sorted(ev)
    chans = summary["channels"]
    assert chans["effort W_T K S"]["evidence_folder"] == "effort_piece"
    assert chans["tracking W_e S"]["evidence_folder"] == TRACKING


def test_channel_without_a_folder_is_sampled_only(data_dir, monkeypatch):
    shutil.rmtree(data_dir / "effort_piece")
    seen = {}

    def fake(values, meta, ev, **kw):
        seen[meta["channel"]] = (meta, ev, kw)
        return PartitionReplay(meta["channel"], np.nan, meta["n"], {}, 0.0, np.nan)

    monkeypatch.setattr(arm_certificate, "replay_partition", fake)
    summary = arm_certificate.certified_demo(str(data_dir.parent / "out"), sample_n=3)
    meta, ev, kw = seen["effort"]
    assert ev == {} and meta["n"] == 3 and kw["sample_n"] == 3
    assert summary["channels"]["effort W_T K S"]["evidence_folder"] is None
