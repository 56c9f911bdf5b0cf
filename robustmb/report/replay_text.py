"""The text (markdown) of ``robustmb demo``'s certified replay summary.

The counterpart of :mod:`robustmb.report.replay_html`: per channel the specification,
the certified level and the exact share of the (t1, t2) square it covers, what was
sampled where nothing is proven and over the whole square, and the verdict.
"""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np


def _evidence_text(ch):
    """``"7/64: 5 whole cells and 8 pieces, finest 1/32 x 1/32 of the square"`` (or "")."""
    if "certified_coverage_exact" not in ch:
        return ""
    text = f"exactly {ch['certified_coverage_exact']}"
    if "proven_whole_cells" in ch:
        text += f": {ch['proven_whole_cells']} whole cells and {ch['proven_pieces']} pieces"
    if ch.get("finest_proven"):
        text += f", finest {ch['finest_proven']}"
    return text


def summary_text(summary):
    """The human-readable lines of a :func:`certified_demo` summary.

    Examples
    --------
    >>> s = {"design": "d", "guarantee": "g", "time": {"total": 1.0}, "channels": {
    ...     "tracking W_e S": {"specification": "peak gain <= 1", "certified_level": 0.95,
    ...     "certified_coverage": 0.5, "partition": "2 x 2", "frequencies_rechecked": 10,
    ...     "not_proven_sampled_worst": 0.9, "verdict": "not proven"}}}
    >>> line = summary_text(s).splitlines()[3]
    >>> line[:60]
    '- tracking W_e S (peak gain <= 1): certified < 0.95 on 50.0 '
    >>> line.endswith("not proven on the rest (sampled worst 0.9); verdict: not proven")
    True

    With pieces and the whole square sampled:

    >>> s["channels"]["tracking W_e S"].update(certified_coverage_exact="1/2",
    ...     proven_whole_cells=1, proven_pieces=4, finest_proven="1/4 x 1/4 of the square",
    ...     whole_square_sampled_worst=0.93, whole_square_samples=528,
    ...     worst_case_bracket=[0.93, None])
    >>> print(summary_text(s).splitlines()[3])  # doctest: +NORMALIZE_WHITESPACE
    - tracking W_e S (peak gain <= 1): certified < 0.95 on 50.0 % of the area of the (t1, t2)
    = (tan(theta1/2), tan(theta2/2)) square (2 x 2; exactly 1/2: 1 whole cells and 4 pieces,
    finest 1/4 x 1/4 of the square); not proven on the rest (sampled worst 0.9); sampled
    over the whole square: worst 0.93 (528 loops), so the worst case is >= 0.93; verdict:
    not proven
    """
    from .bound_format import fmt_lower, fmt_upper
    from .replay_html import certified_share, percent_down

    lines = [f"design: {summary['design']}", f"guarantee: {summary['guarantee']}", "channels:"]
    for name, ch in summary["channels"].items():
        share = certified_share(ch)  # exact when known: "all" and "the rest" decided on it
        nothing = ch["certified_level"] is None or not share > 0
        if nothing:
            cert = "nothing certified"
        else:
            extra = _evidence_text(ch)
            cert = (
                f"certified < {fmt_upper(ch['certified_level'], 6)} on "
                f"{percent_down(share)} % "
                f"of the area of the (t1, t2) = (tan(theta1/2), tan(theta2/2)) square "
                f"({ch['partition']}{'; ' + extra if extra else ''})"
            )
        rest = ""
        if share < 1:
            worst = ch["not_proven_sampled_worst"]
            loops = f", {ch['not_proven_samples']} loops" if "not_proven_samples" in ch else ""
            if ch.get("not_proven_unresolved_samples"):
                loops += f", {ch['not_proven_unresolved_samples']} unresolved"
            where = "the whole square" if nothing else "the rest"
            rest = f"; not proven on {where}" + (
                "" if worst is None else f" (sampled worst {fmt_lower(worst)}{loops})"
            )
        if ch.get("whole_square_sampled_worst") is not None:
            lo, hi = ch.get("worst_case_bracket", [None, None])
            unresolved = ch.get("whole_square_unresolved_samples")
            rest += (
                f"; sampled over the whole square: worst "
                f"{fmt_lower(ch['whole_square_sampled_worst'])} "
                f"({ch['whole_square_samples']} loops"
                f"{f', {unresolved} unresolved' if unresolved else ''})"
            )
            if lo is not None:
                rest += (
                    f", so the worst case is in [{fmt_lower(lo)}, {fmt_upper(hi, 6)}]"
                    if hi is not None
                    else f", so the worst case is >= {fmt_lower(lo)}"
                )
        lines.append(f"- {name} ({ch['specification']}): {cert}{rest}; verdict: {ch['verdict']}")
    if summary.get("design_sha256"):
        lines.append(f"provenance: design values sha256 {summary['design_sha256']}")
    for name, ch in summary["channels"].items():
        if ch.get("evidence_folder"):
            commits = ", ".join(c[:12] for c in ch.get("evidence_commits", []))
            lines.append(
                f"- {name}: evidence {ch['evidence_folder']}, built from "
                f"{ch.get('evidence_built_from') or 'unrecorded records'}"
                + (f" (certified by the code of commit(s) {commits})" if commits else "")
            )
    return "\n".join(lines) + "\n"


def _finite_or_none(x):
    """A sampled gain for JSON: None where nothing was sampled (NaN) or nothing is finite."""
    return x if np.isfinite(x) else None


def _fraction_text(x):
    return f"{x.numerator}/{x.denominator}" if x.denominator != 1 else f"{x.numerator}"


def channel_summary(rep, folder, spec, verdict):
    """The summary entry of one channel's replay (JSON-ready): the numbers of the report.

    ``spec`` is the channel's specification (peak gain), ``verdict`` the verdict of the
    replay (:func:`~.arm_certificate.channel_verdict`).
    """
    from .evidence_keys import key_to_json

    proven = rep.proven
    level = rep.gamma if proven else None
    cov = rep.coverage_exact if rep.coverage_exact is not None else Fraction(rep.coverage)
    lower = rep.worst_sampled
    return {
        "specification": f"peak gain <= {spec:g}",
        "evidence_folder": None if folder is None else os.path.basename(folder),
        "certified_level": level,
        "certified_coverage": rep.coverage,
        "certified_coverage_exact": _fraction_text(cov),
        "proven_sub_boxes": [key_to_json(b) for b in proven],
        "proven_whole_cells": rep.whole_cells,
        "proven_pieces": rep.pieces,
        "finest_proven": None if rep.finest is None else
        f"{_fraction_text(rep.finest[0])} x {_fraction_text(rep.finest[1])} of the square",
        "partition": f"{rep.n} x {rep.n} equal sub-boxes",
        "frequencies_rechecked": rep.points,
        "not_proven_sampled_worst": _finite_or_none(rep.sampled_worst),
        "not_proven_sampled_where": rep.sampled_where,
        "not_proven_samples": rep.samples,
        "not_proven_unresolved_samples": rep.unresolved,
        "whole_square_sampled_worst": _finite_or_none(rep.square_worst),
        "whole_square_sampled_where": rep.square_where,
        "whole_square_samples": rep.square_samples,
        "whole_square_unresolved_samples": rep.square_unresolved,
        # [largest sampled gain, certified level]: the worst case over the square lies in
        # it; no upper end unless the whole square is proven
        "worst_case_bracket": [
            _finite_or_none(lower),
            level if cov >= 1 else None,
        ],
        "verdict": verdict,
        "seconds": rep.seconds,
        "cpu_seconds": rep.cpu,
    }  # fmt: skip
