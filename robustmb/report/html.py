"""Self-contained HTML page of a worst-case report.

Figures are embedded as PNG data URIs; the frequency and step plots are interactive
(:mod:`~robustmb.report.interactive`: their data and an inline script, no network).
"""

from __future__ import annotations

import base64
import datetime
import html

import numpy as np

from . import interactive
from .bound_format import fmt_against, fmt_bound, fmt_lower, fmt_point, fmt_spec, fmt_upper
from .figures import _fmt, margin_rows, mu_caption
from .step_analysis import N_STEP_SAMPLES

#: The stylesheet of the report pages (worst-case report, certificate replay): one
#: ``<style>`` body, no external resource; a page adds its own rules after it.
STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 60em; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
.meta { color: #666; font-size: 0.9em; }
.verdict { padding: 0.8em 1em; border-radius: 6px; font-size: 1.05em; margin: 1em 0; }
.verdict.ok { background: #e6f4ea; border: 1px solid #5cb85c; }
.verdict.bad { background: #fdecea; border: 1px solid #d9534f; }
.verdict.unknown { background: #fff6e0; border: 1px solid #f0ad4e; }
.part { padding: 0.4em 1em; margin: 0.6em 0; border-left: 4px solid #999; }
.part.ok { border-left-color: #5cb85c; }
.part.bad { border-left-color: #d9534f; }
.part.unknown { border-left-color: #f0ad4e; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
.pass { color: #2e7d32; font-weight: bold; }
.fail { color: #c62828; font-weight: bold; }
"""


def _e(x) -> str:
    return html.escape(str(x))


def _value_text(v) -> str:
    """A parameter value for a table cell (numbers, complex, LTI blocks)."""
    if isinstance(v, bool | np.bool_):
        return str(v)
    if isinstance(v, int | float | np.integer | np.floating):
        return _fmt(v, 6)
    if isinstance(v, complex | np.complexfloating):
        return f"{_fmt(v.real, 6)} {'+' if v.imag >= 0 else '-'} {_fmt(abs(v.imag), 6)}j"
    if hasattr(v, "nstates"):
        return f"LTI system ({v.nstates} states)"
    if isinstance(v, np.ndarray):
        return "zero block" if not np.any(v) else np.array2string(v, precision=4)
    return str(v)


def _normalised(desc, v):
    """Normalised deviation of a real value (-1 and 1 are the range ends)."""
    if desc["kind"] != "real" or not isinstance(v, int | float | np.floating):
        return "-"
    lo, hi = desc["range"]
    return _fmt((float(v) - 0.5 * (lo + hi)) / (0.5 * (hi - lo)), 4)


def _step_cells(m, which):
    """Final value and overshoot cells of a step metric; an unstable system has neither."""
    if not m[f"stable_{which}"]:
        return ["unstable (diverges)", "n/a"]
    return [_fmt(m[f"final_{which}"]), f"{_fmt(m[f'overshoot_{which}'], 3)} %"]


def _table(header, rows, num_cols=()):
    out = ["<table>", "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for j, c in enumerate(row):
            cls = ' class="num"' if j in num_cols else ""
            cells.append(f"<td{cls}>{_e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _img_tag(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{_e(alt)}">'


def _img(png: bytes, alt: str, caption: str) -> str:
    return f"<figure>{_img_tag(png, alt)}<figcaption>{_e(caption)}</figcaption></figure>"


def _figure(charts, key, png, alt, caption, chart_caption=None) -> str:
    """The interactive chart(s) of figure ``key`` with its PNG as the no-script fallback
    (``chart_caption`` when the charts draw other curves than the PNG), or the PNG alone
    when the figure has no interactive form."""
    if key in charts:
        return interactive.chart_figure_html(
            charts[key], chart_caption or caption, _img_tag(png, alt)
        )
    return _img(png, alt, caption)


_CLASS = {"pass": "ok", "fail": "bad", "inconclusive": "unknown"}
_WORD = {"pass": "PASS", "fail": "FAIL", "inconclusive": "inconclusive"}


def _not_certified(certified, analysis) -> str:
    """What a bound's certificate does not cover: nothing, the axis, or all but the grid."""
    if certified:
        return ""
    if analysis.frequencies is not None:
        return " (given frequencies only, not certified)"
    return " (not certified)"


def _realised_above(ch) -> str:
    """The largest realised gain when the nominal values or a sample exceed the worst case
    found (it then decides the verdict)."""
    if not ch.worst_found > ch.wcgain.lower:
        return ""
    what = {"nominal": "nominal", "sample": "sampled", "unstable sample": "unstable sample"}
    realised = fmt_against(ch.worst_found, "lower", ch.spec)
    return f"; realised {realised} ({what[ch.worst_found_source]})"


def _headline_html(analysis) -> str:
    """The robust-performance verdict: never greener than the worst channel."""
    v = analysis.performance_verdict
    return f'<div class="verdict {_CLASS[v]}" id="headline"><b>{_e(analysis.headline())}</b></div>'


def channel_rows(analysis):
    """``(header, rows)`` of the per-channel specification / verdict table."""
    header = [
        "channel",
        "inputs → outputs",
        "specification",
        "nominal peak gain",
        "nominal",
        "worst-case peak gain [lower, upper]",
        "at (rad/s)",
        "robust verdict",
    ]
    rows = []
    for ch in analysis.channels:
        wc = ch.wcgain
        rows.append(
            [
                ch.name,
                f"{', '.join(ch.inputs)} → {', '.join(ch.outputs)}",
                f"peak gain ≤ {fmt_spec(ch.spec)}",
                fmt_point(ch.nominal_peak, ch.spec),
                _WORD[ch.nominal_verdict],
                f"[{fmt_against(wc.lower, 'lower', ch.spec)}, "
                f"{fmt_against(wc.upper, 'upper', ch.spec)}]"
                + _not_certified(wc.certified, analysis)
                + _realised_above(ch),
                _fmt(wc.critical_frequency),
                _WORD[ch.verdict],
            ]
        )
    return header, rows


def _channel_table(analysis) -> str:
    header, rows = channel_rows(analysis)
    out = ["<table>", "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for j, c in enumerate(row):
            if j in (4, 7):
                cls = {"PASS": "pass", "FAIL": "fail"}.get(c, "")
                cells.append(f'<td class="{cls}">{_e(c)}</td>')
            else:
                num = ' class="num"' if j in (3, 5, 6) else ""
                cells.append(f"<td{num}>{_e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def loop_margin_rows(analysis):
    """``(header, rows)`` of the loop-margin table (nominal, worst case, at worst values)."""
    from .summary_data import loop_margins_summary

    d = loop_margins_summary(analysis.margins, analysis.loop_description)
    cols = [
        ("nominal", d["nominal"]),
        (
            "worst case (certified)" if d["worst_case"]["certified"] else "worst case",
            d["worst_case"],
        ),
        ("at the worst values found", d["at_worst_values"]),
    ]
    cols = [(k, v) for k, v in cols if v is not None]

    # The worst-case column is a guarantee: each number is rounded towards a smaller
    # margin (the disk and the phase down, the gain interval inwards).
    def inward(v, x, side, digits=4):
        return fmt_bound(x, side, digits) if v is d["worst_case"] else _fmt(x, digits)

    def gm(v):
        (lo, hi), (dlo, dhi) = v["gain_margin"], v["gain_margin_db"]
        return (
            f"[{inward(v, lo, 'upper')}, {inward(v, hi, 'lower')}] "
            f"({inward(v, dlo, 'upper', 3)} / +{inward(v, dhi, 'lower', 3)} dB)"
        )

    rows = [
        ["disk margin α"] + [inward(v, v["disk_margin"], "lower") for _, v in cols],
        ["gain margin"] + [gm(v) for _, v in cols],
        ["phase margin"] + [f"±{inward(v, v['phase_margin_deg'], 'lower', 3)}°" for _, v in cols],
        ["critical frequency (rad/s)"]
        + [_fmt(v["frequency"]) if "frequency" in v else "-" for _, v in cols],
    ]
    return ["margin"] + [k for k, _ in cols], rows


def _verdict_html(analysis) -> str:
    rs = analysis.robstab
    v = analysis.verdict
    if v == "robustly stable":
        cls = "ok"
        text = (
            f"<b>Robustly stable.</b> Stability is certified for every parameter value in "
            f"the declared ranges; the margin is {_e(fmt_lower(rs.lower))} to "
            f"{_e(fmt_upper(rs.upper))}: the ranges can grow to "
            f"{_e(fmt_lower(rs.lower, 3, scale=100))} % "
            "of their declared size about their centres before stability can be lost."
        )
    elif v == "not robustly stable":
        cls = "bad"
        text = (
            f"<b>Not robustly stable.</b> The parameter values below lie within "
            f"{_e(fmt_upper(rs.upper, 3, scale=100))} % of the declared ranges (scaled about their "
            f"centres) and "
            + (
                "make a closed-loop pole escape to infinity and come back unstable."
                if np.isinf(rs.critical_frequency)
                else "put a closed-loop pole on the stability boundary at "
                f"{_e(_fmt(rs.critical_frequency))} rad/s."
            )
        )
    else:
        cls = "unknown"
        text = (
            f"<b>Inconclusive.</b> The stability margin lies in [{_e(fmt_lower(rs.lower))}, "
            f"{_e(fmt_upper(rs.upper))}]"
            + ("" if rs.certified else " and the frequency axis is not fully certified")
            + "."
        )
    # A part of the verdict, not a headline: styled below the robust-performance box so
    # that a green stability result never reads as the overall verdict.
    return f'<div class="part {cls}" id="stability">Robust stability — {text}</div>'


def _parameter_rows(analysis):
    rs = analysis.robstab
    rows = []
    # unit and meaning columns only when the model gave them
    with_units = any(d.get("unit") or d.get("description") for d in analysis.parameters.values())
    for name, desc in analysis.parameters.items():
        if desc["kind"] == "real":
            lo, hi = desc["range"]
            rng = f"[{_fmt(lo, 6)}, {_fmt(hi, 6)}]"
            nom = _fmt(desc["nominal"], 6)
        elif desc["kind"] == "complex":
            nom = _value_text(complex(desc["nominal"]["re"], desc["nominal"]["im"]))
            rng = f"disc, radius {_fmt(desc['radius'])}"
        else:
            nom = "0"
            rng = f"{desc['shape'][0]}x{desc['shape'][1]} LTI, gain <= {_fmt(desc['bound'])}"
        v = rs.destabilizing.get(name)
        described = [desc.get("unit", ""), desc.get("description", "")] if with_units else []
        row = [
            name,
            *described,
            desc["kind"],
            desc["occurrences"],
            nom,
            rng,
            _value_text(v) if v is not None else "-",
            _normalised(desc, v) if v is not None else "-",
        ]
        for ch in analysis.channels:
            w = ch.wcgain.worst.get(name)
            row.append(_value_text(w) if w is not None else "-")
        rows.append(row)
    header = [
        "parameter",
        *(["unit", "description"] if with_units else []),
        "kind",
        "occurrences",
        "nominal",
        "declared range",
        "destabilising value",
        "normalised (±1 = range end)",
    ]
    header += [f"worst case: {ch.name}" for ch in analysis.channels]
    return header, rows


def _run_text(run):
    """Header text of a run: its id and UTC timestamp (or the local time without one)."""
    if not run:
        return _e(datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    return f"run <code>{_e(run['id'])}</code>, {_e(run['created'])}"


def render_html(
    analysis, pngs: dict, *, json_name="summary.json", run=None, interactive_plots=True
) -> str:
    """The report page as a string.

    Parameters
    ----------
    analysis : WorstCaseAnalysis
    pngs : dict
        ``{key: PNG bytes}`` with keys ``mu_bounds``, ``singular_values``,
        ``sensitivity`` (others are ignored).
    json_name : str
        Name of the JSON summary written beside the page.
    run : dict, optional
        ``{"id": .., "created": ..}`` of the run, shown in the page header (the
        same values as in the JSON summary, so the two files can be matched).
    interactive_plots : bool
        Draw the μ, singular-value and step figures as interactive charts (hover
        readout, zoom) with the PNG as the no-script fallback; False: the PNGs only.

    Examples
    --------
    >>> from robustmb.report.worst_case import worst_case_analysis
    >>> import control, robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = worst_case_analysis(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1),
    ...                           channels={}, n_samples=0)
    >>> page = render_html(res, {})
    >>> page.startswith("<!DOCTYPE html>") and "Robustly stable." in page
    True
    """
    rs = analysis.robstab
    mu = rs.mu
    import robustmb

    charts = interactive.report_charts(analysis) if interactive_plots else {}
    charts = {k: v for k, v in charts.items() if k in pngs}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(analysis.title)}</title>",
        f"<style>{STYLE}{interactive.STYLE if charts else ''}</style></head><body>",
        f"<h1>{_e(analysis.title)}</h1>",
        f'<p class="meta">robustmb {_e(robustmb.__version__)} · '
        f"{_run_text(run)} · system "
        f"<code>{_e(analysis.system_name)}</code>: {analysis.nstates} states, inputs "
        f"{_e(', '.join(analysis.input_names))}, outputs {_e(', '.join(analysis.output_names))}"
        f"{'' if not analysis.dt else f', sampling time {_e(_fmt(analysis.dt))} s'}</p>",
        _headline_html(analysis),
        _verdict_html(analysis),
    ]
    if analysis.frequencies is not None:
        parts.append(
            '<div class="part unknown" id="frequencies"><b>Given frequencies only.</b> '
            "robstab and wcgain "
            f"were restricted to {analysis.frequencies.size} given frequencies: their bounds "
            "hold at those frequencies only, and nothing is certified over the frequency "
            "axis.</div>"
        )
    for flag in analysis.flags():
        parts.append(f'<div class="verdict unknown"><b>Bound gap.</b> {_e(flag)}</div>')
    if analysis.notes:
        parts.append(f"<p>{_e(analysis.notes)}</p>")
    parts.append('<h2>Conclusions</h2><ul id="conclusions">')
    parts.extend(f"<li>{_e(c)}</li>" for c in analysis.conclusions())
    parts.append("</ul>")
    if analysis.channels:
        parts.append("<h2>Performance channels: specification and verdict</h2>")
        parts.append(_channel_table(analysis))
        parts.append(
            "<p>PASS: the certified worst-case upper bound meets the specification for every "
            "parameter value in the declared ranges. FAIL: parameter values inside the ranges "
            "were found that violate it (the worst case found, verified by substitution, the "
            "nominal values or a Monte Carlo sample; an unstable sample violates every "
            "specification). "
            "Inconclusive: the specification lies between the bounds.</p>"
        )
    parts.append("<h2>Margins</h2>")
    parts.append(_table(["quantity", "value"], margin_rows(analysis)))
    parts.append(
        "<p>The robust stability margin is in normalised units: 1 is the declared ranges, "
        "2 would be ranges twice as wide about their centres. "
        + (
            "Lower bounds are certified over the whole frequency axis (μ upper bounds with "
            "frequency-interval certificates) when marked certified"
            if analysis.frequencies is None
            else "Lower bounds hold at the given frequencies only (not certified over the "
            "frequency axis)"
        )
        + "; upper bounds are realised by the parameter values below, verified "
        "by substitution.</p>"
    )
    if analysis.margins is not None:
        wm = analysis.margins
        parts.append("<h2>Loop margins: disk, gain and phase</h2>")
        header, rows = loop_margin_rows(analysis)
        parts.append(_table(header, rows, num_cols=(1, 2, 3)))
        where = f" at {_e(analysis.loop_description)}" if analysis.loop_description else ""
        parts.append(
            f"<p>Multiloop disk margins{where} (channels {_e(', '.join(wm.channels))} "
            "perturbed at once, symmetric disk): every gain in the interval and every phase "
            "in ±the phase margin, applied simultaneously in all channels, keeps the loop "
            + (
                "stable. The worst-case column holds for every parameter value in the declared "
                "ranges (certified lower bound of wcdiskmargin); "
                if wm.certified
                else "stable. The worst-case column is NOT certified (wcdiskmargin found no "
                "certificate over the declared ranges"
                + ("; a lower bound of 0 guarantees nothing" if wm.lower == 0 else "")
                + "); "
            )
            + "the last column is the loop at "
            "the parameter values that came closest, an upper bound of the worst case.</p>"
        )
    header, rows = _parameter_rows(analysis)
    parts.append("<h2>Uncertain parameters and worst cases</h2>")
    parts.append(_table(header, rows, num_cols=(header.index("occurrences"),)))
    if "mu_bounds" in pngs:
        parts.append("<h2>μ bounds over frequency</h2>")
        parts.append(
            _figure(
                charts,
                "mu_bounds",
                pngs["mu_bounds"],
                "mu bounds vs frequency",
                mu_caption(analysis),
            )
        )
    if "singular_values" in pngs:
        parts.append("<h2>Performance channels</h2>")
        every = all(ch.wcgain.certified for ch in analysis.channels)
        bound = "certified" if every else "upper (certified where the table says so)"
        parts.append(
            _figure(
                charts,
                "singular_values",
                pngs["singular_values"],
                "singular values",
                "Largest singular value: nominal, random samples and the worst "
                f"case found; the dotted line is the {bound} worst-case bound.",
                "Largest singular value: nominal, the envelope (largest and smallest) of "
                f"the stable random samples and the worst case found; dotted: the {bound} "
                "worst-case bound; dashed green: the specification.",
            )
        )
    if analysis.step is not None:
        st = analysis.step
        parts.append("<h2>Step responses</h2>")
        if "step" in pngs:
            n = min(N_STEP_SAMPLES, len(analysis.sample_values))
            parts.append(
                _figure(
                    charts,
                    "step",
                    pngs["step"],
                    "step responses",
                    f"Unit steps on {', '.join(st.inputs)}: nominal, {n} random samples "
                    f"(seed {analysis.seed}) and the parameter values of the worst case of "
                    f"{st.worst_channel}.",
                    f"Unit steps on {', '.join(st.inputs)}: nominal, the envelope (largest "
                    f"and smallest) of {n} random samples (seed {analysis.seed}) and the "
                    f"parameter values of the worst case of {st.worst_channel}; one chart "
                    "per input-output pair.",
                )
            )
        rows = [
            [f"{m['input']} → {m['output']}"] + _step_cells(m, "nominal") + _step_cells(m, "worst")
            for m in st.metrics()
        ]
        parts.append(
            _table(
                [
                    "step",
                    "final value, nominal",
                    "overshoot, nominal",
                    "final value, worst",
                    "overshoot, worst",
                ],
                rows,
                num_cols=(1, 2, 3, 4),
            )
        )
    if "sensitivity" in pngs:
        parts.append("<h2>Parameter sensitivity</h2>")
        parts.append(
            _img(
                pngs["sensitivity"],
                "sensitivity bar chart",
                "Percent decrease of the stability margin when one parameter's "
                "range grows by one percent (evaluated at the critical frequency).",
            )
        )
    parts.append("<h2>Monte Carlo samples</h2>")
    n = len(analysis.sample_values)
    if n:
        mc_rows = [
            ["stable samples", f"{n - analysis.n_unstable_samples} / {n}"],
            ["seed", analysis.seed],
        ]
        for ch in analysis.channels:
            fin = ch.sampled_peaks[np.isfinite(ch.sampled_peaks)]
            # an unstable sample has an infinite peak gain: the statistics are of the
            # stable ones, and the unstable ones are counted beside them
            n_inf = int(ch.sampled_peaks.size - fin.size)
            if fin.size:
                mc_rows.append(
                    [
                        f"{ch.name}: sampled peak gain of the {fin.size} stable samples "
                        "(min / median / max)",
                        f"{_fmt(fin.min())} / {_fmt(np.median(fin))} / {_fmt(fin.max())}"
                        + (f"; {n_inf} unstable (peak gain inf)" if n_inf else ""),
                    ]
                )
            elif n_inf:
                mc_rows.append(
                    [f"{ch.name}: sampled peak gain", f"every sample unstable ({n_inf}, inf)"]
                )
        parts.append(_table(["quantity", "value"], mc_rows))
        parts.append(f"<p>{_e(analysis.sampling_description())}</p>")
        if "histograms" in pngs:
            parts.append(
                _img(
                    pngs["histograms"],
                    "Monte Carlo histograms",
                    "Histogram of the sampled peak gain of each channel, with the nominal "
                    "value, the specification and the certified worst-case bounds. "
                    + analysis.sampling_description(),
                )
            )
        parts.append(
            "<p>Samples give context only: random values rarely hit the worst "
            "case, which is why the bounds above come from μ analysis.</p>"
        )
    else:
        parts.append("<p>No samples were drawn.</p>")
    checks = analysis.checks()
    if checks:
        parts.append("<h2>Consistency checks</h2><ul>")
        for text, ok in checks:
            mark = '<span class="pass">pass</span>' if ok else '<span class="fail">FAIL</span>'
            parts.append(f"<li>{mark} {_e(text)}</li>")
        parts.append("</ul>")
    parts.append("<h2>Evidence and run details</h2><ul>")
    if mu is not None:
        parts.append(
            f"<li>μ evaluated at {mu.omega.size} frequencies; certified frequency "
            f"intervals: {len(mu.intervals)}; whole axis covered: {_e(mu.covered)}; certified peak "
            f"μ ≤ {_e(fmt_upper(mu.upper, 6))}; best lower bound {_e(fmt_lower(mu.lower, 6))} at "
            f"{_e(_fmt(mu.lower_frequency))} rad/s.</li>"
        )
    for ch in analysis.channels:
        parts.append(
            f"<li>{_e(ch.name)}: worst-case bound certified on the whole axis: "
            f"{_e(ch.wcgain.certified)}.</li>"
        )
    tim = ", ".join(f"{k} {v:.1f} s" for k, v in analysis.timings.items())
    parts.append(f"<li>Time per step: {_e(tim)}.</li>")
    parts.append(
        f"<li>Every number of this report, with the worst-case parameter values, is "
        f'in <a href="{_e(json_name)}">{_e(json_name)}</a>.</li></ul>'
    )
    if charts:
        parts.append(f"<script>{interactive.SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts)
