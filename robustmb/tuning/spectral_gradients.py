"""Spectral abscissa and spectral radius of ``A`` and their gradients w.r.t. ``A``.

For a simple eigenvalue ``lambda`` with right and left eigenvectors ``v``, ``w``,
``d lambda = w^H dA v / (w^H v)``: the stability measures of the tuning engine (the
barrier and the pole goals) are ``Re lambda`` of the rightmost eigenvalue (continuous
time) and ``|lambda| - 1`` of the largest (discrete time).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla


def _eigen_derivative(a, pick):
    """Eigenvalue ``lambda_k`` chosen by ``pick(lam)`` and ``d lambda_k / dA``.

    The derivative is ``conj(w) v^T / (w^H v)`` (as a matrix over the entries of ``A``);
    ``w^H v`` is floored at ``1e-14 |w| |v|`` so a defective eigenvalue gives a large
    finite gradient instead of a division by zero.
    """
    lam, vl, vr = sla.eig(a, left=True, right=True)
    k = int(pick(lam))
    wl, v = vl[:, k], vr[:, k]
    denom = wl.conj() @ v
    if abs(denom) < 1e-14 * np.linalg.norm(wl) * np.linalg.norm(v):
        denom = 1e-14 * np.sign(denom.real or 1.0)
    return lam[k], np.outer(wl.conj(), v) / denom


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
    lam, dlam = _eigen_derivative(a, lambda lam: np.argmax(lam.real))
    return float(lam.real), np.real(dlam)


def spectral_radius_gradient(a):
    """``max |lambda(A)| - 1`` (negative: a stable discrete loop) and its gradient w.r.t. ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> r, G = spectral_radius_gradient(np.array([[0.5, 1.0], [0.0, -0.8]]))
    >>> round(r, 12), (G.round(6) + 0.0).tolist()  # + 0.0: no signed zeros
    (-0.2, [[0.0, 0.0], [0.769231, -1.0]])
    """
    if a.shape[0] == 0:
        return -np.inf, np.zeros((0, 0))
    lam, dlam = _eigen_derivative(a, lambda lam: np.argmax(np.abs(lam)))
    mag = max(abs(lam), 1e-300)
    return float(abs(lam) - 1.0), np.real(np.conj(lam) / mag * dlam)
