"""Frequency-domain plots of uncertain systems: ``bode``, ``sigma``, ``nyquist``, ``wcsigma``."""

from __future__ import annotations

import numpy as np

from ..analysis.freqresp import freqresp
from ..analysis.robust_gain import RobgainResult
from ..analysis.worst_case_gain import WcgainResult
from ..errors import ArgumentError, DimensionError, UncertainTypeError
from ._style import (
    UncertainPlot,
    axes_grid,
    default_omega,
    fmt_lower,
    fmt_upper,
    kind_key,
    log_x,
    style,
    with_frequencies,
)
from .family import family


def _omega(fam, omega, result=None):
    """The frequencies drawn: ``omega`` checked, or the default grid with the critical
    frequency of a gain result (the frequency of its worst case's peak) inserted."""
    if omega is None:
        systems = [s for _, _, s in fam.systems()]
        w = default_omega(systems)
        if isinstance(result, (WcgainResult, RobgainResult)):
            dts = [s.dt for s in systems if s.isdtime(strict=True)]
            w = with_frequencies(w, [result.critical_frequency], np.pi / min(dts) if dts else None)
        return w
    try:
        w = np.asarray(omega, dtype=float)
    except (TypeError, ValueError) as err:
        raise ArgumentError(f"omega must hold real frequencies (rad/s): {err}") from None
    if w.ndim != 1:
        raise DimensionError(f"omega must be a 1-D array of frequencies, got shape {w.shape}")
    if w.size == 0 or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise DimensionError("omega must be a non-empty 1-D array of finite frequencies >= 0")
    return w


def bode(
    usys,
    *,
    n=20,
    worst=None,
    ax=None,
    omega=None,
    seed=None,
    grid=None,
    dB=False,
    Hz=False,
    deg=True,
):
    """Bode plot of an uncertain system: nominal, ``n`` random samples and the worst case.

    Parameters
    ----------
    usys : UncertainSystem, control.StateSpace or control.TransferFunction
        The system; a certain one is drawn alone.
    n : int
        Number of random samples (``usys.usample(n, seed=seed)``).
    worst : result or dict, optional
        A :func:`~robustmb.wcgain`, :func:`~robustmb.robgain` or
        :func:`~robustmb.robstab` result (or ``{name: value}``): its worst-case
        values are substituted and drawn in red.
    ax : array of matplotlib axes, optional
        ``2 ny x nu`` axes (magnitude above phase for each output); new ones by default.
    omega : array_like, optional
        1-D frequencies (rad/s).  By default they cover the poles and zeros of all
        systems, refined around every lightly damped pole and zero with its exact
        peak frequency (see :func:`~robustmb.plotting._style.default_omega`), and
        include the critical frequency of a wcgain or robgain result given as
        ``worst`` (where its worst case peaks).
    seed : int, optional
        Seed of the samples.
    grid : dict, optional
        ``{name: values}``: draw the system at every point of this grid (e.g. of
        scheduling parameters) instead of random samples.
    dB, Hz, deg : bool
        Magnitude in decibels, frequency in Hz, phase in degrees.

    Returns
    -------
    UncertainPlot
        ``.lines["nominal" | "samples" | "worst"]`` hold ``(magnitude, phase)`` line pairs.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> k = rmb.ureal("k", 2.0, percent=20)
    >>> out = plotting.bode(k / (control.tf("s") + 1), n=5, seed=0)
    >>> len(out.lines["samples"]), out.axes.shape
    (5, (2, 1))
    """
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    w = _omega(fam, omega, worst)
    ny, nu = fam.nominal.noutputs, fam.nominal.ninputs
    fig, axs = axes_grid(ax, (2 * ny, nu))
    x = w / (2 * np.pi) if Hz else w
    out = UncertainPlot(fig, axs, family=fam, data={"omega": w})
    done = set()
    for kind, k, sys in fam.systems():
        H = freqresp(sys, w)
        mag = np.abs(H)
        phase = np.unwrap(np.angle(H), axis=0)
        if deg:
            phase = np.degrees(phase)
        kw, label = style(kind, k, fam, done)
        drawn = []
        for i in range(ny):
            for j in range(nu):
                am, ap = axs[2 * i, j], axs[2 * i + 1, j]
                if dB:
                    (lm,) = am.semilogx(x, _db(mag[:, i, j]), label=label, **kw)
                else:
                    (lm,) = am.loglog(x, mag[:, i, j], label=label, **kw)
                (lp,) = ap.semilogx(x, phase[:, i, j], **kw)
                label = None
                drawn.append((lm, lp))
        out.lines[kind_key(kind)].append(drawn if len(drawn) > 1 else drawn[0])
    names_in, names_out = fam.nominal.input_labels, fam.nominal.output_labels
    for i in range(ny):
        for j in range(nu):
            axs[2 * i, j].set_ylabel("magnitude (dB)" if dB else "magnitude")
            axs[2 * i + 1, j].set_ylabel("phase (deg)" if deg else "phase (rad)")
            if ny * nu > 1:
                axs[2 * i, j].set_title(f"{names_in[j]} → {names_out[i]}", fontsize=9)
    _finish(axs, "frequency (Hz)" if Hz else "frequency (rad/s)")
    return out


def sigma(
    usys,
    *,
    n=20,
    worst=None,
    ax=None,
    omega=None,
    seed=None,
    grid=None,
    dB=False,
    Hz=False,
):
    """Singular values over frequency of an uncertain system (nominal, samples, worst case).

    All singular values of each system are drawn (MATLAB's ``sigma``).  With a
    :func:`~robustmb.wcgain` result as ``worst``, its certified upper bound is
    drawn as a dotted line and the worst case found as a dot at its frequency
    (see also :func:`wcsigma`).

    Parameters
    ----------
    usys, n, worst, ax, omega, seed, grid, dB, Hz
        As in :func:`bode` (``ax`` is one axes).

    Returns
    -------
    UncertainPlot
        ``.lines[...]`` hold, per system, the list of lines (one per singular value);
        with a wcgain result also ``"bound"`` (the dotted line, when the bound is finite)
        and ``"peak"`` (the dot at ``worst.critical_frequency``, height ``worst.lower``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> k = rmb.ureal("k", 2.0, percent=20)
    >>> G = rmb.uss([[-1.0]], [[1.0, 0.5]], [[k], [1.0]], [[0.0, 0.0], [0.0, 1.0]])
    >>> out = plotting.sigma(G, n=4, seed=1)
    >>> len(out.lines["nominal"][0])  # two singular values
    2
    """
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    # the worst case's curve passes through its marker
    w = _omega(fam, omega, worst)
    gain_result = isinstance(worst, WcgainResult)
    wc = float(worst.critical_frequency) if gain_result else np.nan
    fig, axs = axes_grid(ax, (1, 1))
    a = axs[0, 0]
    x = w / (2 * np.pi) if Hz else w
    out = UncertainPlot(fig, axs, family=fam, data={"omega": w})
    done = set()
    for kind, k, sys in fam.systems():
        sv = np.linalg.svd(freqresp(sys, w), compute_uv=False)
        kw, label = style(kind, k, fam, done)
        drawn = []
        for col in sv.T:
            y = _db(col) if dB else col
            (line,) = (a.semilogx if dB else a.loglog)(x, y, label=label, **kw)
            label = None
            drawn.append(line)
        out.lines[kind_key(kind)].append(drawn)
    # Only a wcgain result bounds the gain (robstab's and robgain's bounds are margins).
    if isinstance(worst, WcgainResult) and np.isfinite(worst.upper):
        up = worst.upper
        out.lines["bound"] = [
            a.axhline(
                _db(up) if dB else up,
                color="C3",
                lw=0.9,
                ls=":",
                label=_bound_label(worst, "worst-case gain ≤ "),
            )
        ]
    if gain_result and np.isfinite(wc) and np.isfinite(worst.lower):
        # a peak at omega = 0 is drawn at the left edge of the log axis
        xc, marker = log_x(wc / (2 * np.pi) if Hz else wc, x)
        out.lines["peak"] = a.plot(
            [xc],
            [_db(worst.lower) if dB else worst.lower],
            marker,
            color="C3",
            ms=6,
            label=f"worst case found {fmt_lower(worst.lower)} at {wc:.4g} rad/s",
        )
    a.set_ylabel("singular values (dB)" if dB else "singular values")
    _finish(axs, "frequency (Hz)" if Hz else "frequency (rad/s)")
    return out


def wcsigma(usys, result, *, n=20, ax=None, omega=None, seed=None, dB=False, Hz=False):
    """Worst-case gain plot: largest singular value of the nominal, samples and worst case.

    Draws the bounds of a :func:`~robustmb.wcgain` result: its certified upper
    bound (dotted), and the worst case found (its peak, ``result.lower``, marked
    at ``result.critical_frequency``).

    Parameters
    ----------
    usys : UncertainSystem
    result : WcgainResult
        ``rmb.wcgain(usys)``.
    n, ax, omega, seed, dB, Hz
        As in :func:`bode`.

    Returns
    -------
    UncertainPlot
        ``.lines`` also has ``"bound"`` (upper bound) and ``"peak"`` (the marker; a
        peak at ``omega = 0`` is drawn as "<" at the left edge of the log axis).

    Raises
    ------
    UncertainTypeError
        When ``result`` is not a wcgain result: the bounds of robgain and robstab
        are margins, not gains.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    >>> G = 1 / (control.tf("s") ** 2 + c * control.tf("s") + 1)
    >>> out = plotting.wcsigma(G, rmb.wcgain(G), n=3, seed=0)
    >>> sorted(out.lines)
    ['bound', 'nominal', 'peak', 'samples', 'worst']
    """
    if not isinstance(result, WcgainResult):
        # a robgain or robstab result bounds a margin, not the gain drawn here
        raise UncertainTypeError(
            "wcsigma: result must be a wcgain result (rmb.wcgain(usys)), got "
            f"{type(result).__name__}"
        )
    fam = family(usys, n=n, worst=result, seed=seed)
    w = _omega(fam, omega, result)
    wc = float(result.critical_frequency)
    fig, axs = axes_grid(ax, (1, 1))
    a = axs[0, 0]
    x = w / (2 * np.pi) if Hz else w
    conv = _db if dB else (lambda g: g)
    out = UncertainPlot(fig, axs, family=fam, data={"omega": w})
    done = set()
    for kind, k, sys in fam.systems():
        top = np.linalg.svd(freqresp(sys, w), compute_uv=False)[:, 0]
        kw, label = style(kind, k, fam, done)
        (line,) = (a.semilogx if dB else a.loglog)(x, conv(top), label=label, **kw)
        out.lines[kind_key(kind)].append(line)
    out.lines["bound"] = []
    if np.isfinite(result.upper):
        out.lines["bound"].append(
            a.axhline(
                conv(result.upper),
                color="C3",
                lw=0.9,
                ls=":",
                label=_bound_label(result, "upper bound "),
            )
        )
    out.lines["peak"] = []
    if np.isfinite(wc) and np.isfinite(result.lower):
        xc, marker = log_x(wc / (2 * np.pi) if Hz else wc, x)
        out.lines["peak"] += a.plot(
            [xc],
            [conv(result.lower)],
            marker,
            color="C3",
            ms=6,
            label=f"worst case found {fmt_lower(result.lower)} at {wc:.4g} rad/s",
        )
    a.set_ylabel("largest singular value (dB)" if dB else "largest singular value")
    _finish(axs, "frequency (Hz)" if Hz else "frequency (rad/s)")
    return out


def nyquist(usys, *, n=20, worst=None, ax=None, omega=None, seed=None, grid=None, mirror=True):
    """Nyquist plot of a SISO uncertain system (nominal, samples, worst case).

    Each curve is ``G(j omega)`` for ``omega >= 0`` (solid) and, with
    ``mirror=True``, its complex conjugate for negative frequencies (dashed); the
    critical point ``-1`` is marked.

    Parameters
    ----------
    usys, n, worst, ax, omega, seed, grid
        As in :func:`bode` (``ax`` is one axes).
    mirror : bool
        Draw the negative-frequency branch.

    Returns
    -------
    UncertainPlot
        ``.lines[...]`` hold the positive-frequency line of each system.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import control, robustmb as rmb
    >>> from robustmb import plotting
    >>> k = rmb.ureal("k", 2.0, percent=20)
    >>> out = plotting.nyquist(k / (control.tf("s") + 1) ** 2, n=3, seed=0)
    >>> len(out.lines["samples"])
    3
    """
    fam = family(usys, n=n, worst=worst, seed=seed, grid=grid)
    if fam.nominal.noutputs != 1 or fam.nominal.ninputs != 1:
        raise DimensionError(
            f"nyquist takes a SISO system, got {fam.nominal.noutputs}x{fam.nominal.ninputs}; "
            "select a channel with usys[i, j]"
        )
    w = _omega(fam, omega, worst)
    fig, axs = axes_grid(ax, (1, 1))
    a = axs[0, 0]
    out = UncertainPlot(fig, axs, family=fam, data={"omega": w})
    done = set()
    for kind, k, sys in fam.systems():
        g = freqresp(sys, w)[:, 0, 0]
        kw, label = style(kind, k, fam, done)
        (line,) = a.plot(g.real, g.imag, label=label, **kw)
        if mirror:
            a.plot(g.real, -g.imag, ls="--", **{**kw, "lw": kw["lw"] * 0.6})
        out.lines[kind_key(kind)].append(line)
    a.plot([-1], [0], "+", color="r", ms=10, mew=2)
    a.set_xlabel("real")
    a.set_ylabel("imaginary")
    a.grid(True, alpha=0.3)
    a.legend(fontsize=8, loc="best")
    return out


def _bound_label(result, what):
    """Legend of a wcgain result's upper bound, rounded up; "certified" only when it is."""
    if result.certified:
        return f"certified {what}{fmt_upper(result.upper)}"
    return f"{what}{fmt_upper(result.upper)} (not certified)"


def _db(g):
    """Gain in decibels; a zero gain is -inf (not drawn) without a warning."""
    with np.errstate(divide="ignore"):
        return 20 * np.log10(g)


def _finish(axs, xlabel):
    for a in axs.flat:
        a.grid(True, which="both", alpha=0.3)
    for a in axs[-1, :]:
        a.set_xlabel(xlabel)
    axs[0, 0].legend(fontsize=8, loc="best")
