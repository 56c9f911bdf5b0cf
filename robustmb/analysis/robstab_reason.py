"""The one-sentence reason of a :func:`.robust_stability.robstab` result: where its
lower and upper bounds came from, and what relaxing real parameters cost."""

import numpy as np


def relaxation_note(peak):
    """What relaxing real parameters to complex ones cost the certified bound, if anything.

    Examples
    --------
    >>> relaxation_note(None)
    ''
    """
    if peak is None or not peak.relaxed:
        return ""
    return (
        f" (real parameters relaxed to complex ones at {len(peak.relaxed)} frequencies, "
        f"which raised the certified mu level from {peak.real_level:.6g} to {peak.upper:.6g})"
    )


def gap_note(lower, upper, gap_tol):
    """A note when the bracket ``[lower, upper]`` stays wider than ``gap_tol`` (relative).

    Examples
    --------
    >>> gap_note(1.998, 2.0616, 5e-3)[:70]
    '; the gap is open: upper / lower - 1 = 3.18 % is above gap_tol = 0.5 %'
    >>> gap_note(2.0513, 2.0614, 5e-3)
    ''
    """
    # (a gap closed exactly at gap_tol may exceed it by rounding)
    if not (np.isfinite(upper) and upper > 0) or upper <= lower * (1.0 + gap_tol) * (1 + 1e-9):
        return ""
    rel = f"{100.0 * (upper / lower - 1.0):.3g} %" if lower > 0 else "inf"
    return (
        f"; the gap is open: upper / lower - 1 = {rel} is above gap_tol = "
        f"{100.0 * gap_tol:.3g} %, the margin may lie anywhere in [lower, upper]"
    )


def robstab_reason(lower, upper, crit, covered, omega, cap, by_polytope=False, ill_posed=False):
    """One sentence on how the bounds of :func:`.robust_stability.robstab` arose
    (``by_polytope``: the lower bound is the vertex polytope's; the sweep is only evidence;
    ``ill_posed``: the loop closed by the destabilising values is not well-posed).

    Examples
    --------
    >>> robstab_reason(1.49925, 1.5, float("inf"), True, None, 3.0, by_polytope=True)[:86]
    'robstab: lower bound 1.49925 from the vertex polytope of the characteristic polynomial'
    >>> robstab_reason(0.19, 0.191, float("inf"), True, None, 2.0, ill_posed=True)[-64:]
    'the boundary crossing at infinite frequency, mu(D) >= 1 / upper)'
    """
    where = (
        "on the whole frequency axis"
        if covered
        else "on the given frequencies only"
        if omega is not None
        else "on part of the frequency axis only (not certified)"
    )
    low = f"lower bound {lower:.6g} from the mu upper bound {where}"
    if by_polytope:
        low = f"lower bound {lower:.6g} from the vertex polytope of the characteristic polynomial"
    if not np.isfinite(upper):
        return (
            f"robstab: {low}; no destabilising perturbation was found (searched up to "
            f"{cap:.3g} times the ranges), so upper = inf"
        )
    if np.isinf(crit) and ill_posed:
        return (
            f"robstab: {low}; upper bound {upper:.6g} realised by destabilizing, where the "
            "closed loop is not well-posed (I - D Delta is singular: the boundary crossing "
            "at infinite frequency, mu(D) >= 1 / upper)"
        )
    if np.isinf(crit):
        at = (
            "a closed-loop pole that escapes to infinity at the crossing (destabilizing "
            "lies just beyond it, where that pole has come back unstable)"
        )
    else:
        at = f"a closed-loop pole at {crit:.6g} rad/s"
    return f"robstab: {low}; upper bound {upper:.6g} realised by destabilizing, with {at}"
