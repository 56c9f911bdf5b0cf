"""Colours, labels and axes handling shared by the uncertain plots."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ArgumentError

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
        label = fam.worst_label
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
    from matplotlib.axes import Axes

    need = f"{shape[0]}x{shape[1]} matplotlib Axes"
    if isinstance(ax, str) or not (isinstance(ax, Axes) or np.iterable(ax)):
        raise ArgumentError(f"ax: this plot needs {need}, got {type(ax).__name__}")
    axs = np.empty(1, dtype=object)
    axs[0] = ax
    if not isinstance(ax, Axes):
        # an array or nested list of axes (np.asarray would unpack nothing else)
        axs = np.asarray(ax, dtype=object).ravel()
    bad = [type(a).__name__ for a in axs.flat if not isinstance(a, Axes)]
    if bad:
        raise ArgumentError(f"ax: this plot needs {need}, got an entry of type {bad[0]}")
    if axs.size != int(np.prod(shape)):
        raise ArgumentError(f"ax: this plot needs {need}, got {axs.size}")
    axs = axs.reshape(shape)
    return axs.flat[0].figure, axs


LIGHT_DAMPING = 0.2  # modes below this damping ratio get their exact peak frequency
# offsets from the peak in half-bandwidths (zeta wn): dense at the peak, out to 40
_BAND = np.sinh(np.linspace(-np.arcsinh(40.0), np.arcsinh(40.0), 31))
MAX_REFINED_MODES = 400  # modes given a band of points, the most lightly damped first
MAX_PEAK_POINTS = 2000  # modes given their exact peak frequency


def _modes(s):
    """``(wn, zeta)`` of the poles and zeros of ``s`` (discrete ones mapped by log(z)/dt)."""
    pz = np.concatenate([np.asarray(s.poles(), dtype=complex), _zeros(s)])
    if s.isdtime(strict=True):
        pz = pz[np.abs(pz) > 0]
        pz = np.log(pz) / s.dt
    pz = pz[np.isfinite(pz)]
    wn = np.abs(pz)
    with np.errstate(invalid="ignore", divide="ignore"):
        zeta = np.where(wn > 0, -pz.real / np.where(wn > 0, wn, 1.0), 1.0)
    return wn, zeta


def default_omega(systems, npts=500):
    """Frequencies (rad/s) covering the poles and zeros of every system, refined at resonances.

    ``npts`` log-spaced points (ratio ``r`` between neighbours) span a decade below
    the smallest to a decade above the largest pole or zero magnitude (up to the
    Nyquist frequency ``pi / dt`` in discrete time).  Every lightly damped pole or
    zero (damping ratio ``0 < |zeta| < 0.2``, natural frequency ``wn``) adds the
    exact peak (or notch) frequency ``wn sqrt(1 - 2 zeta^2)`` of its second-order
    factor, and when its relative half-bandwidth ``zeta`` is below ``2 (r - 1)``
    (narrower than the log grid resolves) 31 points in ``wn (1 +- 40 zeta)``,
    densest at the peak: a log grid alone misses a resonance of relative width
    ``2 zeta`` (a peak of ``1 / (2 zeta)`` drawn at 0.1 of its height when
    ``zeta = 1e-3``).  Bands go to at most ``MAX_REFINED_MODES`` (400) modes and
    peak frequencies to at most ``MAX_PEAK_POINTS`` (2000), the most lightly damped
    first, so the grid has at most ``npts + 31 * 400 + 2000`` points; it is built
    without a Python loop over the modes.

    Examples
    --------
    >>> import control
    >>> s = control.tf("s")
    >>> w = default_omega([1 / (s**2 + 2e-4 * s + 100)])  # zeta = 1e-5 at 10 rad/s
    >>> H = 1 / ((1j * w) ** 2 + 2e-4 * 1j * w + 100)
    >>> bool(abs(abs(H).max() * 2e-3 * (1 - 1e-10) ** 0.5 - 1) < 1e-9)
    True
    """
    wns, zetas = [], []
    nyq = None
    for s in systems:
        if s.isdtime(strict=True):
            nyq = np.pi / s.dt if nyq is None else min(nyq, np.pi / s.dt)
        wn, zeta = _modes(s)
        wns.append(wn)
        zetas.append(zeta)
    wn = np.concatenate(wns) if wns else np.array([])
    zeta = np.concatenate(zetas) if zetas else np.array([])
    m = wn[np.isfinite(wn) & (wn > 1e-12)]
    lo, hi = (np.log10(m.min()), np.log10(m.max())) if m.size else (0.0, 0.0)
    lo, hi = np.floor(lo) - 1, np.ceil(hi) + 1
    if nyq is not None:
        hi = min(hi, np.log10(nyq))
        lo = min(lo, hi - 2)
    base = np.logspace(lo, hi, npts)
    light = np.isfinite(wn) & (wn > 1e-12) & (np.abs(zeta) > 0) & (np.abs(zeta) < LIGHT_DAMPING)
    wn, zeta = wn[light], np.abs(zeta[light])
    if not wn.size:
        return base
    # one entry per distinct mode (samples share many), the lightest damped first
    key = np.unique(np.round(np.c_[np.log(wn), np.log(zeta)], 12), axis=0, return_index=True)[1]
    wn, zeta = wn[key], zeta[key]
    order = np.argsort(zeta, kind="stable")[:MAX_PEAK_POINTS]
    wn, zeta = wn[order], zeta[order]
    peak = wn * np.sqrt(1.0 - 2.0 * zeta**2)
    ratio = 10 ** ((hi - lo) / max(npts - 1, 1)) - 1.0
    narrow = np.flatnonzero(zeta < 2.0 * ratio)[:MAX_REFINED_MODES]
    band = peak[narrow, None] + (zeta * wn)[narrow, None] * _BAND[None, :]
    extra = np.concatenate([band.ravel(), peak])
    extra = extra[(extra > 0) & (extra <= (nyq if nyq is not None else np.inf))]
    return np.unique(np.concatenate([base, extra]))


def with_frequencies(w, extra, nyq=None):
    """``w`` with the finite positive frequencies of ``extra`` inserted (sorted, unique)."""
    extra = np.asarray([float(x) for x in extra], dtype=float)
    extra = extra[np.isfinite(extra) & (extra > 0)]
    if nyq is not None:
        extra = extra[extra <= nyq]
    return np.unique(np.concatenate([w, extra])) if extra.size else w


def log_x(x, xs):
    """Where to draw an abscissa ``x`` on a log axis showing ``xs``: ``x`` itself when
    positive, else the left edge (half the smallest positive abscissa), with a marker
    pointing left ("<") instead of a dot."""
    if x > 0:
        return x, "o"
    pos = np.asarray(xs)[np.asarray(xs) > 0]
    return (pos.min() if pos.size else 1.0) / 2.0, "<"


def _zeros(s):
    try:
        z = np.asarray(s.zeros(), dtype=complex)
    except (ValueError, np.linalg.LinAlgError):  # degenerate systems: no zeros drawn
        z = np.array([], dtype=complex)
    return z[np.isfinite(z)]


def fmt_lower(x, digits=4, scale=1):
    """A lower bound for a legend, rounded down (:func:`robustmb.report.bound_format.fmt_bound`).

    Examples
    --------
    >>> fmt_lower(2.45319), fmt_upper(2.46541)
    ('2.453', '2.466')
    """
    from ..report.bound_format import fmt_lower as fmt  # the report imports plotting

    return fmt(x, digits, scale)


def fmt_upper(x, digits=4, scale=1):
    """An upper bound for a legend, rounded up (see :func:`fmt_lower`)."""
    from ..report.bound_format import fmt_upper as fmt

    return fmt(x, digits, scale)
