"""Closed-loop stability as ``hinfnorm`` decides it, for the tuning layer.

The sign of a computed eigenvalue's real part proves nothing when the eigenvectors are
ill-conditioned: rounding moves a pole by about ``eps ||A|| kappa``, and a truly
unstable loop can come out with every computed pole on the stable side.  These helpers
take :func:`robustmb.hinfnorm`'s decision instead: the poles of the balanced ``A`` with
their rounding bands (:func:`~robustmb.analysis.balancing.pole_bands`), and, for a pole
inside its band, the verified inclusion of
:func:`~robustmb.analysis.norms_stability.verified_stable_any`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from ..analysis.balancing import _BOUNDARY_FACTOR, defective_radius, pole_bands
from ..analysis.norms_stability import verified_stable_any

STABLE, UNDECIDED, UNSTABLE = 1, 0, -1

_EPS = np.finfo(float).eps


def _balanced(a):
    """``a`` balanced by LAPACK ``dgebal`` (permutation and powers of two: exact)."""
    ba, _, _, _, info = scipy.linalg.lapack.dgebal(a, scale=1, permute=1)
    return ba if info == 0 else scipy.linalg.matrix_balance(a, permute=True)[0]


def band_verdict(a, dt=0.0, *, poles=None, balanced=False):
    """Stability of ``A`` by the poles' rounding bands, without the verified inclusion.

    Returns ``STABLE`` (1) when every pole is inside the stability region by more than
    its band, ``UNSTABLE`` (-1) when some pole is beyond the boundary by more than its
    band (``hinfnorm`` then gives ``inf`` too), and ``UNDECIDED`` (0) otherwise.  A quick
    accept first, as in ``hinfnorm``: every pole (``poles``, the eigenvalues of ``A`` if
    already computed) farther inside than the widest band the test can give.  With
    ``balanced`` the caller's ``A`` is already balanced.

    Examples
    --------
    >>> import numpy as np
    >>> band_verdict(np.array([[-1.0, 5.0], [0.0, -2.0]]))
    1
    >>> band_verdict(np.array([[1.0, 5.0], [0.0, -2.0]]))
    -1
    >>> band_verdict(np.array([[0.0, 1.0], [-1.0, -1e-17]]))  # damping below rounding
    0
    """
    a = np.asarray(a, float)
    if a.shape[0] == 0:
        return STABLE
    ab = a if balanced else _balanced(a)
    if poles is not None and not dt:
        # hinfnorm's quick accept (the widest band pole_bands can give; factor 2 for
        # the re-balancing inside it); ``poles`` may be those of the unbalanced ``a``,
        # whose rounding scales with its own norm
        widest = 2 * max(
            _BOUNDARY_FACTOR * np.sqrt(_EPS) * float(np.abs(ab).sum(axis=0).max()),
            defective_radius(ab),
            defective_radius(a),
        )
        if np.all(np.asarray(poles).real < -widest):
            return STABLE
    _, dist, band = pole_bands(ab, dt, balanced=True)
    if np.all(dist < -band):
        return STABLE
    if np.any(dist > band):
        return UNSTABLE
    return UNDECIDED


def proved_stable(a, dt=0.0):
    """True only when ``hinfnorm``'s test proves every pole of ``A`` stable.

    The bands of :func:`band_verdict` on the balanced ``A`` and, for a pole inside its
    band, the verified Gershgorin inclusion on the balanced and the given coordinates
    (and their transposes), exactly the two steps ``hinfnorm`` takes before computing a
    finite norm.  ``False`` means "not proved": unstable, or too close to the boundary
    for double precision.

    Examples
    --------
    >>> import numpy as np
    >>> proved_stable(np.array([[-2.3e9, 1e9, 0.0], [0.0, -3.0, 1e4], [0.0, -1e-4, -3.0]]))
    True
    >>> proved_stable(np.array([[0.0, 1.0], [-1.0, -1e-17]]))
    False
    >>> proved_stable(np.array([[0.5]]), dt=1.0), proved_stable(np.array([[1.5]]), dt=1.0)
    (True, False)
    """
    a = np.asarray(a, float)
    if a.shape[0] == 0:
        return True
    if not np.all(np.isfinite(a)):
        return False
    ab = _balanced(a)
    verdict = band_verdict(ab, dt, balanced=True)
    if verdict != UNDECIDED:
        return verdict == STABLE
    return bool(verified_stable_any([ab, ab.T, a, a.T], dt))
