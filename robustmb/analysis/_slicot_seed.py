"""SLICOT's AB13DD as a seed of the level-set iteration: its peak frequency only.

The value AB13DD reports is not used (for stiff models it can be off by more than the
tolerance); the frequency starts :func:`.norms.peak_gain`, which certifies the value.
"""

from __future__ import annotations

import numpy as np

__all__ = ["slicot_peak_frequency"]


def slicot_peak_frequency(A, B, C, D, dt, tol):
    """AB13DD's peak frequency (internal units: rad/s, or rad/sample), or None."""
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    if n == 0 or m == 0 or p == 0 or any(np.iscomplexobj(M) for M in (A, B, C, D)):
        return None
    try:
        import slycot

        _, fpeak = slycot.ab13dd(
            "D" if dt else "C",
            "I",
            "N",
            "D" if np.any(D) else "Z",
            n,
            m,
            p,
            A.copy(),
            np.eye(n),
            B.copy(),
            C.copy(),
            D.copy(),
            tol,
        )
    except Exception:  # noqa: BLE001  (any failure only means no seed)
        return None
    fpeak = float(fpeak)
    if np.isnan(fpeak) or fpeak < 0:
        return None
    return fpeak
