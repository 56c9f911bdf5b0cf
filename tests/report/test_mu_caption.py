"""The μ figure's caption names exactly what is drawn (no lower-bound curve that is not there)."""

import dataclasses
import re

import control
import numpy as np
from matplotlib.figure import Figure

import robustmb as rmb
from robustmb.report import worst_case_analysis
from robustmb.report.bound_format import fmt_lower, fmt_upper
from robustmb.report.figures import draw_mu_bounds, mu_caption
from robustmb.report.interactive import mu_chart


def _labels(analysis):
    ax = Figure().add_subplot()
    draw_mu_bounds(ax, analysis)
    return [line.get_label() for line in ax.get_lines()]


def test_caption_matches_the_curves(oscillator):
    res = worst_case_analysis(oscillator, channels={}, n_samples=0)
    mu = res.robstab.mu
    zero = dataclasses.replace(mu, mu_lower=np.zeros_like(mu.mu_lower))
    some = dataclasses.replace(
        mu, mu_lower=np.where(np.arange(mu.omega.size) % 2 == 0, 0.5 * mu.mu_upper, 0.0)
    )
    for m in (zero, some, mu):
        r = dataclasses.replace(res, robstab=dataclasses.replace(res.robstab, mu=m))
        labels, caption = _labels(r), mu_caption(r)
        drawn_lower = any(lab.startswith("μ lower bound") for lab in labels)
        assert drawn_lower == ("lower bound at the" in caption)
        assert drawn_lower == bool(np.any(m.mu_lower[m.omega > 0] > 0))
        assert f"at the {m.omega.size} frequencies" in caption
        star = any(lab.startswith("destabilising values found") for lab in labels)
        assert star == ("star:" in caption)
    r = dataclasses.replace(res, robstab=dataclasses.replace(res.robstab, mu=some))
    n = int(np.sum(some.mu_lower > 0))
    assert f"at the {n} of them" in mu_caption(r)


def pd_sensitivity():
    """``1 / (1 + k C / (s (s + 1)))``, ``C = 1 + 0.5 s / (1 + 0.01 s)``, ``k`` in 10 +- 30 %.

    The loop loses stability only when ``k`` reaches 0 (at DC), so the margin is
    ``10 / 3`` exactly and the peak of mu is ``0.3``; robstab certifies its margin by
    a test other than the mu sweep, whose certified peak is looser."""
    k = rmb.ureal("k", 10.0, percent=30)
    s = control.tf("s")
    return rmb.feedback(1, k / (s * (s + 1)) * (1 + 0.5 * s / (1 + 0.01 * s)))


def test_interactive_chart_draws_the_peak_the_caption_and_static_figure_state():
    res = worst_case_analysis(pd_sensitivity(), channels={}, n_samples=0)
    rs = res.robstab
    assert rs.certified and rs.lower <= 10 / 3 <= rs.upper
    assert 1 / rs.lower < rs.mu.upper  # the case where the two certified peaks differ
    peak = min(rs.mu.upper, 1 / rs.lower)
    (dotted,) = [s for s in mu_chart(res)["series"] if s["label"].startswith("certified peak")]
    assert dotted["y"] == peak and dotted["label"] == f"certified peak {fmt_upper(peak)}"
    static = [lab for lab in _labels(res) if lab.startswith("certified peak")]
    assert static == [f"certified peak {fmt_upper(peak)} (margin ≥ {fmt_lower(1 / peak)})"]
    assert f"dotted: the peak {fmt_upper(peak)} certified" in mu_caption(res)
    assert 0.3 <= peak  # the exact peak of mu


def test_caption_prints_the_certified_peak_rounded_up():
    """The caption's peak is an upper bound of mu: never printed below its value.

    ``y / r = k C / (s (s^2 + 0.4 w s + w^2) + k C)``, ``C = 1.5 (s + 2) / s``: the
    closed loop is stable while ``0.4 w (w^2 + 1.5 k) > 3 k`` (Routh); with ``k`` in
    2 +- 30 % and ``w`` in [2, 4] it loses stability at 0.8112 of the ranges, so the
    peak of mu is 1.2327..., and the certified peak 1.23334... printed to nearest
    would read 1.233, below the bound.
    """
    k = rmb.ureal("k", 2.0, percent=30)
    w = rmb.ureal("wn", 3.0, range=(2.0, 4.0))
    s = control.tf("s")
    loop = k / (s * s + 0.4 * w * s + w * w) * (1.5 * (s + 2) / s)
    res = worst_case_analysis(rmb.feedback(loop, 1), channels={}, n_samples=0)
    # the exact margin, by bisection on the Routh condition over a dense grid of the box
    d = np.linspace(-1, 1, 2001)
    kk, ww = np.meshgrid(2 + 0.6 * d, 3 + d)
    unstable = 0.4 * ww * (ww**2 + 1.5 * kk) <= 3 * kk
    margin = np.min(np.maximum(np.abs(d)[None, :], np.abs(d)[:, None])[unstable])
    assert res.robstab.lower <= margin + 1e-3 and res.robstab.lower <= res.robstab.upper
    peak = min(res.robstab.mu.upper, 1 / res.robstab.lower)
    caption = mu_caption(res)
    printed = re.search(r"dotted: the peak (\S+) certified", caption)
    assert printed, caption
    assert float(printed.group(1)) >= peak
    assert float(printed.group(1)) >= 1 / margin - 1e-3
    assert printed.group(1) == fmt_upper(peak)
