"""Build the arm certificate evidence shipped with the package (``robustmb/data/arm_lpv``).

Reads partition certificate records of ``certify_lpv_partition.py`` (``--record``, JSON)
and their stores of sweep evidence (``--store``, ``.npz``: per cell ``w_i_j`` / ``s_i_j``,
per split piece ``w_i_j_P1_P2_a_b...``: frequencies and D,G parameters), and for each
certified grid cell or piece:

1. rebuilds its problem from the design (:mod:`robustmb.report.arm_certificate`);
2. re-checks the stored evidence as it is
   (:func:`robustmb.analysis.frequency_certificate.check_frequency_certificate` at the
   level 1/(1 + 1e-6): a 1e-6 headroom for rounding); only when it leaves gaps, completes
   it (:func:`~robustmb.analysis.frequency_certificate.complete_frequency_certificate`);
   keeps a smallest covering subset
   (:func:`~robustmb.analysis.frequency_certificate.covering_subset`);
3. rounds it to float32 and re-checks it (float64 kept if float32 fails);
4. writes ``box_i_j.npz`` (a whole cell) or ``box_i_j_P1xP2-a-b[_...].npz`` (a piece;
   :mod:`robustmb.report.evidence_keys`) atomically, only when it covers the axis.

Several runs of one channel (e.g. the square shared between two processes) are combined:
``--record A.json B.json --store A.scalings.npz B.scalings.npz`` (pairs, in order).  The
records must agree on channel, level, partition and design; a key certified twice takes
the first run's store entry, and a certified key inside another certified key is dropped
(the larger covers it).  ``meta.json`` lists the certified keys (``claimed_certified``:
``[i, j]`` or ``[i, j, [[P1, P2, a, b], ...]]``).

With ``--rebuild FOLDER`` instead of ``--record``/``--store``, the frequencies of an
existing evidence folder are the start (its meta.json gives channel, level and partition):
their D,G parameters are re-optimised from cold for the realisation built here before
step 2 -- the way to re-make evidence whose realisation fingerprint no longer matches
(``realisation.npz``, :func:`robustmb.report.arm_certificate.check_realisation`).
The fingerprint of the realisation used is written with the evidence.

Files are written one by one (an interrupted build keeps the finished ones); per entry
the script prints stored -> kept points, whether the stored points covered as they were
or were completed, wall and CPU times (next to the certification wall time of the
record, measured when the record ran, under its own load: a rough ratio only) and the
file size.  Usage::

    python benchmarks/build_arm_certificate.py --record A.json B.json \\
        --store A.scalings.npz B.scalings.npz --design D.json \\
        --out robustmb/data/arm_lpv/effort_145 [--boxes 2_2 6_7_2x2-0-1]
    python benchmarks/build_arm_certificate.py --rebuild robustmb/data/arm_lpv/tracking_095 \\
        --design robustmb/data/arm_lpv/design.json --out NEW_FOLDER
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

import numpy as np

from robustmb.analysis.frequency_certificate import (
    check_frequency_certificate,
    complete_frequency_certificate,
    covering_subset,
)
from robustmb.analysis.mu_sweep import balanced_response_function
from robustmb.analysis.mussv import warm_upper_bounds
from robustmb.errors import ArgumentError
from robustmb.report.arm_certificate import (
    LEVEL,
    arm_channel_problem,
    design_sha256,
    load_evidence,
    sub_box_system,
)
from robustmb.report.evidence_keys import (
    check_split_tree,
    evidence_key,
    key_file_name,
    key_from_json,
    key_parts,
    key_to_json,
    parse_key_file_name,
)
from robustmb.report.realisation_guard import save_realisation


def store_key(flat):
    """The evidence key of a store entry ``w_i_j[_p1_p2_a_b...]`` (flat ints, as the
    partition driver's ``record_key``)."""
    rest = flat[2:]
    if len(rest) % 4:
        raise SystemExit(f"--store: entry {flat} is not i, j and (P1, P2, a, b) steps")
    return evidence_key(flat[0], flat[1], [rest[k : k + 4] for k in range(0, len(rest), 4)])


def record_evidence_key(rec):
    """The evidence key of a checkpoint record (``box`` and optional ``path``)."""
    return evidence_key(*rec["box"], rec.get("path", []))


def _from_evidence(folder, design):
    """``(record, store, source)`` as :func:`main` reads them, from an evidence folder."""
    meta, evidence = load_evidence(folder)
    if meta.get("design_sha256") != design_sha256(design["values"]):
        raise SystemExit(f"--rebuild: {folder} is evidence of another design")
    subs = []
    for item in meta.get("claimed_certified", []):
        i, j, path = key_parts(key_from_json(item))
        subs.append({"box": [i, j], "path": [list(p) for p in path], "status": "certified"})
    record = {
        "channel": meta["channel"],
        "gamma": meta["gamma"],
        "partition": f"{meta['n']} x {meta['n']}",
        "design_sha256": meta.get("source_design_file_sha256"),
        "commit": meta.get("source_commit"),
        "sub_boxes": subs,
    }
    claimed = {record_evidence_key(b) for b in subs}
    # only the claimed keys are re-made: a file the meta does not claim is not evidence
    store = {key: (w, None) for key, (w, _) in evidence.items() if key in claimed}
    for key in sorted(set(evidence) - claimed):
        print(f"--rebuild: {key_file_name(key)} is not in claimed_certified: left out", flush=True)
    return record, store, meta.get("source", os.path.basename(folder))


def merge_records(records, stores, names):
    """One record and one store from several runs of one channel (pairs in order).

    The records must agree on channel, level, partition and design file; their sub-box
    lists are concatenated.  A key certified in several records takes the store entry of
    the first record that certified it; a certified key inside another certified key is
    dropped (the larger one covers it).  Returns ``(record, store, certified keys)``.
    """
    first = records[0]
    for rec, name in zip(records[1:], names[1:], strict=True):
        for field in ("channel", "gamma", "partition", "design_sha256"):
            if rec.get(field) != first.get(field):
                raise SystemExit(
                    f"--record: {name} has {field}={rec.get(field)!r}, "
                    f"{names[0]} {first.get(field)!r}"
                )
    store, certified = {}, []
    for rec, st in zip(records, stores, strict=True):
        for b in rec["sub_boxes"]:
            key = record_evidence_key(b)
            if b["status"] != "certified" or key in store:
                continue
            if key in st:
                store[key] = st[key]
            certified.append(key)
    done = set(certified)
    inside = {
        k for k in done if any(evidence_key(*key_parts(k)[:2], key_parts(k)[2][:m]) in done
                               for m in range(len(key_parts(k)[2])))
    }  # fmt: skip
    certified = sorted(done - inside)
    # a dropped key's store entry goes too: the store holds exactly the keys built
    store = {k: v for k, v in store.items() if k in certified}
    record = dict(first)
    record["sub_boxes"] = [b for rec in records for b in rec["sub_boxes"]]
    record["commits"] = [c for rec in records for c in (rec.get("commits") or [rec.get("commit")])]
    return record, store, certified


def covering_evidence(sysdata, blk, w, x):
    """``(omega, scalings, how)``: a smallest covering subset of the stored points, re-checked
    as they are; completed (:func:`complete_frequency_certificate`) only when they do not
    cover the axis.  ``how`` is ``"covered as stored"``, ``"completed"`` or why not."""
    chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
    if chk.covered:
        keep = sorted(covering_subset(chk.intervals), key=lambda k: w[k])
        w2, x2 = np.asarray(w)[keep], np.asarray(x)[keep]
        if check_frequency_certificate(sysdata, blk, LEVEL, w2, x2).covered:
            return w2, x2, "covered as stored"
    w2, x2, chk = complete_frequency_certificate(sysdata, blk, LEVEL, w, x)
    if not chk.covered:
        return w2, x2, f"completion left {len(chk.gaps)} gaps"
    return w2, x2, "completed"


def _save_npz(path, arrays):
    """Write ``path`` atomically (a temporary file beside it, then a rename).

    The temporary name starts with a dot, so a file left by an interrupted build never
    matches the evidence pattern ``box_*.npz`` of :func:`load_evidence`.
    """
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.tmp{os.getpid()}.npz")
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def _certified_stem(stem, n, certified):
    """The key of ``--boxes`` file stem ``stem``; SystemExit naming it when the key is not
    one this build certified and kept."""
    key = parse_key_file_name(f"box_{stem}.npz", n)
    if key not in certified:
        raise SystemExit(f"--boxes: {stem} is not a key certified (and kept) by this build")
    return key


def _check_out_folder(out, n, certified):
    """Refuse an ``--out`` holding evidence files of keys not in ``certified``: the
    folder's files would not match its ``claimed_certified``."""
    if not os.path.isdir(out):
        return
    stray = []
    for name in sorted(os.listdir(out)):
        if name.startswith("box_") and name.endswith(".npz"):
            try:
                key = parse_key_file_name(name, n)
            except ArgumentError:
                key = None
            if key not in certified:
                stray.append(name)
    if stray:
        raise SystemExit(
            f"--out: {out} holds evidence not certified by this build ({', '.join(stray)}): "
            "remove it or choose another folder"
        )


def _load_store(path):
    with np.load(path) as z:
        return {
            store_key(tuple(int(v) for v in k.split("_")[1:])): (z[k], z["s" + k[1:]])
            for k in z.files
            if k.startswith("w_")
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", nargs="+", help="checkpoint records (JSON) of one channel")
    ap.add_argument("--store", nargs="+", help="their .scalings.npz stores, in the same order")
    ap.add_argument("--design", required=True, help="the design JSON the record certifies")
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--boxes", nargs="*", default=None, help="keys to build, as file stems: 2_2 6_7_2x2-0-1"
    )
    ap.add_argument("--skip-done", action="store_true")
    ap.add_argument("--rebuild", default=None, help="an evidence folder to re-make")
    args = ap.parse_args()
    if not args.rebuild and not (args.record and args.store):
        ap.error("either --rebuild, or --record and --store")
    if args.record and len(args.record) != len(args.store):
        ap.error("--record and --store: one store per record, in the same order")
    with open(args.design, "rb") as fh:
        raw = fh.read()
    design = json.loads(raw)
    if args.rebuild:
        record, store, source = _from_evidence(args.rebuild, design)
        certified = [record_evidence_key(b) for b in record["sub_boxes"]]
    else:
        records = []
        for path in args.record:
            with open(path) as fh:
                records.append(json.load(fh))
            if hashlib.sha256(raw).hexdigest() != records[-1].get("design_sha256"):
                raise SystemExit(f"--design is not the design {path} certifies (sha256 differs)")
        stores = [_load_store(path) for path in args.store]
        record, store, certified = merge_records(records, stores, args.record)
        source = ", ".join(os.path.basename(p) for p in args.record)
    n = int(record["partition"].split(" x ")[0])
    check_split_tree(certified, n)
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
        "source_commits": record.get("commits"),
        "claimed_certified": [key_to_json(k) for k in sorted(certified)],
    }
    # before anything is written: only keys certified and kept are built
    if args.boxes:
        keys = [_certified_stem(b, n, certified) for b in args.boxes]
    else:
        keys = sorted((k for k in certified if k in store), key=lambda k: len(store[k][0]))
        for k in certified:
            if k not in store:
                print(f"{key_to_json(k)}: certified, but no stored evidence", flush=True)
    _check_out_folder(args.out, n, certified)
    os.makedirs(args.out, exist_ok=True)
    data_dir = os.path.dirname(os.path.abspath(args.out))
    shipped = os.path.join(data_dir, "design.json")
    if not os.path.exists(shipped):
        keep = {k: design[k] for k in ("provenance", "values")}
        keep["source_sha256"] = record["design_sha256"]
        with open(shipped, "w") as fh:
            json.dump(keep, fh)
    tmp = os.path.join(args.out, f".meta.json.tmp{os.getpid()}")
    with open(tmp, "w") as fh:
        json.dump(meta, fh, indent=1)
    os.replace(tmp, os.path.join(args.out, "meta.json"))
    times = {record_evidence_key(b): b.get("time", np.nan) for b in record["sub_boxes"]}
    problem = arm_channel_problem(design["values"], record["channel"])
    save_realisation(problem, args.out)
    for key in keys:
        path = os.path.join(args.out, key_file_name(key))
        if args.skip_done and os.path.exists(path):
            continue
        if key not in store:
            print(f"{key_to_json(key)}: no stored evidence", flush=True)
            continue
        w, x = store[key]
        i, j, steps = key_parts(key)
        sysdata, blk = sub_box_system(problem, n, i, j, record["gamma"], steps)
        if sysdata is None:
            print(f"{key_to_json(key)}: {blk}", flush=True)
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        if x is None:
            # scalings of this realisation, optimised to the end at the stored frequencies
            # (stopped just below the level, as the sweep's bounds: completion refines them)
            stop = LEVEL / (1.0 + 1e-3)
            _, x = warm_upper_bounds(balanced_response_function(*sysdata)(w), blk,
                                     target=stop, polish_target=stop)  # fmt: skip
        w2, x2, how = covering_evidence(sysdata, blk, w, x)
        t_build, c_build = time.perf_counter() - t0, time.process_time() - c0
        if how not in ("covered as stored", "completed"):
            print(f"{key_to_json(key)}: {how} ({t_build:.0f} s)", flush=True)
            continue
        w32, x32 = w2.astype(np.float32), x2.astype(np.float32)
        t0, c0 = time.perf_counter(), time.process_time()
        chk32 = check_frequency_certificate(sysdata, blk, LEVEL, w32, x32.astype(float))
        t_check, c_check = time.perf_counter() - t0, time.process_time() - c0
        if chk32.covered:
            arrays = {"omega": w32, "scalings": x32}
        else:
            arrays = {"omega": w2, "scalings": x2}
        _save_npz(path, arrays)
        cert = times.get(key, np.nan)
        print(
            f"{key_file_name(key)[4:-4]}: {len(w)} stored -> {len(w2)} kept points, {how} "
            f"({t_build:.1f} s, CPU {c_build:.1f} s); re-check {t_check:.2f} s (CPU "
            f"{c_check:.2f} s; certification {cert:.0f} s, ratio {t_check / cert:.3f}); "
            f"float32 {chk32.covered}; {os.path.getsize(path) / 1e3:.0f} kB",
            flush=True,
        )


if __name__ == "__main__":
    main()
