"""Sampling an uncertain channel: closed loops at given parameter values, their peak gains.

Sampling gives a lower bound of a worst-case gain, never a proof.  A loop counts as
unstable only when numpy's eigenvalues confirm a pole clearly outside the stability
region; a loop whose gain cannot be computed is counted as unresolved, never guessed.
"""

from __future__ import annotations

import numpy as np


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
    >>> from robustmb.report.arm_certificate import arm_channel_problem, load_shipped_design
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
