"""Whole-axis sweeps whose new points start from their neighbours' D,G scalings.

The start only changes the optimiser's effort: every bound is certified as from a cold
start.  References: the exact worst-case gain of ``1 / (s^2 + 0.2 s + 1 + q)``, ``q =
0.5 k + 0.3 c``, maximised over a dense grid of ``q`` and frequency (no robustmb code),
and the independent certificate check ``verify_upper_bound``.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import mu_sweep
from robustmb.analysis import worst_case_gain as wcg
from robustmb.analysis.mu_upper import verify_upper_bound
from robustmb.analysis.mussv import mussv, warm_certificates, warm_upper_bounds
from robustmb.analysis.uncertain_problem import uncertain_problem


def _problem(damping=0.2):
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, range=(0.7, 1.3))
    c = rmb.ureal("c", 0.4, range=(0.3, 0.5))
    loop = rmb.feedback(rmb.uss(control.ss(1 / (s * s + damping * s + 1))), 0.5 * k + 0.3 * c)
    return uncertain_problem(loop)


def _exact_peak(damping=0.2):
    """The worst-case gain in closed form, checked against a dense grid.

    ``|1 + q - w^2 + j d w|^2`` is smallest at ``w^2 = 1 + q - d^2 / 2``, where it is
    ``d^2 (1 + q) - d^4 / 4``: the peak is largest at ``q = 0.44``.  A 2001 x 40001 grid
    of ``q`` in ``[0.44, 0.80]`` and frequency comes within 1e-6 of it from below.
    """
    exact = 1.0 / np.sqrt(damping**2 * 1.44 - damping**4 / 4)
    q = np.linspace(0.44, 0.80, 2001)[:, None]
    w = np.linspace(0.0, 3.0, 40001)[None, :]
    grid = float(np.max(1.0 / np.abs(1.0 + q - w**2 + 1j * damping * w)))
    assert exact * (1 - 1e-6) <= grid <= exact * (1 + 1e-12)
    return exact


def _counting_starts(monkeypatch):
    """Record, per call of the sweep's start rule, how many rows start warm."""
    warm = []
    original = mu_sweep._start_rows

    def counted(ws, start, pts, xs, blk):
        out = original(ws, start, pts, xs, blk)
        warm.append(int(np.sum(np.all(np.isfinite(out), axis=1))))
        return out

    monkeypatch.setattr(mu_sweep, "_start_rows", counted)
    return warm


@pytest.mark.slow
@pytest.mark.parametrize("damping", [0.2, 0.05])
def test_a_fixed_level_sweep_with_neighbour_starts_certifies_only_what_holds(monkeypatch, damping):
    problem = _problem(damping)
    exact = _exact_peak(damping)
    warm = _counting_starts(monkeypatch)
    above = wcg._certify_level(problem, exact * 1.003)
    # the sweep added points between the grid's intervals, started from neighbours
    assert len(warm) > 1 and sum(warm[1:]) > 0
    # covered: the gain is certified below the level (mu <= 1 on the whole axis)
    assert above.covered and above.upper <= 1.0
    below = wcg._certify_level(problem, exact * 0.995)
    assert not below.covered and below.upper == np.inf


@pytest.mark.slow
def test_garbage_neighbour_scalings_change_no_answer(monkeypatch):
    problem = _problem()
    exact = _exact_peak()
    rng = np.random.default_rng(5)
    original = mu_sweep._start_rows

    def garbage(ws, start, pts, xs, blk):
        out = original(ws, start, pts, xs, blk)
        return np.where(np.isfinite(out), 30.0 * rng.standard_normal(out.shape), np.nan)

    monkeypatch.setattr(mu_sweep, "_start_rows", garbage)
    assert wcg._certify_level(problem, exact * 1.003).covered
    assert not wcg._certify_level(problem, exact * 0.995).covered


@pytest.mark.slow
def test_wcgain_with_neighbour_starts_brackets_the_exact_peak(monkeypatch):
    problem = _problem(0.05)
    exact = _exact_peak(0.05)
    warm = _counting_starts(monkeypatch)
    res = rmb.wcgain(problem.model, gap_tol=1e-2)
    assert sum(warm) > 0
    assert res.certified
    # lower is the computed peak gain of a substituted system (to about 1e-8 here)
    assert res.lower <= exact * (1 + 1e-7) and res.upper >= exact
    assert res.upper / res.lower - 1 <= 1e-2 * (1 + 1e-9)


def test_warm_certificates_return_the_parameters_they_certify_with():
    rng = np.random.default_rng(7)
    blk = [(-2, 0), (-1, 0), (2, 2)]
    M = rng.standard_normal((4, 5, 5)) + 1j * rng.standard_normal((4, 5, 5))
    _, x = warm_upper_bounds(M, blk)
    x0 = x.copy()
    x0[1] = np.nan  # this row starts cold
    up, D, G, x1 = warm_certificates(1.02 * M, blk, x0, with_scalings=True)
    assert x1.shape == x.shape and np.all(np.isfinite(x1))
    assert np.all(verify_upper_bound(1.02 * M, blk, up, D, G, tol=1e-12))
    assert np.all(up >= mussv(1.02 * M, blk).lower * (1 - 1e-9))
    # the three-value form is unchanged
    up3, D3, G3 = warm_certificates(1.02 * M, blk, x0)
    assert np.allclose(up3, up, rtol=1e-12)


@pytest.mark.slow
def test_a_failed_sweep_re_bisects_only_where_it_failed_and_stays_sound(monkeypatch):
    # the first whole-axis level is forced 3 % below the exact peak: the sweep fails,
    # the gain is re-bisected at the frequencies it failed at only, and the raised
    # level must still bracket the closed form
    problem = _problem()
    exact = _exact_peak()
    original_certify = wcg._certify_level
    original_bounds = wcg.pointwise_gain_bounds
    sweeps, rebisected = [], []

    def low_first(problem, gamma, **k):
        peak = original_certify(problem, gamma * (0.97 if not sweeps else 1.0), **k)
        sweeps.append((peak.covered, len(peak.omega), int(np.sum(~(peak.mu_upper <= 1)))))
        return peak

    def counted(problem, omega, **k):
        rebisected.append(len(omega))
        return original_bounds(problem, omega, **k)

    monkeypatch.setattr(wcg, "_certify_level", low_first)
    monkeypatch.setattr(wcg, "pointwise_gain_bounds", counted)
    res = rmb.wcgain(problem.model, gap_tol=1e-2)
    assert sweeps[0][0] is False and len(sweeps) >= 2
    # the grid, then only the failed frequencies of the first sweep
    assert rebisected[1] == sweeps[0][2] < sweeps[0][1]
    assert res.certified
    assert res.lower <= exact * (1 + 1e-7) and res.upper >= exact


def _product_loop(c=0.3, p=0.3):
    """``x'' + p x' + (1 - c d1 d2) x = u``: at light damping the single-box D,G bound
    of the uncertainty part alone exceeds 1 near the resonance."""
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + p * s + 1))), -(c * d1 * d2))


@pytest.mark.slow
def test_pointwise_bounds_skip_only_frequencies_where_no_level_can_be_certified():
    c, p = 0.3, 0.3
    problem = uncertain_problem(_product_loop(c, p))
    omega = np.array([0.0, 0.3, 0.8, 0.95, 0.98, 0.99, 1.0, 1.05, 1.2, 3.0])
    gam = wcg.pointwise_gain_bounds(problem, omega)
    # reference 1: the exact gain on a dense parameter grid (|1 - c d1 d2 - w^2 + j p w|)
    t = np.linspace(-1.0, 1.0, 401)
    q = (t[:, None] * t[None, :]).ravel()[:, None]
    exact = np.max(1.0 / np.abs(1.0 - c * q - omega**2 + 1j * p * omega), axis=0)
    fin = np.isfinite(gam)
    assert np.all(gam[fin] >= exact[fin] * (1 - 1e-9))
    # the skip fires next to the resonance (the uncertainty part's optimal D,G bound is
    # above 1 at w = 0.98, 0.99 by 0.5 %) and not away from it
    assert not fin[(omega >= 0.98) & (omega <= 1.0)].any() and fin[omega <= 0.95].all()
    # reference 2: at every skipped frequency the optimal D,G bound of the uncertainty part
    # (a cvxpy LMI, min over D > 0 and G of the largest eigenvalue of
    # M' D M + j (G M - M' G) - D) certifies nothing: no level can be certified there
    assert [b[:2] for b in problem.blk] == [(-1, 0), (-1, 0)]
    resp = wcg._responses(problem, omega[~fin])[:, : problem.nz, : problem.nw]
    for M in resp:
        assert _dg_lmi_margin(M) > -1e-7


def _dg_lmi_margin(M):
    """``min_{D, G} lambda_max(M' D M + j (G M - M' G) - D)`` over diagonal real ``D >= 0``
    (trace 1) and ``G``, by cvxpy: ``< 0`` iff the D,G test certifies mu <= 1."""
    cp = pytest.importorskip("cvxpy")
    n = M.shape[0]
    d = cp.Variable(n, nonneg=True)
    g = cp.Variable(n)
    D, G = cp.diag(d), cp.diag(g)
    L = M.conj().T @ D @ M + 1j * (G @ M - M.conj().T @ G) - D
    top = cp.Variable()
    cons = [0.5 * (L + L.H) << top * np.eye(n), cp.sum(d) == 1]
    cp.Problem(cp.Minimize(top), cons).solve(solver="CLARABEL")
    return float(top.value)
