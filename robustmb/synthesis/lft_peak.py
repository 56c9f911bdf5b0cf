"""The frequency-wise peak of a closed loop ``Fl(P, K)`` evaluated from ``P`` and ``K``.

:func:`.hinfsyn.hinfsyn` verifies each controller twice: by :func:`robustmb.hinfnorm` of
the closed loop's realisation and by ``sigma_max(Fl(P(jw), K(jw)))`` with ``P`` and ``K``
evaluated separately (:func:`.plant.lft_response`), which stays accurate on stiff loops
whose closed-loop realisation does not; the reported norm is the larger.
"""

from __future__ import annotations

import numpy as np

from .plant import lft_response

__all__ = ["fl_peak", "fl_sigma"]

# Rounds of the zoom refining the frequency-wise peak in ``_fl_peak`` (8-fold each:
# 12 rounds take a bracket from the grid spacing to below 1e-10 relative).
_ZOOM_ROUNDS = 12


def fl_sigma(plant, K, w):
    """``sigma_max(Fl(P(jw), K(jw)))`` at the frequencies ``w``, ``-inf`` where the
    response is not finite (on a pole of ``P`` or ``K``).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> o, z = np.ones((1, 1)), np.zeros((1, 1))
    >>> P = Plant(-o, o, o, o, o, z, z, z, z, 0.0)  # z = w/(s+1), y = u/(s+1)
    >>> K0 = (np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0)), z)  # u = 0
    >>> fl_sigma(P, K0, [0.0, 1.0]).round(6)  # |1 / (jw + 1)|
    array([1.      , 0.707107])
    """
    F = lft_response(plant, K, np.atleast_1d(w))
    out = np.full(len(F), -np.inf)
    good = np.all(np.isfinite(F), axis=(1, 2))
    if np.any(good):
        out[good] = np.linalg.norm(F[good], 2, axis=(1, 2)) if F.shape[1] * F.shape[2] else 0
    return out


def fl_peak(plant, K, peak):
    """``(value, frequency)`` of the largest ``sigma_max(Fl(P, K))`` near ``peak``.

    Grid: ``peak`` times 161 log-spaced factors over four decades either side (1 rad/s
    when ``peak`` is 0 or infinite), 0, and the natural frequencies of the plant and of
    the controller; the bracket between the best grid point's neighbours (between ``-w1``
    and ``w1`` when the best point is 0: real data give an even ``sigma``) is refined by
    rounds of 17-point grids, each cutting it 8-fold, down to a relative width of 1e-10
    (around 0, of 1e-10 times the reference frequency) or until the 17 values agree to
    1e-13.
    Discrete time: frequencies above the Nyquist frequency are dropped.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> o, z = np.ones((1, 1)), np.zeros((1, 1))
    >>> P = Plant(-o, o, o, o, o, z, z, z, z, 0.0)
    >>> K0 = (np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0)), z)
    >>> value, frequency = fl_peak(P, K0, 1.0)  # 1 / (s + 1) peaks at w = 0
    >>> round(value, 9), frequency
    (1.0, 0.0)
    """
    ref = peak if np.isfinite(peak) and peak > 0 else 1.0
    lam = np.r_[np.linalg.eigvals(plant.A), np.linalg.eigvals(np.asarray(K[0], float))]
    if plant.dt:
        lam = np.abs(np.angle(lam[lam != 0])) / plant.dt
    w = np.r_[0.0, ref * np.logspace(-4, 4, 161), np.abs(lam)]
    if np.isfinite(peak):
        w = np.r_[w, peak]
    if plant.dt:
        w = np.r_[w[w <= np.pi / plant.dt], np.pi / plant.dt]
    w = np.unique(w[np.isfinite(w)])
    vals = fl_sigma(plant, K, w)
    k = int(np.argmax(vals))
    best, wbest = float(vals[k]), float(w[k])
    lo, hi = w[max(k - 1, 0)], w[min(k + 1, len(w) - 1)]
    if k == 0 and wbest == 0.0:
        # real data: sigma is even in w, so a peak at 0 is interior to [-hi, hi]
        lo = -hi
    # zoom: 17 points between the best point's neighbours per round, the bracket cut to
    # the best one's neighbours (8-fold); a batch of 17 costs about one point
    # around w = 0 the width is also measured against ``ref``: sigma is even and smooth
    # there, and zooming on to 1e-15 rad/s only probed the rounding of a plant pole at
    # s = 0 (an integrator in a non-diagonal realisation: 5.270250 for a loop of norm
    # 5.270216, 1e-14 rad/s from the pole)
    floor = ref if k == 0 and wbest == 0.0 else 0.0
    for _ in range(_ZOOM_ROUNDS):
        width = max(abs(lo), abs(hi), floor)
        if not (hi > lo and np.isfinite(best)) or hi - lo <= 1e-10 * width:
            break
        grid = np.linspace(lo, hi, 17)
        vals = fl_sigma(plant, K, grid)
        j = int(np.argmax(vals))
        if not np.isfinite(vals[j]):
            break
        if vals[j] > best:
            best, wbest = float(vals[j]), float(abs(grid[j]))
        if np.all(np.isfinite(vals)) and vals[j] - vals.min() <= 1e-13 * vals[j]:
            break  # flat to rounding across the bracket: the peak value is found
        lo, hi = grid[max(j - 1, 0)], grid[min(j + 1, 16)]
    return best, wbest
