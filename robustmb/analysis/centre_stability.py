"""Whether the loop at the centre of the ranges is stable, and whether that is proved.

The analyses (``robstab``, ``wcgain``, ``robgain``) first look at the centre loop
(every element at the centre of its range).  Its computed poles decide an ordinary
loop, but not one whose state matrix is nearly defective in an ill-conditioned basis:
a 4-state loop with ``cond(A) = 2.3e17``, exactly stable (largest real part of its
poles -0.0641, from 60-digit arithmetic), has computed poles 4461 and 0.80, each within
its rounding band (:func:`.balancing.pole_bands`) of the axis.  Calling that loop
"unstable at the centre" with a certificate is a false claim; here the computed poles
decide only when every one of them lies beyond its rounding band, and otherwise the
verified inclusion and the exact integer test (:func:`.norms_stability.stability_verdict`)
decide, or nothing does.
"""

from __future__ import annotations

from .balancing import _balanced_matrix, pole_bands
from .exact_stability import exact_stable
from .norms_stability import STABLE, UNSTABLE, stability_verdict, verified_stable_any
from .uncertain_problem import unstable_centre_reason

__all__ = ["centre_stability", "undecided_centre_reason", "unstable_reason"]


def centre_stability(problem):
    """``(verdict, unresolved)`` of the loop at the centre of the ranges.

    ``verdict`` is :data:`.norms_stability.STABLE` (1) when every computed pole is
    inside the stability region by more than its rounding band, or when a verified
    inclusion of the poles or the exact integer test proves the loop stable;
    ``UNSTABLE`` (-1) when a pole is beyond the boundary by more than its rounding band
    and the exact test (where it applies) does not prove the loop stable, or the exact
    test proves it unstable; ``UNDECIDED`` (0) otherwise.  ``unresolved`` is ``None``
    when the computed poles are all outside their rounding bands or the verified
    inclusion places them, else ``(poles, distance, band)`` of the poles within their
    band (as :func:`.robstab_rounding.unresolved_centre`): the double-precision
    frequency responses of such a loop are set by rounding, and no mu certificate
    built on them is a proof.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> centre_stability(uncertain_problem(rmb.uss([[-1 + k]], [[1.0]], [[1.0]], [[0.0]])))
    (1, None)
    >>> centre_stability(uncertain_problem(rmb.uss([[1 + k]], [[1.0]], [[1.0]], [[0.0]])))
    (-1, None)
    >>> # a pole 2.2e-16 inside the unit circle: within rounding, proved stable exactly
    >>> verdict, unresolved = centre_stability(uncertain_problem(
    ...     rmb.uss([[1 - 2**-52 + k]], [[1.0]], [[1.0]], [[0.0]], dt=0.1)))
    >>> verdict, unresolved is None
    (1, False)
    """
    a, dt = problem.a, problem.dt
    if a.shape[0] == 0:
        return STABLE, None
    poles, distance, band = pole_bands(a, dt)
    close = abs(distance) <= band
    if not close.any():
        if (distance < 0).all():
            return STABLE, None
        # a pole beyond its band: unstable unless the exact test of the stored matrix
        # proves otherwise (the band estimates the rounding, it does not bound it)
        return (STABLE if exact_stable(a, dt) else UNSTABLE), None
    ab = _balanced_matrix(a)
    if verified_stable_any([ab, ab.T, a, a.T], dt):
        return STABLE, None
    unresolved = (poles[close], distance[close], band[close])
    verdict = stability_verdict(ab, dt, raw=a)[0]
    if verdict == UNSTABLE and exact_stable(a, dt):
        verdict = STABLE
    return verdict, unresolved


def undecided_centre_reason(problem, unresolved, verdict, what):
    """The ``reason`` of ``wcgain`` or ``robgain`` on a centre loop whose poles double
    precision cannot resolve (:func:`centre_stability`): no bound is certified.

    Examples
    --------
    >>> import numpy as np, robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> problem = uncertain_problem(rmb.uss([[k]], [[1.0]], [[1.0]], [[0.0]]))
    >>> undecided_centre_reason(problem, *centre_stability(problem)[::-1], "wcgain")[:51]
    'wcgain: at the centre of the ranges the closed loop'
    """
    poles, distance, band = unresolved
    what_d = "|z| - 1" if problem.dt else "Re s"
    shown = ", ".join(
        f"{p:.6g} ({what_d} = {d:.3g}, rounding band {b:.3g})"
        for p, d, b in list(zip(poles, distance, band, strict=True))[:4]
    )
    more = f" and {len(poles) - 4} more" if len(poles) > 4 else ""
    status = (
        "its stability is proved by the exact integer test, but"
        if verdict == STABLE
        else "its stability is neither proved nor disproved (a verified inclusion of the "
        "poles and the exact test cannot decide), and"
    )
    return (
        f"{what}: at the centre of the ranges the closed loop has {len(poles)} computed "
        f"pole(s) within their rounding error of the stability boundary, {shown}{more}; "
        f"{status} its frequency responses in double precision are set by rounding (a "
        "nearly defective or ill-conditioned state matrix), so no bound is certified"
    )


def unstable_reason(problem, what):
    """The ``reason`` clause of an analysis whose centre loop :func:`centre_stability`
    found unstable: the unstable computed poles (:func:`.uncertain_problem.
    unstable_centre_reason`), or, when rounding hides them, the exact test's verdict.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.analysis.uncertain_problem import uncertain_problem
    >>> k = rmb.ureal("k", 0.0, range=(-1.0, 1.0))
    >>> unstable_reason(uncertain_problem(rmb.uss([[1 + k]], [[1.0]], [[1.0]], [[0.0]])),
    ...                 "wcgain")[:58]
    'wcgain: the closed loop is unstable at the centre of the u'
    """
    distance = pole_bands(problem.a, problem.dt)[1]
    if (distance >= 0).any():
        return unstable_centre_reason(problem, what)
    return (
        f"{what}: the closed loop is unstable at the centre of the ranges: the exact "
        "integer test of its state matrix proves a pole on or beyond the stability "
        "boundary, which the computed poles (all within rounding of it, from a nearly "
        "defective or ill-conditioned state matrix) do not show"
    )
