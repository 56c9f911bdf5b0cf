"""Static diagonal scaling of a square transfer: ``inf_D ||D M D^-1||_inf``.

At a loop-opening location with several channels, the multiloop disk margin is
``1 / mu(M)`` with ``M = S - I/2`` and a diagonal complex perturbation (one disk per
channel).  For every positive diagonal ``D``, ``mu(M(jw)) <= sigma_max(D M(jw) D^-1)``,
so ``alpha * ||D M D^-1||_inf <= 1`` guarantees the margin ``alpha``; its infimum over
static ``D`` (what MATLAB's ``TuningGoal.Margins`` uses with static scalings) does not
depend on the channels' units, which a change of units ``M -> T M T^-1`` (``T``
diagonal) only moves along ``D``.

:func:`optimal_scaling` finds that infimum by an outer frequency loop: ``D`` minimises
``max_{w in W} sigma_max(D M(jw) D^-1)`` over a finite set ``W`` (a convex function of
``log D``, Sezginer and Overton 1990), then the H-infinity norm of the scaled transfer
is computed; while it exceeds the level on ``W``, its peak frequency joins ``W``.  On
exit the scaled norm equals the minimum over ``W``, a lower bound of the infimum over
the whole axis, so ``D`` attains the infimum (to the inner tolerances).

:class:`DScaledLFT` presents a tunable LFT's scaled state-space data to the optimiser.
The scaling is re-optimised at every point; by the envelope theorem the gradient of
the scaled norm at the optimal ``D`` (held fixed) is a gradient of the infimum.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize, minimize_scalar

from ..analysis import hinfnorm

_MAX_FREQS = 30
Z_MAX = 30.0  # bound on |log D|


def _response(a, b, c, d, dt, w):
    """``M`` at the frequencies ``w`` (``inf``: the feedthrough ``D``), shape (k, p, p)."""
    out = []
    n = a.shape[0]
    for x in np.atleast_1d(w):
        if not np.isfinite(x) or n == 0:
            out.append(np.asarray(d, complex))
            continue
        s = np.exp(1j * x * dt) if dt else 1j * x
        out.append(c @ np.linalg.solve(s * np.eye(n) - a, b) + d)
    return np.array(out)


def _level(ms, z):
    """``max_k sigma_max(D M_k D^-1)`` with ``D = diag(1, exp(z))``."""
    dd = np.exp(np.concatenate(([0.0], z)))
    scaled = dd[None, :, None] * ms / dd[None, None, :]
    return float(np.linalg.svd(scaled, compute_uv=False)[:, 0].max())


def _minimise_on(ms, z0):
    """``log D`` minimising :func:`_level` (convex in ``z``), from ``z0``."""

    def f(z):
        # |log D| <= Z_MAX: a decoupled channel makes the level flat towards infinity
        z = np.clip(np.atleast_1d(z), -Z_MAX, Z_MAX)
        return np.log(max(_level(ms, z), 1e-300))

    if z0.size == 1:
        opts = {"xatol": 1e-10}
        r = minimize_scalar(f, bounds=(-Z_MAX, Z_MAX), method="bounded", options=opts)
        z = np.array([r.x])
    else:
        opts = {"xatol": 1e-9, "fatol": 1e-12, "maxiter": 4000 * z0.size}
        r = minimize(f, z0, method="Nelder-Mead", options=opts)
        z = np.asarray(r.x, float)
    return np.clip(z, -Z_MAX, Z_MAX)


def scaled_data(a, b, c, d, z):
    """``(A, B D^-1, D C, D Dm D^-1)`` for ``D = diag(1, exp(z))``.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.zeros((0, 0))
    >>> scaled_data(e, np.zeros((0, 2)), np.zeros((2, 0)), np.ones((2, 2)), [np.log(2.0)])[3]
    array([[1. , 0.5],
           [2. , 1. ]])
    """
    dd = np.exp(np.concatenate(([0.0], z)))
    return a, b / dd[None, :], dd[:, None] * c, dd[:, None] * d / dd[None, :]


def optimal_scaling(a, b, c, d, dt=0.0, z0=None, *, tol=1e-9):
    """``log`` of the static diagonal ``D`` minimising ``||D M D^-1||_inf`` and that norm.

    Parameters
    ----------
    a, b, c, d : ndarray
        State-space data of a stable square ``M`` (``p x p``, ``p >= 2``).
    dt : float
        Sample time (``0``: continuous).
    z0 : ndarray, optional
        Starting ``log D`` (entries 2..p; ``D[0] = 1``).
    tol : float
        Relative agreement between the scaled norm and the level on the frequency set.

    Returns
    -------
    z : ndarray
        ``log D[1:]``.
    gamma : float
        ``||D M D^-1||_inf`` (``inf`` when ``M`` is unstable; then ``z = z0``).

    Examples
    --------
    >>> import numpy as np
    >>> m = np.array([[0.0, 100.0], [0.01, 0.0]])  # sigma_max 100, D-scaled 1
    >>> z, g = optimal_scaling(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)), m)
    >>> round(float(g), 6), round(float(np.exp(z[0])), 4)
    (1.0, 100.0)
    """
    p = c.shape[0]
    z = np.zeros(p - 1) if z0 is None else np.asarray(z0, float).copy()
    gamma, w = _norm(*scaled_data(a, b, c, d, z), dt)
    if not np.isfinite(gamma):
        return z, np.inf
    freqs = [w]
    for _ in range(_MAX_FREQS):
        ms = _response(a, b, c, d, dt, freqs)
        z = _minimise_on(ms, z)
        level = _level(ms, z)
        gamma, w = _norm(*scaled_data(a, b, c, d, z), dt)
        if gamma <= level * (1 + tol) or any(np.isclose(w, f, rtol=1e-9) for f in freqs):
            break
        freqs.append(w)
    return z, gamma


def _norm(a, b, c, d, dt):
    try:
        g, w = hinfnorm((a, b, c, d, dt), tol=1e-10)
    except ValueError:  # an unstable transfer
        return np.inf, np.nan
    return float(g), float(w)


class DScaledLFT:
    """A tunable LFT's square transfer, scaled by its optimal static diagonal ``D``.

    ``statespace(x)`` gives ``D(x) M(x) D(x)^-1`` with ``D(x)`` from
    :func:`optimal_scaling` (warm-started at the last point); ``chain`` maps a
    gradient with respect to the scaled data back through the fixed ``D``.  Other
    attributes are the wrapped LFT's.

    Examples
    --------
    >>> import control, numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    >>> k = rmb.realp("k", 1.0)
    >>> M = rmb.umat([[0.0, 100.0 * k], [0.01, 0.0]])
    >>> lft = DScaledLFT(TunableLFT(M, ParameterVector(M.tunables)))
    >>> d = lft.statespace(np.array([4.0]))[3]  # [[0, 400], [0.01, 0]] scaled: 2 and 2
    >>> np.round(np.abs(d), 6).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """

    def __init__(self, lft):
        self.lft = lft
        self._z = None
        self._key = None

    def __getattr__(self, name):
        # only for attributes not found on the wrapper; none before __init__ (copy, pickle)
        if name.startswith("__") or "lft" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.__dict__["lft"], name)

    def scaling(self, x):
        """``log D[1:]`` at ``x``."""
        key = np.asarray(x, float).tobytes()
        if self._key != key:
            a, b, c, d = self.lft.statespace(x)
            self._z, _ = optimal_scaling(a, b, c, d, self.lft.dt, self._z)
            self._key = key
        return self._z

    def statespace(self, x):
        a, b, c, d = self.lft.statespace(x)
        return scaled_data(a, b, c, d, self.scaling(x))

    def chain(self, x, grad_s):
        dd = np.exp(np.concatenate(([0.0], self.scaling(x))))
        n = self.lft.nx
        left = np.concatenate((np.ones(n), dd))  # S_scaled = diag(I, D) S diag(I, D^-1)
        right = np.concatenate((np.ones(n), 1.0 / dd))
        return self.lft.chain(x, grad_s * np.outer(left, right))


def goal_lft(goal, model, lft):
    """The LFT a goal's term measures: D-scaled for a multi-channel D-scaled goal.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.tuning import Margins
    >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    >>> M = rmb.umat(rmb.realp("K", [[1.0, 2.0], [0.0, 1.0]]))
    >>> lft = TunableLFT(M, ParameterVector(M.tunables))
    >>> type(goal_lft(Margins("u"), M, lft)).__name__
    'DScaledLFT'
    """
    if getattr(goal, "dscaled", False) and model.shape[0] > 1:
        return DScaledLFT(lft)
    return lft
