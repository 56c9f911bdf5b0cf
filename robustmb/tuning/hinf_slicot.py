"""The inner H-infinity value of the tuning engine by SLICOT's AB13DD.

AB13DD (Bruinsma and Steinbuch's level-set iteration, compiled) returns the
L-infinity norm of ``G(s) = C (sI - A)^-1 B + D`` and a frequency where it is attained
in one Fortran call: tens of microseconds on the 4--10-state closed loops of a
structured tuning problem, against milliseconds for the same iteration written with
numpy calls.  It does not decide stability (the L-infinity norm of an unstable model is
finite), so the caller decides it first, by ``hinfnorm``'s band test.

The value is the optimiser's inner value only.  It is not a certificate: AB13DD's
level-set test rests on the rounding of a Hamiltonian's eigenvalues, and on
ill-conditioned loops (gains ~1e5 on COMPleib AC15, HE2, REA2) its value was measured
up to 3e-5 below :func:`robustmb.hinfnorm` without equilibration and 6e-8 below with
it (``equil="S"``, used here).  A tuning run reports the value of
:func:`robustmb.hinfnorm` at its final point, never this one.
"""

from __future__ import annotations

import numpy as np

try:
    from slycot import _wrapper  # the f2py binding behind slycot.ab13dd
except ImportError:  # pragma: no cover - slycot without its binding module
    _wrapper = None

__all__ = ["ENABLED", "ab13dd_peak"]

# The tuning engine's inner H-infinity evaluation tries AB13DD first (False: the Python
# level sets of :mod:`.gradients` only, e.g. to compare the two).
ENABLED = True


def ab13dd_peak(a, b, c, d, dt=0.0, *, tol=1e-10, w_hint=None):
    """Peak gain and frequency of ``(A, B, C, D)`` by SLICOT AB13DD, or ``None``.

    Parameters
    ----------
    a, b, c, d : numpy.ndarray
        Real state-space matrices (``n >= 1`` states, at least one input and output).
        ``A`` must already be known to be stable: AB13DD computes the L-infinity norm,
        finite for an unstable model too.
    dt : float, optional
        ``0`` for continuous time, else the sampling time.
    tol : float, optional
        AB13DD's relative tolerance on the norm.
    w_hint : float, optional
        A frequency (rad/s) expected near the peak; AB13DD tests it first.

    Returns
    -------
    tuple or None
        ``(gamma, fpeak)`` with ``fpeak`` in rad/s (``inf``: the supremum is
        ``sigma_max(D)``, approached at high frequency), or ``None`` when AB13DD reports
        a failure (``info != 0``), raises, or returns a non-finite value: the caller
        then uses its own evaluation.

    Examples
    --------
    >>> import numpy as np
    >>> # 1 / (s^2 + 0.2 s + 1): peak 1 / (2 zeta sqrt(1 - zeta^2)) at sqrt(1 - 2 zeta^2)
    >>> a = np.array([[0.0, 1.0], [-1.0, -0.2]]); b = np.array([[0.0], [1.0]])
    >>> c = np.array([[1.0, 0.0]]); d = np.zeros((1, 1))
    >>> g, w = ab13dd_peak(a, b, c, d)
    >>> round(g, 9), round(w, 9)
    (5.025189076, 0.989949494)
    """
    n, m, p = a.shape[0], b.shape[1], c.shape[0]
    if _wrapper is None or n == 0 or m == 0 or p == 0:
        return None
    w0 = 0.0
    if w_hint is not None and np.isfinite(w_hint):
        # AB13DD's starting estimate is in rad/sample for discrete time.
        w0 = abs(float(w_hint)) * (dt if dt else 1.0)
    try:
        # AB13DD overwrites A, B, C (equilibration); Fortran-ordered copies.
        fp, gp, info = _wrapper.ab13dd(
            "D" if dt else "C",
            "I",
            "S",
            "D" if d.any() else "Z",
            n,
            m,
            p,
            [w0, 1.0],
            np.array(a, order="F"),
            np.eye(n),
            np.array(b, order="F"),
            np.array(c, order="F"),
            np.array(d, order="F"),
            tol,
        )
    except Exception:  # noqa: BLE001 - any failure hands over to the caller's evaluation
        return None
    return _unpack(fp, gp, info, dt)


def _unpack(fp, gp, info, dt):
    """``(gamma, fpeak)`` from AB13DD's outputs (value and frequency as ``[x, y]``:
    ``x / y``, ``y = 0`` for infinity), ``None`` when it failed."""
    if info != 0 or gp[1] == 0:
        return None
    gamma = float(gp[0])
    if not np.isfinite(gamma) or gamma < 0:
        return None
    w = float(fp[0]) / (dt if dt else 1.0) if fp[1] > 0 else np.inf
    if np.isnan(w) or w < 0:
        return None
    return gamma, w
