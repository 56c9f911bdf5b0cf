"""Replay of the arm's partition certificate: every stored sub-box certificate re-checked.

The stored gain-scheduled design of the arm (``robustmb/data/arm_lpv/design.json``, the
tuned ``arm_lpv_hard`` checkpoint) is certified over an ``n x n`` partition of its
(t1, t2) scheduling square: on each sub-box (the five physical parameters m1, J1, rho1,
L2, m3 whole, +-20 %) the LFT is re-centred at the sub-box centre and a fixed-level mu
sweep proves robust stability and ``||channel||_inf < gamma`` for every frozen parameter
value in the sub-box (robust performance, main loop theorem).  The sweep's evidence --
its frequencies and their D,G parameters -- is stored per sub-box
(``robustmb/data/arm_lpv/<channel>_<gamma>/box_i_j.npz``).  Nothing stored is trusted:
:func:`replay_partition` rebuilds each sub-box problem from the design, checks that its
centre is stable, and re-checks the evidence with
:func:`robustmb.analysis.frequency_certificate.check_frequency_certificate`: in floating
point, the bound at the stored scalings at each frequency and extended to its frequency
interval, the intervals covering ``[0, inf]``, at the level :data:`LEVEL` = 1/(1 + 1e-6)
(a 1e-6 headroom below 1 for rounding).  The scalings are written in the basis of the
LFT's repeated-scalar Delta channels, so the evidence also holds ``M(j omega)`` of the
realisation it was made for (``realisation.npz``): a replay on another realisation is
refused (:func:`check_realisation`), never reported as gaps.  Coverage is the share of
the area of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square.  A sub-box counts as
proven only when that re-check covers the whole axis; every other part of the square is
reported as not proven, with the largest gain sampled there.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

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


def _confirmed_unstable(a, dt):
    """Whether numpy's eigenvalues of ``a`` put a pole clearly outside the stability region."""
    if a.shape[0] == 0:
        return False
    ev = np.linalg.eigvals(a)
    tol = 1e-8 * max(1.0, float(np.linalg.norm(a, 1)))
    if dt:
        return bool(np.max(np.abs(ev)) > 1.0 + tol)
    return bool(np.max(ev.real) > tol)


def sampled_gain(problem, values_list):
    """Largest peak gain (and stability) of the channel at normalised parameter values.

    Each row of ``values_list`` gives every element's normalised value in [-1, 1] (order
    of ``problem.blocks``); the loop is closed there (the LFT with a constant ``Delta``) and
    its peak gain computed.  Sampling: a lower bound, never a proof.  A sample counts as
    unstable only when numpy's eigenvalues of its closed loop confirm it (a pole clearly in
    the right half-plane); a sample whose gain cannot be computed (ill-posed loop, stability
    test and eigenvalues disagreeing, an infinite or non-finite gain without a confirmed
    unstable pole) is counted as unresolved and left out of ``worst``.

    Returns
    -------
    worst : float
        Largest peak gain (``inf`` when a sample is confirmed unstable; ``-inf`` when no
        sample was resolved).
    where : ndarray or None
        The normalised values of that sample.
    unresolved : int
        Samples neither confirmed unstable nor given a finite gain.

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> g, _, unresolved = sampled_gain(p, np.zeros((1, 7)))
    >>> bool(0 < g < 1), unresolved
    (True, 0)
    """
    from ..analysis.branch_and_bound import channel_matrix, recentre_system
    from ..analysis.norms import hinfnorm
    from ..analysis.uncertain_problem import is_stable

    chan = channel_matrix(problem)
    full = (problem.a, problem.b, problem.c, problem.d)
    nw, nz = problem.nw, problem.nz
    worst, where, unresolved = -np.inf, None, 0
    for v in np.atleast_2d(values_list):
        sub = recentre_system(full, nw, nz, chan @ v, np.zeros(nw))
        if sub is None:
            unresolved += 1
            continue
        a, b, c, d = sub
        if _confirmed_unstable(a, problem.dt):
            return np.inf, v, unresolved
        g = np.inf
        if is_stable(a, problem.dt):
            g = float(hinfnorm((a, b[:, nw:], c[nz:], d[nz:, nw:]))[0])
        if not np.isfinite(g):
            unresolved += 1
            continue
        if g > worst:
            worst, where = g, v
    return worst, where, unresolved


@dataclass
class PartitionReplay:
    """Replay of a partition certificate of one channel.

    Attributes
    ----------
    channel : str
    gamma : float
        The level certified on each proven sub-box.
    n : int
        The (t1, t2) square is split into ``n x n`` equal sub-boxes.
    status : dict
        ``{(i, j): text}``: ``"proven"`` (re-checked: stable centre, whole axis covered),
        or why not (``"no evidence"``, ``"gaps: ..."``, ``"unstable centre"``).
    coverage : float
        Proven share of the square's area.
    sampled_worst : float
        Largest gain sampled on the sub-boxes not proven (NaN when all are proven).
    sampled_where : dict
        Its parameter values (physical units).
    points : int
        Frequencies re-checked in all.
    samples : int
        Loops sampled on the sub-boxes not proven.
    seconds : float
        Wall time of the replay.
    cpu : dict
        CPU time (this process) of the re-checks (``"replay"``) and of the sampling
        (``"sampling"``): what an otherwise idle core would take.
    unresolved : int
        Samples neither confirmed unstable nor given a finite gain (see
        :func:`sampled_gain`): they make no verdict.
    """

    channel: str
    gamma: float
    n: int
    status: dict
    coverage: float
    sampled_worst: float
    sampled_where: dict = field(default_factory=dict)
    points: int = 0
    samples: int = 0
    seconds: float = 0.0
    cpu: dict = field(default_factory=dict)
    unresolved: int = 0

    @property
    def proven(self):
        """The proven sub-boxes ``(i, j)``."""
        return sorted(b for b, s in self.status.items() if s == "proven")


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
    """``(meta, {(i, j): (omega, scalings)})`` of a certificate folder (``meta.json`` and
    ``box_i_j.npz`` files with arrays ``omega`` and ``scalings``).

    Examples
    --------
    >>> meta, ev = load_evidence(os.path.join(DATA_DIR, "tracking_095"))
    >>> meta["gamma"], meta["n"]
    (0.95, 8)
    """
    from ..errors import ArgumentError

    path = os.path.join(folder, "meta.json")
    if not os.path.isfile(path):
        raise ArgumentError(f"evidence: no meta.json in '{folder}'")
    with open(path) as fh:
        meta = json.load(fh)
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith("box_") and name.endswith(".npz"):
            file = os.path.join(folder, name)
            try:
                i, j = (int(v) for v in name[4:-4].split("_"))
            except ValueError:
                raise ArgumentError(
                    f"evidence: '{file}' is not named box_<i>_<j>.npz with integers i, j"
                ) from None
            try:
                with np.load(file) as z:
                    out[(i, j)] = (z["omega"].astype(float), z["scalings"].astype(float))
            except KeyError as err:
                raise ArgumentError(f"evidence: '{file}' has no array {err}") from None
            except (OSError, ValueError) as err:
                raise ArgumentError(f"evidence: '{file}' is not a readable npz ({err})") from None
    return meta, out


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
    >>> folder = os.path.join(DATA_DIR, "tracking_095")
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


#: File of an evidence folder holding ``M(j omega)`` of the problem its scalings were made for.
REALISATION_FILE = "realisation.npz"
# Frequencies (rad/s) of that fingerprint, and its tolerance relative to the entries' row
# and column scales: far above rounding, far below any change of the Delta-channel basis
# (a sign or a rotation of repeated-scalar channels changes entries by their own size).
_FINGERPRINT_OMEGA = (0.5, 5.0)
_FINGERPRINT_RTOL = 1e-7


def realisation_fingerprint(problem):
    """``M(j omega)`` of ``problem`` (whole LFT, Delta channels first) at two frequencies.

    D,G scalings are written in the basis of the repeated-scalar Delta channels: the same
    ``mu`` but another basis makes them useless.  The fingerprint pins the realisation the
    evidence was made for (:func:`check_realisation`).

    Returns
    -------
    omega : ndarray, shape (2,)
    response : ndarray, shape (2, nz + ny, nw + nu), complex

    Examples
    --------
    >>> w, m = realisation_fingerprint(arm_channel_problem(load_shipped_design()["values"]))
    >>> w.tolist(), m.shape
    ([0.5, 5.0], (2, 33, 33))
    """
    omega = np.array(_FINGERPRINT_OMEGA)
    a, b, c, d = problem.a, problem.b, problem.c, problem.d
    eye = np.eye(a.shape[0])
    resp = np.array([d + c @ np.linalg.solve(1j * w * eye - a, b) for w in omega])
    return omega, resp


def save_realisation(problem, folder):
    """Write :func:`realisation_fingerprint` of ``problem`` to ``folder``/``realisation.npz``."""
    omega, resp = realisation_fingerprint(problem)
    np.savez(os.path.join(folder, REALISATION_FILE), omega=omega, response=resp)


def check_realisation(problem, folder):
    """Refuse evidence made for another realisation of the same problem.

    The stored ``M(j omega)`` (:func:`save_realisation`) must equal the one of
    ``problem`` entry by entry, within 1e-7 of the geometric mean of the entry's row and
    column largest magnitudes (a scale-free test: rounding passes, a changed sign or
    rotation of Delta channels does not).

    Raises
    ------
    ArgumentError
        Naming ``realisation.npz``: absent, unreadable, of another shape, or not matching
        (with the largest relative mismatch and the Delta channels it is on).

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> check_realisation(p, os.path.join(DATA_DIR, "tracking_095"))
    """
    from ..errors import ArgumentError

    path = os.path.join(folder, REALISATION_FILE)
    if not os.path.isfile(path):
        raise ArgumentError(
            f"evidence: no {path}: the realisation its D,G scalings were made for is unknown, "
            "and scalings of another Delta-channel basis do not certify this one"
        )
    try:
        with np.load(path) as z:
            omega, stored = z["omega"].astype(float), z["response"].astype(complex)
    except (KeyError, OSError, ValueError) as err:
        raise ArgumentError(f"evidence: {path} is not a readable fingerprint ({err})") from None
    if not np.array_equal(omega, np.array(_FINGERPRINT_OMEGA)):
        raise ArgumentError(f"evidence: {path} samples omega = {omega}, not {_FINGERPRINT_OMEGA}")
    _, resp = realisation_fingerprint(problem)
    if stored.shape != resp.shape:
        raise ArgumentError(
            f"evidence: {path} is of a realisation of shape {stored.shape[1:]}, the problem "
            f"built here has {resp.shape[1:]}"
        )
    mag = np.abs(resp)
    scale = np.sqrt(mag.max(axis=2, keepdims=True) * mag.max(axis=1, keepdims=True))
    scale = np.where(scale > 0, scale, np.finfo(float).tiny)
    rel = np.abs(stored - resp) / scale
    if not np.all(rel <= _FINGERPRINT_RTOL):
        k, i, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
        rows = {z: bl.name for bl in problem.blocks for z in range(bl.z.start, bl.z.stop)}
        cols = {w: bl.name for bl in problem.blocks for w in range(bl.w.start, bl.w.stop)}
        raise ArgumentError(
            f"evidence: {path}: the realisation built here differs from the one the D,G "
            f"scalings were made for (M(j{omega[k]:g}) entry ({i}, {j}) off by {rel[k, i, j]:.3g} "
            f"of its scale, row of {rows.get(i, 'performance')}, column of "
            f"{cols.get(j, 'performance')}): another Delta-channel basis, so the stored "
            "scalings are not replayed"
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


def replay_partition(values, meta, evidence, *, samples=True, progress=None):
    """Re-check every stored sub-box certificate of a channel; report coverage and verdicts.

    Parameters
    ----------
    values : dict
        The design's ``{"K.M0", "K.M1", "K.M2"}``.
    meta : dict
        ``channel``, ``gamma`` (finite, > 0), ``n`` (integer >= 1) and ``level`` (must be
        :data:`LEVEL`) of the evidence (see :func:`load_evidence`); ``gamma`` and ``level``
        are not read when ``evidence`` is empty.  Bad fields raise ``ArgumentError``.
    evidence : dict
        ``{(i, j): (omega, scalings)}``.
    samples : bool
        Sample the sub-boxes not proven (centre x nominal and the 32 vertices of the five
        physical parameters) for their largest gain.
    progress : callable, optional
        Called with a short line per sub-box.

    Returns
    -------
    PartitionReplay

    Examples
    --------
    Evidence cut to its first 5 frequencies leaves gaps: nothing is proven there.

    >>> meta, ev = load_evidence(os.path.join(DATA_DIR, "tracking_095"))
    >>> box, (w, x) = next(iter(ev.items()))
    >>> r = replay_partition(load_shipped_design()["values"], meta, {box: (w[:5], x[:5])},
    ...                      samples=False)
    >>> r.status[box].startswith("gaps"), r.coverage, r.status[(0, 0)]
    (True, 0.0, 'no evidence')
    """
    import itertools

    from ..analysis.frequency_certificate import check_frequency_certificate

    t0, c0 = time.perf_counter(), time.process_time()
    n, gamma = _checked_meta(meta, bool(evidence))
    problem = arm_channel_problem(values, meta["channel"])
    status, points = {}, 0
    for i, j in itertools.product(range(n), repeat=2):
        if (i, j) not in evidence:
            status[(i, j)] = "no evidence"
            continue
        sysdata, blk = sub_box_system(problem, n, i, j, gamma)
        if sysdata is None:
            status[(i, j)] = blk
            continue
        w, x = evidence[(i, j)]
        chk = check_frequency_certificate(sysdata, blk, LEVEL, w, x)
        points += len(w)
        status[(i, j)] = (
            "proven" if chk.covered else f"gaps: {len(chk.gaps)} uncovered frequency interval(s)"
        )
        if progress is not None:
            progress(f"sub-box {(i, j)}: {status[(i, j)]} ({len(w)} frequencies)")
    proven = [b for b, s in status.items() if s == "proven"]
    c1 = time.process_time()
    worst, where, n_samples, unresolved = np.nan, {}, 0, 0
    if samples and len(proven) < n * n:
        names = [b.name for b in problem.blocks]
        phys = [k for k, nm in enumerate(names) if nm not in ("t1", "t2")]
        rows = []
        for box, s in status.items():
            if s == "proven":
                continue
            c, _ = sub_box(problem, n, *box)
            rows.append(c.copy())
            for signs in itertools.product((-1.0, 1.0), repeat=len(phys)):
                v = c.copy()
                v[phys] = signs
                rows.append(v)
        worst, v, unresolved = sampled_gain(problem, np.array(rows))
        n_samples = len(rows)
        if v is None:
            worst = np.nan
        else:
            where = {b.name: float(b.element.center + v[k] * b.element.half_width)
                     for k, b in enumerate(problem.blocks)}  # fmt: skip
    return PartitionReplay(
        meta["channel"], gamma, n, status, len(proven) / n**2, worst, where, points, n_samples,
        time.perf_counter() - t0, {"replay": c1 - c0, "sampling": time.process_time() - c1},
        unresolved,
    )  # fmt: skip


#: Specification of both channels (peak gain of the weighted transfer).
SPEC = 1.0


def channel_verdict(replay, spec=SPEC):
    """Verdict of one channel from its replay: never more than is certified.

    ``"pass"`` only when every sub-box is proven at a level ``<= spec``; ``"fail"`` when a
    sampled loop violates ``spec`` (or is confirmed unstable, :func:`sampled_gain`);
    otherwise ``"not proven"``.

    Examples
    --------
    >>> r = PartitionReplay("tracking", 0.95, 2, {(0, 0): "proven"}, 0.25, 0.9)
    >>> channel_verdict(r)
    'not proven'
    >>> channel_verdict(PartitionReplay("tracking", 0.95, 1, {(0, 0): "proven"}, 1.0, np.nan))
    'pass'
    >>> channel_verdict(PartitionReplay("effort", 0.95, 1, {(0, 0): "no evidence"}, 0.0, 1.2))
    'fail'
    """
    if replay.coverage >= 1.0 and replay.gamma <= spec:
        return "pass"
    if replay.sampled_worst > spec:  # NaN (nothing sampled) compares False
        return "fail"
    return "not proven"


def certified_demo(out_dir, *, progress=None, sample_n=4):
    """``robustmb demo --replay``: stored design, replay of its certificates, verdicts.

    For each channel (tracking ``W_e S``, effort ``W_T K S``) the shipped sub-box
    certificates are re-checked (:func:`replay_partition`); a channel without shipped
    evidence is only sampled (``sample_n x sample_n`` sub-box centres x the 33 physical
    points).  Writes ``summary.json``, ``report.md`` and ``report.html`` (a page that opens
    in a browser, :func:`~.replay_html.render_replay_html`) to ``out_dir``; the summary
    also holds, apart and labelled so, the recorded whole-square certificates
    (:func:`load_recorded_certificates`, not re-checked in the run).

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
    design = load_shipped_design()
    t_design = time.perf_counter() - t0
    rows = {}
    for channel in CHANNELS:
        folder = os.path.join(DATA_DIR, f"{channel}_095")
        if os.path.isfile(os.path.join(folder, "meta.json")):
            meta, ev = load_evidence(folder)
            check_design_hash(design["values"], meta, folder)
            check_realisation(arm_channel_problem(design["values"], channel), folder)
        else:
            meta, ev = {"channel": channel, "n": sample_n}, {}
        rows[channel] = replay_partition(design["values"], meta, ev, progress=progress)
    total = time.perf_counter() - t0
    summary = {
        "design": "stored gain-scheduled design arm_lpv_hard (3 states, robust LPV tuning by "
        "case_studies/robotic_arm/active_set_driver.py; its tuning record is sampled only: "
        "what is proven is what the certificates below re-check)",
        "guarantee": "frozen parameters: every bound holds for each fixed value of (t1, t2) "
        "and of m1, J1, rho1, L2, m3 in their ranges; no bound on their rates of variation",
        "channels": {},
        "time": {"design load": t_design, "replay and sampling": total - t_design, "total": total},
    }
    for channel, rep in rows.items():
        proven = rep.proven
        summary["channels"][CHANNELS[channel]] = {
            "specification": f"peak gain <= {SPEC:g}",
            "certified_level": None if not proven else rep.gamma,
            "certified_coverage": rep.coverage,
            "proven_sub_boxes": [list(b) for b in proven],
            "partition": f"{rep.n} x {rep.n} equal sub-boxes",
            "frequencies_rechecked": rep.points,
            "not_proven_sampled_worst": None
            if not np.isfinite(rep.sampled_worst)
            else rep.sampled_worst,
            "not_proven_sampled_where": rep.sampled_where,
            "not_proven_samples": rep.samples,
            "not_proven_unresolved_samples": rep.unresolved,
            "verdict": channel_verdict(rep),
            "seconds": rep.seconds,
            "cpu_seconds": rep.cpu,
        }
    recorded = load_recorded_certificates(design["values"])
    if recorded is not None:
        summary["recorded_not_rechecked"] = recorded
    from .replay_html import render_replay_html

    texts = {
        "summary.json": json.dumps(summary, indent=1),
        "report.md": summary_text(summary),
        "report.html": render_replay_html(summary, recorded),
    }
    _write_together(out_dir, texts)
    return summary


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
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load_recorded_certificates(values=None):
    """The summary of the stored whole-square partition certificates, or None.

    ``recorded_certificates.json`` (package data, written by
    ``case_studies/robotic_arm/summarise_certificates.py`` from the case study's
    checkpoints, with their SHA-256): per channel the level, the certified share of the
    (t1, t2) square, the record counts and the largest sampled gain.  Recorded, not
    re-checked: the replay states it apart from what it re-checks.  With ``values``, a
    channel whose certificate is of another design (``design_values_sha256`` not
    :func:`design_sha256` of ``values``) is dropped; None when no channel is left or the
    file is absent.

    Examples
    --------
    >>> rec = load_recorded_certificates(load_shipped_design()["values"])
    >>> {k: (v["level"], v["coverage_exact"]) for k, v in rec["channels"].items()}
    {'tracking': (0.95, '1'), 'effort': (14.5, '1')}
    """
    path = os.path.join(DATA_DIR, "recorded_certificates.json")
    if not os.path.isfile(path):
        return None
    with open(path) as fh:
        rec = json.load(fh)
    if values is not None:
        h = design_sha256(values)
        rec["channels"] = {
            k: v for k, v in rec["channels"].items() if v.get("design_values_sha256") == h
        }
    return rec if rec["channels"] else None


def summary_text(summary):
    """The human-readable lines of a :func:`certified_demo` summary.

    Examples
    --------
    >>> s = {"design": "d", "guarantee": "g", "time": {"total": 1.0}, "channels": {
    ...     "tracking W_e S": {"specification": "peak gain <= 1", "certified_level": 0.95,
    ...     "certified_coverage": 0.5, "partition": "2 x 2", "frequencies_rechecked": 10,
    ...     "not_proven_sampled_worst": 0.9, "verdict": "not proven"}}}
    >>> line = summary_text(s).splitlines()[3]
    >>> line[:60]
    '- tracking W_e S (peak gain <= 1): certified < 0.95 on 50.0 '
    >>> line.endswith("not proven on the rest (sampled worst 0.9); verdict: not proven")
    True
    """
    from .replay_html import percent_down

    lines = [f"design: {summary['design']}", f"guarantee: {summary['guarantee']}", "channels:"]
    for name, ch in summary["channels"].items():
        nothing = ch["certified_level"] is None or not ch["certified_coverage"] > 0
        if nothing:
            cert = "nothing certified"
        else:
            cert = (
                f"certified < {ch['certified_level']:g} on "
                f"{percent_down(ch['certified_coverage'])} % "
                f"of the area of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square "
                f"({ch['partition']})"
            )
        rest = ""
        if ch["certified_coverage"] < 1:
            worst = ch["not_proven_sampled_worst"]
            loops = f", {ch['not_proven_samples']} loops" if "not_proven_samples" in ch else ""
            if ch.get("not_proven_unresolved_samples"):
                loops += f", {ch['not_proven_unresolved_samples']} unresolved"
            where = "the whole square" if nothing else "the rest"
            rest = f"; not proven on {where}" + (
                "" if worst is None else f" (sampled worst {worst:.4g}{loops})"
            )
        lines.append(f"- {name} ({ch['specification']}): {cert}{rest}; verdict: {ch['verdict']}")
    recorded = summary.get("recorded_not_rechecked")
    if recorded:
        lines.append("recorded, not re-checked in this run (stored partition certificates):")
        for name, ch in recorded["channels"].items():
            files = ", ".join(src["file"] for src in ch["sources"])
            lines.append(
                f"- {name}: certified < {ch['level']:g} on {percent_down(ch['coverage'])} % of the "
                f"square ({ch['certified_records']} of {ch['records']} records certified; "
                f"sampled worst {ch['sampled_worst_on_certified']:.6g}); from {files}"
            )
    return "\n".join(lines) + "\n"
