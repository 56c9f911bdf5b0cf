"""Frequency grids of the D-K iteration and the choice of the returned controller.

The D-step grid starts from the plant's poles and follows the closed loops' poles; the
returned controller is the iteration whose loop has the smallest *certified* robust
performance peak (a grid peak is only a lower estimate).
"""

from __future__ import annotations

import numpy as np

from robustmb.analysis import freqresp, mussv
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.errors import warn

from .bilinear_map import controller_from_continuous, flip_controller
from .plant import as_controller, closed_loop

_REL_GAP = 1e-2  # the certification's level above the grid peak (keeps the cover short)


def _default_grid(A):
    """Default D-step grid: 60 points from two decades below the plant's slowest pole to
    two above its fastest, and its density in points per decade."""
    poles = np.abs(np.linalg.eigvals(A)) if A.size else np.array([1.0])
    poles = poles[poles > 1e-8] if np.any(poles > 1e-8) else np.array([1.0])
    lo, hi = np.log10(poles.min()) - 2, np.log10(poles.max()) + 2
    return np.logspace(lo, hi, 60), 60 / (hi - lo)


def _widened_grid(omega, A, density):
    """``omega`` extended, at the same density, to a decade beyond the moduli of the
    eigenvalues of ``A`` (a closed loop's poles): the mu peak of a loop sits near its
    poles, and a controller's fast poles can move it out of the plant's band."""
    poles = np.abs(np.linalg.eigvals(A)) if A.size else np.array([])
    poles = poles[(poles > 1e-8) & np.isfinite(poles)]
    lo, hi = np.log10(omega.min()), np.log10(omega.max())
    if poles.size:
        lo = min(lo, np.log10(poles.min()) - 1)
        hi = max(hi, np.log10(poles.max()) + 1)
    if lo >= np.log10(omega.min()) and hi <= np.log10(omega.max()):
        return omega
    return np.logspace(lo, hi, max(omega.size, int(np.ceil((hi - lo) * density)) + 1))


def _grid_peak(N, omega, blk):
    """Grid peak of the robust-performance mu upper bound of the loop ``N``."""
    return float(np.max(mussv(freqresp(N, omega), blk, lower=False).upper))


def _certify(K, full, flip, blk):
    """The controller for the plant as given and the whole-axis certificate of its loop.

    ``K`` acts on the working (continuous) plant; for a discrete plant it is mapped back
    and the discrete loop is certified over the unit circle.  The certification's level
    1 % above the grid peak keeps the interval cover short; when the cover cannot be
    closed, ``.upper`` is ``inf``.
    """
    if full.dt > 0:
        Kd = controller_from_continuous((K.A, K.B, K.C, K.D))
        Kd = flip_controller(Kd) if flip else Kd
        Kr, N = as_controller(Kd, full.controller_dt), closed_loop(full, Kd)
    else:
        Kr, N = K, closed_loop(full, (K.A, K.B, K.C, K.D))
    cert = certified_mu_peak((N.A, N.B, N.C, N.D), blk, dt=full.dt, lower=False,
                             rel_gap=_REL_GAP)  # fmt: skip
    return Kr, cert


def _select(cands, omega, blk, full, flip, history):
    """The returned controller: the smallest certified peak among the iterations'.

    Every candidate's grid peak is recomputed on the final grid (the widest one when the
    default grid follows the loops); candidates are certified in the order of those
    peaks until the best certified peak is within the certification's gap of its grid
    peak, or no uncertified candidate has a grid peak below it (a grid peak is a lower
    estimate, so such a candidate cannot certify lower).  Each entry of ``history`` gets
    ``final_mu_peak``, the chosen one ``selected``.  Warns when the certified peak still
    exceeds the chosen loop's grid peak by more than the gap: the grid missed the peak.
    """
    peaks = []
    for it, _, N in cands:
        p = _grid_peak(N, omega, blk)
        history[it - 1]["final_mu_peak"] = p
        peaks.append(p)
    order = np.argsort(peaks, kind="stable")
    best = None  # (certified peak, grid peak, iteration, controller, certificate)
    for i in order:
        if best is not None and (best[0] <= best[1] * (1 + _REL_GAP) or peaks[i] >= best[0]):
            break
        it, K, _ = cands[i]
        Kr, cert = _certify(K, full, flip, blk)
        # the certificate's lower bound is a value of mu at a frequency: a grid point too
        grid = max(peaks[i], float(cert.lower))
        if best is None or float(cert.upper) < best[0]:
            best = (float(cert.upper), grid, it, Kr, cert)
    mu, grid, it, K, cert = best
    history[it - 1]["selected"] = True
    if mu > grid * (1 + _REL_GAP):
        warn(
            f"musyn: the certified peak mu {mu:.4g} of the returned controller (iteration "
            f"{it}) exceeds its grid peak {grid:.4g} by more than {100 * _REL_GAP:g} %: "
            "the frequency grid misses the peak (pass a denser or wider omega)"
        )
    return K, cert
