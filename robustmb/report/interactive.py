"""Interactive charts of a worst-case report: hover readout and zoom, in one HTML file.

The frequency plots (μ bounds, singular values of each channel) and the step responses
are embedded as their data (JSON in the page, every number exactly as the analysis
computed it) and drawn as SVG by a small inline script: no library, no network access,
no file beside the page.  Hovering shows the values of every curve at the nearest
computed point; dragging across the plot zooms on that range (the y axis follows the
visible data); a double click or the reset button restores the full view; clicking a
legend entry hides or shows its curve.  Without JavaScript the page shows the static
PNG of the same figure instead (a ``<noscript>`` fallback).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import control
import numpy as np

from ..plotting.family import family
from .bound_format import fmt_spec, fmt_upper
from .figures import _peak
from .step_analysis import N_STEP_SAMPLES

NOMINAL = "#1f77b4"  # matplotlib C0, as the static figures
WORST = "#d62728"  # C3
SAMPLES = "#c7c7c7"
OTHER = "#555555"

#: The renderer (vanilla JavaScript, inlined once per page).
SCRIPT = (Path(__file__).with_name("interactive.js")).read_text(encoding="utf-8")

STYLE = """
figure.rmb-chart { margin: 1em 0; }
.rmb-chart svg { width: 100%; height: auto; border: 1px solid #eee; cursor: crosshair;
                 user-select: none; font: 11px sans-serif; }
.rmb-chart .readout { font-size: 0.85em; min-height: 1.4em; color: #333;
                      font-variant-numeric: tabular-nums; }
.rmb-chart .legend span { margin-right: 1em; cursor: pointer; font-size: 0.85em; }
.rmb-chart .legend span.off { opacity: 0.35; text-decoration: line-through; }
.rmb-chart button { font-size: 0.8em; margin-left: 1em; }
"""


def _values(a):
    """A list of floats for JSON: ``None`` (null) for nan and infinities."""
    a = np.asarray(a, dtype=float).ravel()
    return [float(v) if np.isfinite(v) else None for v in a]


def _line(label, x, y, color, width=2.0, dash=None, marker=None):
    """A curve; ``marker`` (radius in px) also draws a dot at each point, so that isolated
    points of a curve with gaps (or a single point) stay visible, as in the static figure."""
    out = {"kind": "line", "label": label, "x": _values(x), "y": _values(y),
           "color": color, "width": width, "dash": dash}  # fmt: skip
    if marker is not None:
        out["marker"] = marker
    return out


def _points(label, x, y, color, at_zero=False):
    out = {"kind": "points", "label": label, "x": _values(x), "y": _values(y), "color": color}
    if at_zero:
        out["xshow"] = ["0"] * len(out["x"])  # drawn at the left edge, read out as 0
    return out


def _hline(label, y, color, dash="2 3"):  # dotted, as the static figures
    return {"kind": "hline", "label": label, "y": float(y), "color": color, "dash": dash}


def _vline(label, x, color, dash="6 3 2 3"):
    return {"kind": "vline", "label": label, "x": float(x), "color": color, "dash": dash}


def mu_chart(analysis):
    """The μ-bounds chart: pointwise upper and lower bounds, certified peak, μ = 1.

    Returns ``None`` without μ data (centre of the ranges unstable).

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> [s["label"] for s in mu_chart(res)["series"]][:2]
    ['μ upper bound', 'μ lower bound']
    """
    rs = analysis.robstab
    mu = rs.mu
    if mu is None or mu.omega.size == 0:
        return None
    order = np.argsort(mu.omega)
    w, up, lo = mu.omega[order], mu.mu_upper[order], mu.mu_lower[order]
    pos = w > 0
    series = [_line("μ upper bound", w[pos], up[pos], WORST, 1.8)]
    has_lo = pos & (lo > 0)
    if has_lo.any():
        # computed at some frequencies only (often one): dots as in the static figure
        series.append(
            _line("μ lower bound", w[has_lo], lo[has_lo], NOMINAL, 1.4, "5 3", marker=2.5)
        )
    # omega = 0 has no place on a log axis: as in the static figure, its values are
    # drawn at the left edge (the readout says omega = 0)
    x_zero = (w[pos].min() if pos.any() else 1.0) / 2.0
    if np.any(~pos):
        k0 = int(np.flatnonzero(~pos)[0])
        series.append(_points("μ upper bound at ω = 0", [x_zero], [up[k0]], WORST, at_zero=True))
        if lo[k0] > 0:
            series.append(
                _points("μ lower bound at ω = 0", [x_zero], [lo[k0]], NOMINAL, at_zero=True)
            )
    # the dotted line of the static figure and of the caption: min(mu.upper, 1 / margin)
    peak, certified = _peak(rs)
    if peak is not None:
        what = "certified peak" if certified else "peak on the frequencies evaluated"
        series.append(_hline(f"{what} {fmt_upper(peak)}", peak, WORST))
    if np.isfinite(rs.upper) and rs.upper > 0 and np.isfinite(rs.critical_frequency):
        at_zero = not rs.critical_frequency > 0
        series.append(
            _points(
                "destabilising values found",
                [x_zero if at_zero else rs.critical_frequency],
                [1.0 / rs.upper],
                NOMINAL,
                at_zero=at_zero,
            )
        )
    series.append(_hline("μ = 1: declared ranges", 1.0, "#000000", None))
    if np.isfinite(rs.critical_frequency) and rs.critical_frequency > 0:
        series.append(_vline("critical frequency", rs.critical_frequency, OTHER))
    return {
        "title": "Robust stability: μ bounds (stability margin = 1 / peak μ)",
        "xlabel": "frequency (rad/s)",
        "xname": "ω",
        "ylabel": "μ",
        "xlog": True,
        "ylog": False,
        "yzero": True,
        "series": series,
    }


def channel_chart(analysis, ch):
    """Largest singular value of one channel: nominal, worst case found, sample envelope.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           n_samples=3)
    >>> [s["label"] for s in channel_chart(res, res.channels[0])["series"]][:3]
    ['samples: largest', 'samples: smallest', 'nominal']
    """
    w = analysis.omega
    series = []
    stable = ch.sigma_samples[np.isfinite(ch.sampled_peaks)]
    if len(stable):
        n = len(stable)
        series.append(_line("samples: largest", w, stable.max(axis=0), SAMPLES, 1.0))
        series.append(_line("samples: smallest", w, stable.min(axis=0), SAMPLES, 1.0))
        series[-2]["note"] = series[-1]["note"] = f"envelope of {n} stable random samples"
    series.append(_line("nominal", w, ch.sigma_nominal, NOMINAL))
    wc = ch.wcgain
    if np.all(np.isfinite(ch.sigma_worst)):
        series.append(_line("worst case found", w, ch.sigma_worst, WORST))
    if np.isfinite(wc.upper):
        what = "worst-case bound" if wc.certified else "upper bound (not certified)"
        series.append(_hline(f"{what} {fmt_upper(wc.upper)}", wc.upper, WORST))
    if np.isfinite(ch.spec):
        series.append(_hline(f"specification {fmt_spec(ch.spec)}", ch.spec, "#2e7d32", "8 4"))
    return {
        "title": f"{ch.name}: {', '.join(ch.inputs)} → {', '.join(ch.outputs)}",
        "xlabel": "frequency (rad/s)",
        "xname": "ω",
        "ylabel": "largest singular value",
        "xlog": True,
        "ylog": True,
        "yzero": False,
        "series": series,
    }


def step_charts(analysis):
    """One chart per step pair ``input → output``: nominal and worst-case responses.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> G = 1 / (control.tf("s") ** 2 + c * control.tf("s") + 1)
    >>> res = worst_case_analysis(G, n_samples=0, step=([0], [0]))
    >>> [s["label"] for s in step_charts(res)[0]["series"]]
    ['nominal', 'worst case of the parameters of u -> y']
    """
    st = analysis.step
    if st is None:
        return []
    envelope = None
    n = min(N_STEP_SAMPLES, len(analysis.sample_values))
    if n:
        # the samples of the static figure (same system, count and seed), as an envelope
        samples = family(st.system, n=n, seed=analysis.seed).samples
        ys = np.array(
            [
                np.asarray(control.step_response(G, T=st.time, squeeze=False).outputs)
                for G in samples
            ]
        ).reshape((n,) + st.nominal.shape)
        envelope = ys.max(axis=0), ys.min(axis=0)
    charts = []
    for i, out in enumerate(st.outputs):
        for j, inp in enumerate(st.inputs):
            charts.append(
                {
                    "title": f"step on {inp} → {out}",
                    "xlabel": "time (s)",
                    "xname": "t",
                    "ylabel": str(out),
                    "xlog": False,
                    "ylog": False,
                    "yzero": False,
                    "series": (
                        []
                        if envelope is None
                        else [
                            _line("samples: largest", st.time, envelope[0][i, j], SAMPLES, 1.0),
                            _line("samples: smallest", st.time, envelope[1][i, j], SAMPLES, 1.0),
                        ]
                    )
                    + [
                        _line("nominal", st.time, st.nominal[i, j], NOMINAL),
                        _line(
                            f"worst case of the parameters of {st.worst_channel}",
                            st.time,
                            st.worst[i, j],
                            WORST,
                        ),
                    ],
                }
            )
    return charts


def report_charts(analysis):
    """``{figure key: [chart, ...]}`` of the interactive charts of a report.

    The keys are those of :func:`~robustmb.report.figures.report_figures` that have an
    interactive counterpart: ``mu_bounds``, ``singular_values`` and ``step``.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           n_samples=3)
    >>> {k: len(v) for k, v in report_charts(res).items()}
    {'mu_bounds': 1, 'singular_values': 1}
    """
    out = {}
    mu = mu_chart(analysis)
    if mu is not None:
        out["mu_bounds"] = [mu]
    if analysis.channels:
        out["singular_values"] = [channel_chart(analysis, ch) for ch in analysis.channels]
    steps = step_charts(analysis)
    if steps:
        out["step"] = steps
    return out


def _json(chart) -> str:
    # "<" escaped so that no "</script>" can close the data block early
    return json.dumps(chart, allow_nan=False, ensure_ascii=False).replace("<", "\\u003c")


def chart_figure_html(charts, caption, fallback_html="") -> str:
    """A ``<figure>`` holding interactive charts, their caption and a static fallback.

    Parameters
    ----------
    charts : list of dict
        From :func:`report_charts`.
    caption : str
        Plain text (escaped here).
    fallback_html : str
        Markup shown when scripts do not run (e.g. the PNG ``<img>``).

    Examples
    --------
    >>> chart = {"title": "t", "xlabel": "x", "xname": "x", "ylabel": "y", "xlog": False,
    ...          "ylog": False, "yzero": False, "series": []}
    >>> chart_figure_html([chart], "a < b").count('type="application/json"')
    1
    """
    blocks = "".join(
        f'<div class="chart-box"><script type="application/json" class="chart-data">'
        f"{_json(c)}</script></div>"
        for c in charts
    )
    hint = (
        " Hover for values; drag to zoom, double-click to reset; click a legend entry to hide it."
    )
    return (
        f'<figure class="rmb-chart">{blocks}'
        f"<noscript>{fallback_html}</noscript>"
        f"<figcaption>{html.escape(caption)}{hint}</figcaption></figure>"
    )
