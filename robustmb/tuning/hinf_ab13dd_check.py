"""AB13DD's peak taken as the tuning engine's inner H-infinity value, once checked.

SLICOT AB13DD (:mod:`.hinf_slicot`) returns a peak gain and frequency in one compiled
call, but it can return a wrong value: a local peak or ``sigma_max(D)`` instead of the
norm (on ordinary 2-state models with feedthrough at tolerances of 1e-11 and below,
down to 33 % low; on ill-conditioned loops at any tolerance), or a value of its
equilibrated coordinates that the response does not reproduce.  :func:`slicot_hinf_gradient`
accepts it only after a stability verdict, one level-set test and one reproduction
check, all on a realisation balanced by powers of two; otherwise the Python level sets
of :mod:`.gradients` evaluate the loop.  Not a certificate: the level-set test rests on
the rounding of a Hamiltonian's eigenvalues.
"""

from __future__ import annotations

import numpy as np

from ..analysis.norms_stability import stability_verdict
from . import hinf_slicot as _slicot
from .level_set_core import (
    Above,
    _interval_points,
    _LevelHamiltonian,
    _modal_crossings,
    _pow2_balanced,
    _secant_peak,
    _solved_dsig,
    _solved_sigma,
    _stiff_crossings,
    peak_gradient,
    poles,
)
from .stability import STABLE, UNSTABLE

__all__ = ["AB13DD_RETRY_TOL", "AB13DD_TOL", "no_higher_peak", "slicot_hinf_gradient"]

# AB13DD's tolerances in the inner loop: AB13DD_TOL first, AB13DD_RETRY_TOL when the
# level set rejects its value.  At 1e-12 its frequency is within ~1e-12 of the
# maximiser (the subgradient is taken there), but on 9 of 400 random stable models with
# feedthrough (none of 400 at 1e-10) its value was a local peak or sigma_max(D), up to
# 33 % low, which the level set rejects.  At 1e-10 the frequency is good to a relative
# ~1e-5 only (the value is flat at the peak): a secant iteration on the derivative of
# sigma_max moves it onto the maximiser.  Measured (benchmarks/bench_tuning_eval.py):
# 1e-10 with the secant on every call costs 1.3-1.4 times as much as 1e-12 without it.
AB13DD_TOL = 1e-12
AB13DD_RETRY_TOL = 1e-10

# AB13DD's value is accepted when the level set of ``value (1 + LEVEL_MARGIN)`` shows
# nothing above it and the response at its frequency reproduces it to REPRODUCE.
LEVEL_MARGIN = 1e-6
REPRODUCE = 1e-6


def slicot_hinf_gradient(a, b, c, d, tol, w_hint, above):
    """:func:`~robustmb.tuning.gradients.hinf_gradient` of a continuous loop by SLICOT
    AB13DD, checked: ``(result, hint, verdict)``.

    ``result`` is ``None`` when the Python level sets must evaluate the loop, starting
    from the frequency ``hint``, with ``verdict`` the band verdict already made
    (``None`` if not).  Stability as ``hinfnorm`` decides it before its verified
    inclusion: the band test on the balanced ``A`` (a pole beyond its rounding band:
    ``inf``; inside it: the Python paths, which hand the loop to ``hinfnorm``).  AB13DD
    runs at ``AB13DD_TOL`` = 1e-12, and again at ``AB13DD_RETRY_TOL`` = 1e-10 (then with
    its peak frequency polished by a secant iteration) when the level set rejects the
    first value (``tol``, the caller's, plays no part); its value ``g`` is accepted when
    :func:`no_higher_peak` finds no response above ``g (1 + 1e-6)`` and the response at
    the frequency reproduces ``g`` to 1e-6 (COMPleib REA2 with gains ~4e5: AB13DD at
    1e-9 returns 1.14792 at ``w = 0`` against the norm 1.14897 at ``w = 0.56``: the
    level set rejects it; a mode of damping 1e-5 seen through coordinates of condition
    1e5: 13536.13 against the norm 13506.63, which only the reproduction rejects).  The
    value returned is the response of the balanced realisation at the frequency, the
    subgradient that of the given realisation: its error is the rounding of that
    response (on an ``n = 12`` loop with ``cond(A) = 2e11``, 3.7e-7 above the 40-digit
    response at the peak, where the given realisation's LU response is 1.55e-6 above and
    AB13DD's value 2.1e-6 above: not reproduced, so handed over).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.0, 1.0], [-1.0, -0.2]]); b = np.array([[0.0], [1.0]])
    >>> c = np.array([[1.0, 0.0]]); d = np.zeros((1, 1))
    >>> (g, w, grad), _, _ = slicot_hinf_gradient(a, b, c, d, 1e-7, None, None)
    >>> round(g, 9), round(w, 9), grad.shape  # 1 / (2 zeta sqrt(1 - zeta^2))
    (5.025189076, 0.989949494, (3, 3))
    """
    ab, bb, cb = _pow2_balanced(a, b, c)
    # hinfnorm's call: the balanced A and the given A whose rounding also bounds the
    # poles' errors (the band test alone, without the verified inclusion); the quick
    # accept takes the poles of either, here the given A's (the objective's stability
    # test has just computed them: a memo hit).
    # No sign pre-check: a computed pole right of the axis is either beyond its band
    # (UNSTABLE, inf at once) or inside it (UNDECIDED, hinfnorm's).
    verdict = stability_verdict(ab, 0.0, raw=a, poles=poles(a), verify=False)[0]
    if verdict == UNSTABLE:
        return (np.inf, np.nan, None), w_hint, verdict
    if verdict != STABLE:
        return None, w_hint, verdict
    sig = _solved_sigma(ab, bb, cb, d)
    for ab_tol in (AB13DD_TOL, AB13DD_RETRY_TOL):
        out = _slicot.ab13dd_peak(a, b, c, d, tol=ab_tol, w_hint=w_hint)
        if out is None:
            return None, w_hint, verdict
        gamma, w = out
        if gamma == 0 or no_higher_peak(ab, bb, cb, d, gamma * (1 + LEVEL_MARGIN), sig):
            break
    else:
        return None, w, verdict
    if np.isfinite(w):
        if w > 0 and ab_tol > 1e-12:
            # AB13DD's frequency is within ~1e-5 of the maximiser: a root of sigma' in a
            # bracket of 1e-3 (else the secant's grid fallback searches the bracket).
            bracket = (w * (1 - 1e-3), w * (1 + 1e-3))
            w = _secant_peak(_solved_dsig(ab, bb, cb, d), sig, 0.0, w, bracket)[1]
        sv = float(sig(np.array([w]))[0])
    else:
        sv = float(np.linalg.svd(d, compute_uv=False)[0])
    # AB13DD's value is that of its equilibrated coordinates: on an ill-conditioned loop
    # (a mode of damping 1e-5 seen through a change of coordinates of condition 1e5) it
    # was 2.2e-3 above the norm, the response here 2.3e-4 below it.
    if not abs(sv - gamma) <= REPRODUCE * gamma:
        return None, w, verdict
    if above is not None and sv > above:
        return (Above(sv), np.nan, None), w, verdict
    return (sv, float(w), peak_gradient(a, b, c, d, 0.0, w)[1]), w, verdict


def no_higher_peak(a, b, c, d, level, sig=None):
    """True when the level set of ``level`` shows no response above it (not a proof).

    The response ``sigma_max(G(jw))`` equals ``level`` exactly at the crossings (the
    imaginary eigenvalues of the level's Hamiltonian), so it is on one side of ``level``
    inside each interval they cut ``[0, inf)`` into: one point inside each bounded
    interval (``w = 0`` for the first, the midpoint for the others, never a crossing
    itself) is evaluated, and the unbounded one tends to ``sigma_max(D)``, which must be
    below ``level``.  The crossings are those of the modal path's axis test when its
    ``||H||`` criterion trusts it, else of the stiff path's generous test: a spurious
    crossing (eigenvalues near the axis at a level just above a peak) only splits an
    interval.  ``(A, B, C, D)`` should be balanced (:func:`.level_set_core._pow2_balanced`);
    ``sig``: its response (:func:`.level_set_core._solved_sigma`), built when not given.

    Examples
    --------
    >>> import numpy as np
    >>> # 2 / (s + 1) plus a resonance of local peak 1.5447541 at w = 10.0126: the norm
    >>> # is 2 at w = 0, below the first crossing of the resonance's level
    >>> a = np.array([[-1.0, 0, 0], [0, 0, 10.0], [0, -10.0, -0.2]])
    >>> b = np.array([[1.0], [0.0], [1.0]]); c = np.array([[2.0, 0.0, 0.3]])
    >>> d = np.zeros((1, 1))
    >>> no_higher_peak(a, b, c, d, 1.5447541 * (1 + 1e-6)), no_higher_peak(a, b, c, d, 2.01)
    (False, True)
    """
    # sigma_max(D) <= ||D||_F: its SVD only when the level is not above the latter
    if d.size and not level > np.linalg.norm(d):
        if not level > np.linalg.svd(d, compute_uv=False)[0]:
            return False
    h = _LevelHamiltonian(a, b, c, d).at(level)
    if h is None:
        return False
    cross = _modal_crossings(h)
    if cross is None:
        cross = _stiff_crossings(h)
    if sig is None:
        sig = _solved_sigma(a, b, c, d)
    return bool(np.max(sig(_interval_points(cross, ends=False))) <= level)
