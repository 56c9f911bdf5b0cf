"""Closed-loop measures and their (sub)gradients with respect to state-space data.

Each function returns a value and ``G = dJ/dS`` for ``S = [[A, B], [C, D]]``;
:meth:`TunableLFT.chain` turns ``G`` into the gradient with respect to the tunable
parameters.  For the H-infinity norm, ``G`` is the gradient of the largest singular
value at the peak frequency, ``Re(a b^H)`` with ``a = [(sI - A)^-H C^H u; u]`` and
``b = [(sI - A)^-1 B v; v]`` built from its singular vectors ``u, v``: a subgradient
of the norm, and its gradient where the peak is unique and simple.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..analysis import hinfnorm


def _modal_hinf(a, b, c, d, tol, w_hint=None, maxit=40):
    """Peak gain of a stable, real, continuous model by a lean level-set iteration.

    The response is evaluated in modal form (one eigendecomposition), and the
    Bruinsma--Steinbuch iteration stops when the Hamiltonian of level
    ``lower * (1 + 2 tol)`` has no imaginary eigenvalue.  Returns ``None`` when the
    modal form is ill-conditioned or the level set is singular, so the caller falls
    back to :func:`robustmb.hinfnorm`.  The optimiser's inner loop only: results are
    always re-verified with ``hinfnorm``.
    """
    lam, v = np.linalg.eig(a)
    if np.max(lam.real) >= 0:
        return np.inf, np.nan
    if np.linalg.cond(v) > 1e8:
        return None
    vb = np.linalg.solve(v, b)
    cv = c @ v
    sd = np.linalg.svd(d, compute_uv=False)[0] if d.size else 0.0

    def sig(w):
        r = 1.0 / (1j * w[:, None] - lam[None, :])
        g = np.einsum("in,kn,nj->kij", cv, r, vb) + d[None]
        return np.linalg.svd(g, compute_uv=False)[:, 0]

    extra = [] if w_hint is None or not np.isfinite(w_hint) else [abs(w_hint)]
    cand = np.unique(np.r_[0.0, np.abs(lam), np.abs(lam.imag), extra])
    vals = sig(cand)
    k = int(np.argmax(vals))
    lower, wpeak = float(vals[k]), float(cand[k])
    if sd >= lower:
        lower, wpeak = sd, np.inf
    ny, nu = d.shape
    for _ in range(maxit):
        g = lower * (1 + 2 * tol)
        try:
            ri = np.linalg.inv(g * g * np.eye(nu) - d.T @ d)
            si = np.linalg.inv(g * g * np.eye(ny) - d @ d.T)
        except np.linalg.LinAlgError:
            return None
        a1 = a + b @ ri @ d.T @ c
        h = np.block([[a1, g * b @ ri @ b.T], [-g * c.T @ si @ c, -a1.T]])
        e = np.linalg.eigvals(h)
        im = np.unique(np.abs(e[np.abs(e.real) < 1e-8 * max(1.0, np.abs(e).max())].imag))
        if im.size == 0:
            return _polish(sig, lower, wpeak)
        pts = np.r_[im, 0.5 * (im[1:] + im[:-1])]
        vals = sig(pts)
        k = int(np.argmax(vals))
        if vals[k] <= lower * (1 + tol):
            return _polish(sig, lower, wpeak)
        lower, wpeak = float(vals[k]), float(pts[k])
    return None


def _polish(sig, lower, wpeak, rounds=5, samples=17):
    """Move the peak frequency onto the local maximiser (the gradient is taken there)."""
    if not np.isfinite(wpeak):
        return lower, wpeak
    half = 0.05 * max(wpeak, 1e-3)
    for _ in range(rounds):
        grid = np.linspace(max(wpeak - half, 0.0), wpeak + half, samples)
        vals = sig(grid)
        k = int(np.argmax(vals))
        if vals[k] > lower:
            lower, wpeak = float(vals[k]), float(grid[k])
        half /= 8.0
    return lower, wpeak


def hinf_gradient(a, b, c, d, dt=0.0, *, tol=1e-7, w_hint=None):
    """H-infinity norm of ``(A, B, C, D)``, its peak frequency and gradient w.r.t. S.

    Returns ``(gamma, fpeak, G)``; ``gamma = inf`` (and ``G = None``) when unstable.

    Examples
    --------
    >>> import numpy as np
    >>> g, w, G = hinf_gradient(np.array([[-2.0]]), np.array([[1.0]]),
    ...                         np.array([[3.0]]), np.array([[0.0]]))
    >>> round(g, 10), round(w, 10), G.round(6).tolist()
    (1.5, 0.0, [[0.75, 1.5], [0.5, 1.0]])
    """
    fast = None
    if dt == 0 and a.shape[0] and b.shape[1] and c.shape[0]:
        fast = _modal_hinf(a, b, c, d, tol, w_hint)
    gamma, fpeak = fast if fast is not None else hinfnorm((a, b, c, d, dt), tol=tol)
    if not np.isfinite(gamma):
        return np.inf, fpeak, None
    n = a.shape[0]
    if n and np.isfinite(fpeak):
        s = 1j * fpeak if dt == 0 else np.exp(1j * fpeak * dt)
        rb = np.linalg.solve(s * np.eye(n) - a, b)
        t = c @ rb + d
    else:
        rb = np.zeros((n, b.shape[1]))
        t = d.astype(complex)
    u, sv, vh = np.linalg.svd(t)
    u1, v1 = u[:, 0], vh[0].conj()
    if n and np.isfinite(fpeak):
        ax = np.linalg.solve((s * np.eye(n) - a).conj().T, c.conj().T @ u1)
        bx = rb @ v1
    else:
        ax, bx = np.zeros(n), np.zeros(n)
    av = np.concatenate([ax, u1])
    bv = np.concatenate([bx, v1])
    grad = np.real(np.outer(av.conj(), bv))
    return float(sv[0]), float(fpeak), grad


def spectral_abscissa_gradient(a):
    """Largest real part of the eigenvalues of ``A`` and its gradient w.r.t. ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> alpha, G = spectral_abscissa_gradient(np.array([[-1.0, 2.0], [0.0, -3.0]]))
    >>> alpha, G.round(6).tolist()
    (-1.0, [[1.0, 0.0], [1.0, 0.0]])
    """
    if a.shape[0] == 0:
        return -np.inf, np.zeros((0, 0))
    lam, vl, vr = sla.eig(a, left=True, right=True)
    k = int(np.argmax(lam.real))
    wl, v = vl[:, k], vr[:, k]
    denom = wl.conj() @ v
    if abs(denom) < 1e-14 * np.linalg.norm(wl) * np.linalg.norm(v):
        denom = 1e-14 * np.sign(denom.real or 1.0)
    grad = np.real(np.outer(wl.conj(), v) / denom)
    return float(lam[k].real), grad


def h2_gradient(a, b, c, d, dt=0.0):
    """H2 norm of a stable, strictly proper continuous model and its gradient w.r.t. S.

    ``J^2 = tr(C P C^T)`` with ``A P + P A^T + B B^T = 0`` and the observability
    Gramian ``Q``: ``dJ^2 = 2 tr(Q dA P) + 2 tr(Q B dB^T) + 2 tr(C P dC^T)``.
    Returns ``(inf, None)`` when ``A`` is not stable or ``D`` is not zero.

    Examples
    --------
    >>> import numpy as np
    >>> j, G = h2_gradient(np.array([[-2.0]]), np.array([[1.0]]), np.array([[2.0]]),
    ...                    np.array([[0.0]]))
    >>> round(float(j), 12)
    1.0
    """
    if dt != 0:
        raise NotImplementedError("the H2 gradient is implemented for continuous time")
    n = a.shape[0]
    if np.any(d != 0) or (n and np.max(np.linalg.eigvals(a).real) >= 0):
        return np.inf, None
    if n == 0:
        return 0.0, np.zeros((c.shape[0], b.shape[1]))
    p = sla.solve_continuous_lyapunov(a, -b @ b.T)
    q = sla.solve_continuous_lyapunov(a.T, -c.T @ c)
    j2 = float(np.trace(c @ p @ c.T))
    j = np.sqrt(max(j2, 0.0))
    ga = 2 * q @ p
    gb = 2 * q @ b
    gc = 2 * c @ p
    grad = np.block([[ga, gb], [gc, np.zeros(d.shape)]])
    return float(j), grad / (2 * j) if j > 0 else grad * 0
