"""Warm-started D,G scalings: the bisection levels of the worst-case gain reuse them.

The warm start only changes where the optimiser begins; every bound must stay certified.
References: the D,G certificate checked by ``verify_upper_bound`` (which does not see the
start), the largest singular value for a single full block (mu equals it), the mu lower
bound's destabilising perturbation, and the closed-form frequency response of
``x'' + p x' + (1 - c d1 d2) x = u`` maximised over a dense grid of ``d1 d2``.
"""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis import worst_case_gain as wcg
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import ScalingParametrization
from robustmb.analysis.mussv import mussv, mussv_stack, warm_upper_bounds
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.errors import ArgumentError, DimensionError

BLK = [(-2, 0), (-1, 0), (2, 2), (1, 1)]


def _stack(seed, n=8):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 6, 6)) + 1j * rng.standard_normal((n, 6, 6))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_any_start_gives_a_bound_at_or_above_the_lower_bound(seed):
    # garbage starts (huge D, huge G) cannot produce a bound below mu: the lower bound's
    # perturbation makes I - M delta singular, so mu >= lower
    M = _stack(seed)
    p = ScalingParametrization(BlockStructure(BLK)).p
    rng = np.random.default_rng(seed + 10)
    for x0 in (20.0 * rng.standard_normal((len(M), p)), np.full((len(M), p), 1e3)):
        up, _ = warm_upper_bounds(M, BLK, x0=x0)
        low = mussv(M, BLK).lower
        assert np.all(np.isfinite(up))
        assert np.all(up >= low * (1 - 1e-9))


def test_single_full_block_is_sigma_max_from_any_start():
    rng = np.random.default_rng(4)
    M = rng.standard_normal((5, 3, 3)) + 1j * rng.standard_normal((5, 3, 3))
    x0 = rng.standard_normal((5, 1)) * 5
    up, _ = warm_upper_bounds(M, [(3, 3)], x0=x0)
    assert np.allclose(up, np.linalg.norm(M, 2, axis=(-2, -1)), rtol=1e-9)


@pytest.mark.slow
def test_warm_start_from_a_neighbouring_stack_is_as_tight_as_a_cold_one():
    M = _stack(2)
    _, x = warm_upper_bounds(M, BLK)
    M2 = 1.05 * M
    M2[:, 4:] *= 0.9  # a performance row rescaled, as between two bisection levels
    warm, _ = warm_upper_bounds(M2, BLK, x0=x)
    cold = mussv_stack(M2, BLK, lower=False).upper
    low = mussv(M2, BLK).lower
    assert np.all(warm >= low * (1 - 1e-9))
    # the same local optimisation from another start: equal up to its stall tolerance
    assert np.max(np.abs(warm / cold - 1)) < 2e-3


def test_nan_rows_start_cold_and_the_shape_is_checked():
    M = _stack(3, n=4)
    p = ScalingParametrization(BlockStructure(BLK)).p
    x0 = np.full((4, p), np.nan)
    up, x = warm_upper_bounds(M, BLK, x0=x0)
    cold = mussv_stack(M, BLK, lower=False).upper
    assert np.allclose(up, cold, rtol=1e-12)
    assert x.shape == (4, p) and np.all(np.isfinite(x))
    with pytest.raises(DimensionError, match="x0"):
        warm_upper_bounds(M, BLK, x0=np.zeros((3, p)))


def _loop(c=0.3, p=1.0):
    s = control.tf("s")
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (s * s + p * s + 1))), -(c * d1 * d2))


@pytest.mark.slow
def test_warm_pointwise_gain_bounds_are_sound_and_match_the_cold_ones():
    c, p = 0.3, 1.0
    problem = uncertain_problem(_loop(c, p))
    omega = np.array([0.3, 0.6, 0.8, 0.84, 0.9, 1.0, 1.5, 3.0])
    warm = wcg.pointwise_gain_bounds(problem, omega)
    cold = wcg.pointwise_gain_bounds(problem, omega, warm=False)
    # exact worst-case gain at each frequency: max over k = 1 - c d in [1 - c, 1 + c]
    k = 1.0 - c * np.linspace(-1.0, 1.0, 20001)
    exact = np.max(1.0 / np.abs(k[:, None] - omega**2 + 1j * p * omega), axis=0)
    assert np.all(warm >= exact * (1 - 1e-9))
    assert np.all(cold >= exact * (1 - 1e-9))
    # both bisect the same certified bound to 1e-4: their peaks agree to that and the
    # optimiser's stall tolerance
    assert abs(np.max(warm) / np.max(cold) - 1) < 2e-3


@pytest.mark.parametrize("target", [-5.0, float("nan"), [1.0, -1.0], "high", [1.0, 2.0, 3.0]])
def test_warm_upper_bounds_rejects_a_bad_target(target):
    M = np.array([[[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.0], [1.0, 2.0]]])
    with pytest.raises(ArgumentError, match="target"):
        warm_upper_bounds(M, [(1, 0), (1, 0)], target=target)
