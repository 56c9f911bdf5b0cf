"""Write the compact summary of the arm's whole-square partition certificates (package data).

``robustmb demo --replay`` states, per channel and labelled "recorded, not re-checked in
this run", the partition certificates stored in this folder's checkpoints (they are not
package data: 160-250 kB of records).  This script reads them and writes
``robustmb/data/arm_lpv/recorded_certificates.json``: per channel the level, the
certified share of the (t1, t2) square (exact, each certified cell counted once), the
counts of records and of certified ones, the largest gain sampled on the certified cells
(python-control + SLICOT AB13DD, ``check`` of each record) with the loops sampled, and the
provenance (file names, their SHA-256, the design's).
``tests/report/test_replay_html.py::test_recorded_summary_matches_the_checkpoints``
recomputes every field from the checkpoints.

Usage (from the repository root)::

    python case_studies/robotic_arm/summarise_certificates.py
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from certify_lpv_partition import coverage  # noqa: E402

from robustmb.report.arm_certificate import DATA_DIR, design_sha256  # noqa: E402

CHECKPOINTS = os.path.join(HERE, "checkpoints")
SOURCES = {
    "tracking": ["arm_lpv_hard_certificate_095.json"],
    "effort": ["arm_lpv_hard_certificate_effort.json", "arm_lpv_hard_certificate_effort_16.json"],
}


def _sha256(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def summarise(channel, names):
    """The summary of one channel's checkpoints (one level; finer grids refine coarser ones)."""
    recs = []
    for name in names:
        with open(os.path.join(CHECKPOINTS, name)) as fh:
            rec = json.load(fh)
        n = int(re.match(r"(\d+) x \d+ equal sub-boxes", rec["partition"]).group(1))
        recs.append((name, rec, n))
    levels = {rec["gamma"] for _, rec, _ in recs}
    assert len(levels) == 1 and {rec["channel"] for _, rec, _ in recs} == {channel}
    # the partitions are disjoint refinements (checked by the tests): their areas add up
    cov = sum((coverage(rec["sub_boxes"], n) for _, rec, n in recs), Fraction(0))
    done = [b for _, rec, _ in recs for b in rec["sub_boxes"] if b["status"] == "certified"]
    with open(os.path.join(CHECKPOINTS, "arm_lpv_hard.json")) as fh:
        values = json.load(fh)["values"]
    return {
        "level": levels.pop(),
        "coverage_exact": str(cov),
        "coverage": float(cov),
        "records": sum(len(rec["sub_boxes"]) for _, rec, _ in recs),
        "certified_records": len(done),
        "sampled_worst_on_certified": max(b["check"]["worst"] for b in done),
        "sampled_loops": sum(b["check"]["loops"] for b in done),
        "partitions": [f"{n} x {n}" for _, _, n in recs],
        "sources": [
            {
                "file": f"case_studies/robotic_arm/checkpoints/{name}",
                "sha256": _sha256(os.path.join(CHECKPOINTS, name)),
                "commits": rec.get("commits") or [rec["commit"]],
            }
            for name, rec, _ in recs
        ],
        "design_file_sha256": recs[0][1]["design_sha256"],
        "design_values_sha256": design_sha256(values),
    }


def main():
    out = {
        "note": "Recorded, not re-checked by robustmb demo --replay: a summary of the stored "
        "partition certificates (case_studies/robotic_arm/certify_lpv_partition.py; every "
        "certified cell re-centred and certified by a fixed-level whole-axis mu sweep, robust "
        "performance at the level, frozen parameters), written by "
        "case_studies/robotic_arm/summarise_certificates.py from the checkpoints listed.",
        "channels": {ch: summarise(ch, names) for ch, names in SOURCES.items()},
    }
    path = os.path.join(DATA_DIR, "recorded_certificates.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
