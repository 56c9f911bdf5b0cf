"""Warnings of :mod:`robustmb.analysis.freqresp` for points on or near a pole."""

from __future__ import annotations

import numpy as np

from robustmb.errors import warn

_EPS = np.finfo(float).eps


def _warn_near_pole(A, poles, omega, dt, response):
    """Warn at finite responses whose point is within ``16 eps ||A||_1`` of a computed pole:
    a rounding-level change of ``A`` can put the pole on the point, so the value there is
    set by the rounding of the realisation (points exactly on a pole already warned)."""
    if poles is None or poles.size == 0 or omega.size == 0:
        return
    finite = np.isfinite(omega)
    points = np.exp(1j * omega[finite] * dt) if dt else 1j * omega[finite]
    radius = 16.0 * _EPS * np.linalg.norm(A, 1)
    distance = np.min(np.abs(points[:, None] - poles[None, :]), axis=1)
    near = distance <= radius
    near &= np.all(np.isfinite(response[finite]), axis=(1, 2))
    if np.any(near):
        first = omega[finite][near][0]
        warn(
            f"omega = {first!r} (and {int(np.sum(near)) - 1} more) lies within rounding "
            "distance of a pole of the realisation; the response there is set by the "
            "rounding of the matrices and may be off by any factor",
            RuntimeWarning,
        )


def _warn_on_pole(labels: np.ndarray, model: str = "the model") -> None:
    """Warn that the response at these points (labelled as the caller gave them) is inf."""
    warn(
        f"evaluation at {labels.size} point(s) on a pole of {model} "
        f"(first: {labels[0]!r}); the response there is returned as inf",
        RuntimeWarning,
    )
