"""Closed-loop stability as ``hinfnorm`` decides it, for the tuning layer.

The sign of a computed eigenvalue's real part proves nothing when the eigenvectors are
ill-conditioned: rounding moves a pole by about ``eps ||A|| kappa``, and a truly
unstable loop can come out with every computed pole on the stable side.  These helpers
take :func:`robustmb.hinfnorm`'s decision instead, the one verdict function
:func:`~robustmb.analysis.norms_stability.stability_verdict`: the poles of the balanced
``A`` with their rounding bands (:func:`~robustmb.analysis.balancing.pole_bands`;
Elsner's bound for defective poles), and, for a pole inside its band, the verified
inclusion of :func:`~robustmb.analysis.norms_stability.verified_stable_any` and then,
up to 24 states, the exact integer test of
:func:`~robustmb.analysis.exact_stability.exact_stable`.
"""

from __future__ import annotations

import numpy as np

from ..analysis.balancing import balance_realization
from ..analysis.norms_stability import STABLE, UNDECIDED, UNSTABLE, stability_verdict

__all__ = ["STABLE", "UNDECIDED", "UNSTABLE", "band_verdict", "proved_stable"]


def _balanced(a):
    """``a`` balanced as ``hinfnorm`` balances it (permutation and powers of two: exact)."""
    n = a.shape[0]
    return balance_realization(a, np.zeros((n, 0)), np.zeros((0, n)))[0]


def band_verdict(a, dt=0.0, *, poles=None, balanced=False):
    """Stability of ``A`` by the poles' rounding bands, without the verified inclusion.

    Returns ``STABLE`` (1) when every pole is inside the stability region by more than
    its band, ``UNSTABLE`` (-1) when some pole is beyond the boundary by more than its
    band (``hinfnorm`` then gives ``inf`` too), and ``UNDECIDED`` (0) otherwise.
    ``UNSTABLE`` means "not proved stable", a rejection for the optimiser, not a proof
    of instability: the band is an estimate of the rounding, not a bound, so a truly
    stable loop may get it (only ``STABLE`` is a claim, and it is kept sound).  A quick
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
    return stability_verdict(ab, dt, raw=None if balanced else a, poles=poles, verify=False)[0]


def proved_stable(a, dt=0.0):
    """True only when ``hinfnorm``'s test proves every pole of ``A`` stable.

    The bands of :func:`band_verdict` on the balanced ``A`` and, for a pole inside its
    band, the verified Gershgorin inclusion on the balanced and the given coordinates
    (and their transposes), then the exact integer test of the given ``A`` (up to 24
    states), exactly the steps ``hinfnorm`` takes before computing a finite norm.
    ``False`` means "not proved": unstable, or too close to the boundary for double
    precision and too large for the exact test.

    Examples
    --------
    >>> import numpy as np
    >>> proved_stable(np.array([[-2.3e9, 1e9, 0.0], [0.0, -3.0, 1e4], [0.0, -1e-4, -3.0]]))
    True
    >>> proved_stable(np.array([[0.0, 1.0], [-1.0, -1e-17]]))  # exact test: stable
    True
    >>> proved_stable(np.array([[0.0, 1.0], [-1.0, 0.0]]))  # poles on the axis
    False
    >>> proved_stable(np.array([[0.5]]), dt=1.0), proved_stable(np.array([[1.5]]), dt=1.0)
    (True, False)
    """
    a = np.asarray(a, float)
    if a.shape[0] == 0:
        return True
    if not np.all(np.isfinite(a)):
        return False
    return stability_verdict(_balanced(a), dt, raw=a)[0] == STABLE
