"""Colours, labels and axes handling shared by the uncertain plots."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DimensionError

NOMINAL = {"color": "C0", "lw": 2.0, "zorder": 3}
WORST = {"color": "C3", "lw": 2.0, "zorder": 4}
SAMPLE = {"color": "0.7", "lw": 0.8, "zorder": 1}


@dataclass
class UncertainPlot:
    """What an uncertain plot returns: the artists and the data they show.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
    axes : numpy.ndarray of matplotlib.axes.Axes
        The axes drawn on (shape depends on the plot: ``(2 ny, nu)`` for
        ``bode``, ``(ny, nu)`` for time responses, ``(1, 1)`` otherwise).
    lines : dict
        ``{"samples": [...], "nominal": [...], "worst": [...]}``: the artists drawn
        for each kind of system (one list entry per system and axes).
    family : Family
        The systems drawn (nominal, samples and their values, worst case).
    data : dict
        The abscissa used (``"omega"`` in rad/s or ``"time"`` in s).
    """

    figure: object
    axes: np.ndarray
    lines: dict = field(default_factory=lambda: {"samples": [], "nominal": [], "worst": []})
    family: object = None
    data: dict = field(default_factory=dict)


def style(kind, index, fam, label_done):
    """Line style and legend label of one system of the family."""
    if kind == "nominal":
        kw = dict(NOMINAL)
        label = "nominal"
    elif kind == "worst":
        kw = dict(WORST)
        label = "worst case"
    else:
        kw = dict(SAMPLE)
        nsamp = len(fam.samples)
        if fam.grid:
            # Grid points are coloured in order along the grid and labelled with their values.
            import matplotlib

            cmap = matplotlib.colormaps["viridis"]
            kw["color"] = cmap(index / max(1, nsamp - 1))
            kw["lw"] = 1.2
            vals = fam.values[index]
            label = ", ".join(f"{k}={vals[k]:.3g}" for k in fam.grid) if nsamp <= 10 else None
            return kw, label
        label = f"{nsamp} random samples"
    if kind in label_done:
        label = None
    label_done.add(kind)
    return kw, label


def kind_key(kind):
    return {"sample": "samples", "nominal": "nominal", "worst": "worst"}[kind]


def axes_grid(ax, shape, *, sharex=True):
    """An array of axes of ``shape``: new ones on a new pyplot figure, or ``ax`` checked."""
    if ax is None:
        import matplotlib.pyplot as plt

        fig, axs = plt.subplots(
            *shape,
            squeeze=False,
            sharex=sharex,
            layout="constrained",
            figsize=(max(6.4, 3.2 * shape[1]), max(4.0, 2.2 * shape[0])),
        )
        return fig, axs
    axs = np.asarray(ax, dtype=object)
    if axs.size != int(np.prod(shape)):
        raise DimensionError(f"ax: this plot needs {shape[0]}x{shape[1]} axes, got {axs.size}")
    axs = axs.reshape(shape)
    return axs.flat[0].figure, axs


def default_omega(systems, npts=500):
    """Log-spaced frequencies covering the poles and zeros of every system (rad/s)."""
    mags = []
    nyq = None
    for s in systems:
        if s.isdtime(strict=True):
            nyq = np.pi / s.dt
            # Map discrete poles to continuous frequencies |log(z)| / dt.
            pz = np.concatenate([s.poles(), _zeros(s)])
            pz = pz[np.abs(pz) > 0]
            mags.append(np.abs(np.log(pz.astype(complex))) / s.dt)
        else:
            mags.append(np.abs(np.concatenate([s.poles(), _zeros(s)])))
    m = np.concatenate(mags) if mags else np.array([])
    m = m[np.isfinite(m) & (m > 1e-12)]
    lo, hi = (np.log10(m.min()), np.log10(m.max())) if m.size else (0.0, 0.0)
    lo, hi = np.floor(lo) - 1, np.ceil(hi) + 1
    if nyq is not None:
        hi = min(hi, np.log10(nyq))
        lo = min(lo, hi - 2)
    return np.logspace(lo, hi, npts)


def _zeros(s):
    try:
        z = np.asarray(s.zeros(), dtype=complex)
    except (ValueError, np.linalg.LinAlgError):  # degenerate systems: no zeros drawn
        z = np.array([], dtype=complex)
    return z[np.isfinite(z)]
