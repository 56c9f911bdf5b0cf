"""Time responses of uncertain systems: ``step`` and ``impulse``."""

from __future__ import annotations

import control
import numpy as np

from ..errors import DimensionError
from ._style import UncertainPlot, axes_grid, kind_key, style
from .family import family


def default_time(systems, npts=1000):
    """A time vector long enough for the slowest stable mode of every system to settle.

    Seven time constants of the slowest decaying pole (at least ten periods of the
    fastest oscillation shown in 1000 points); discrete systems use their sample time.
    """
    tfinal, dt = 0.0, None
    for s in systems:
        p = np.asarray(s.poles(), dtype=complex)
        if s.isdtime(strict=True):
            dt = s.dt
            p = np.log(p[np.abs(p) > 0]) / s.dt
        decay = -p.real[p.real < -1e-12]
        if decay.size:
            tfinal = max(tfinal, 7.0 / decay.min())
        elif p.size:
            # Only poles on or right of the axis: show a few of their periods.
            freq = np.abs(p.imag).max()
            tfinal = max(tfinal, 20.0 / freq if freq > 0 else 10.0)
    if tfinal == 0.0:
        tfinal = 1.0
    if dt is not None:
        return np.arange(0.0, max(tfinal, 10 * dt) + dt / 2, dt)
    return np.linspace(0.0, tfinal, npts)


def _response(which, usys, n, worst, ax, T, seed, grid):
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    if T is None:
        t = default_time([s for _, _, s in fam.systems()])
    else:
        t = np.asarray(T, dtype=float).ravel()
        if t.size < 2 or np.any(np.diff(t) <= 0):
            raise DimensionError("T must be an increasing 1-D array of at least two times")
    ny, nu = fam.nominal.noutputs, fam.nominal.ninputs
    fig, axs = axes_grid(ax, (ny, nu))
    out = UncertainPlot(fig, axs, family=fam, data={"time": t})
    fn = control.step_response if which == "step" else control.impulse_response
    done = set()
    # A discrete-time response holds its value between samples.
    steps = {"drawstyle": "steps-post"} if fam.nominal.isdtime(strict=True) else {}
    for kind, k, sys in fam.systems():
        y = np.asarray(fn(sys, T=t, squeeze=False).outputs).reshape(ny, nu, -1)
        kw, label = style(kind, k, fam, done)
        kw.update(steps)
        drawn = []
        for i in range(ny):
            for j in range(nu):
                (line,) = axs[i, j].plot(t, y[i, j], label=label, **kw)
                label = None
                drawn.append(line)
        out.lines[kind_key(kind)].append(drawn if len(drawn) > 1 else drawn[0])
    names_in, names_out = fam.nominal.input_labels, fam.nominal.output_labels
    for i in range(ny):
        for j in range(nu):
            a = axs[i, j]
            a.grid(True, alpha=0.3)
            if ny * nu > 1:
                a.set_title(f"{names_in[j]} → {names_out[i]}", fontsize=9)
        axs[i, 0].set_ylabel(names_out[i] if ny > 1 else "output")
    for a in axs[-1, :]:
        a.set_xlabel("time (s)")
    axs[0, 0].legend(fontsize=8, loc="best")
    return out


def step(usys, *, n=20, worst=None, ax=None, T=None, seed=None, grid=None):
    """Step responses of an uncertain system: nominal, ``n`` random samples, worst case.

    Parameters
    ----------
    usys : UncertainSystem, control.StateSpace or control.TransferFunction
    n : int
        Number of random samples (``usys.usample(n, seed=seed)``).
    worst : result or dict, optional
        A :func:`~robustmb.wcgain`, :func:`~robustmb.robgain` or
        :func:`~robustmb.robstab` result, or ``{name: value}``.
    ax : array of matplotlib axes, optional
        ``ny x nu`` axes (one per input/output pair).
    T : array_like, optional
        Times (s); by default long enough for the slowest stable mode to settle.
    seed : int, optional
    grid : dict, optional
        ``{name: values}`` to draw instead of random samples.

    Returns
    -------
    UncertainPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> out = plotting.step(1 / (control.tf("s") + a), n=4, seed=0)
    >>> float(out.lines["nominal"][0].get_ydata()[-1]).__round__(3)
    1.0
    """
    return _response("step", usys, n, worst, ax, T, seed, grid)


def impulse(usys, *, n=20, worst=None, ax=None, T=None, seed=None, grid=None):
    """Impulse responses of an uncertain system: nominal, ``n`` random samples, worst case.

    Parameters
    ----------
    usys, n, worst, ax, T, seed, grid
        As in :func:`step`.

    Returns
    -------
    UncertainPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> out = plotting.impulse(1 / (control.tf("s") + a), n=4, seed=0)
    >>> float(out.lines["nominal"][0].get_ydata()[0])
    1.0
    """
    return _response("impulse", usys, n, worst, ax, T, seed, grid)
