"""Loops whose stability :func:`.robust_stability.robstab` cannot resolve in double precision.

A certified mu sweep proves its bound for the frequency responses it computes, and those
carry the rounding error of the state matrix: about ``eps ||A_bal||`` backward, which
moves a pole by that times its condition number.  When a pole of the loop at the centre
of the ranges lies within that error of the stability boundary (a pole within rounding
of the axis or of the unit circle, or a nearly defective, numerically singular state
matrix whose poles are not determined to working precision), and a verified inclusion
of the poles (:func:`.norms_stability.verified_stable_any`) cannot place them either,
the uncertainty that destabilises the loop acts at the rounding level of the data: the
sweep's bound is then a statement about rounding, not about the loop, and has been
found above the exact margin (a 4-state loop with ``cond(A) = 1.3e16``: 1.70e-9
against the exact 1.397e-9).  Such a loop gets ``lower = 0`` and a reason naming the
poles; ``upper`` still comes from a verified destabilising perturbation.
"""

from __future__ import annotations

import numpy as np

from .balancing import _balanced_matrix, pole_bands
from .destabilising_search import _parameter_search, _search_values, _verified_crossing
from .norms_stability import STABLE, stability_verdict, verified_stable_any
from .robstab_reason import robstab_reason

__all__ = [
    "centre_proved_stable",
    "centre_values",
    "unresolved_bounds",
    "unresolved_centre",
    "unresolved_reason",
]

# Scalings the direct search scans on such a loop (no mu bound is known).
_CAP = 20.0


def centre_values(problem):
    """``{name: value}`` of every element at the centre of its range (``ultidyn``: zero)."""
    out = {}
    for bi in problem.blocks:
        if bi.kind == "real":
            out[bi.name] = bi.element.center
        elif bi.kind == "complex":
            out[bi.name] = bi.element.nominal
        else:
            out[bi.name] = np.zeros(bi.element.shape)
    return out


def unresolved_centre(problem):
    """Poles of the centre loop that double precision cannot tell apart from the boundary.

    Returns ``None`` when every pole is farther from the stability boundary than its
    rounding band (:func:`.balancing.pole_bands`) or a verified inclusion of all poles
    (Gershgorin discs around the computed ones, on the stored and the balanced matrix and
    their transposes) places them inside the stability region; else ``(poles, distance,
    band)`` of the poles within their band.

    Examples
    --------
    >>> import control, robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> s = control.tf("s")
    >>> print(unresolved_centre(uncertain_problem(1 / (s + 1 + k))))
    None
    >>> problem = uncertain_problem(rmb.uss([[1 - 2**-52]], [[k]], [[1.0]], [[0.0]], dt=0.1))
    >>> poles, distance, band = unresolved_centre(problem)  # |z| = 1 - 2.2e-16
    >>> bool(abs(distance[0]) <= band[0])
    True
    """
    a, dt = problem.a, problem.dt
    if a.shape[0] == 0:
        return None
    poles, distance, band = pole_bands(a, dt)
    close = np.abs(distance) <= band
    if not np.any(close):
        return None
    ab = _balanced_matrix(a)
    if verified_stable_any([ab, ab.T, a, a.T], dt):
        return None
    return poles[close], distance[close], band[close]


def centre_proved_stable(problem):
    """Whether the centre loop is proved stable (:func:`.norms_stability.stability_verdict`:
    a verified inclusion of the poles, or the exact integer test of the stored matrix).

    Decides a loop whose computed poles look unstable only through rounding: a nearly
    defective 4-state matrix in a basis with ``cond(A) = 4.8e16``, exactly stable (poles
    -0.69 +- 9024j, -0.58 +- 0.25j), has computed poles 5193 and 0.27.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> centre_proved_stable(uncertain_problem(rmb.uss([[1 - 2**-52 + k]], [[1.0]], [[1.0]],
    ...                                                [[0.0]], dt=0.1)))
    True
    """
    a = problem.a
    return stability_verdict(_balanced_matrix(a), problem.dt, raw=a)[0] == STABLE


def unresolved_reason(unresolved, dt):
    """The first clause of ``reason`` for a loop :func:`unresolved_centre` flagged.

    Examples
    --------
    >>> import numpy as np
    >>> text = unresolved_reason((np.array([1 - 2**-52]), np.array([-2**-52]),
    ...                           np.array([2.2e-14])), 0.1)
    >>> text[:68]
    'robstab: no margin is proved (lower = 0): at the centre of the range'
    """
    poles, distance, band = unresolved
    order = np.argsort(np.abs(distance) - band)[:4]
    what = "|z| - 1" if dt else "Re s"
    shown = ", ".join(
        f"{poles[i]:.6g} ({what} = {distance[i]:.3g}, rounding band {band[i]:.3g})" for i in order
    )
    more = f" and {len(poles) - 4} more" if len(poles) > 4 else ""
    return (
        "robstab: no margin is proved (lower = 0): at the centre of the ranges the closed "
        f"loop has {len(poles)} pole(s) within their rounding error of the stability "
        f"boundary, {shown}{more}, and a verified inclusion of the poles cannot place them "
        "either (a pole within rounding of the boundary, or a numerically singular, nearly "
        "defective state matrix): a perturbation at the rounding level of the data may "
        "destabilise the loop, and the frequency responses behind a mu certificate are set "
        "by that rounding"
    )


def unresolved_bounds(problem, unresolved, band=None):
    """``(upper, critical_frequency, destabilizing, reason)`` of :func:`.robust_stability.robstab`
    on a loop :func:`unresolved_centre` flagged (``lower`` is 0).

    ``upper`` comes from the direct parameter search's crossing scaled up (pushes, then
    doublings bisected back: :func:`.destabilising_search._verified_crossing` with
    ``grow``) until a pole is beyond the boundary by more than its rounding error: a
    pole on the boundary within rounding is no witness, and every candidate is within
    rounding of the boundary here.
    On a ``band`` (whose margin the whole axis's crossings do not bound) ``upper = inf``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> pole = 1 - 2**-52  # |z| - 1 = -2.2e-16, the pole moved by k
    >>> problem = uncertain_problem(rmb.uss([[pole + k]], [[1.0]], [[1.0]], [[0.0]], dt=0.1))
    >>> upper, crit, values, reason = unresolved_bounds(problem, unresolved_centre(problem))
    >>> bool(pole + values["k"] > 1), reason[:40]
    (True, 'robstab: no margin is proved (lower = 0)')
    """
    upper, crit, destab = np.inf, np.nan, {}
    found = _parameter_search(problem, _CAP) if band is None else None
    if found is not None:
        values_at = _search_values(problem, found[0], found[1])
        got = _verified_crossing(problem, found[0], values_at, on_boundary=False, grow=True)
        if got is not None:
            upper, destab, crit = got[0], got[1], got[2]
    tail = robstab_reason(0.0, upper, crit, False, None, _CAP)
    tail = tail.split("; ", 1)[1] if band is None else "no search on a band, so upper = inf"
    return float(upper), crit, destab, unresolved_reason(unresolved, problem.dt) + "; " + tail
