"""The pole measure of the ``Poles`` goal: value, subgradient and active pieces.

Every eigenvalue ``p`` of ``A`` must satisfy ``Re p <= -decay``, ``-Re p >= damping |p|``
and ``|p| <= max_frequency``.  On a discrete loop (sample time ``dt > 0``) an eigenvalue
``z`` is read as the s-plane pole ``p = log(z) / dt`` (principal branch; MATLAB's
``TuningGoal.Poles`` and ``damp`` convention), so the same requirements apply to decay
rate, damping and natural frequency of the sampled modes.  The measure is ``1 + (worst
violation) / rho``, floored at :data:`POLES_FLOOR`; its derivative with respect to ``A``
comes from the spectral projector of the worst eigenvalue, or of the cluster of
eigenvalues around it when that eigenvalue is (nearly) defective.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

# A met pole requirement is worth nothing more: without a floor, a soft Poles goal
# alone drives the poles (and the controller gains, through them) towards -infinity,
# since 1 + violation / rho is unbounded below.  Below the floor the measure is flat
# (zero gradient), so the tuning stops once every pole clears the requirement by rho
# (for a decay requirement: Re p <= -2 decay).  The floor is 0, the least any goal can
# read: a higher one would cap the worst soft goal there and stop the other soft goals
# from improving below it.  Hard goals are unaffected (they only need a value below 1).
POLES_FLOOR = 0.0
# An eigenvalue whose left and right unit eigenvectors satisfy |wl^H v| below this is
# treated as (nearly) defective: its derivative 1 / |wl^H v| is meaningless there, and
# the mean of its cluster (smooth, through the cluster's spectral projector) is used.
DEFECT = 1e-6


def _rho(decay, max_frequency):
    return max(decay, 1e-3 * max_frequency if np.isfinite(max_frequency) else 0.0, 1e-3)


def _violations(lam, decay, damping, max_frequency):
    """Per eigenvalue: the violation of each constraint and the complex derivative
    ``c`` of each (``d(violation) = Re(c dp)``)."""
    mag = np.abs(lam)
    n = lam.size
    viol = [lam.real + decay, lam.real + damping * mag]
    dviol = [np.ones(n, complex), 1.0 + damping * np.conj(lam) / np.maximum(mag, 1e-300)]
    if np.isfinite(max_frequency):
        viol.append(mag - max_frequency)
        dviol.append(np.conj(lam) / np.maximum(mag, 1e-300))
    return np.array(viol), np.array(dviol)


def _cluster_projector(a, lam, k):
    """``(P^T / m, mean)``: the gradient of the mean of the eigenvalues clustered around
    ``lam[k]`` (``d mean = sum(G_ij dA_ij)``) and that mean.

    The cluster's spectral projector ``P`` comes from a Schur form with the cluster
    first and a Sylvester equation; the cluster widens tenfold (from ``1e-6 |p|``)
    until ``P`` is of moderate norm (a defective eigenvalue splits by about
    ``eps^(1/m)`` under rounding).
    """
    scale = max(1.0, abs(lam[k]))
    tol = 1e-6 * scale
    for _ in range(6):
        near = np.abs(lam - lam[k]) <= tol
        m = int(near.sum())
        if m == lam.size:
            proj = np.eye(lam.size, dtype=complex)
        else:
            centre = lam[near]

            def inside(z, centre=centre, tol=tol):
                return np.min(np.abs(centre - z)) <= 1.5 * tol

            t, z, sdim = sla.schur(a.astype(complex), output="complex", sort=inside)
            if sdim != m:
                tol *= 10.0
                continue
            x = sla.solve_sylvester(t[:m, :m], -t[m:, m:], t[:m, m:])
            ps = np.zeros_like(t)
            ps[:m, :m] = np.eye(m)
            ps[:m, m:] = x
            proj = z @ ps @ z.conj().T
        if np.linalg.norm(proj) <= 1e6 or m == lam.size:
            return proj.T / m, lam[near].mean()
        tol *= 10.0
    return proj.T / m, lam[near].mean()


def s_plane(lam, dt):
    """The s-plane poles of the eigenvalues ``lam``: themselves (``dt == 0``) or
    ``log(z) / dt`` (a pole at ``z = 0`` reads as a decay of ``-log(1e-300) / dt``).

    Examples
    --------
    >>> import numpy as np
    >>> np.round(s_plane(np.array([np.exp(-0.2), -1.0 + 0j]), 0.1), 6).tolist()
    [(-2+0j), 31.415927j]
    """
    if not dt:
        return lam
    return np.log(np.where(lam == 0, 1e-300, lam).astype(complex)) / dt


def _piece_gradient(a, lam, vl, vr, k, i, decay, damping, max_frequency, dt):
    """Gradient w.r.t. ``A`` of constraint ``i``'s violation at eigenvalue ``k``."""
    wl, v = vl[:, k], vr[:, k]
    s = wl.conj() @ v
    if abs(s) > DEFECT * np.linalg.norm(wl) * np.linalg.norm(v):
        dz = np.outer(wl.conj(), v) / s  # dz = sum(dz_ij dA_ij)
        z = lam[k]
    else:
        dz, z = _cluster_projector(a, lam, k)
    c = _violations(s_plane(np.array([z]), dt), decay, damping, max_frequency)[1][i, 0]
    if dt:  # dp = dz / (z dt)
        c = c / (dt * (z if z != 0 else 1e-300))
    return np.real(c * dz)


def pole_pieces(a, decay, damping, max_frequency, dt=0.0, *, rel=0.05):
    """Values and gradients (w.r.t. ``A``) of every near-active eigenvalue's measure.

    One piece per eigenvalue whose measure ``1 + violation / rho`` is within ``rel``
    (relative) of the largest one, for the multi-peak step; all are floored at
    :data:`POLES_FLOOR` (then the single piece ``POLES_FLOOR`` with a zero gradient).

    Examples
    --------
    >>> import numpy as np
    >>> v, g = pole_pieces(np.diag([-0.5, -0.52, -3.0]), 1.0, 0.0, np.inf)
    >>> np.round(v, 3).tolist(), g.shape
    ([1.5, 1.48], (2, 3, 3))
    """
    n = a.shape[0]
    if n == 0:
        return np.array([0.0]), np.zeros((1, 0, 0))
    lam, vl, vr = sla.eig(a, left=True, right=True)
    rho = _rho(decay, max_frequency)
    viol, _ = _violations(s_plane(lam, dt), decay, damping, max_frequency)
    worst = viol.argmax(axis=0)  # each eigenvalue's worst constraint
    vals = 1.0 + viol[worst, np.arange(n)] / rho
    top = vals.max()
    if not top > POLES_FLOOR:
        return np.array([POLES_FLOOR]), np.zeros((1, n, n))
    keep = np.flatnonzero(vals >= top - rel * abs(top))
    grads = np.array(
        [
            _piece_gradient(a, lam, vl, vr, k, worst[k], decay, damping, max_frequency, dt) / rho
            for k in keep
        ]
    )
    return vals[keep], grads


def pole_requirement(a, decay, damping, max_frequency, dt=0.0):
    """Normalised pole requirement (< 1 met) and its gradient w.r.t. ``A``.

    Every eigenvalue ``p`` must satisfy ``Re p <= -decay``, ``-Re p >= damping |p|``
    and ``|p| <= max_frequency``; the value is ``max(1 + max violation / rho,
    POLES_FLOOR)`` with ``rho = max(decay, 1e-3 * max_frequency, 1e-3)`` when finite
    (the floor: see :data:`POLES_FLOOR`); with ``dt > 0`` the eigenvalues are read as
    ``log(z) / dt`` (:func:`s_plane`).  The gradient is that of the worst
    eigenvalue; for a (nearly) defective one (``|wl^H v| <= DEFECT``, where the true
    derivative is unbounded), that of the mean of its eigenvalue cluster.

    Examples
    --------
    >>> import numpy as np
    >>> v, G = pole_requirement(np.diag([-2.0, -0.5]), 1.0, 0.0, np.inf)
    >>> float(v)
    1.5
    >>> v, G = pole_requirement(np.array([[-1.0, 1.0], [0.0, -1.0]]), 2.0, 0.0, np.inf)
    >>> float(v), bool(np.abs(G).max() < 10)  # a Jordan block: a bounded gradient
    (1.5, True)
    >>> float(pole_requirement(np.diag([-10.0, -20.0]), 1.0, 0.0, np.inf)[0])  # floored
    0.0
    >>> z = np.diag([np.exp(-0.05)])  # discrete, dt = 0.1: decay 0.5 of the 1 asked
    >>> round(float(pole_requirement(z, 1.0, 0.0, np.inf, 0.1)[0]), 12)
    1.5
    """
    n = a.shape[0]
    if n == 0:
        return 0.0, np.zeros((0, 0))
    vals, grads = pole_pieces(a, decay, damping, max_frequency, dt, rel=0.0)
    k = int(np.argmax(vals))
    return float(vals[k]), grads[k]
