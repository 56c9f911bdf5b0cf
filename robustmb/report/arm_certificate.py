"""Replay of the arm's partition certificate: every stored sub-box certificate re-checked.

The stored gain-scheduled design of the arm (``robustmb/data/arm_lpv/design.json``, the
tuned ``arm_lpv_guarded`` checkpoint) is certified over an ``n x n`` partition of its
(t1, t2) scheduling square: on each sub-box (the five physical parameters m1, J1, rho1,
L2, m3 whole, +-20 %) the LFT is re-centred at the sub-box centre and a fixed-level mu
sweep proves robust stability and ``||channel||_inf < gamma`` for every frozen parameter
value in the sub-box (robust performance, main loop theorem).  The sweep's evidence --
its frequencies and their D,G parameters -- is stored per grid cell or split piece of
one (``robustmb/data/arm_lpv/<channel>_<level>/box_i_j.npz``, or
``box_i_j_P1xP2-a-b[...].npz`` for a piece, :mod:`.evidence_keys`; one folder per
channel, found by its ``meta.json``).  Nothing stored is trusted:
:func:`replay_partition` rebuilds each cell or piece problem from the design, checks that
its centre is stable, and re-checks the evidence with
:func:`robustmb.analysis.frequency_certificate.check_frequency_certificate`: in floating
point, the bound at the stored scalings at each frequency and extended to its frequency
interval, the intervals covering ``[0, inf]``, at the level :data:`LEVEL` = 1/(1 + 1e-6)
(a 1e-6 headroom below 1 for rounding).  The scalings are written in the basis of the
LFT's repeated-scalar Delta channels, so the evidence also holds ``M(j omega)`` of the
realisation it was made for (``realisation.npz``): a replay on another realisation is
refused (:func:`check_realisation`), never reported as gaps.  Coverage is the share of
the area of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square, summed exactly over the
proven cells and pieces.  A cell or piece counts as proven only when that re-check covers
the whole axis; every other part of the square is reported as not proven, with the
largest gain sampled there.  The whole square is sampled too, for every channel: the
largest sampled gain is a lower bound of the worst case, the certified level (on a fully
proven square) its upper bound.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import ReportInstallError
from .loop_sampling import sampled_gain
from .partition_replay import PartitionReplay
from .realisation_guard import check_realisation
from .replay_text import channel_summary, summary_text

#: Folder of the shipped design and certificate evidence.
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                        "arm_lpv")  # fmt: skip
#: Channel names of :func:`robustmb.report.arm_lpv.arm_lpv_loop`.
CHANNELS = {"tracking": "tracking W_e S", "effort": "effort W_T K S"}
# Robust performance is certified at mu < LEVEL on the problem scaled by 1/gamma
# (as case_studies/robotic_arm/certify_lpv_partition.py): strictly below 1.
LEVEL = 1.0 / (1.0 + 1e-6)
# the problems built so far (building the arm loop takes seconds; the data is read only)
_PROBLEMS: dict = {}


def arm_channel_problem(values, channel="tracking"):
    """The uncertain channel of the arm loop closed by the design ``values``, as ``M``.

    The controller is the arm tuning problem's (``robustmb.examples.arm_lpv_tuning_problem``)
    with ``values`` substituted -- the realisation the partition certificates were computed
    on.

    Parameters
    ----------
    values : dict
        ``{"K.M0", "K.M1", "K.M2"}`` coefficients (lists or arrays).
    channel : {"tracking", "effort"}

    Returns
    -------
    UncertainProblem
        ``M`` and its block structure (:func:`robustmb.analysis.uncertain_problem`).

    Examples
    --------
    >>> values = load_shipped_design()["values"]
    >>> p = arm_channel_problem(values)
    >>> p.a.shape, sorted(b.name for b in p.blocks)
    ((9, 9), ['J1', 'L2', 'm1', 'm3', 'rho1', 't1', 't2'])
    """
    import copy

    from ..analysis.uncertain_problem import uncertain_problem
    from ..errors import ArgumentError
    from ..examples import arm_lpv_tuning_problem
    from .arm_lpv import arm_lpv_loop

    if channel not in CHANNELS:
        raise ArgumentError(f"channel: expected one of {sorted(CHANNELS)}, got {channel!r}")
    key = (json.dumps({k: np.asarray(v).tolist() for k, v in values.items()}, sort_keys=True),
           channel)  # fmt: skip
    if key in _PROBLEMS:
        return _PROBLEMS[key]
    ctrl = arm_lpv_tuning_problem().controller.usubs(
        {k: np.asarray(v, float) for k, v in values.items()}
    )
    ctrl = copy.copy(ctrl)
    ctrl.input_names, ctrl.output_names = ["e1", "e2"], ["u1", "u2"]
    loop, channels = arm_lpv_loop(ctrl)
    outs, ins, _ = channels[CHANNELS[channel]]
    _PROBLEMS[key] = uncertain_problem(loop[outs, ins])
    return _PROBLEMS[key]


def sub_box(problem, n, i, j, path=()):
    """Normalised centre and radius (one per element) of sub-box ``(i, j)`` of ``n x n``.

    ``i`` indexes t1, ``j`` t2, from the lower end; ``path`` a piece of a split sub-box;
    the other elements are whole (:func:`robustmb.analysis.sub_box.cell_box`, as the
    partition driver).

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> c, r = sub_box(p, 4, 0, 3)
    >>> names = [b.name for b in p.blocks]
    >>> float(c[names.index("t1")]), float(r[names.index("t2")])
    (-0.75, 0.25)
    """
    from ..analysis.sub_box import cell_box

    return cell_box([b.name for b in problem.blocks], n, i, j, path)


def sub_box_system(problem, n, i, j, gamma, path=()):
    """Robust-performance data of sub-box ``(i, j)`` at level ``gamma``: ``(sysdata, blk)``.

    The problem the partition driver certified
    (:func:`robustmb.analysis.sub_box.sub_box_problem`): the LFT re-centred at the
    sub-box centre with the perturbation scaled to it, performance rows scaled by
    ``1/gamma``, and a full performance block appended: ``mu < 1`` on the whole axis
    with a stable centre proves robust stability and ``||channel||_inf < gamma`` on the
    sub-box.  Returns ``(None, reason)`` when the centre is ill-posed or unstable.

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> (a, b, c, d), blk = sub_box_system(p, 8, 2, 2, 0.95)
    >>> a.shape, blk[-1]
    ((9, 9), (2, 2))
    """
    from ..analysis.sub_box import sub_box_problem

    sb = sub_box_problem(problem, *sub_box(problem, n, i, j, path), gamma)
    if sb.status != "ok":
        return None, sb.status
    return sb.sysdata, sb.blk


def load_shipped_design():
    """The stored, tuned design shipped with the package (``values`` and ``provenance``).

    Examples
    --------
    >>> d = load_shipped_design()
    >>> sorted(d["values"])
    ['K.M0', 'K.M1', 'K.M2']
    """
    with open(os.path.join(DATA_DIR, "design.json")) as fh:
        return json.load(fh)


def load_evidence(folder):
    """``(meta, {key: (omega, scalings)})`` of a certificate folder.

    The folder holds ``meta.json`` (with the partition's ``n``) and one file per cell or
    piece with arrays ``omega`` and ``scalings``: ``box_i_j.npz`` for a whole grid cell
    (key ``(i, j)``), ``box_i_j_P1xP2-a-b[_P1xP2-a-b...].npz`` for a split piece (key
    ``(i, j, path)``, :mod:`.evidence_keys`).

    Raises
    ------
    ArgumentError
        No ``meta.json``; a ``meta.json`` that is not a JSON object with ``channel``,
        ``n`` and ``gamma``, or with a bad ``n`` (naming it); a file badly named (a step
        with ``a >= P1`` or ``b >= P2``, a cell outside ``n x n``), without an array,
        unreadable, with an ``omega`` not 1-D, not real, NaN or negative, or
        ``scalings`` not 2-D real with a row per frequency (naming the file); a key
        inside another, or a cell split in two ways (naming both files).

    Examples
    --------
    >>> meta, ev = load_evidence(evidence_folders()["tracking"])
    >>> meta["channel"], meta["gamma"] > 0, len(ev) > 0
    ('tracking', True, True)
    >>> w, x = next(iter(ev.values()))
    >>> w.ndim, x.shape[0] == len(w)
    (1, True)
    """
    from ..errors import ArgumentError
    from .evidence_keys import check_split_tree, parse_key_file_name

    path = os.path.join(folder, "meta.json")
    if not os.path.isfile(path):
        raise ArgumentError(f"evidence: no meta.json in '{folder}'")
    meta = _read_meta(path)
    try:
        n, _ = _checked_meta(meta, False)
    except ArgumentError as err:
        raise ArgumentError(f"evidence: '{path}': {err}") from None
    out, names = {}, {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("box_") and name.endswith(".npz"):
            file = os.path.join(folder, name)
            key = parse_key_file_name(name, n)
            try:
                with np.load(file) as z:
                    w, x = z["omega"], z["scalings"]
            except KeyError as err:
                raise ArgumentError(f"evidence: '{file}' has no array {err}") from None
            except (OSError, ValueError) as err:
                raise ArgumentError(f"evidence: '{file}' is not a readable npz ({err})") from None
            out[key] = _checked_arrays(file, w, x)
            names[key] = file
    check_split_tree(out, n, names)
    return meta, out


def _checked_arrays(file, w, x):
    """``(omega, scalings)`` of evidence ``file`` as float arrays, checked: ``omega`` 1-D,
    real, no NaN, ``>= 0`` (``inf`` allowed: the point at infinity); ``scalings`` 2-D
    real with a row per frequency.  ArgumentError naming the file otherwise."""
    from ..errors import ArgumentError

    for label, a in (("omega", w), ("scalings", x)):
        if a.dtype.kind not in "fiu":
            raise ArgumentError(
                f"evidence: '{file}': {label} has dtype {a.dtype}, not real numbers"
            )
    if w.ndim != 1:
        raise ArgumentError(f"evidence: '{file}': omega has shape {w.shape}, not 1-D")
    w = w.astype(float)
    if np.isnan(w).any() or (w < 0).any():
        raise ArgumentError(f"evidence: '{file}': omega has NaN or negative frequencies")
    if x.ndim != 2 or x.shape[0] != len(w):
        raise ArgumentError(
            f"evidence: '{file}': scalings has shape {x.shape}, not ({len(w)}, p): "
            "a row of parameters per frequency"
        )
    return w, x.astype(float)


def _read_meta(path):
    """The object of evidence ``meta.json`` at ``path``: ArgumentError naming the file when
    it is not JSON, not an object, or lacks ``channel``, ``n`` or ``gamma``."""
    from ..errors import ArgumentError

    try:
        with open(path, encoding="utf-8") as fh:
            meta = json.load(fh)
    except (ValueError, OSError) as err:  # JSONDecodeError and UnicodeDecodeError too
        raise ArgumentError(f"evidence: '{path}' is not readable JSON ({err})") from None
    if not isinstance(meta, dict):
        raise ArgumentError(f"evidence: '{path}' holds a {type(meta).__name__}, not an object")
    missing = [k for k in ("channel", "n", "gamma") if k not in meta]
    if missing:
        raise ArgumentError(f"evidence: '{path}' has no {', '.join(missing)}")
    return meta


def design_sha256(values):
    """SHA-256 of the canonical JSON of design ``values`` (sorted keys, float lists).

    The evidence's ``meta["design_sha256"]`` must equal this hash of the design it is
    replayed against: it is recomputed from the values, never copied from a stored string.

    Examples
    --------
    >>> h = design_sha256(load_shipped_design()["values"])
    >>> len(h), h == design_sha256({k: np.asarray(v) for k, v in
    ...                              load_shipped_design()["values"].items()})
    (64, True)
    """
    import hashlib

    canon = {k: np.asarray(v, float).tolist() for k, v in values.items()}
    text = json.dumps(canon, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def check_design_hash(values, meta, folder):
    """Refuse evidence whose ``meta["design_sha256"]`` is not :func:`design_sha256` of ``values``.

    Raises
    ------
    ArgumentError
        Naming the evidence's ``meta.json`` when the hashes differ.

    Examples
    --------
    >>> values = load_shipped_design()["values"]
    >>> folder = evidence_folders()["tracking"]
    >>> meta, _ = load_evidence(folder)
    >>> check_design_hash(values, meta, folder)
    >>> from robustmb.errors import ArgumentError
    >>> try:
    ...     check_design_hash({**values, "K.M0": np.zeros(3)}, meta, folder)
    ... except ArgumentError as err:
    ...     print(str(err)[:9], "meta.json" in str(err))
    evidence: True
    """
    from ..errors import ArgumentError

    got = design_sha256(values)
    if meta.get("design_sha256") != got:
        raise ArgumentError(
            f"evidence: {os.path.join(folder, 'meta.json')} certifies the design with sha256 "
            f"{meta.get('design_sha256')}, not the one given (sha256 {got} of its values)"
        )


def _checked_meta(meta, with_evidence):
    """``(n, gamma)`` of evidence ``meta``, checked (ArgumentError naming the field).

    ``gamma`` and ``level`` are only read (and checked) when there is evidence to replay.
    """
    from ..errors import ArgumentError

    gamma, n = meta.get("gamma"), meta.get("n")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ArgumentError(f"meta.n: expected an integer >= 1, got {n!r}")
    if not with_evidence:
        return int(n), np.nan
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.floating, np.integer)):
        raise ArgumentError(f"meta.gamma: expected a finite number > 0, got {gamma!r}")
    if not (np.isfinite(gamma) and gamma > 0):
        raise ArgumentError(f"meta.gamma: expected a finite number > 0, got {gamma!r}")
    if meta.get("level") != LEVEL:
        raise ArgumentError(f"meta.level: expected {LEVEL!r}, got {meta.get('level')!r}")
    return int(n), float(gamma)


def _physical_rows(problem, centres):
    """Each normalised centre with the five physical parameters at nominal and at their
    32 vertices (t1, t2 kept): the loops sampled per cell."""
    import itertools

    names = [b.name for b in problem.blocks]
    phys = [k for k, nm in enumerate(names) if nm not in ("t1", "t2")]
    rows = []
    for c in centres:
        rows.append(np.array(c, float))
        for signs in itertools.product((-1.0, 1.0), repeat=len(phys)):
            v = np.array(c, float)
            v[phys] = signs
            rows.append(v)
    return np.array(rows).reshape(len(rows), len(names))


def _sample(problem, rows):
    """``(worst, where in physical units, loops, unresolved)`` of :func:`sampled_gain`."""
    if len(rows) == 0:
        return np.nan, {}, 0, 0
    worst, v, unresolved = sampled_gain(problem, rows)
    if v is None:
        return np.nan, {}, len(rows), unresolved
    where = {b.name: float(b.element.center + v[k] * b.element.half_width)
             for k, b in enumerate(problem.blocks)}  # fmt: skip
    return worst, where, len(rows), unresolved


def replay_partition(values, meta, evidence, *, samples=True, progress=None, sample_n=4, workers=0):
    """Re-check every stored cell and piece certificate of a channel; coverage, samples.

    Parameters
    ----------
    values : dict
        The design's ``{"K.M0", "K.M1", "K.M2"}``.
    meta : dict
        ``channel``, ``gamma`` (finite, > 0), ``n`` (integer >= 1) and ``level`` (must be
        :data:`LEVEL`) of the evidence (see :func:`load_evidence`); ``gamma`` and ``level``
        are not read when ``evidence`` is empty.  Bad fields raise ``ArgumentError``.
    evidence : dict
        ``{key: (omega, scalings)}``, ``key`` ``(i, j)`` for a whole cell or
        ``(i, j, path)`` for a piece (:mod:`.evidence_keys`); the keys must be the leaves
        of one split tree (``ArgumentError`` otherwise).
    samples : bool
        Sample the parts not proven (each one's centre x nominal and the 32 vertices of
        the five physical parameters), and the whole square (``sample_n x sample_n``
        grid-cell centres x the same 33 points), for their largest gains.
    progress : callable, optional
        Called with a short line per cell or piece.
    sample_n : int
        The whole square's sampling grid.
    workers : int
        Processes re-checking the keys (:func:`recheck_keys`; 0: this process, under its
        own BLAS set-up).

    Returns
    -------
    PartitionReplay
        ``coverage_exact`` is the sum of the exact areas of the proven keys; ``status``
        holds every key and every uncovered leaf
        (:func:`~.evidence_keys.uncovered_leaves`, ``"no evidence"``).

    Examples
    --------
    Evidence cut to its first 5 frequencies leaves gaps: nothing is proven there.

    >>> meta, ev = load_evidence(evidence_folders()["tracking"])
    >>> box, (w, x) = next(iter(ev.items()))
    >>> r = replay_partition(load_shipped_design()["values"], meta, {box: (w[:5], x[:5])},
    ...                      samples=False)
    >>> others = {s for k, s in r.status.items() if k != box}
    >>> r.status[box].startswith("gaps"), r.coverage, others
    (True, 0.0, {'no evidence'})
    """
    from ..errors import ArgumentError
    from .evidence_keys import key_area, key_parts, key_sides, normalised_keys, uncovered_leaves
    from .worker_pool import cpu_seconds

    n, gamma = _checked_meta(meta, bool(evidence))
    if "channel" not in meta:
        raise ArgumentError(f"meta.channel: missing (expected one of {sorted(CHANNELS)})")
    evidence = normalised_keys(evidence)  # two spellings of one key: refused
    gaps = uncovered_leaves(evidence, n)  # also refuses overlapping keys
    problem = arm_channel_problem(values, meta["channel"])
    # the clocks start once the problem is built (cached per design): they time the
    # re-checks and the sampling, on CPU also in the workers (reaped when the re-checks end)
    t0, c0 = time.perf_counter(), cpu_seconds()
    status, points = {}, 0
    for key, text, checked in recheck_keys(
        values, meta["channel"], n, gamma, evidence, workers=workers
    ):
        status[key] = text
        points += checked
        if progress is not None:
            progress(f"sub-box {key}: {text} ({checked} frequencies)")
    status.update({key: "no evidence" for key in gaps})
    proven = sorted(k for k, s in status.items() if s == "proven")
    cov = sum((key_area(n, k) for k in proven), Fraction(0))
    finest = None
    if proven:
        finest = key_sides(n, min(proven, key=lambda k: (key_area(n, k), k)))
    c1 = cpu_seconds()
    rest = (np.nan, {}, 0, 0)
    square = (np.nan, {}, 0, 0)
    if samples:
        rows = _physical_rows(
            problem, [sub_box(problem, n, *key_parts(k))[0] for k, s in status.items()
                      if s != "proven"]
        )  # fmt: skip
        rest = _sample(problem, rows)
        grid = _physical_rows(
            problem, [sub_box(problem, sample_n, i, j)[0] for i in range(sample_n)
                      for j in range(sample_n)]
        )  # fmt: skip
        # a channel with no evidence on the same grid: the same loops, sampled once
        same = rows.shape == grid.shape and np.array_equal(rows, grid)
        square = rest if same else _sample(problem, grid)
        if proven and square[0] >= gamma:
            _refuse_contradiction(problem, n, gamma, proven, grid)
    return PartitionReplay(
        meta["channel"], gamma, n, status, float(cov), rest[0], rest[1], points, rest[2],
        time.perf_counter() - t0, {"replay": c1 - c0, "sampling": cpu_seconds() - c1},
        rest[3], cov, sum(len(k) == 2 for k in proven), sum(len(k) == 3 for k in proven),
        finest, *square,
    )  # fmt: skip


def _in_keys(problem, n, keys, row):
    """The keys (of an ``n x n`` partition) whose closed rectangle holds the (t1, t2) of
    the normalised parameter ``row``."""
    from .evidence_keys import key_rect

    names = [b.name for b in problem.blocks]
    # normalised value v in [-1, 1] -> share (v + 1) / 2 of the side, exactly
    u1, u2 = ((Fraction(float(row[names.index(t)])) + 1) / 2 for t in ("t1", "t2"))
    out = []
    for key in keys:
        (lo1, hi1), (lo2, hi2) = key_rect(n, key)
        if lo1 <= u1 <= hi1 and lo2 <= u2 <= hi2:
            out.append(key)
    return out


def _refuse_contradiction(problem, n, gamma, proven, grid):
    """Raise when a loop sampled inside a proven key has a gain ``>= gamma``.

    The re-check proved ``gain < gamma`` on every proven key: a sample there at or above
    ``gamma`` means the certificate (or the sampler) is wrong, and no verdict may rest on
    either.  Only called when the square's largest sample is ``>= gamma``, so the rows
    inside proven keys are sampled again, apart.
    """
    from ..errors import ArgumentError
    from .evidence_keys import key_file_name

    inside = np.array([row for row in grid if _in_keys(problem, n, proven, row)])
    if len(inside) == 0:
        return
    worst, v, _ = sampled_gain(problem, inside)
    if v is None or not worst >= gamma:
        return
    files = ", ".join(key_file_name(k) for k in _in_keys(problem, n, proven, v))
    raise ArgumentError(
        f"evidence: a loop sampled inside proven {files} has gain {worst!r} >= the certified "
        f"level {gamma!r}: a contradiction (the certificate or the sampler is wrong)"
    )


def _recheck_one(problem, n, gamma, key, w, x):
    """``(key, status text, frequencies checked)`` of one stored cell or piece."""
    from .._blas import single_blas_thread
    from ..analysis.frequency_certificate import check_frequency_certificate
    from ..errors import ArgumentError
    from .evidence_keys import key_file_name, key_parts

    i, j, path = key_parts(key)
    sysdata, blk = sub_box_system(problem, n, i, j, gamma, path)
    if sysdata is None:
        return key, blk, 0
    try:
        # One BLAS thread: threads only cost time on these small matrices.
        with single_blas_thread():
            chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
    except (ValueError, TypeError) as err:
        # bad evidence arrays (shape, values): name the file, also from a worker process
        raise ArgumentError(
            f"evidence: {key_file_name(key)} (key {key!r}): {type(err).__name__}: {err}"
        ) from None
    text = "proven" if chk.covered else f"gaps: {len(chk.gaps)} uncovered frequency interval(s)"
    return key, text, len(w)


_WORKER: dict = {}


def _worker_problem(values, channel):
    _WORKER["problem"] = arm_channel_problem(values, channel)


def _worker_recheck(n, gamma, key, w, x):
    return _recheck_one(_WORKER["problem"], n, gamma, key, w, x)


def recheck_keys(values, channel, n, gamma, evidence, *, workers=0):
    """Re-check the stored certificate of every key; yields ``(key, status, frequencies)``.

    The keys are independent and are shared out to ``workers`` processes, each building
    the channel's problem once, in the order they finish (``workers=0``: in this process,
    in key order).  The workers start with one OpenBLAS thread (:mod:`.worker_pool`): BLAS
    threads only cost time on these small matrices.  The result depends neither on the
    caller's BLAS set-up nor on ``workers`` (the interval ends agree to about 1e-7; the
    low-frequency crossings are placed by the pencil of ``M(1/s)``,
    :func:`robustmb.analysis.frequency_intervals.certified_interval`).

    Examples
    --------
    >>> meta, ev = load_evidence(evidence_folders()["tracking"])
    >>> values = load_shipped_design()["values"]
    >>> key = sorted(ev)[0]
    >>> [(k == key, text) for k, text, _ in
    ...  recheck_keys(values, "tracking", meta["n"], meta["gamma"], {key: ev[key]})]
    [(True, 'proven')]
    """
    from .worker_pool import map_in_workers

    items = [(n, gamma, key, *evidence[key]) for key in sorted(evidence)]
    if not items:
        return
    if workers <= 0:  # in this process, under its own BLAS set-up
        problem = arm_channel_problem(values, channel)
        for item in items:
            yield _recheck_one(problem, *item)
        return
    yield from map_in_workers(
        _worker_recheck,
        items,
        workers=workers,
        initializer=_worker_problem,
        initargs=(values, channel),
    )


#: Specification of both channels (peak gain of the weighted transfer).
SPEC = 1.0


def channel_verdict(replay, spec=SPEC):
    """Verdict of one channel from its replay: never more than is certified.

    ``"fail"`` when any sampled loop -- over the whole square or on a part not proven --
    violates ``spec`` (or is confirmed unstable, :func:`sampled_gain`): a loop of the
    family is out of specification, whatever else is claimed; ``"pass"`` only when the
    whole square is proven (coverage 1) at a level ``<= spec``; otherwise ``"not proven"``.

    Examples
    --------
    >>> r = PartitionReplay("tracking", 0.95, 2, {(0, 0): "proven"}, 0.25, 0.9)
    >>> channel_verdict(r)
    'not proven'
    >>> channel_verdict(PartitionReplay("tracking", 0.95, 1, {(0, 0): "proven"}, 1.0, np.nan))
    'pass'
    >>> channel_verdict(PartitionReplay("effort", 0.95, 1, {(0, 0): "no evidence"}, 0.0, 1.2))
    'fail'

    The whole square proven at 14.5, with a loop sampled at 13.1 > 1: a fail.

    >>> channel_verdict(PartitionReplay("effort", 14.5, 1, {(0, 0): "proven"}, 1.0, np.nan,
    ...                                 square_worst=13.1))
    'fail'

    A loop sampled at or above the level of a fully proven square contradicts the
    certificate: an error, never a verdict.

    >>> from robustmb.errors import ArgumentError
    >>> try:
    ...     channel_verdict(PartitionReplay("tracking", 0.95, 1, {(0, 0): "proven"}, 1.0,
    ...                                     np.nan, square_worst=0.97))
    ... except ArgumentError as err:
    ...     print(str(err)[:60])
    replay: tracking: a loop sampled at 0.97 >= the level 0.95 c
    """
    from ..errors import ArgumentError

    cov = replay.coverage if replay.coverage_exact is None else replay.coverage_exact
    if cov >= 1 and replay.worst_sampled >= replay.gamma:  # NaN compares False
        raise ArgumentError(
            f"replay: {replay.channel}: a loop sampled at {replay.worst_sampled!r} >= the level "
            f"{replay.gamma!r} certified on the whole square: a contradiction (the "
            "certificate or the sampler is wrong)"
        )
    if replay.worst_sampled > spec:  # NaN (nothing sampled) compares False
        return "fail"
    if cov >= 1 and replay.gamma <= spec:
        return "pass"
    return "not proven"


def evidence_folders(data_dir=None):
    """``{channel: folder}``: the evidence folder of each channel in ``data_dir``.

    A folder of ``data_dir`` (default :data:`DATA_DIR`) holding a ``meta.json`` is the
    evidence of the channel its ``meta["channel"]`` names (folders are named for channel
    and level, e.g. ``tracking_100``, ``effort_103``); a channel with none is absent.

    Raises
    ------
    ArgumentError
        Two folders of one channel (naming them), or a ``meta.json`` naming no known
        channel (naming it).

    Examples
    --------
    >>> os.path.basename(evidence_folders()["tracking"]).startswith("tracking_")
    True
    """
    from ..errors import ArgumentError

    data_dir = DATA_DIR if data_dir is None else data_dir
    found = {}
    for name in sorted(os.listdir(data_dir)):
        meta = os.path.join(data_dir, name, "meta.json")
        if not os.path.isfile(meta):
            continue
        channel = _read_meta(meta)["channel"]
        if channel not in CHANNELS:
            raise ArgumentError(
                f"evidence: {meta} names channel {channel!r}, not one of {sorted(CHANNELS)}"
            )
        found.setdefault(channel, []).append(os.path.join(data_dir, name))
    for channel, folders in found.items():
        if len(folders) > 1:
            raise ArgumentError(
                f"evidence: {len(folders)} folders hold evidence of channel {channel!r} "
                f"({', '.join(folders)}): keep exactly one"
            )
    return {channel: folders[0] for channel, folders in found.items()}


def certified_demo(out_dir, *, progress=None, sample_n=4, workers=None):
    """``robustmb demo --replay``: stored design, replay of its certificates, verdicts.

    For each channel (tracking ``W_e S``, effort ``W_T K S``) the shipped cell and piece
    certificates of its evidence folder (:func:`evidence_folders`) are re-checked
    (:func:`replay_partition`), and the whole square is sampled (``sample_n x sample_n``
    grid-cell centres x the 33 physical points): a lower bound of the worst case beside
    the certified level.  A channel without shipped evidence is only sampled.  Writes
    ``summary.json``, ``report.md`` and ``report.html`` (a page that opens in a browser,
    :func:`~.replay_html.render_replay_html`) to ``out_dir``.  The re-checks run
    in ``workers`` processes (default: one per core this process may use).

    Returns
    -------
    dict
        The summary (also in ``summary.json``).

    Examples
    --------
    >>> s = certified_demo("robustmb-report")  # doctest: +SKIP
    >>> s["channels"]["tracking W_e S"]["verdict"]  # doctest: +SKIP
    'not proven'
    """
    t0 = time.perf_counter()
    if workers is None:
        from .worker_pool import available_cores

        workers = available_cores()
    design = load_shipped_design()
    t_design = time.perf_counter() - t0
    folders = evidence_folders()
    rows = {}
    for channel in CHANNELS:
        folder = folders.get(channel)
        if folder is not None:
            meta, ev = load_evidence(folder)
            check_design_hash(design["values"], meta, folder)
            check_realisation(arm_channel_problem(design["values"], channel), folder)
        else:
            meta, ev = {"channel": channel, "n": sample_n}, {}
        rep = replay_partition(
            design["values"], meta, ev, progress=progress, sample_n=sample_n, workers=workers
        )
        rows[channel] = (rep, folder, meta)
    total = time.perf_counter() - t0
    summary = {
        # design.json says which design it is and how it was tuned
        "design": design.get("summary") or "stored gain-scheduled design (design.json)",
        "design_sha256": design_sha256(design["values"]),
        "guarantee": "frozen parameters: every bound holds for each fixed value of (t1, t2) "
        "and of m1, J1, rho1, L2, m3 in their ranges; no bound on their rates of variation",
        "channels": {
            CHANNELS[channel]: channel_summary(rep, folder, SPEC, channel_verdict(rep))
            | _evidence_provenance(meta)
            for channel, (rep, folder, meta) in rows.items()
        },
        "time": {"design load": t_design, "replay and sampling": total - t_design, "total": total},
    }
    from .replay_html import render_replay_html

    texts = {
        "summary.json": json.dumps(summary, indent=1),
        "report.md": summary_text(summary),
        "report.html": render_replay_html(summary),
    }
    _write_together(out_dir, texts)
    return summary


def _evidence_provenance(meta):
    """Where a channel's evidence came from (its ``meta.json``): the partition records it
    was built from and the commits of the code that certified them (None and [] for a
    channel sampled only, whose stand-in meta has neither)."""
    return {
        "evidence_built_from": meta.get("source"),
        "evidence_commits": sorted(set(meta.get("source_commits") or [])),
    }


def _write_together(out_dir, texts):
    """Write the files ``texts`` (name -> text) to ``out_dir``, all or none.

    They are written in full into a temporary folder beside ``out_dir`` and only then
    moved in by :func:`~.writer.install_files` (as the worst-case report's files): a
    failure while writing leaves the previous set untouched, an interrupt never leaves a
    mix of two runs, and the temporary folder is removed in every case.
    """
    from .writer import install_files

    out = Path(out_dir)
    full = out.resolve()
    full.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{full.name}.tmp-", dir=full.parent))
    try:
        for name, text in texts.items():
            with open(tmp / name, "w", encoding="utf-8") as fh:
                fh.write(text)
        install_files(tmp, out, uuid.uuid4().hex[:12], names=frozenset(texts))
    except ReportInstallError:
        tmp = None  # holds part of a run the error names: kept
        raise
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
