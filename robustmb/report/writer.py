"""``worst_case_report``: run the analysis and write the HTML page, JSON summary and figures."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from .._progress import ProgressBar
from ..errors import ArgumentError
from .figures import figure_png, report_figures
from .html import render_html
from .worst_case import WorstCaseAnalysis, normalize_channels, worst_case_analysis

HTML_NAME = "report.html"
JSON_NAME = "summary.json"
FIGURE_DIR = "figures"


@dataclass
class WorstCaseReport:
    """What :func:`worst_case_report` wrote.

    Attributes
    ----------
    analysis : WorstCaseAnalysis
    html_path, json_path : pathlib.Path
    figure_paths : dict
        ``{key: path}`` of the PNG figures (also embedded in the HTML page).
    """

    analysis: WorstCaseAnalysis
    html_path: Path
    json_path: Path
    figure_paths: dict


def worst_case_report(
    system,
    channels=None,
    *,
    out_dir="robustmb-report",
    n_samples=100,
    seed=0,
    omega=None,
    title=None,
    notes="",
    progress=False,
):
    """Analyse an uncertain closed loop and write its worst-case report.

    Runs :func:`~robustmb.report.worst_case.worst_case_analysis` (nominal
    stability, robust stability margin with mu bounds and parameter
    sensitivity, worst-case gains of the channels, Monte Carlo samples), then
    writes into ``out_dir``:

    - ``report.html``: a self-contained page (figures embedded);
    - ``summary.json``: every number, with the worst-case parameter values;
    - ``figures/*.png``: the figures (mu bounds, singular values, margins
      table, sensitivity).

    Parameters
    ----------
    system : UncertainSystem
        Uncertain closed loop.
    channels : dict, optional
        ``{name: (outputs, inputs)}`` performance channels (default: every input
        to every output).
    out_dir : str or pathlib.Path
        Output folder (created if needed).
    n_samples, seed : int
        Monte Carlo samples and their seed.
    omega : array_like, optional
        Restrict ``robstab`` / ``wcgain`` to these frequencies (default: whole axis).
    title, notes : str, optional
        Page title and a free-text paragraph.
    progress : bool
        Show a progress bar on standard error.

    Returns
    -------
    WorstCaseReport

    Raises
    ------
    UncertainTypeError, SignalError, UnstableNominalError
        See :func:`~robustmb.report.worst_case.worst_case_analysis`.

    Examples
    --------
    >>> import json, tempfile, control
    >>> import robustmb as rmb
    >>> from robustmb.report import worst_case_report
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     rep = worst_case_report(1 / (s * s + c * s + 1), {}, out_dir=tmp, n_samples=5)
    ...     summary = json.loads(rep.json_path.read_text())
    >>> summary["verdict"], summary["robust_stability"]["lower"] == rep.analysis.robstab.lower
    ('robustly stable', True)
    """
    if not isinstance(out_dir, str | os.PathLike):
        raise ArgumentError(f"worst_case_report: out_dir must be a path, got {out_dir!r}")
    out = Path(out_dir)
    n_channels = len(normalize_channels(system, channels)) if hasattr(system, "input_names") else 1
    bar = ProgressBar(3 + n_channels + 2, "robustmb report", enabled=bool(progress))
    try:
        analysis = worst_case_analysis(
            system,
            channels,
            n_samples=n_samples,
            seed=seed,
            omega=omega,
            title=title,
            notes=notes,
            progress=bar,
        )
        bar.start("figures")
        t0 = time.perf_counter()
        figs = report_figures(analysis)
        pngs = {key: figure_png(fig) for key, fig in figs.items()}
        analysis.timings["figures"] = time.perf_counter() - t0
        bar.advance()
        bar.start("writing files")
        (out / FIGURE_DIR).mkdir(parents=True, exist_ok=True)
        figure_paths = {}
        for key, png in pngs.items():
            path = out / FIGURE_DIR / f"{key}.png"
            path.write_bytes(png)
            figure_paths[key] = path
        json_path = out / JSON_NAME
        json_path.write_text(json.dumps(analysis.summary(), indent=1, allow_nan=False))
        html_path = out / HTML_NAME
        html_path.write_text(render_html(analysis, pngs, json_name=JSON_NAME), encoding="utf-8")
        bar.advance(label=f"wrote {html_path}")
    finally:
        bar.close()
    return WorstCaseReport(analysis, html_path, json_path, figure_paths)
