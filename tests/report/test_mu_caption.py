"""The μ figure's caption names exactly what is drawn (no lower-bound curve that is not there)."""

import dataclasses

import numpy as np
from matplotlib.figure import Figure

from robustmb.report import worst_case_analysis
from robustmb.report.figures import draw_mu_bounds, mu_caption


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
