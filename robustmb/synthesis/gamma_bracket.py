"""Bracketing the optimal H-infinity level of a regular plant with the two-Riccati test.

:func:`bisect` narrows ``[lo, hi]`` around the smallest level at which
:func:`.hinf_riccati.gamma_test` succeeds: ``lo`` is always a level the test proved
infeasible (or the feedthrough bound) and ``hi`` a feasible or undecided one, so the
bracket rests on the test's verdicts only; the secant estimates built from the Riccati
solutions decide where to test next, never what the bracket is.
"""

from __future__ import annotations

import numpy as np

from robustmb.errors import IllPosedError

from . import hinf_riccati as ric

__all__ = ["bisect", "data_scale", "transfer_scale"]

_NUDGE = 1e-3  # relative step from an undecided level to a decided one


def _merits(test):
    """Signed quantities that are positive at a feasible level and change sign at the
    optimum when the corresponding condition is the one failing there: ``1 / lambda(X)``
    and ``1 / lambda(Y)`` with ``lambda`` the eigenvalue of largest modulus (a Riccati
    solution blowing up passes through infinity and comes back indefinite) and ``1 -
    rho(X Y) / gamma^2``.  ``nan`` where the test did not compute the quantity."""
    out = []
    for M in (test.X, test.Y):
        if M is None or not M.size:
            out.append(np.nan)
            continue
        lam = np.linalg.eigvalsh(M)
        top = lam[-1] if abs(lam[-1]) >= abs(lam[0]) else lam[0]
        out.append(1.0 / top if top != 0 else np.nan)
    out.append(1.0 - test.rho if np.isfinite(test.rho) else np.nan)
    return np.array(out)


def _secant_estimate(merits, lo, hi, falsi=True):
    """Estimate of the optimal level from the merits (:func:`_merits`) recorded at the
    tested levels.  Regula falsi between the bracket ends when some merit is negative at
    ``lo`` and positive at ``hi`` (the largest such zero; only if ``falsi``); otherwise
    the merits of the two lowest feasible levels extrapolated linearly to zero (the
    largest zero: the first condition to fail as the level falls).  ``None`` when
    neither applies."""
    m_lo, m_hi = merits.get(lo), merits.get(hi)
    if falsi and m_lo is not None and m_hi is not None:
        change = (m_lo < 0) & (m_hi > 0)
        if change.any():
            zeros = lo + (hi - lo) * (-m_lo[change]) / (m_hi[change] - m_lo[change])
            return float(np.max(zeros))
    feasible = sorted((g, m) for g, m in merits.items() if g >= hi and np.any(m > 0))
    if len(feasible) < 2:
        return None
    (g1, m1), (g2, m2) = feasible[:2]
    slope = (m2 - m1) / (g2 - g1)
    ok = np.isfinite(slope) & (slope > 0) & (m1 > 0)
    if not ok.any():
        return None
    return float(np.max(g1 - m1[ok] / slope[ok]))


def bisect(N, gtol, history, unit=1.0):
    """Smallest feasible level (to relative ``gtol``) and the largest infeasible one.

    Every end of the bracket is a level the existence test decided: ``lo`` one proven
    infeasible (or the feedthrough bound), ``hi`` a feasible or undecided one.  The trial
    levels are chosen by a safeguarded secant on the merits of :func:`_merits`: regula
    falsi between the bracket ends, or the two lowest feasible levels extrapolated to
    zero, give an estimate ``e`` of the optimum; the next level is just above it
    (``e (1 + gtol / 2)``) or, once an end is within ``gtol`` of it, just inside that
    end (``hi / (1 + 0.9 gtol)``, ``lo (1 + 0.9 gtol)``), which closes the bracket when
    the estimate is right.  A step that did not halve the bracket (in ``log gamma``) is
    followed by one from the feasible-side extrapolation (regula falsi stalls on one
    side), and two such steps in a row by a geometric bisection step; so is an estimate
    outside the bracket.  A level the test cannot decide (a Riccati solution appearing
    there) is followed by a test 0.1 % above it, whose verdict is used when it is
    decided.  Where the optimum is set by a Riccati solution blowing up or
    by ``rho(X Y)`` (a smooth merit) this takes a third to a half of the tests of plain
    bisection (S&P Ex. 2.11: 8 against 24); where it is set by Hamiltonian eigenvalues
    reaching the axis the estimates fall below ``lo`` and the search is plain bisection.

    Parameters
    ----------
    N : hinf_riccati.Normalised
        The normalised regular plant (``D22 = 0``).
    gtol : float
        Relative width at which the search stops (it also stops when no double lies
        strictly inside the bracket).
    history : list
        Receives ``(gamma, feasible, reason)`` of every test.
    unit : float
        Factor of the plant's normalisation (:func:`.plant.normalised_performance`): the
        level quoted in the error is divided by it, in the units of the plant as given.

    Returns
    -------
    tuple of float
        ``(lo, hi)``.

    Examples
    --------
    ``x' = -x + w1 + u``, ``z = [x; u]``, ``y = x + w2``: the Riccati solutions are
    ``X = Y = 1 / (1 + sqrt(2 - gamma^-2))`` and ``rho(X Y) < gamma^2`` holds above the
    root of ``gamma^2 + 2 gamma - 2``, ``sqrt(3) - 1``:

    >>> import numpy as np
    >>> from robustmb.synthesis import hinf_riccati as ric
    >>> from robustmb.synthesis.plant import Plant
    >>> z, o = np.zeros((1, 1)), np.ones((1, 1))
    >>> P = Plant(-o, np.hstack([o, z]), o, np.vstack([o, z]), o, np.zeros((2, 2)),
    ...           np.vstack([z, o]), np.hstack([z, o]), z)
    >>> history = []
    >>> lo, hi = bisect(ric.normalise(P), 1e-9, history)
    >>> bool(lo < np.sqrt(3) - 1 <= hi <= lo * (1 + 1e-9))
    True
    >>> len(history) < 20  # plain bisection from [0.5, 1] takes 30 tests
    True
    """
    lo = ric.d_bound(N.plant)
    hi = max(2.0 * lo, 1.0)
    merits = {}  # level -> merits of its test
    for _ in range(200):
        t = ric.gamma_test(N.plant, hi)
        history.append((hi, t.feasible, t.reason))
        merits[hi] = _merits(t)
        if t.feasible or not t.decided:
            break
        lo, hi = hi, 2.0 * hi
        if hi > 1e15:
            raise IllPosedError(
                f"no gamma below {1e15 / unit:.6g} passes the H-infinity existence test"
            )
    # An undecided level (verdict below working accuracy) moves the upper end only: the
    # lower end stays a level the test proved infeasible.
    # An optimum of 0 (z decoupled from w) is approached without end: stop at a level
    # negligible against both the first feasible level and the plant's transfer function
    # (not its realisation, whose state coordinates would move the stop: a rescaled
    # realisation must give the same level). The smaller of the two: a slow pole makes
    # the sampled transfer function large where the optimum is not.
    tiny = 1e-8 * min(hi, transfer_scale(N.plant))
    slow = 0  # consecutive secant steps that did not halve the bracket
    while hi > lo * (1 + gtol) and hi > tiny:
        mid = np.sqrt(lo * hi) if lo > 0 else 0.5 * hi
        if not lo < mid < hi:
            break  # the bracket is as narrow as double precision allows
        trial, secant = mid, False
        e = None if slow >= 2 else _secant_estimate(merits, lo, hi, falsi=slow == 0)
        if e is not None and lo < e < hi:
            trial = e * (1 + 0.5 * gtol)
            if not trial < hi / (1 + 0.5 * gtol):
                trial = hi / (1 + 0.9 * gtol)  # hi is within gtol of the estimate: close
            elif not trial > lo * (1 + 0.5 * gtol):
                trial = lo * (1 + 0.9 * gtol)  # lo is: close from below
            if lo < trial < hi:
                secant = True
            else:
                trial = mid
        width = np.log(hi / lo) if lo > 0 else np.inf
        t = ric.gamma_test(N.plant, trial)
        history.append((trial, t.feasible, t.reason))
        nudged = trial * (1 + _NUDGE)
        if not t.decided and nudged < hi:
            # a level where a Riccati solution just appears or vanishes (a Hamiltonian
            # eigenvalue pair meeting on the axis, e.g. at a geometric midpoint hitting
            # it exactly) is undecided; a level just above it is decided, and an
            # undecided upper end could lie below the optimum
            t2 = ric.gamma_test(N.plant, nudged)
            history.append((nudged, t2.feasible, t2.reason))
            if t2.decided:
                trial, t, secant = nudged, t2, False
        if t.decided:
            merits[trial] = _merits(t)
        if t.feasible or not t.decided:
            hi = trial
        else:
            lo = trial
        halved = lo > 0 and np.log(hi / lo) <= 0.5 * width
        slow = slow + 1 if secant and not halved else 0
    return lo, hi


def data_scale(P):
    """Spectral norm of ``[A B1 B2; C1 D11 D12]`` (at least 1e-300): the plant's scale.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> o = np.ones((1, 1))
    >>> float(round(data_scale(Plant(o, o, o, o, o, o, o, o, o)), 12))
    2.449489742783
    """
    return max(np.linalg.norm(np.block([[P.A, P.B1, P.B2], [P.C1, P.D11, P.D12]]), 2), 1e-300)


def transfer_scale(P):
    """Largest ``sigma_max`` of ``[P11 P12; P21 0]`` sampled at zero frequency, infinity
    and the moduli of the poles (at least 1e-300): a scale of the plant that, unlike
    :func:`data_scale`, does not depend on the state coordinates of its realisation.

    Frequencies at a pole (on the imaginary axis, the unit circle) are skipped.

    Examples
    --------
    The scale is the same in any realisation of the plant:

    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> o, z = np.ones((1, 1)), np.zeros((1, 1))
    >>> P = Plant(-o, 2 * o, o, o, o, z, o, o, z)
    >>> T = 1e6
    >>> Q = Plant(-o, 2 * o / T, o / T, o * T, o * T, z, o, o, z)
    >>> bool(np.isclose(transfer_scale(P), transfer_scale(Q), rtol=1e-12))
    True
    >>> def G(s):  # [P11 P12; P21 0] of this plant
    ...     return np.array([[2 / (s + 1), 1 / (s + 1) + 1], [2 / (s + 1) + 1, 0]])
    >>> peak = max(np.linalg.norm(G(1j * w), 2) for w in (0.0, 1.0))  # poles' moduli, 0
    >>> bool(np.isclose(transfer_scale(P), peak, rtol=1e-12))
    True
    """
    n, m1, p1 = P.A.shape[0], P.B1.shape[1], P.C1.shape[0]
    B = np.hstack([P.B1, P.B2])
    C = np.vstack([P.C1, P.C2])
    D = np.block([[P.D11, P.D12], [P.D21, np.zeros_like(P.D22)]])
    best = np.linalg.norm(D, 2) if D.size else 0.0
    if n and D.size:
        lam = np.linalg.eigvals(P.A)
        if P.dt:
            points = np.exp(1j * np.concatenate([[0.0, np.pi], np.abs(np.angle(lam))]))
        else:
            points = 1j * np.concatenate([[0.0], np.abs(lam)])
        for s in points:
            if np.min(np.abs(s - lam)) <= 1e-10 * (1 + abs(s)):
                continue  # a pole on the boundary
            try:
                G = C @ np.linalg.solve(s * np.eye(n) - P.A, B) + D
                G[p1:, m1:] = 0.0  # P22 does not enter the level
            except np.linalg.LinAlgError:
                continue
            if np.all(np.isfinite(G)):
                best = max(best, np.linalg.norm(G, 2))
    return max(float(best), 1e-300)
