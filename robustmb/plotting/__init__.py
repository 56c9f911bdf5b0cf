"""Plots of uncertain systems on matplotlib.

Each function draws the nominal system, ``n`` random samples (``usample``) or
the points of a ``grid`` of parameter values, and the worst case of an analysis
result given as ``worst=``; it returns an :class:`UncertainPlot` holding the
figure, the axes, the artists and the systems drawn.  ``import robustmb`` does
not import matplotlib: this module is loaded on first use of
``robustmb.plotting``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import control, robustmb as rmb
>>> m = rmb.ureal("m", 1.0, percent=20)
>>> s = control.tf("s")
>>> G = 1 / (m * s**2 + 0.4 * s + 1)
>>> out = rmb.plotting.step(G, n=20, seed=0)
>>> len(out.lines["samples"])
20
"""

from ._style import UncertainPlot
from .family import Family, family, grid_points, worst_values
from .frequency import bode, nyquist, sigma, wcsigma
from .mu import mu_bounds
from .pzmap import pzmap
from .time import impulse, step

__all__ = [
    "Family",
    "UncertainPlot",
    "bode",
    "family",
    "grid_points",
    "impulse",
    "mu_bounds",
    "nyquist",
    "pzmap",
    "sigma",
    "step",
    "wcsigma",
    "worst_values",
]
