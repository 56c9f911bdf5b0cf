"""Matplotlib figures of a worst-case report.

Each function takes a :class:`~robustmb.report.analysis_result.WorstCaseAnalysis`
and returns a :class:`matplotlib.figure.Figure` built without pyplot (no global
state, no display needed).
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.figure import Figure

from .bound_format import fmt_against, fmt_lower, fmt_spec, fmt_upper, special_text

NOMINAL_COLOR = "C0"
WORST_COLOR = "C3"
SAMPLE_COLOR = "0.78"


def _fmt(x, digits=4):
    """Short number for tables: ``inf``, ``nan`` and ``g`` format."""
    special = special_text(x)
    return special if special is not None else f"{float(x):.{digits}g}"


def mu_bounds_figure(analysis):
    """Pointwise mu upper and lower bounds over frequency, with the certified peak.

    The robust stability margin is ``1 / sup mu``: mu above 1 means a
    destabilising parameter combination inside the declared ranges.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> mu_bounds_figure(res).axes[0].get_ylabel()
    'μ (structured singular value)'
    """
    fig = Figure(figsize=(7.5, 4.2), layout="constrained")
    draw_mu_bounds(fig.add_subplot(), analysis)
    return fig


def draw_mu_bounds(ax, analysis):
    """Draw the mu bounds of :func:`mu_bounds_figure` on the axes ``ax``."""
    rs = analysis.robstab
    mu = rs.mu
    if mu is None or mu.omega.size == 0:
        ax.text(
            0.5,
            0.5,
            "no μ data (centre of the ranges unstable)",
            ha="center",
            transform=ax.transAxes,
        )
        return
    order = np.argsort(mu.omega)
    w, up, lo = mu.omega[order], mu.mu_upper[order], mu.mu_lower[order]
    pos = w > 0
    ax.semilogx(w[pos], up[pos], color=WORST_COLOR, lw=1.8, label="μ upper bound")
    has_lo = pos & (lo > 0)
    if has_lo.any():
        ax.semilogx(
            w[has_lo],
            lo[has_lo],
            color=NOMINAL_COLOR,
            lw=1.4,
            ls="--",
            marker=".",
            ms=3,
            label="μ lower bound",
        )
    if np.any(~pos):
        # omega = 0 has no place on a log axis: its bounds are drawn at the left edge.
        x0 = (w[pos].min() if pos.any() else 1.0) / 2.0
        k0 = int(np.flatnonzero(~pos)[0])
        ax.semilogx(
            [x0],
            [up[k0]],
            marker="<",
            ms=8,
            ls="none",
            color=WORST_COLOR,
            label=f"μ upper bound at ω = 0: {_fmt(up[k0])}",
        )
        if lo[k0] > 0:
            ax.semilogx(
                [x0],
                [lo[k0]],
                marker="<",
                ms=6,
                ls="none",
                mfc="none",
                color=NOMINAL_COLOR,
                label=f"μ lower bound at ω = 0: {_fmt(lo[k0])}",
            )
        ax.set_xlim(left=x0 / 1.5)
    peak, certified = _peak(rs)
    if peak is not None:
        ax.axhline(
            peak,
            color=WORST_COLOR,
            lw=0.9,
            ls=":",
            label=(
                f"certified peak {fmt_upper(peak)} (margin ≥ {fmt_lower(1.0 / peak)})"
                if certified
                else f"peak on the frequencies evaluated {fmt_upper(peak)} (not certified)"
            ),
        )
    if np.isfinite(rs.upper) and rs.upper > 0 and np.isfinite(rs.critical_frequency):
        # The verified destabilising values are a lower bound of mu at that frequency.
        xc = rs.critical_frequency if rs.critical_frequency > 0 else ax.get_xlim()[0] * 1.5
        ax.semilogx(
            [xc],
            [1.0 / rs.upper],
            marker="*",
            ms=11,
            ls="none",
            color=NOMINAL_COLOR,
            label=f"destabilising values found: μ ≥ {fmt_lower(1.0 / rs.upper)}",
        )
    ax.axhline(1.0, color="k", lw=0.9, label="μ = 1: declared ranges")
    if np.isfinite(rs.critical_frequency) and rs.critical_frequency > 0:
        ax.axvline(
            rs.critical_frequency,
            color="0.4",
            lw=0.8,
            ls="-.",
            label=f"critical frequency {_fmt(rs.critical_frequency)} rad/s",
        )
    ax.set_xlabel("frequency (rad/s)")
    ax.set_ylabel("μ (structured singular value)")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("Robust stability: μ bounds (stability margin = 1 / peak μ)")
    ax.legend(fontsize=8, loc="best")


def _peak(rs):
    """``(peak, certified)``: the dotted line of the mu figure, as
    :func:`robustmb.plotting.mu_bounds` draws it (``min(mu.upper, 1 / rs.lower)``)."""
    from ..plotting.mu import certified_peak

    peak = certified_peak(rs)
    if peak is None:
        return None, False
    from_margin = rs.lower > 0 and peak == 1.0 / rs.lower
    return peak, bool(rs.mu.covered or (from_margin and rs.certified))


def mu_caption(analysis):
    """Caption of the mu figure naming exactly the curves and markers :func:`draw_mu_bounds` draws.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> mu_caption(res).startswith("Pointwise μ upper bound")
    True
    """
    rs = analysis.robstab
    mu = rs.mu
    if mu is None or mu.omega.size == 0:
        return "No μ data: the centre of the ranges is unstable."
    n_lo = int(np.sum(mu.mu_lower > 0))
    parts = [f"Pointwise μ upper bound at the {mu.omega.size} frequencies evaluated"]
    if n_lo:
        parts.append(f"pointwise μ lower bound at the {n_lo} of them where one was computed")
    peak, certified = _peak(rs)
    if peak is not None:
        from_margin = rs.lower > 0 and peak == 1.0 / rs.lower and peak < mu.upper
        parts.append(
            (
                f"dotted: the peak {fmt_upper(peak)} certified over the whole frequency axis"
                + (
                    " (1 / the margin's lower bound, certified by a test other than this "
                    "sweep, whose curve may lie above it)"
                    if from_margin
                    else ""
                )
            )
            if certified
            else f"dotted: the peak {fmt_upper(peak)} over the frequencies evaluated only (not "
            "certified over the axis)"
        )
    if np.isfinite(rs.upper) and rs.upper > 0 and np.isfinite(rs.critical_frequency):
        parts.append(
            f"star: μ ≥ {fmt_lower(1.0 / rs.upper)} from the verified destabilising values at "
            f"{_fmt(rs.critical_frequency)} rad/s (the best lower bound)"
        )
    return "; ".join(parts) + ". The stability margin is 1 / peak μ."


def singular_values_figure(analysis):
    """Largest singular value of each channel: nominal, samples and worst case.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           n_samples=3)
    >>> len(singular_values_figure(res).axes)
    1
    """
    chans = analysis.channels
    n = max(1, len(chans))
    fig = Figure(figsize=(7.5, 3.6 * n), layout="constrained")
    axes = [fig.add_subplot(n, 1, i + 1) for i in range(n)]
    for ax, ch in zip(axes, chans, strict=False):
        draw_channel(ax, ch, analysis.omega)
    axes[-1].set_xlabel("frequency (rad/s)")
    return fig


def draw_channel(ax, ch, w):
    """Draw one channel's singular values (samples, nominal, worst case) on ``ax``."""
    # Unstable samples have no meaningful gain curve: only stable ones are drawn.
    stable = ch.sigma_samples[np.isfinite(ch.sampled_peaks)]
    for k, sig in enumerate(stable):
        ax.loglog(
            w,
            sig,
            color=SAMPLE_COLOR,
            lw=0.6,
            label=f"{len(stable)} stable random samples" if k == 0 else None,
        )
    ax.loglog(w, ch.sigma_nominal, color=NOMINAL_COLOR, lw=2, label="nominal")
    wc = ch.wcgain
    if np.all(np.isfinite(ch.sigma_worst)):
        ax.loglog(w, ch.sigma_worst, color=WORST_COLOR, lw=2, label="worst case found")
    if np.isfinite(wc.upper):
        ax.axhline(
            wc.upper,
            color=WORST_COLOR,
            lw=0.9,
            ls=":",
            label=f"{'worst-case bound' if wc.certified else 'upper bound (not certified)'} "
            f"{fmt_upper(wc.upper)}",
        )
    if np.isfinite(wc.critical_frequency) and wc.critical_frequency > 0:
        ax.plot([wc.critical_frequency], [wc.lower], "o", color=WORST_COLOR, ms=5)
    ax.set_ylabel("largest singular value")
    ax.set_title(f"{ch.name}: {', '.join(ch.inputs)} → {', '.join(ch.outputs)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="best")


def step_figure(analysis):
    """Step responses (:func:`robustmb.plotting.step`): nominal, random samples, worst case.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> G = 1 / (control.tf("s") ** 2 + c * control.tf("s") + 1)
    >>> res = worst_case_analysis(G, n_samples=0, step=([0], [0]))
    >>> len(step_figure(res).axes)
    1
    """
    from ..plotting import step
    from .step_analysis import N_STEP_SAMPLES

    st = analysis.step
    ny, nu = len(st.outputs), len(st.inputs)
    fig = Figure(figsize=(max(7.5, 3.4 * nu), 2.6 * ny + 0.8), layout="constrained")
    axs = np.array(fig.subplots(ny, nu, squeeze=False, sharex=True))
    n = min(N_STEP_SAMPLES, len(analysis.sample_values))
    step(st.system, n=n, worst=st.worst_values, ax=axs, T=st.time, seed=analysis.seed)
    fig.suptitle(
        f"Step responses: nominal, {n} random samples and the worst case of {st.worst_channel}",
        fontsize=10,
    )
    return fig


def histogram_figure(analysis):
    """Histogram of each channel's sampled peak gains, with nominal, spec and worst-case lines.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           n_samples=8)
    >>> len(histogram_figure(res).axes)
    1
    """
    chans = analysis.channels
    n = len(chans)
    fig = Figure(figsize=(7.5, 2.6 * n + 0.6), layout="constrained")
    axes = [fig.add_subplot(n, 1, i + 1) for i in range(n)]
    for ax, ch in zip(axes, chans, strict=True):
        fin = ch.sampled_peaks[np.isfinite(ch.sampled_peaks)]
        ax.hist(
            fin,
            bins=min(30, max(5, fin.size // 4)),
            color=SAMPLE_COLOR,
            ec="0.5",
            label=f"{fin.size} stable samples",
        )
        ax.axvline(
            ch.nominal_peak, color=NOMINAL_COLOR, lw=2, label=f"nominal {_fmt(ch.nominal_peak)}"
        )
        wc = ch.wcgain
        if np.isfinite(wc.lower):
            ax.axvline(
                wc.lower, color=WORST_COLOR, lw=2, label=f"worst case found {fmt_lower(wc.lower)}"
            )
        if np.isfinite(wc.upper):
            ax.axvline(
                wc.upper,
                color=WORST_COLOR,
                lw=1,
                ls=":",
                label=f"{'certified' if wc.certified else 'upper (not certified)'} bound "
                f"{fmt_upper(wc.upper)}",
            )
        ax.axvline(ch.spec, color="k", lw=1.2, ls="--", label=f"specification {fmt_spec(ch.spec)}")
        ax.set_title(f"{ch.name}: sampled peak gains", fontsize=10)
        ax.set_ylabel("samples")
        ax.legend(fontsize=8, loc="best")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("peak gain (H∞ norm)")
    return fig


def overview_figure(analysis):
    """Two panels at a glance: the mu bounds and the first channel's singular values.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> len(overview_figure(res).axes)  # no channel: the mu panel only
    1
    """
    n = 2 if analysis.channels else 1
    fig = Figure(figsize=(6.5 * n, 4.2), layout="constrained")
    draw_mu_bounds(fig.add_subplot(1, n, 1), analysis)
    if analysis.channels:
        ax = fig.add_subplot(1, n, 2)
        draw_channel(ax, analysis.channels[0], analysis.omega)
        ax.set_xlabel("frequency (rad/s)")
    fig.suptitle(
        f"{analysis.title} (robust performance: {analysis.performance_verdict}; "
        f"{analysis.verdict})",
        fontsize=11,
    )
    return fig


def margin_rows(analysis):
    """``[(quantity, value)]`` rows of the margins table (shared with the HTML).

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> margin_rows(res)[0]
    ('Nominal closed loop', 'stable (max Re(pole) = -0.5)')
    """
    rs = analysis.robstab
    poles = analysis.nominal_poles
    if poles.size:
        ab = np.max(np.abs(poles)) if analysis.dt else np.max(poles.real)
        nom = f"stable ({'max |pole|' if analysis.dt else 'max Re(pole)'} = {_fmt(ab)})"
    else:
        nom = "stable (static)"
    rows = [
        ("Nominal closed loop", nom),
        ("Robust stability margin", f"[{fmt_lower(rs.lower)}, {fmt_upper(rs.upper)}]"),
        (
            "Ranges guaranteed stable (% of the declared size)",
            f"{fmt_lower(rs.lower, 3, scale=100)} %" + ("" if rs.certified else " (not certified)"),
        ),
        ("Destabilising frequency", f"{_fmt(rs.critical_frequency)} rad/s"),
        ("Robust stability verdict", analysis.verdict),
        ("Robust performance verdict", analysis.performance_verdict),
    ]
    for ch in analysis.channels:
        wc = ch.wcgain
        rows.append(
            (
                f"{ch.name}: nominal peak gain",
                f"{_fmt(ch.nominal_peak)} at {_fmt(ch.nominal_peak_frequency)} rad/s",
            )
        )
        rows.append(
            (
                f"{ch.name}: worst-case peak gain",
                f"[{fmt_against(wc.lower, 'lower', ch.spec)}, "
                f"{fmt_against(wc.upper, 'upper', ch.spec)}] at "
                f"{_fmt(wc.critical_frequency)} rad/s"
                + ("" if wc.certified else " (not certified)"),
            )
        )
        rows.append(
            (
                f"{ch.name}: specification peak gain ≤ {fmt_spec(ch.spec)}",
                f"nominal {ch.nominal_verdict}, robust {ch.verdict}",
            )
        )
        if ch.sampled_peaks.size:
            n_inf = int(np.sum(~np.isfinite(ch.sampled_peaks)))
            fin = ch.sampled_peaks[np.isfinite(ch.sampled_peaks)]
            value = _fmt(ch.worst_sample_peak)
            if n_inf:  # an unstable sample's peak gain is infinite: say which and how many
                value = f"inf ({n_inf} unstable sample{'s' if n_inf > 1 else ''})" + (
                    f"; {_fmt(fin.max())} among the stable ones" if fin.size else ""
                )
            rows.append((f"{ch.name}: largest sampled peak gain", value))
    n = len(analysis.sample_values)
    if n:
        rows.append(("Monte Carlo samples stable", f"{n - analysis.n_unstable_samples} / {n}"))
    return rows


def margins_table_figure(analysis):
    """The margins table as a figure (for slides; the HTML carries the same table).

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> fig = margins_table_figure(res)
    >>> len(fig.axes[0].tables)
    1
    """
    rows = margin_rows(analysis)
    fig = Figure(figsize=(7.5, 0.32 * (len(rows) + 1) + 0.5), layout="constrained")
    ax = fig.add_subplot()
    ax.axis("off")
    table = ax.table(
        cellText=[[q, v] for q, v in rows],
        colLabels=["quantity", "value"],
        colLoc="left",
        cellLoc="left",
        loc="upper center",
        colWidths=[0.5, 0.5],
    )
    table.auto_set_font_size(False)
    table.set_fontsize(8.5)
    table.scale(1.0, 1.3)
    for (r, _), cell in table.get_celld().items():
        if r == 0:
            cell.set_text_props(weight="bold")
            cell.set_facecolor("0.9")
    ax.set_title("Margins", loc="left")
    return fig


def sensitivity_figure(analysis):
    """Bar chart of each parameter's sensitivity of the robust stability margin.

    A bar of ``s`` means the margin shrinks by about ``s`` percent when that
    parameter's range grows by one percent.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> [t.get_text() for t in sensitivity_figure(res).axes[0].get_yticklabels()]
    ['c']
    """
    sens = analysis.robstab.sensitivity
    names = sorted(sens, key=lambda k: abs(sens[k]))
    fig = Figure(figsize=(7.5, 0.45 * max(len(names), 2) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    if not names:
        ax.text(
            0.5,
            0.5,
            "no sensitivity (no destabilising perturbation found)",
            ha="center",
            transform=ax.transAxes,
        )
        ax.axis("off")
        return fig
    vals = np.array([sens[k] for k in names])
    colors = [WORST_COLOR if v > 0 else NOMINAL_COLOR for v in vals]
    ax.barh(np.arange(len(names)), vals, color=colors)
    ax.set_yticks(np.arange(len(names)), labels=names)
    ax.axvline(0, color="k", lw=0.8)
    for i, v in enumerate(vals):
        ax.text(v, i, f" {v:.3g} ", va="center", ha="left" if v >= 0 else "right", fontsize=8)
    lim = max(1e-12, np.max(np.abs(vals))) * 1.3
    ax.set_xlim(min(0, -lim * (vals.min() < 0)), lim if vals.max() > 0 else lim * 0.1)
    ax.set_xlabel("% decrease of the stability margin per % growth of the range")
    ax.set_title("Sensitivity of the robust stability margin to each parameter")
    ax.grid(True, axis="x", alpha=0.3)
    return fig


def report_figures(analysis):
    """``{key: Figure}`` of every figure of the report, in display order.

    The singular-value figure is left out when there is no performance channel.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> list(report_figures(res))  # no channel: no singular-value figure
    ['overview', 'margins', 'mu_bounds', 'sensitivity']
    """
    figs = {
        "overview": overview_figure(analysis),
        "margins": margins_table_figure(analysis),
        "mu_bounds": mu_bounds_figure(analysis),
    }
    if analysis.channels:
        figs["singular_values"] = singular_values_figure(analysis)
    if analysis.step is not None:
        figs["step"] = step_figure(analysis)
    if analysis.channels and len(analysis.sample_values):
        figs["histograms"] = histogram_figure(analysis)
    figs["sensitivity"] = sensitivity_figure(analysis)
    return figs


def figure_png(fig, dpi=110) -> bytes:
    """PNG bytes of a figure.

    Examples
    --------
    >>> fig = Figure(figsize=(1, 1))
    >>> figure_png(fig)[:4]
    b'\\x89PNG'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    return buf.getvalue()
