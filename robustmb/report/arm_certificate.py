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
centre is stable, and re-checks the evidence exactly with
:func:`robustmb.analysis.frequency_certificate.check_frequency_certificate` (bound at the
given scalings, exact interval extension, coverage of ``[0, inf]``).  A sub-box counts as
proven only when that re-check covers the whole axis; every other part of the square is
reported as not proven, with the largest gain sampled there.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

#: Folder of the shipped design and certificate evidence.
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                        "arm_lpv")  # fmt: skip
#: Channel names of :func:`robustmb.report.arm_lpv.arm_lpv_loop`.
CHANNELS = {"tracking": "tracking W_e S", "effort": "effort W_T K S"}
# Robust performance is certified at mu < LEVEL on the problem scaled by 1/gamma
# (as case_studies/robotic_arm/certify_lpv_partition.py): strictly below 1.
LEVEL = 1.0 / (1.0 + 1e-6)


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
    ctrl = arm_lpv_tuning_problem().controller.usubs(
        {k: np.asarray(v, float) for k, v in values.items()}
    )
    ctrl = copy.copy(ctrl)
    ctrl.input_names, ctrl.output_names = ["e1", "e2"], ["u1", "u2"]
    loop, channels = arm_lpv_loop(ctrl)
    outs, ins, _ = channels[CHANNELS[channel]]
    return uncertain_problem(loop[outs, ins])


def _channel_matrix(problem):
    s = np.zeros((problem.nw, len(problem.blocks)))
    for j, bi in enumerate(problem.blocks):
        s[bi.w, j] = 1.0
    return s


def sub_box(problem, n, i, j):
    """Normalised centre and radius (one per element) of sub-box ``(i, j)`` of ``n x n``.

    ``i`` indexes t1, ``j`` t2, from the lower end; the other elements are whole.

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> c, r = sub_box(p, 4, 0, 3)
    >>> names = [b.name for b in p.blocks]
    >>> float(c[names.index("t1")]), float(r[names.index("t2")])
    (-0.75, 0.25)
    """
    names = [b.name for b in problem.blocks]
    c, r = np.zeros(len(names)), np.ones(len(names))
    for idx, k in ((names.index("t1"), i), (names.index("t2"), j)):
        c[idx] = -1.0 + (2 * k + 1) / n
        r[idx] = 1.0 / n
    return c, r


def sub_box_system(problem, n, i, j, gamma):
    """Robust-performance data of sub-box ``(i, j)`` at level ``gamma``: ``(sysdata, blk)``.

    The LFT re-centred at the sub-box centre with the perturbation scaled to it
    (:func:`robustmb.analysis.branch_and_bound.recentre_system`), performance rows scaled
    by ``1/gamma``, and a full performance block appended: ``mu < 1`` on the whole axis
    with a stable centre proves robust stability and ``||channel||_inf < gamma`` on the
    sub-box.  Returns ``(None, reason)`` when the centre is ill-posed or unstable.

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> (a, b, c, d), blk = sub_box_system(p, 8, 2, 2, 0.95)
    >>> a.shape, blk[-1]
    ((9, 9), (2, 2))
    """
    from ..analysis.branch_and_bound import recentre_system
    from ..analysis.uncertain_problem import is_stable

    chan = _channel_matrix(problem)
    c, r = sub_box(problem, n, i, j)
    full = (problem.a, problem.b, problem.c, problem.d)
    sub = recentre_system(full, problem.nw, problem.nz, chan @ c, chan @ r)
    if sub is None:
        return None, "ill-posed centre"
    a, b, c_, d = sub
    if not is_stable(a, problem.dt):
        return None, "unstable centre"
    nz = problem.nz
    c_, d = c_.copy(), d.copy()
    c_[nz:] /= gamma
    d[nz:] /= gamma
    ny, nu = problem.model.shape
    return (a, b, c_, d), [*problem.blk, (nu, ny)]


def sampled_gain(problem, values_list):
    """Largest peak gain (and stability) of the channel at normalised parameter values.

    Each row of ``values_list`` gives every element's normalised value in [-1, 1] (order
    of ``problem.blocks``); the loop is closed there exactly (the LFT with a constant
    ``Delta``) and its peak gain computed.  Sampling: a lower bound, never a proof.

    Returns
    -------
    worst : float
        Largest peak gain (``inf`` when a sample is unstable).
    where : ndarray
        The normalised values of that sample.

    Examples
    --------
    >>> p = arm_channel_problem(load_shipped_design()["values"])
    >>> g, _ = sampled_gain(p, np.zeros((1, 7)))
    >>> bool(0 < g < 1)
    True
    """
    from ..analysis.branch_and_bound import recentre_system
    from ..analysis.norms import hinfnorm
    from ..analysis.uncertain_problem import is_stable

    chan = _channel_matrix(problem)
    full = (problem.a, problem.b, problem.c, problem.d)
    nw, nz = problem.nw, problem.nz
    worst, where = -np.inf, None
    for v in np.atleast_2d(values_list):
        sub = recentre_system(full, nw, nz, chan @ v, np.zeros(nw))
        if sub is None or not is_stable(sub[0], problem.dt):
            return np.inf, v
        a, b, c, d = sub
        g = float(hinfnorm((a, b[:, nw:], c[nz:], d[nz:, nw:]))[0])
        if g > worst:
            worst, where = g, v
    return worst, where


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
    seconds : float
        Wall time of the replay.
    """

    channel: str
    gamma: float
    n: int
    status: dict
    coverage: float
    sampled_worst: float
    sampled_where: dict = field(default_factory=dict)
    points: int = 0
    seconds: float = 0.0

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
            i, j = (int(v) for v in name[4:-4].split("_"))
            with np.load(os.path.join(folder, name)) as z:
                out[(i, j)] = (z["omega"].astype(float), z["scalings"].astype(float))
    return meta, out


def replay_partition(values, meta, evidence, *, samples=True, progress=None):
    """Re-check every stored sub-box certificate of a channel; report coverage and verdicts.

    Parameters
    ----------
    values : dict
        The design's ``{"K.M0", "K.M1", "K.M2"}``.
    meta : dict
        ``channel``, ``gamma``, ``n`` of the evidence (see :func:`load_evidence`).
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
    >>> meta, ev = load_evidence(os.path.join(DATA_DIR, "tracking_095"))
    >>> one = dict([next(iter(ev.items()))])
    >>> r = replay_partition(load_shipped_design()["values"], meta, one, samples=False)
    >>> r.status[next(iter(one))], r.coverage == 1 / meta["n"] ** 2
    ('proven', True)
    """
    import itertools

    from ..analysis.frequency_certificate import check_frequency_certificate

    t0 = time.perf_counter()
    problem = arm_channel_problem(values, meta["channel"])
    n, gamma = int(meta["n"]), float(meta["gamma"])
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
    worst, where = np.nan, {}
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
        worst, v = sampled_gain(problem, np.array(rows))
        els = problem.blocks
        where = {b.name: float(b.element.center + v[k] * b.element.half_width)
                 for k, b in enumerate(els)}  # fmt: skip
    return PartitionReplay(
        meta["channel"], gamma, n, status, len(proven) / n**2, worst, where, points,
        time.perf_counter() - t0,
    )  # fmt: skip
