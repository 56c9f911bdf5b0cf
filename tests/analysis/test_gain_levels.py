"""Levels certified by the D,G scalings of a failing level (``gain_levels``), and the
pointwise worst-case gain bisection that uses them.

References: the closed form ``sigma_max(M) / gamma`` for a lone performance block; a
direct bisection on ``lambda_max`` of the D,G matrix rebuilt from the parameters (not
the eigenvalue formula of the module); the independent certificate check
``verify_upper_bound``; the mu lower bound; exact worst-case gains from the closed-form
frequency response maximised over a dense parameter grid.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import worst_case_gain as wcg
from robustmb.analysis.gain_levels import level_ratio_from_scalings
from robustmb.analysis.mu_structure import BlockStructure, dagger
from robustmb.analysis.mu_upper import (
    ScalingParametrization,
    _scaled_matrix,
    certificate_from_gevp,
    verify_upper_bound,
)
from robustmb.analysis.mussv import mussv, warm_upper_bounds
from robustmb.analysis.uncertain_problem import uncertain_problem

TAU = 1.0 - 1e-6


def _lam_max(stack, blk, x):
    """``lambda_max(A^H A + j(A^H Gh - Gh^H A))`` from the parameters (the D,G bound^2)."""
    Dl, Dr, Gh = ScalingParametrization(BlockStructure(blk)).matrices(x)
    A = _scaled_matrix(stack, Dl, Dr)
    AhG = dagger(A) @ Gh
    X = dagger(A) @ A + 1j * (AhG - dagger(AhG))
    return np.linalg.eigvalsh(0.5 * (X + dagger(X)))[:, -1]


def _at_level(stack, nz, ratio):
    out = stack.copy()
    out[:, nz:, :] /= np.reshape(ratio, (-1, 1, 1))
    return out


def test_a_lone_performance_block_gives_sigma_max_over_the_level():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 3, 3)) + 1j * rng.standard_normal((4, 3, 3))
    x = rng.standard_normal((4, 1))  # any D: a full block's scaling cancels
    ratio, _ = level_ratio_from_scalings(M / 2.0, [(3, 3)], 0, x, tau=0.9)
    exact = np.linalg.norm(M, 2, axis=(-2, -1)) / 2.0 / 0.9
    assert np.allclose(ratio, exact, rtol=1e-9)


def _loop_stack(level, omega=(0.5, 0.9, 1.0, 1.2)):
    """Robust-performance stack of a loop with two real parameters (not saturating)."""
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, range=(0.7, 1.3))
    c = rmb.ureal("c", 0.4, range=(0.3, 0.5))
    problem = uncertain_problem(
        rmb.feedback(rmb.uss(control.ss(1 / (s * s + 0.2 * s + 1))), 0.5 * k + 0.3 * c)
    )
    omega = np.array(omega)
    resp = wcg._responses(problem, omega)
    return problem, omega, wcg._scaled(resp, problem, level), wcg._augmented_blk(problem)


@pytest.mark.slow
def test_the_raised_level_is_certified_independently_and_tight_for_its_scalings():
    problem, _, stack, blk = _loop_stack(0.5)
    up, x = warm_upper_bounds(stack, blk)
    assert np.all(up > 1)  # every level here fails
    ratio, x_new = level_ratio_from_scalings(stack, blk, problem.nz, x, TAU)
    assert np.all(np.isfinite(ratio)) and np.all(ratio > 1)
    raised = _at_level(stack, problem.nz, ratio)
    # the D,G matrix rebuilt from the parameters: at the raised level it is <= tau^2,
    # and 1e-4 below that level it is not (the level is the smallest for these scalings)
    assert np.all(_lam_max(raised, blk, x_new) <= TAU**2 * (1 + 1e-9))
    below = _at_level(stack, problem.nz, ratio * (1 - 1e-4))
    assert np.all(_lam_max(below, blk, x_new) > TAU**2)
    # the certificate in the sigma_max form, checked by verify_upper_bound
    struct = BlockStructure(blk)
    Dl, _, Gh = ScalingParametrization(struct).matrices(x_new)
    beta = np.full(len(stack), TAU * (1 + 1e-9))
    D, G = certificate_from_gevp(struct, beta, Dl, Gh)
    assert np.all(verify_upper_bound(raised, blk, beta, D, G, tol=1e-12))
    # and mu itself is below there: the lower bound cannot exceed the certified bound
    assert np.all(mussv(raised, blk).lower <= beta)


def test_a_saturated_uncertainty_part_or_nan_scalings_give_no_level():
    problem, _, stack, blk = _loop_stack(0.5)
    _, x = warm_upper_bounds(stack, blk)
    x[0] = np.nan
    # the uncertainty part alone above tau: scaling the uncertainty columns up
    big = stack.copy()
    big[1, : problem.nz, : problem.nz] *= 1e3
    ratio, _ = level_ratio_from_scalings(big, blk, problem.nz, x, TAU)
    assert ratio[0] == np.inf and ratio[1] == np.inf
    assert np.all(np.isfinite(ratio[2:]))


def _exact_gains(omega):
    # closed loop 1 / (s^2 + 0.2 s + 1 + q), q = 0.5 k + 0.3 c in [0.44, 0.80]
    q = np.linspace(0.44, 0.80, 20001)
    return np.max(1.0 / np.abs(1.0 + q[:, None] - omega**2 + 0.2j * omega), axis=0)


@pytest.mark.slow
def test_pointwise_bounds_with_raised_levels_are_sound_and_match_plain_bisection():
    problem, omega, _, _ = _loop_stack(1.0, (0.5, 0.9, 1.0, 1.2, 2.0))
    exact = _exact_gains(omega)
    calls = []
    original = wcg.level_ratio_from_scalings

    def counted(*a, **k):
        out = original(*a, **k)
        calls.append(int(np.sum(np.isfinite(out[0]))))
        return out

    wcg.level_ratio_from_scalings = counted
    try:
        new = wcg.pointwise_gain_bounds(problem, omega)
        coarse = wcg.pointwise_gain_bounds(problem, omega, floor=float(np.max(exact)), rtol=1e-3)
    finally:
        wcg.level_ratio_from_scalings = original
    plain = wcg.pointwise_gain_bounds(problem, omega, warm=False)
    assert sum(calls) > 0  # the raised levels were used
    assert np.all(new >= exact * (1 - 1e-9)) and np.all(plain >= exact * (1 - 1e-9))
    assert np.all(coarse >= exact * (1 - 1e-9))
    # the largest bound (the only one refined to the end) is the same certified bound,
    # bisected to 1e-4 and to the optimiser's stall tolerance
    assert abs(np.max(new) / np.max(plain) - 1) < 2e-3
    # a floor at the realised peak: the largest bound is still that of the bisection
    assert abs(np.max(coarse) / np.max(plain) - 1) < 3e-3


def _grid_start(problem, omega, level):
    """D,G parameters certifying ``level`` at ``omega`` (what wcgain hands the sweep)."""
    resp = wcg._responses(problem, omega)
    up, x = warm_upper_bounds(wcg._scaled(resp, problem, level), wcg._augmented_blk(problem))
    return up, x


@pytest.mark.slow
@pytest.mark.parametrize("garbage", [False, True])
def test_a_sweep_started_from_grid_scalings_certifies_only_what_holds(garbage):
    # exact peak 4.18121 (closed form over q and a dense frequency grid); the
    # single-box D,G bound of this loop is about 4.19
    problem, _, _, _ = _loop_stack(1.0)
    omega = np.union1d(wcg.default_grid(problem.a, problem.dt), [1.0])
    up, x = _grid_start(problem, omega, 4.3)
    assert np.all(up <= 1)
    if garbage:  # any start: only the effort may change
        x = 30.0 * np.random.default_rng(3).standard_normal(x.shape)
    for gamma, covered in ((4.3, True), (4.1, False)):
        peak = wcg._certify_level(problem, gamma, start=(omega, x))
        plain = wcg._certify_level(problem, gamma)
        assert peak.covered == covered and plain.covered == covered
    # the started sweep evaluated exactly the given grid first
    assert np.all(np.isin(omega, peak.omega))


@pytest.mark.slow
def test_wcgain_meets_the_gap_and_brackets_the_exact_peak():
    problem, _, _, _ = _loop_stack(1.0)
    # |1 + q - w^2 + 0.2 j w|^2 is smallest at w^2 = 1 + q - 0.02, where it is
    # 0.04 (1 + q) - 0.0004: the peak is largest at q = 0.44
    exact = 1.0 / np.sqrt(0.04 * 1.44 - 0.0004)
    res = rmb.wcgain(problem.model, gap_tol=5e-3)
    assert res.certified
    assert res.lower <= exact * (1 + 1e-9) and res.upper >= exact
    assert res.upper / res.lower - 1 <= 5e-3 * (1 + 1e-9)


def test_a_certificate_that_never_verifies_is_no_bound(monkeypatch):
    # every nudge of beta fails the exact D,G check: the result must be inf, never the
    # last nudged (unchecked) beta
    import importlib

    # the certificate test of mussv runs in mu_rounding (certify_scalings)
    rounding = importlib.import_module("robustmb.analysis.mu_rounding")

    def failing_margin(M, struct, beta, D, G):
        # margin 1.5 with no rounding allowance: margin^2 + delta > 1 at every beta
        return np.full(np.shape(beta), 1.5), np.zeros(np.shape(beta))

    monkeypatch.setattr(rounding, "margin_rounding_allowance", failing_margin)
    M = np.random.default_rng(3).standard_normal((2, 3, 3)) + 0j
    res = mussv(M, [(1, 1)] * 3)
    assert np.all(np.isinf(res.upper))
