"""HTML page of ``robustmb demo``: what this run re-checked, and the verdicts resting on it.

The page is rendered from the replay's summary (:func:`~.arm_certificate.certified_demo`,
the same dictionary as ``summary.json``) with the worst-case report's style and table
helpers (:mod:`.html`), self-contained (no script, no network).  Its table, "re-checked in
this run", gives per channel the specification, the evidence folder, the certified level,
the share of the (t1, t2) square whose stored evidence this run re-checked (rounded down,
and exact, with the count of whole cells and split pieces and the finest of them), the
largest gain sampled where nothing is proven and over the whole square, and the verdict
(which rests on that table only).

Every number of a table cell also sits, unrounded, in the cell's ``data-value``
attribute, so the page can be matched against ``summary.json``.
"""

from __future__ import annotations

import html as _html
import math
from decimal import ROUND_FLOOR, Context, Decimal
from fractions import Fraction

import numpy as np

from .bound_format import fmt_lower, fmt_upper
from .html import STYLE

_CLASS = {"pass": "ok", "fail": "bad", "not proven": "unknown"}
_STYLE_EXTRA = """
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
"""


def percent_down(share) -> str:
    """A share in [0, 1] as a percentage with one decimal, rounded down (never more).

    A float share is read as the decimal it is stored as (its shortest ``repr``, as in
    ``summary.json``), so ``0.29`` shows ``29.0`` and ``0.99996`` shows ``99.9``, never
    ``100.0``: a headline does not claim more of the square than was certified.  A
    :class:`~fractions.Fraction` is rounded down exactly: ``100.0`` only when it is 1.

    Examples
    --------
    >>> percent_down(0.99996), percent_down(0.125), percent_down(0.29), percent_down(1)
    ('99.9', '12.5', '29.0', '100.0')
    >>> percent_down(0.0004), percent_down(0)
    ('0.0', '0.0')
    >>> percent_down(1 - Fraction(1, 4**30)), percent_down(Fraction(1))
    ('99.9', '100.0')
    """
    if isinstance(share, Fraction):
        tenths = math.floor(share * 1000)
        return f"{tenths // 10}.{tenths % 10}"
    pct = Decimal(repr(float(share))) * 100
    return str(pct.quantize(Decimal("0.1"), rounding=ROUND_FLOOR))


def certified_share(ch):
    """The certified share of a channel's summary entry: the exact fraction
    (``certified_coverage_exact``) when present, else the float ``certified_coverage``.

    Headlines decide "all of the square" or "the rest is not proven" on it: a share just
    below 1 whose float is 1.0 is still below 1.

    Examples
    --------
    >>> certified_share({"certified_coverage": 1.0, "certified_coverage_exact": "63/64"})
    Fraction(63, 64)
    >>> certified_share({"certified_coverage": 0.5})
    0.5
    """
    exact = ch.get("certified_coverage_exact")
    return Fraction(exact) if exact else ch["certified_coverage"]


def _share_cell(share):
    """A table cell for a share of the square, in percent: its text rounded down to six
    significant digits (never more than certified), its exact value in ``data-value``."""
    if share is None:
        return _num(None)
    if isinstance(share, Fraction):
        # exact quotient rounded down (40 digits), then to six digits: never rounded up
        down = Context(prec=40, rounding=ROUND_FLOOR)
        value = down.multiply(
            down.divide(Decimal(share.numerator), Decimal(share.denominator)), 100
        )
    else:
        value = Decimal(repr(float(share))) * 100
    pct = Context(prec=6, rounding=ROUND_FLOOR).plus(value)
    return f'<td class="num" data-value="{100 * float(share)!r}">{pct.normalize():f}</td>'


def _e(x) -> str:
    return _html.escape(str(x), quote=True)


def _num(value, digits=6, suffix=""):
    """A table cell for a number (its text rounded, its exact value in ``data-value``)."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return '<td class="num" data-value="none">-</td>'
    v = float(value)
    return f'<td class="num" data-value="{v!r}">{v:.{digits}g}{_e(suffix)}</td>'


def _text(value, key=None):
    attr = f' data-key="{_e(key)}"' if key else ""
    return f"<td{attr}>{_e(value)}</td>"


def _row(cells):
    return "<tr>" + "".join(cells) + "</tr>"


def _rechecked_table(channels):
    head = [
        "channel", "specification", "evidence", "certified level",
        "certified share of the square (%)", "certified share (exact)", "proven whole cells",
        "proven pieces", "finest proven", "frequencies re-checked",
        "sampled worst where not proven", "loops sampled",
        "sampled worst over the whole square", "loops sampled over the whole square",
        "verdict",
    ]  # fmt: skip
    rows = []
    for name, ch in channels.items():
        verdict = ch["verdict"]
        rows.append(
            f'<tr data-channel="{_e(name)}">'
            + _text(name)
            + _text(ch["specification"])
            + _text(ch.get("evidence_folder") or "none (sampled only)")
            + _num(ch["certified_level"])
            + _share_cell(certified_share(ch))
            + _text(ch.get("certified_coverage_exact", "-"), "certified_coverage_exact")
            + _num(ch.get("proven_whole_cells"))
            + _num(ch.get("proven_pieces"))
            + _text(ch.get("finest_proven") or "-", "finest_proven")
            + _num(ch["frequencies_rechecked"])
            + _num(ch["not_proven_sampled_worst"])
            + _num(ch.get("not_proven_samples"))
            + _num(ch.get("whole_square_sampled_worst"))
            + _num(ch.get("whole_square_samples"))
            + f'<td class="{_e(verdict.replace(" ", "-"))}" data-key="verdict">{_e(verdict)}</td>'
            + "</tr>"
        )
    return _table("rechecked", "Re-checked in this run", head, rows)


def _table(table_id, caption, head, rows):
    """An HTML table with an id, a caption, a header row and the given body rows."""
    header = "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"
    return (
        f'<table id="{table_id}"><caption>{_e(caption)}</caption>'
        + header
        + "".join(rows)
        + "</table>"
    )


def _headline(name, ch):
    verdict = ch["verdict"]
    share = certified_share(ch)
    nothing = ch["certified_level"] is None or not share > 0
    if nothing:
        claim = "nothing re-checked as certified in this run"
    else:
        claim = (
            f"peak gain certified &lt; {fmt_upper(ch['certified_level'], 6)} on "
            f"{percent_down(share)} % of the (t1, t2) square (re-checked)"
        )
        if ch.get("certified_coverage_exact"):
            claim += f", exactly {_e(ch['certified_coverage_exact'])} of its area"
            if "proven_whole_cells" in ch:
                claim += (
                    f" ({ch['proven_whole_cells']} whole cells and {ch['proven_pieces']} "
                    "pieces"
                    + (f", finest {_e(ch['finest_proven'])}" if ch.get("finest_proven") else "")
                    + ")"
                )
    rest = ""
    if share < 1:
        where = "on the whole square" if nothing else "elsewhere"
        rest = f"; not proven {where}"
        if ch["not_proven_sampled_worst"] is not None:
            rest += (
                f", sampled worst {fmt_lower(ch['not_proven_sampled_worst'])} "
                "(a sample: a lower bound, not a proof)"
            )
    if ch.get("whole_square_sampled_worst") is not None:
        rest += (
            f"; sampled over the whole square: worst {fmt_lower(ch['whole_square_sampled_worst'])} "
            f"({ch['whole_square_samples']} loops)"
        )
        lo, hi = ch.get("worst_case_bracket", [None, None])
        if lo is not None:
            rest += (
                f", so the worst case lies in [{fmt_lower(lo)}, {fmt_upper(hi, 6)}]"
                if hi is not None
                else f", so the worst case is at least {fmt_lower(lo)}"
            )
    return (
        f'<div class="part {_CLASS.get(verdict, "unknown")}"><b>{_e(name)}</b> '
        f"({_e(ch['specification'])}): {claim}{rest}. Verdict: "
        f"<b>{_e(verdict)}</b>.</div>"
    )


def _provenance(summary):
    """The design's hash and, per channel, the records and commits its evidence came from."""
    items = []
    if summary.get("design_sha256"):
        items.append(
            f'<li>design values: sha256 <code data-key="design_sha256">'
            f"{_e(summary['design_sha256'])}</code> (the evidence is refused for any other)</li>"
        )
    for name, ch in summary["channels"].items():
        if not ch.get("evidence_folder"):
            continue
        commits = ", ".join(f"<code>{_e(c[:12])}</code>" for c in ch.get("evidence_commits", []))
        items.append(
            f'<li data-channel="{_e(name)}">{_e(name)}: evidence '
            f"<code>{_e(ch['evidence_folder'])}</code>, built from "
            f"{_e(ch.get('evidence_built_from') or 'unrecorded records')}"
            + (f"; certified by the code of commit(s) {commits}" if commits else "")
            + "</li>"
        )
    return ["<h2>Provenance</h2>", "<ul>", *items, "</ul>"] if items else []


def render_replay_html(summary) -> str:
    """The page of a :func:`~.arm_certificate.certified_demo` summary, as a string.

    Parameters
    ----------
    summary : dict
        The replay's summary (as written to ``summary.json``).

    Examples
    --------
    >>> ch = {"specification": "peak gain <= 1", "certified_level": 0.95,
    ...       "certified_coverage": 0.125, "frequencies_rechecked": 40,
    ...       "not_proven_sampled_worst": 0.94, "not_proven_samples": 100,
    ...       "verdict": "not proven"}
    >>> s = {"design": "d", "guarantee": "frozen parameters", "channels": {"tracking": ch}}
    >>> page = render_replay_html(s)
    >>> page.startswith("<!DOCTYPE html>"), 'data-value="12.5"' in page
    (True, True)
    """
    import robustmb

    channels = summary["channels"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Robust LPV arm: certificate replay</title>",
        f"<style>{STYLE}{_STYLE_EXTRA}</style></head><body>",
        "<h1>Robust LPV arm: certificate replay</h1>",
        f'<p class="meta">robustmb {_e(robustmb.__version__)} · robustmb demo · '
        f"design: {_e(summary['design'])}</p>",
        f"<p><b>Guarantee:</b> {_e(summary['guarantee'])}.</p>",
        "<h2>Verdicts (re-checked in this run)</h2>",
        *(_headline(name, ch) for name, ch in channels.items()),
        "<p>Each stored certificate of a grid cell or of a split piece of one (frequencies "
        "and D,G scalings) is re-checked in floating point at the stored scalings, with a "
        "1e-6 headroom below the level: the centre of the cell or piece is stable, each "
        "frequency's bound holds and extends to a frequency interval, and the intervals "
        "cover the whole axis. The certified share counts only the cells and pieces that "
        "pass (their exact areas). Where nothing is proven the loops are sampled (centres x "
        "nominal and the 32 vertices of the five physical parameters), and the whole square "
        "is sampled on a grid of cell centres with the same 33 points: a sample is a lower "
        "bound of the worst case, never a proof. The verdict is <i>fail</i> when a sampled "
        "loop violates the specification, <i>pass</i> only when the whole square is "
        "re-checked at a level within it, <i>not proven</i> otherwise.</p>",
        _rechecked_table(channels),
    ]
    parts += _provenance(summary)
    if "time" in summary:
        t = summary["time"]
        parts.append(f'<p class="meta">Wall time {t["total"]:.1f} s.</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
