"""The stored certificate of the arm's effort channel ``||W_T K S||_inf`` (partition of
the (t1, t2) square, ``certify_lpv_partition.py --channel effort``): the records are
consistent with the partition they claim, the coverage is recomputed from them, and every
certified sub-box was sampled independently (python-control loops, AB13DD) below the level
with every loop stable.  No arm model is built here (the checkpoints are only read)."""

import glob
import hashlib
import json
import math
import os
import re

import numpy as np
import pytest
from _scripts import ROOT

CHECKPOINTS = os.path.join(ROOT, "case_studies", "robotic_arm", "checkpoints")
DESIGN = os.path.join(CHECKPOINTS, "arm_lpv_hard.json")
PATHS = sorted(glob.glob(os.path.join(CHECKPOINTS, "arm_lpv_hard_certificate_effort*.json")))
# the scheduling square in t = tan(theta / 2): theta1 in [45, 90] deg, theta2 in [45, 135] deg
SQUARE = [
    (math.tan(math.radians(22.5)), math.tan(math.radians(45.0))),
    (math.tan(math.radians(22.5)), math.tan(math.radians(67.5))),
]


def _load(path):
    with open(path) as fh:
        rec = json.load(fh)
    m = re.match(r"(\d+) x (\d+) equal sub-boxes", rec["partition"])
    assert m and m.group(1) == m.group(2), rec["partition"]
    return rec, int(m.group(1))


def test_an_effort_checkpoint_is_stored():
    assert PATHS, "no arm_lpv_hard_certificate_effort*.json in the checkpoints"


@pytest.mark.parametrize("path", PATHS, ids=os.path.basename)
def test_effort_checkpoint_is_consistent(path):
    rec, n = _load(path)
    assert rec["channel"] == "effort"
    # the certificate is about the stored design file, byte for byte
    with open(DESIGN, "rb") as fh:
        assert rec["design_sha256"] == hashlib.sha256(fh.read()).hexdigest()
    boxes = [tuple(b["box"]) for b in rec["sub_boxes"]]
    assert len(set(boxes)) == len(boxes)
    assert all(0 <= i < n and 0 <= j < n for i, j in boxes)
    done = [b for b in rec["sub_boxes"] if b["status"] == "certified"]
    assert rec["coverage"] == pytest.approx(len(done) / n**2, abs=0, rel=1e-15)
    if done:
        assert rec["certified_bound_on_covered_part"] == rec["gamma"]
    for b in rec["sub_boxes"]:
        i, j = b["box"]
        # the sub-box's (t1, t2) ranges are cell (i, j) of the n x n split of the square
        assert np.allclose(b["t_ranges"][0], _cell(SQUARE[0], n, i))
        assert np.allclose(b["t_ranges"][1], _cell(SQUARE[1], n, j))
        assert "scalings" not in b and "omega" not in b  # kept out of the checkpoint
    for b in done:
        chk = b["check"]
        # sampled independently: 4 x 4 (t1, t2) grid x (nominal + 32 vertices + 4 random)
        assert chk["loops"] == 4 * 4 * (1 + 32 + 4)
        assert chk["unstable"] == 0 and chk["max_real"] < 0
        assert chk["below_bound"] and 0 < chk["worst"] < rec["gamma"]
        # the sampled worst point lies in the sub-box
        where = chk["where"]
        for name, (lo, hi) in zip(("t1", "t2"), b["t_ranges"], strict=True):
            assert lo - 1e-12 <= where[name] <= hi + 1e-12
        # the sweep's bound is below the certified level of the scaled problem (mu < 1)
        assert b["largest_mu_upper"] < 1.0


def _cell(rng, n, k):
    lo, hi = rng
    step = (hi - lo) / n
    return (lo + k * step, lo + (k + 1) * step)


def test_effort_checkpoints_together_cover_the_square():
    """The finer partitions refine only sub-boxes that the coarser one did not certify,
    at the same level, and the union of all certified sub-boxes (recomputed from the
    records on the finest grid) is the whole (t1, t2) square."""
    recs = sorted((_load(p) for p in PATHS), key=lambda r: r[1])
    assert len({rec["gamma"] for rec, _ in recs}) == 1
    fine = math.lcm(*(n for _, n in recs))
    covered = np.zeros((fine, fine), int)  # times each finest cell is certified
    for rec, n in recs:
        f = fine // n
        for b in rec["sub_boxes"]:
            i, j = b["box"]
            cells = np.s_[i * f : (i + 1) * f, j * f : (j + 1) * f]
            if n != recs[0][1]:
                # a refinement: no finest cell of it was certified by a coarser partition
                assert not covered[cells].any(), (n, b["box"])
            covered[cells] += b["status"] == "certified"
    assert covered.max() == 1  # no cell certified twice
    assert covered.min() == 1  # every cell certified: the whole square at one level
