"""Time responses of uncertain systems: ``step`` and ``impulse``."""

from __future__ import annotations

import warnings

import control
import numpy as np

from ..errors import ArgumentError, DimensionError, RobustMBWarning
from ._style import UncertainPlot, axes_grid, kind_key, style
from .family import family

MAX_TIME_POINTS = 50_000  # cap of the default time grid (a warning says when it binds)
POINTS_PER_PERIOD = 20


def default_time(systems, npts=1000):
    """A time vector long enough for the slowest stable mode of every system to settle.

    Seven time constants of the slowest decaying pole, in at least ``npts`` (1000)
    points and at least 20 points per period of the fastest oscillation (largest
    ``|Im p|``): a coarser uniform grid aliases a lightly damped mode into a slow
    or flat curve.  The number of points is capped at ``MAX_TIME_POINTS`` (50000)
    with a :class:`~robustmb.errors.RobustMBWarning` naming the cap; pass ``T`` to
    choose the grid then.  Discrete systems use their sample time.

    Examples
    --------
    >>> import control
    >>> s = control.tf("s")
    >>> t = default_time([control.ss(1 / (s**2 + 0.02 * s + 100))])  # period 0.628 s
    >>> bool(2 * np.pi / 10 / (t[1] - t[0]) >= 20)
    True
    """
    tfinal, dt, fastest = 0.0, None, 0.0
    for s in systems:
        p = np.asarray(s.poles(), dtype=complex)
        if s.isdtime(strict=True):
            dt = s.dt
            p = np.log(p[np.abs(p) > 0]) / s.dt
        if p.size:
            fastest = max(fastest, float(np.abs(p.imag).max()))
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
    need = int(np.ceil(POINTS_PER_PERIOD * tfinal * fastest / (2 * np.pi))) + 1
    if need > MAX_TIME_POINTS:
        warnings.warn(
            f"default time grid capped at MAX_TIME_POINTS = {MAX_TIME_POINTS} points: the "
            f"oscillation at {fastest:.4g} rad/s over {tfinal:.4g} s needs {need} for "
            f"{POINTS_PER_PERIOD} points per period and gets "
            f"{MAX_TIME_POINTS * 2 * np.pi / (tfinal * fastest):.3g} (aliased below 2); pass T",
            RobustMBWarning,
            stacklevel=4,  # the caller of step / impulse
        )
        need = MAX_TIME_POINTS
    return np.linspace(0.0, tfinal, max(npts, need))


def check_time(T):
    """``T`` as a 1-D float array of equally spaced times from 0 (the step or impulse is
    applied at t = 0, as in MATLAB's ``step(sys, 0:dt:Tf)``); raises naming ``T``."""
    try:
        t = np.asarray(T, dtype=float)
    except (TypeError, ValueError) as err:
        raise ArgumentError(f"T must hold real times (s): {err}") from None
    if t.ndim != 1:
        raise DimensionError(f"T must be a 1-D array of times, got shape {t.shape}")
    if t.size < 2 or not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0):
        raise DimensionError("T must be an increasing 1-D array of at least two finite times")
    if t[0] != 0:
        raise DimensionError(
            f"T must start at 0 (the input is applied at t = 0), got T[0] = {t[0]:.6g}; "
            "pass T - T[0] for a response from rest starting at T[0]"
        )
    dts = np.diff(t)
    if np.max(np.abs(dts - dts[0])) > 1e-9 * max(abs(t[-1]), 1.0):
        raise DimensionError("T must be equally spaced (the response is exact on a uniform grid)")
    return t


def _response(which, usys, n, worst, ax, T, seed, grid):
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    t = default_time([s for _, _, s in fam.systems()]) if T is None else check_time(T)
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
        Equally spaced times (s) starting at 0, where the step is applied (MATLAB's
        ``step(sys, 0:dt:Tf)``); by default long enough for the slowest stable mode
        to settle, with at least 20 points per period of the fastest oscillation
        (see :func:`default_time`).
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
