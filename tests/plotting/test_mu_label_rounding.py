"""The legend of ``plotting.mu_bounds`` prints certified upper bounds rounded up, never below."""

import matplotlib

matplotlib.use("Agg")

import control  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402


def _number(label, prefix):
    assert label.startswith(prefix), label
    return float(label[len(prefix) :].split()[0])


def test_certified_peak_label_is_not_below_the_peak():
    """``k / (s^2 + 0.4 w s + w^2) * 1.5 (s + 2) / s`` in unit feedback, ``k`` in 2 +- 30 %,
    ``w`` in [2, 4]: stable while ``0.4 w (w^2 + 1.5 k) > 3 k`` (Routh), lost at 0.8112 of
    the ranges, so the peak of mu is 1.2327...; the certified peak 1.2333... rounded to
    nearest would be printed 1.233, below the bound."""
    k = rmb.ureal("k", 2.0, percent=30)
    w = rmb.ureal("wn", 3.0, range=(2.0, 4.0))
    s = control.tf("s")
    rs = rmb.robstab(rmb.feedback(k / (s * s + 0.4 * w * s + w * w) * (1.5 * (s + 2) / s), 1))
    d = np.linspace(-1, 1, 2001)
    kk, ww = np.meshgrid(2 + 0.6 * d, 3 + d)
    unstable = 0.4 * ww * (ww**2 + 1.5 * kk) <= 3 * kk
    margin = np.min(np.maximum(np.abs(d)[None, :], np.abs(d)[:, None])[unstable])
    assert rs.lower <= margin + 1e-3
    out = plotting.mu_bounds(rs, ax=Figure().add_subplot())
    (line,) = out.lines["peak"]
    assert line.get_ydata()[0] >= 1 / margin - 1e-3  # a bound of the true peak of mu
    assert _number(line.get_label(), "certified peak ") >= line.get_ydata()[0]


def test_wcgain_level_label_is_not_below_the_bound():
    """``k / (s + 1)``, ``k`` in [0.1, 0.7]: the worst-case peak gain is 0.7 (at DC)."""
    k = rmb.ureal("k", 0.3, range=(0.1, 0.7))
    wc = rmb.wcgain(k / (control.tf("s") + 1))
    assert wc.lower <= 0.7 <= wc.upper
    out = plotting.mu_bounds(wc, ax=Figure().add_subplot())
    labels = [ln.get_label() for ln in out.axes[0, 0].get_lines()]
    (level,) = [lab for lab in labels if lab.startswith("μ = 1: peak gain ")]
    assert _number(level, "μ = 1: peak gain ") >= wc.upper


def _sensitivity():
    """``S = 1 / (1 + L)``, ``L = 2 k / (s (s + 1))``, ``k`` in 2 +- 20 %: ``|S|`` peaks
    at 2.4531... for ``k = 2.4`` (a dense 1-D sweep of ``k`` and of the frequency)."""
    k = rmb.ureal("k", 2.0, percent=20)
    s = control.tf("s")
    return rmb.feedback(1, 2 * k / (s * (s + 1)))


def _brute_force_peak():
    w = np.logspace(-2, 2, 200001)
    return max(
        np.max(np.abs(1 / (1 + 2 * k / (1j * w * (1j * w + 1)))))
        for k in np.linspace(1.6, 2.4, 401)
    )


def test_worst_case_gain_legends_are_bounds():
    S = _sensitivity()
    wc = rmb.wcgain(S)
    true_peak = _brute_force_peak()
    assert wc.lower <= true_peak + 1e-6 and true_peak <= wc.upper
    for out in (
        plotting.wcsigma(S, wc, n=2, seed=0, ax=Figure().add_subplot()),
        plotting.sigma(S, worst=wc, n=2, seed=0, ax=Figure().add_subplot()),
    ):
        labels = [ln.get_label() for ln in out.axes[0, 0].get_lines()]
        (bound,) = [lab for lab in labels if "upper bound" in lab or "gain ≤" in lab]
        assert bound.startswith("certified ")
        assert float(bound.split()[-1]) >= wc.upper  # 2.4654...: not "2.465"
        (found,) = [lab for lab in labels if lab.startswith("worst case found ")]
        assert _number(found, "worst case found ") <= wc.lower


def test_uncertified_bound_is_not_called_certified():
    S = _sensitivity()
    wc = rmb.wcgain(S, omega=np.logspace(-1, 1, 30))
    assert not wc.certified
    out = plotting.wcsigma(S, wc, n=2, seed=0, ax=Figure().add_subplot())
    labels = [ln.get_label() for ln in out.axes[0, 0].get_lines()]
    (bound,) = [lab for lab in labels if "upper bound" in lab]
    assert not bound.startswith("certified") and "(not certified)" in bound
