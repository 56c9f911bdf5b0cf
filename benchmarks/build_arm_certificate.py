"""Build the arm certificate evidence shipped with the package (``robustmb/data/arm_lpv``).

Reads a partition certificate record of ``certify_lpv_partition.py`` (``--record``, JSON)
and its store of sweep evidence (``--store``, ``.npz``: per certified sub-box the sweep's
frequencies ``w_i_j`` and D,G parameters ``s_i_j``), and for each sub-box:

1. rebuilds the sub-box problem from the design (:mod:`robustmb.report.arm_certificate`);
2. completes the stored evidence until it covers the whole frequency axis
   (:func:`robustmb.analysis.frequency_certificate.complete_frequency_certificate`: the
   stored rows are the parameters of the sweep's early-stopped bounds, which leave gaps
   where the sweep had re-optimised), and keeps a smallest covering subset;
3. rounds it to float32 and re-checks it (floating point, at the level 1/(1 + 1e-6):
   a 1e-6 headroom for rounding; float64 kept if float32 fails);
4. writes ``box_i_j.npz`` (``omega``, ``scalings``) only when the re-check covers.

With ``--rebuild FOLDER`` instead of ``--record``/``--store``, the frequencies of an
existing evidence folder are the start (its meta.json gives channel, level and partition):
their D,G parameters are re-optimised from cold for the realisation built here before
step 2 -- the way to re-make evidence whose realisation fingerprint no longer matches
(``realisation.npz``, :func:`robustmb.report.arm_certificate.check_realisation`).
The fingerprint of the realisation used is written with the evidence.

Sub-boxes are written one by one (an interrupted build keeps the finished ones); wall
and CPU times are printed next to the certification wall time of the record (measured
when the record ran, under its own load: a rough ratio only).  Usage::

    python benchmarks/build_arm_certificate.py --record R.json --store R.scalings.npz \\
        --design D.json --out robustmb/data/arm_lpv/tracking_095 [--boxes 2,2 4,1]
    python benchmarks/build_arm_certificate.py --rebuild robustmb/data/arm_lpv/tracking_095 \\
        --design robustmb/data/arm_lpv/design.json --out NEW_FOLDER
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import time

import numpy as np

from robustmb.analysis.frequency_certificate import (
    check_frequency_certificate,
    complete_frequency_certificate,
)
from robustmb.analysis.mu_sweep import balanced_response_function
from robustmb.analysis.mussv import warm_upper_bounds
from robustmb.report.arm_certificate import (
    LEVEL,
    arm_channel_problem,
    design_sha256,
    load_evidence,
    save_realisation,
    sub_box_system,
)


def _from_evidence(folder, design):
    """``(record, store)`` as :func:`main` reads them, from an existing evidence folder."""
    meta, evidence = load_evidence(folder)
    if meta.get("design_sha256") != design_sha256(design["values"]):
        raise SystemExit(f"--rebuild: {folder} is evidence of another design")
    record = {
        "channel": meta["channel"],
        "gamma": meta["gamma"],
        "partition": f"{meta['n']} x {meta['n']}",
        "design_sha256": meta.get("source_design_file_sha256"),
        "commit": meta.get("source_commit"),
        "sub_boxes": [{"box": list(b), "status": "certified"} for b in
                      meta.get("claimed_certified", [])],
    }  # fmt: skip
    store = {box: (w, None) for box, (w, _) in evidence.items()}
    return record, store, meta.get("source", os.path.basename(folder))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record")
    ap.add_argument("--store")
    ap.add_argument("--design", required=True, help="the design JSON the record certifies")
    ap.add_argument("--out", required=True)
    ap.add_argument("--boxes", nargs="*", default=None)
    ap.add_argument("--skip-done", action="store_true")
    ap.add_argument("--rebuild", default=None, help="an evidence folder to re-make")
    args = ap.parse_args()
    if not args.rebuild and not (args.record and args.store):
        ap.error("either --rebuild, or --record and --store")
    with open(args.design, "rb") as fh:
        raw = fh.read()
    design = json.loads(raw)
    if args.rebuild:
        record, store, source = _from_evidence(args.rebuild, design)
    else:
        with open(args.record) as fh:
            record = json.load(fh)
        if hashlib.sha256(raw).hexdigest() != record.get("design_sha256"):
            raise SystemExit("--design is not the design the record certifies (sha256 differs)")
        source = os.path.basename(args.record)
        with np.load(args.store) as z:
            store = {
                tuple(int(v) for v in k.split("_")[1:]): (z[k], z["s" + k[1:]])
                for k in z.files
                if k.startswith("w_")
            }
    n = int(record["partition"].split(" x ")[0])
    meta = {
        "channel": record["channel"],
        "gamma": record["gamma"],
        "n": n,
        "level": LEVEL,
        "design_sha256": design_sha256(design["values"]),
        "design_sha256_of": "canonical JSON of design.json's values "
        "(robustmb.report.arm_certificate.design_sha256)",
        "source_design_file_sha256": record["design_sha256"],
        "source": source,
        "source_commit": record.get("commit"),
        "claimed_certified": sorted(
            b["box"] for b in record["sub_boxes"] if b["status"] == "certified"
        ),
    }
    os.makedirs(args.out, exist_ok=True)
    data_dir = os.path.dirname(os.path.abspath(args.out))
    shipped = os.path.join(data_dir, "design.json")
    if not os.path.exists(shipped):
        keep = {k: design[k] for k in ("provenance", "values")}
        keep["source_sha256"] = record["design_sha256"]
        with open(shipped, "w") as fh:
            json.dump(keep, fh)
    with open(os.path.join(args.out, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    times = {tuple(b["box"]): b.get("time", np.nan) for b in record["sub_boxes"]}
    boxes = [tuple(int(v) for v in b.split(",")) for b in args.boxes] if args.boxes else None
    boxes = boxes or sorted(store, key=lambda b: len(store[b][0]))
    problem = arm_channel_problem(design["values"], record["channel"])
    save_realisation(problem, args.out)
    for box in boxes:
        path = os.path.join(args.out, f"box_{box[0]}_{box[1]}.npz")
        if args.skip_done and os.path.exists(path):
            continue
        if box not in store:
            print(f"{box}: no stored evidence", flush=True)
            continue
        w, x = store[box]
        sysdata, blk = sub_box_system(problem, n, *box, record["gamma"])
        t0, c0 = time.perf_counter(), time.process_time()
        if x is None:
            # scalings of this realisation, optimised to the end at the stored frequencies
            # (stopped just below the level, as the sweep's bounds: completion refines them)
            stop = LEVEL / (1.0 + 1e-3)
            _, x = warm_upper_bounds(balanced_response_function(*sysdata)(w), blk,
                                     target=stop, polish_target=stop)  # fmt: skip
        w2, x2, chk = complete_frequency_certificate(sysdata, blk, LEVEL, w, x)
        t_build, c_build = time.perf_counter() - t0, time.process_time() - c0
        if not chk.covered:
            print(f"{box}: completion left {len(chk.gaps)} gaps ({t_build:.0f} s)", flush=True)
            continue
        w32, x32 = w2.astype(np.float32), x2.astype(np.float32)
        t0, c0 = time.perf_counter(), time.process_time()
        chk32 = check_frequency_certificate(sysdata, blk, LEVEL, w32, x32.astype(float))
        t_check, c_check = time.perf_counter() - t0, time.process_time() - c0
        if chk32.covered:
            arrays = {"omega": w32, "scalings": x32}
        else:
            arrays = {"omega": w2, "scalings": x2}
        tmp = path + ".tmp.npz"
        np.savez_compressed(tmp, **arrays)
        shutil.move(tmp, path)
        print(
            f"{box}: {len(w)} stored -> {len(w2)} covering points; completion {t_build:.0f} s "
            f"(CPU {c_build:.0f} s), exact re-check {t_check:.2f} s (CPU {c_check:.2f} s; "
            f"certification {times.get(box, np.nan):.0f} s, "
            f"ratio {t_check / times.get(box, np.nan):.3f}); float32 {chk32.covered}; "
            f"{os.path.getsize(path) / 1e3:.0f} kB",
            flush=True,
        )


if __name__ == "__main__":
    main()
