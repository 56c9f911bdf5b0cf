"""A verified stability test for stiff models: Gershgorin discs around computed poles.

The condition-number band of :func:`.balancing.pole_bands` is a first-order estimate of
how far rounding may move a pole, ``eps ||A|| kappa``.  In a stiff model one fast pole
(``-2.3e9``, say) sets ``||A||``, and the band of the slow poles (``-3``) becomes wider
than their distance to the axis although they are perfectly well determined by the
data.  This module decides such cases a posteriori, with a bound that holds for the
exact floating-point matrix ``A`` rather than to first order:

with ``A X = X Lambda + R`` (``X`` the computed eigenvectors, ``R`` the residual) and
``X^-1 = (I - E)^-1 Y`` (``Y`` an approximate inverse, ``E = I - Y X``), the poles of
``A`` are those of ``Lambda + F`` with ``F = X^-1 R = G + E (I - E)^-1 G``, ``G = Y R``.
Every pole lies in a Gershgorin disc of ``Lambda + F``: centre ``lambda_i + F_ii``,
radius ``sum_{j != i} |F_ij|``.  The rounding errors of the products that give ``R``,
``E`` and ``G`` are bounded by the standard ``gamma_k |X| |Y|`` bounds (Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., Lemma 3.5 and section 3.6),
taken with a factor of more than 2 to spare so that the rounding of the bounds'
own evaluation is covered too.  Only when every disc lies strictly inside the stability
region is the model declared stable; an ill-conditioned eigenvector matrix (a
defective or nearly defective pole) simply gives no verdict.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from robustmb.analysis.balancing import (
    _BOUNDARY_FACTOR,
    defective_radius,
    eigenvectors,
    pole_bands,
)
from robustmb.analysis.exact_stability import EXACT_MAX_BITS, EXACT_MAX_ORDER, exact_stable
from robustmb.errors import warn

__all__ = [
    "STABLE",
    "UNDECIDED",
    "UNSTABLE",
    "cluster_rounding",
    "eigenvalue_rounding",
    "pole_discs",
    "stability_verdict",
    "verified_stable",
    "verified_stable_any",
]

STABLE, UNDECIDED, UNSTABLE = 1, 0, -1

_EPS = np.finfo(float).eps
_UNIT_ROUNDOFF = _EPS / 2
_TINY = np.finfo(float).tiny


def _gamma(k: int) -> float:
    """``gamma_k = k u / (1 - k u)``: relative error bound of a length-``k`` product."""
    return k * _UNIT_ROUNDOFF / (1.0 - k * _UNIT_ROUNDOFF)


def pole_discs(A: np.ndarray):
    """Discs that contain all poles of ``A``: ``(centres, radii)``, or ``None``.

    ``None`` when the eigenvector matrix is too ill-conditioned for the inclusion
    (``||I - Y X||_inf >= 1``) or the computation is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> centres, radii = pole_discs(np.array([[-1.0, 1e3], [0.0, -2.0]]))
    >>> bool(np.all(np.abs(np.sort(centres.real) - [-2.0, -1.0]) <= radii + 1e-12))
    True
    """
    n = A.shape[0]
    if n == 0 or not np.all(np.isfinite(A)):
        return None
    try:
        lam, X = np.linalg.eig(A)
        X = X.astype(complex)
        lam = lam.astype(complex)
        Y = np.linalg.inv(X)
    except np.linalg.LinAlgError:
        return None
    if not (np.all(np.isfinite(Y)) and np.all(np.isfinite(lam))):
        return None
    # twice the complex dot-product bound gamma_{n+2}, on a longer length: spare for the
    # rounding of the bounds themselves; the tiny term covers underflow
    c = 2.0 * _gamma(2 * n + 8)
    floor = (n + 2) * _TINY
    abs_A, abs_X, abs_Y, abs_lam = np.abs(A), np.abs(X), np.abs(Y), np.abs(lam)
    # R = A X - X Lambda
    R = A @ X - X * lam
    dR = c * (abs_A @ abs_X + abs_X * abs_lam) + floor
    # E = I - Y X
    E_bound = np.abs(np.eye(n) - Y @ X) + c * (abs_Y @ abs_X + 1.0) + floor
    row_E = E_bound.sum(axis=1) * (1.0 + c)
    e = float(row_E.max())
    if not e < 1.0:
        return None
    # G = Y R: computed product, plus the error of R and of the product
    G = Y @ R
    G_error = abs_Y @ dR * (1.0 + c) + c * (abs_Y @ np.abs(R)) + floor
    # F = G + E W with W = (I - E)^-1 G, |W_kj| <= max_k |G_kj| / (1 - e)
    W_max = (np.abs(G) + G_error).max(axis=0) / (1.0 - e) * (1.0 + c)
    EW = row_E[:, None] * W_max[None, :] * (1.0 + c)
    # |F_ij| (i != j) and |F_ii - G_ii| are bounded by ``spread``; no subtraction of
    # large numbers, so the bound itself rounds only relatively
    spread = np.abs(G) + G_error + EW
    diagonal = np.arange(n)
    spread[diagonal, diagonal] = G_error[diagonal, diagonal] + EW[diagonal, diagonal]
    centres = lam + G[diagonal, diagonal]
    # the radius also covers the rounding of the centre's own sum
    radii = (spread.sum(axis=1) + 2.0 * _UNIT_ROUNDOFF * np.abs(centres)) * (1.0 + 2 * c) + floor
    if not (np.all(np.isfinite(centres)) and np.all(np.isfinite(radii))):
        return None
    return centres, radii


def verified_stable(A: np.ndarray, dt: float = 0.0) -> bool:
    """True only if every pole of ``A`` provably lies in the open stability region.

    Continuous time (``dt == 0``): the open left half-plane; discrete time: the open
    unit disc.  ``False`` means "not proved" (the model may still be stable).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-2.3e9, 1e9, 0.0], [0.0, -3.0, 1e4], [0.0, -1e-4, -3.0]])
    >>> verified_stable(A), verified_stable(-A)
    (True, False)
    """
    discs = pole_discs(A)
    if discs is None:
        return False
    centres, radii = discs
    if dt > 0:
        # |z| <= |centre| + radius, with the rounding of the modulus and sum covered
        reach = (np.abs(centres) + radii) * (1.0 + 8 * _UNIT_ROUNDOFF)
        return bool(np.all(reach < 1.0))
    reach = centres.real + radii
    return bool(np.all(reach < 0.0))


# ------------------------------------------------------------- the norms' stability test
def _stability(A: np.ndarray, dt: float, *, with_stiffness=False, raw=None, poles=None):
    """(stable, frequency of a boundary pole or nan) with a scale-aware boundary band.

    ``A`` is the balanced matrix; the test computes its poles with their condition
    numbers (:func:`.balancing.pole_bands`).  With ``with_stiffness`` a third item tells
    whether the model is stiff: some pole lies within its rounding band of the boundary,
    so the computed poles are not accurate enough for modal evaluations (stability itself
    was then proved by :func:`verified_stable_any`).  ``raw``: the matrix before
    balancing, tried too by the verified test (see :func:`verified_stable_any`).
    ``poles``: the eigenvalues of ``A`` when already computed.
    """
    verdict = _stability_verdict(A, dt, raw, poles)
    return verdict if with_stiffness else verdict[:2]


def verified_stable_any(matrices, dt: float = 0.0) -> bool:
    """:func:`verified_stable` for any one of several matrices with the same poles.

    The inclusion depends on the coordinates: balancing, which shrinks the eigenvalues'
    condition numbers, can still leave an eigenvector matrix for which ``||I - Y X||``
    is not below 1 (a stiff model with poles ``-2.6e8`` and ``-3.4e-5 +- 0.55j`` is
    proved stable on its raw matrix, not on the balanced one).  Each proof is rigorous
    for its own matrix, and the matrices passed here (``A``, its balanced form, their
    transposes) have exactly the same eigenvalues, so one proof suffices.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-2.3e9, 1e9, 0.0], [0.0, -3.0, 1e4], [0.0, -1e-4, -3.0]])
    >>> verified_stable_any([A, A.T]), verified_stable_any([-A, -A.T])
    (True, False)
    """
    return any(verified_stable(M, dt) for M in matrices if M is not None)


def stability_verdict(A, dt=0.0, *, raw=None, poles=None, verify=True):
    """``hinfnorm``'s stability test of the balanced ``A``: ``(verdict, frequency, stiff)``.

    ``verdict`` is ``STABLE`` (1) when every pole is proved inside the stability region
    (continuous: open left half-plane; ``dt > 0``: open unit disc), ``UNSTABLE`` (-1)
    when some pole is beyond the boundary by more than its rounding band or the exact
    test proves a pole on or beyond the boundary, ``UNDECIDED`` (0) otherwise.
    ``STABLE`` is a proof; ``UNSTABLE`` from the band is an estimate (the band
    estimates the rounding, it does not bound it), from the exact test a proof;
    ``UNDECIDED`` means "not proved either way".  The steps: a quick accept without
    eigenvectors (every pole beyond the widest band), the poles' bands
    (:func:`.balancing.pole_bands`), then, unless ``verify`` is false or a pole is
    beyond its band, the verified inclusion :func:`verified_stable_any` on ``A``,
    ``raw`` (the matrix before balancing) and their transposes, and if that fails the
    exact test :func:`.exact_stability.exact_stable` of ``raw`` (or ``A``) in integer
    arithmetic, for orders up to :data:`.exact_stability.EXACT_MAX_ORDER` (24; a
    complex matrix counts twice) and scaled entries of at most
    :data:`.exact_stability.EXACT_MAX_BITS` bits.  ``frequency``: the smallest
    frequency of a pole inside its band (``nan`` if none); ``stiff``: the verified
    inclusion or the exact test was needed (the computed poles are then too inaccurate
    for modal evaluations).  ``poles``: the eigenvalues of ``A`` or of ``raw`` when
    already computed (the quick accept allows for the rounding of either).

    Examples
    --------
    >>> import numpy as np
    >>> stability_verdict(np.array([[-1.0, 5.0], [0.0, -2.0]]))[0]
    1
    >>> stability_verdict(np.array([[1.0, 5.0], [0.0, -2.0]]))[0]
    -1
    >>> A = np.array([[0.0, 1.0], [-1.0, -1e-17]])  # damping below rounding:
    >>> stability_verdict(A, verify=False)[:2]      # the bands cannot tell,
    (0, 1.0)
    >>> stability_verdict(A)[0]                     # the exact test can
    1
    >>> stability_verdict(np.array([[0.0, 1.0], [-1.0, 0.0]]))[0]  # on the axis
    -1
    """
    A = np.asarray(A)
    if A.shape[0] == 0:
        return STABLE, np.nan, False
    if not np.all(np.isfinite(A)):
        return UNDECIDED, np.nan, False
    if _beyond_widest_band(_eigenvalues(A) if poles is None else poles, A, dt, raw):
        return STABLE, np.nan, False
    poles, distance, band = pole_bands(A, dt)
    if np.all(distance < -band):
        return STABLE, np.nan, False
    beyond = bool(np.any(distance > band))
    # the band is a first-order estimate, too wide for the slow poles of a stiff model
    # (one fast pole sets ||A||): a verified inclusion of all poles may still decide,
    # unless a pole is beyond the boundary by more than its band
    if verify and not beyond:
        if verified_stable_any(_similar_forms(A, raw), dt):
            return STABLE, np.nan, True
        # still undecided: an exact test of the stored matrix (``raw``; balancing is an
        # exact similarity, by a permutation and powers of 2), when small enough
        exact = exact_stable(A if raw is None else raw, dt)
        if exact:
            return STABLE, np.nan, True
        beyond = exact is False
    if dt > 0:
        boundary_frequencies = np.abs(np.angle(poles)) / dt
    else:
        boundary_frequencies = np.abs(poles.imag)
    on_boundary = np.abs(distance) <= band
    frequency = float(np.min(boundary_frequencies[on_boundary])) if np.any(on_boundary) else np.nan
    return (UNSTABLE if beyond else UNDECIDED), frequency, False


def _warn_not_proved(function, n):
    """The ``RuntimeWarning`` of a norm that is ``inf`` because stability could be
    neither proved nor disproved: "not proved stable" rather than "unstable"."""
    warn(
        f"{function}: stability of the {n}-state realisation could not be proved in double "
        "precision (a pole within its rounding error of the stability boundary) and the "
        f"exact integer test is limited to {EXACT_MAX_ORDER} real states and "
        f"{EXACT_MAX_BITS}-bit scaled entries; inf here means not proved stable, not "
        "proved unstable",
        RuntimeWarning,
    )


def _stability_verdict(A, dt, raw=None, poles=None):
    verdict, frequency, stiff = stability_verdict(A, dt, raw=raw, poles=poles)
    return verdict == STABLE, frequency, stiff


def _similar_forms(A, raw):
    """``A``, ``raw`` (the same poles, other coordinates) and their transposes."""
    forms = [A, A.T]
    if raw is not None and raw is not A:
        forms += [raw, raw.T]
    return forms


def _eigenvalues(A):
    """Eigenvalues of a square matrix (LAPACK ``?geev`` without the wrapper for real A)."""
    if A.dtype == np.float64:
        wr, wi, _, _, info = scipy.linalg.lapack.dgeev(A, compute_vl=0, compute_vr=0)
        if info == 0:
            return wr + 1j * wi
    return np.linalg.eigvals(A)


def _beyond_widest_band(poles, A, dt, raw=None):
    """Quick accept without eigenvectors: every pole farther from the boundary than the
    widest band :func:`.balancing.pole_bands` can give (``kappa`` up to ``1/sqrt(eps)``,
    and :func:`.balancing.defective_radius` beyond), with a factor 2 for the
    re-balancing inside it.  ``raw``: the matrix before balancing, whose rounding (its
    own norm) bounds the error of poles computed from it."""
    widest = 2 * max(
        _BOUNDARY_FACTOR * np.sqrt(_EPS) * float(np.abs(A).sum(axis=0).max()),
        defective_radius(A),
        0.0 if raw is None else defective_radius(raw),
    )
    if dt > 0:
        return bool(np.all(np.abs(poles) - 1.0 < -max(widest, 2 * _BOUNDARY_FACTOR * _EPS)))
    return bool(np.all(poles.real < -widest))


def cluster_rounding(values, scale, largest=8):
    """A cheap screen for eigenvalues that rounding may have moved far: clusters.

    A simple eigenvalue moves by about ``eps scale``; a defective one of multiplicity
    ``m`` splits into ``m`` computed eigenvalues spread over about
    ``r_m = eps^(1/m) scale`` (the Hoelder perturbation bound of a Jordan block).  The
    radius of an eigenvalue is the largest ``r_m`` such that ``m`` computed eigenvalues,
    itself included, lie within ``2 r_m`` of it: a cluster that rounding could have
    produced from one multiple eigenvalue.  Close but distinct eigenvalues get the wide
    radius too, so this over-estimates (a screen; :func:`eigenvalue_rounding` is the
    estimate from eigenvectors).  The cluster must be set apart (the next eigenvalue at
    least four times farther than its farthest member) and scattered beyond
    ``100 eps scale`` (the computed copies of a semi-simple multiple eigenvalue stay
    within a few ``eps scale``; a matrix whose defective eigenvalue is computed
    without rounding, such as a triangular Jordan block, is not detected: its poles
    are exact), and sizes up to ``largest``
    count: ``r_m`` grows towards ``scale`` with ``m`` (``eps^(1/8)`` is about 1e-2),
    and larger "clusters" would be any dense part of a spectrum.

    Parameters
    ----------
    values : numpy.ndarray
        Computed eigenvalues (1-D, complex).
    scale : float
        Norm of the matrix they came from.
    largest : int, optional
        Largest cluster size considered.

    Returns
    -------
    numpy.ndarray
        One radius per eigenvalue, at least ``eps scale``.

    Examples
    --------
    >>> import numpy as np
    >>> J = -1e-5 * np.eye(3) + np.diag(np.ones(2), 1)  # a 3x3 Jordan block at -1e-5
    >>> Q = np.linalg.qr(np.arange(9.0).reshape(3, 3) + np.eye(3))[0]
    >>> r = cluster_rounding(np.linalg.eigvals(Q @ J @ Q.T), 1.0)  # rounded: scattered
    >>> bool(np.all(r > 1e-6)), bool(np.all(cluster_rounding(np.array([-1.0, -2.0]), 2.0) < 1e-15))
    (True, True)
    """
    values = np.asarray(values, dtype=complex).ravel()
    floor = np.full(values.size, _EPS * scale)
    if values.size < 2 or not np.all(np.isfinite(values)):
        return floor
    top = min(values.size, largest)
    sizes = np.arange(2, top + 1)
    radii = scale * _EPS ** (1.0 / sizes)
    distances = np.abs(values[:, None] - values[None, :])
    # quick exit: no eigenvalue has a scattered neighbour within the widest radius
    near = (distances <= 2.0 * radii[-1]) & (distances > 100.0 * _EPS * scale)
    rows = np.flatnonzero(near.any(axis=1))
    if rows.size == 0:
        return floor
    distances = distances[rows]
    # the top + 1 smallest distances of each row, sorted (column 0: the eigenvalue itself)
    if top + 1 < values.size:
        distances = np.partition(distances, top, axis=1)[:, : top + 1]
    distances.sort(axis=1)
    # column m - 1 is the distance to the (m - 1)-th nearest other eigenvalue; the cluster
    # must be tight (within 2 r_m) and set apart: the next eigenvalue at least four times
    # as far (a dense stretch of a spectrum is no cluster)
    inner = distances[:, 1:top]
    outer = np.full(inner.shape, np.inf)
    available = min(distances.shape[1] - 2, inner.shape[1])
    outer[:, :available] = distances[:, 2 : 2 + available]
    # ... and scattered beyond what rounding does to a semi-simple multiple eigenvalue
    # (computed copies within a few eps scale of each other: no Hoelder scatter)
    scattered = inner > 100.0 * _EPS * scale
    within = (inner <= 2.0 * radii[None, :]) & (outer >= 4.0 * inner) & scattered
    floor[rows] = np.maximum(floor[rows], np.where(within, radii[None, :], 0.0).max(axis=1))
    return floor


def eigenvalue_rounding(A, scale=None):
    """Eigenvalues of ``A`` and how far rounding may have moved each: ``(w, radius)``.

    ``radius = 10 eps ||A|| kappa_i`` with ``kappa_i = 1 / |y_i^H x_i|`` (unit left and
    right eigenvectors), the first-order perturbation bound with a margin.  For the
    computed members of a defective cluster of size ``m``, ``kappa_i`` is about
    ``eps^(-(m-1)/m)`` and the bound is about the Hoelder radius ``eps^(1/m) ||A||``
    they actually scatter over (within a factor of a few, which the margin covers);
    semi-simple multiple eigenvalues keep small ``kappa`` and a small radius.

    Parameters
    ----------
    A : numpy.ndarray
        Square matrix.
    scale : float, optional
        ``||A||`` (the largest absolute column sum by default).

    Returns
    -------
    w, radius : numpy.ndarray
        Eigenvalues and their radii (``inf`` where the eigenvectors are not finite).

    Examples
    --------
    >>> import numpy as np
    >>> J = -1e-5 * np.eye(3) + np.diag(np.ones(2), 1)  # a 3x3 Jordan block at -1e-5
    >>> w, radius = eigenvalue_rounding(J)
    >>> bool(np.all(radius > np.abs(w + 1e-5)))             # covers the actual scatter
    True
    """
    if scale is None:
        scale = float(np.abs(A).sum(axis=0).max()) if A.size else 0.0
    w, vl, vr = eigenvectors(A)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 / np.abs(np.sum(vl.conj() * vr, axis=0))
    radius = 10.0 * _EPS * scale * np.maximum(kappa, 1.0)
    return w, np.where(np.isfinite(radius), radius, np.inf)


def _resonance_sensitive(A, dt, tol, poles=None):
    """True when evaluations from computed poles may miss the relative accuracy ``tol``.

    Near a pole ``p`` the response is about ``r / (j w - p)``; rounding moves ``p`` by at
    least ``eps ||A||``, a relative change of ``eps ||A|| / dist(p, boundary)`` in the
    response at the resonance.  A nearly defective pole moves by far more (about
    ``eps^(1/m) ||A||`` for ``m`` coalescing poles): when the cluster screen
    :func:`cluster_rounding` finds a cluster that could matter, the eigenvectors'
    estimate :func:`eigenvalue_rounding` decides.  ``poles``: the eigenvalues of ``A`` if
    already known.
    """
    if A.shape[0] == 0:
        return False
    if poles is None:
        poles = _eigenvalues(A)
    distance = 1.0 - np.abs(poles) if dt > 0 else -poles.real
    size = float(np.abs(A).sum(axis=0).max())
    if _EPS * size > tol * float(np.min(distance)):
        return True
    if not np.any(cluster_rounding(poles, size) > tol * distance):
        return False
    try:
        poles, radius = eigenvalue_rounding(A, size)
    except (np.linalg.LinAlgError, ValueError):
        return True
    distance = 1.0 - np.abs(poles) if dt > 0 else -poles.real
    return bool(np.any(radius > tol * distance))
