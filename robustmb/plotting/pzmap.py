"""Pole-zero map of an uncertain system."""

from __future__ import annotations

import numpy as np

from ._style import NOMINAL, SAMPLE, WORST, UncertainPlot, _zeros, axes_grid
from .family import family


def pzmap(usys, *, n=20, worst=None, ax=None, seed=None, grid=None, zeros=True):
    """Poles (x) and transmission zeros (o) of the nominal, samples and worst case.

    Parameters
    ----------
    usys, n, worst, ax, seed, grid
        As in :func:`~robustmb.plotting.bode` (``ax`` is one axes).
    zeros : bool
        Also draw the transmission zeros.

    Returns
    -------
    UncertainPlot
        ``.lines[kind]`` hold, per system, ``(poles, zeros)`` marker lines (``zeros``
        is None when not drawn).  For a discrete system the unit circle is drawn.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> out = plotting.pzmap(1 / (control.tf("s") + a), n=3, seed=0)
    >>> out.lines["nominal"][0][0].get_xdata()
    array([-1.])
    """
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    fig, axs = axes_grid(ax, (1, 1))
    a = axs[0, 0]
    out = UncertainPlot(fig, axs, family=fam)
    base = {"sample": SAMPLE, "nominal": NOMINAL, "worst": WORST}
    size = {"sample": 5, "nominal": 9, "worst": 9}
    names = {"sample": f"{len(fam.samples)} samples", "nominal": "nominal", "worst": "worst case"}
    done = set()
    for kind, _k, sys in fam.systems():
        color = base[kind]["color"]
        zo = base[kind]["zorder"]
        label = None if kind in done else names[kind]
        done.add(kind)
        p = np.asarray(sys.poles(), dtype=complex)
        (lp,) = a.plot(
            p.real,
            p.imag,
            "x",
            color=color,
            ms=size[kind],
            mew=1.5,
            ls="none",
            zorder=zo,
            label=f"{label}: poles" if label else None,
        )
        lz = None
        if zeros:
            z = _zeros(sys)
            (lz,) = a.plot(
                z.real,
                z.imag,
                "o",
                mfc="none",
                color=color,
                ms=size[kind],
                ls="none",
                zorder=zo,
                label=f"{label}: zeros" if label else None,
            )
        key = {"sample": "samples"}.get(kind, kind)
        out.lines[key].append((lp, lz))
    if fam.nominal.isdtime(strict=True):
        th = np.linspace(0, 2 * np.pi, 400)
        a.plot(np.cos(th), np.sin(th), color="k", lw=0.8)
        a.set_aspect("equal")
    else:
        a.axvline(0.0, color="k", lw=0.8)
    a.axhline(0.0, color="k", lw=0.5)
    a.set_xlabel("real")
    a.set_ylabel("imaginary")
    a.grid(True, alpha=0.3)
    a.legend(fontsize=8, loc="best")
    return out
