"""Plot of the mu bounds carried by an analysis result."""

from __future__ import annotations

import numpy as np

from ..analysis.mu_sweep import MuPeak
from ..analysis.mussv import MussvResult
from ..analysis.robust_stability import RobstabResult
from ..analysis.worst_case_gain import WcgainResult
from ..errors import ArgumentError, DimensionError, UncertainTypeError
from ._style import UncertainPlot, axes_grid, fmt_upper


def certified_peak(result):
    """The certified peak of mu of a robstab or wcgain result (or a MuPeak), or None.

    ``min(result.mu.upper, 1 / result.lower)`` for a robstab result with a positive
    margin: the margin may be certified by another test (vertex polytope, branch and
    bound) than the sweep, which is then evidence at a looser level; the sweep's
    peak ``mu.upper`` otherwise (``None`` when infinite).

    Examples
    --------
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    >>> rs = rmb.robstab(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1))
    >>> bool(abs(certified_peak(rs) - 1 / rs.lower) < 1e-12)  # closed form 3/5
    True
    """
    mu = result if isinstance(result, MuPeak) else getattr(result, "mu", None)
    if not isinstance(mu, MuPeak):
        raise UncertainTypeError(
            "mu_bounds takes a robstab or wcgain result (with its .mu evidence), a MuPeak "
            f"or a mussv result over frequency, got {type(result).__name__}"
        )
    peak = mu.upper if np.isfinite(mu.upper) else None
    if isinstance(result, RobstabResult) and result.lower > 0:
        peak = min(peak if peak is not None else np.inf, 1.0 / result.lower)
    return peak


def _bounds(result, omega):
    """``(omega, upper, lower, peak)`` of a result; ``peak`` is the certified peak or None."""
    if isinstance(result, MussvResult):
        up = np.atleast_1d(np.asarray(result.upper, dtype=float))
        lo = np.atleast_1d(np.asarray(result.lower, dtype=float))
        if omega is None:
            raise DimensionError("a mussv result carries no frequencies: pass omega=")
        w = np.asarray(omega, dtype=float)
        if w.ndim != 1:
            raise DimensionError(f"omega must be a 1-D array of frequencies, got shape {w.shape}")
        if w.shape != up.shape:
            raise DimensionError(
                f"omega has {w.size} frequencies but the mussv result has {up.size} bounds"
            )
        return w, up, lo, None
    peak = certified_peak(result)
    if omega is not None:
        raise ArgumentError(
            "mu_bounds: omega is only for a mussv result; a robstab or wcgain result "
            "(or a MuPeak) carries the frequencies it evaluated"
        )
    mu = result if isinstance(result, MuPeak) else result.mu
    order = np.argsort(mu.omega)
    return mu.omega[order], mu.mu_upper[order], mu.mu_lower[order], peak


def mu_bounds(result, *, ax=None, omega=None, Hz=False):
    """Pointwise mu upper and lower bounds over frequency.

    The lower bound is drawn only where it was computed (it is 0 where the search
    was skipped), and the certified peak of the upper bound as a dotted line.  For
    a :func:`~robustmb.robstab` result, ``mu = 1`` marks the declared ranges
    (stability margin ``= 1 / peak mu``) and the certified peak is ``1 / result.lower``
    when that is lower than the sweep's: on small all-real loops the margin is
    certified by the vertex polytope and the curve, evidence swept at a looser level
    (``result.mu.upper``), may lie above that line.  For a :func:`~robustmb.wcgain` result the
    curve is the mu of the performance test at the level ``result.upper``: staying
    below 1 everywhere is what certifies that bound.

    Parameters
    ----------
    result : RobstabResult, WcgainResult, MuPeak or MussvResult
        A mussv result needs its frequencies as ``omega``.
    ax : matplotlib axes, optional
    omega : array_like, optional
        Frequencies (rad/s) of a mussv result over frequency (only then: the other
        results carry their own, and an ``omega`` given with them is an error).
    Hz : bool
        Frequency axis in Hz.

    Returns
    -------
    UncertainPlot
        ``.lines`` has ``"upper"``, ``"lower"`` (or ``[]``), ``"peak"`` (or ``[]``) and
        ``"zero"`` (the bound at ``omega = 0``, drawn at the left edge, or ``[]``);
        ``.data`` has ``"omega"``, ``"upper"``, ``"lower"``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    >>> rs = rmb.robstab(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1))
    >>> out = plotting.mu_bounds(rs)
    >>> out.axes[0, 0].get_ylabel()
    'μ'
    """
    w, up, lo, peak = _bounds(result, omega)
    fig, axs = axes_grid(ax, (1, 1))
    a = axs[0, 0]
    out = UncertainPlot(fig, axs, lines={}, data={"omega": w, "upper": up, "lower": lo})
    x = w / (2 * np.pi) if Hz else w
    pos = w > 0  # omega = 0 has no place on a log axis
    out.lines["upper"] = a.semilogx(x[pos], up[pos], color="C3", lw=1.8, label="μ upper bound")
    has = pos & (lo > 0)
    out.lines["lower"] = (
        a.semilogx(
            x[has], lo[has], color="C0", lw=1.4, ls="--", marker=".", ms=3, label="μ lower bound"
        )
        if has.any()
        else []
    )
    out.lines["zero"] = []
    if np.any(~pos):
        # omega = 0 has no place on a log axis: its bound is drawn at the left edge
        k0 = int(np.flatnonzero(~pos)[0])
        x0 = (x[pos].min() if pos.any() else 1.0) / 2.0
        out.lines["zero"] = a.semilogx(
            [x0], [up[k0]], marker="<", ms=8, ls="none", color="C3", label="μ upper bound at ω = 0"
        )
    out.lines["peak"] = (
        [a.axhline(peak, color="C3", lw=0.9, ls=":", label=f"certified peak {fmt_upper(peak)}")]
        if peak is not None
        else []
    )
    if hasattr(result, "destabilizing"):
        a.axhline(1.0, color="k", lw=0.9, label="μ = 1: declared ranges")
    elif isinstance(result, WcgainResult):
        a.axhline(1.0, color="k", lw=0.9, label=f"μ = 1: peak gain {fmt_upper(result.upper)}")
    a.set_xlabel("frequency (Hz)" if Hz else "frequency (rad/s)")
    a.set_ylabel("μ")
    a.set_ylim(bottom=0)
    a.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=8, loc="best")
    return out
