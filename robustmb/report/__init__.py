"""Worst-case reports of uncertain closed loops (HTML page, JSON summary, figures).

The user-facing job of robustmb: :func:`worst_case_report` runs nominal
stability, the robust stability margin, worst-case gains of named performance
channels, mu bounds over frequency, Monte Carlo samples and per-parameter
sensitivity, and writes a self-contained HTML report with a JSON summary.

Examples
--------
>>> from robustmb.report import worst_case_report, worst_case_analysis
>>> callable(worst_case_report) and callable(worst_case_analysis)
True
"""

from ..errors import UnstableNominalError
from .worst_case import ChannelAnalysis, WorstCaseAnalysis, worst_case_analysis
from .writer import WorstCaseReport, worst_case_report

__all__ = [
    "ChannelAnalysis",
    "UnstableNominalError",
    "WorstCaseAnalysis",
    "WorstCaseReport",
    "worst_case_analysis",
    "worst_case_report",
]
