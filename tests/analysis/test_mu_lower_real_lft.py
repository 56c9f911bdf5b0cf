"""Lower bound of mixed mu with real scalar blocks around one complex (performance) block.

Tightness is checked by brute force that shares no code with the search: with the real
blocks closed as an LFT, ``I - M Delta`` can be made singular with ``||Delta|| <= alpha``
iff ``max_t alpha sigma_max(M22 + alpha M21 T (I - alpha M11 T)^-1 M12) >= 1`` over real
``T = diag(t)``, ``|t| <= 1``.  Just below ``1 / lower`` a dense grid of ``t`` refined by
L-BFGS-B must find no such point.
"""

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from robustmb.analysis.mu_lower import lower_bound, verify_lower_bound
from robustmb.analysis.mu_structure import BlockStructure


def _arm_matrix(gamma):
    from robustmb.analysis.uncertain_problem import uncertain_problem
    from robustmb.analysis.worst_case_gain import _augmented_blk, _responses
    from robustmb.report.arm_demo import demo_loop

    loop, channels = demo_loop()
    problem = uncertain_problem(loop[channels["tracking W_e S"]])
    M = _responses(problem, [8.4316397])[0]
    M[problem.nz :] /= gamma
    return M, _augmented_blk(problem), problem.nz


def _best_gain(M, nz, sizes, alpha, grid=7, refine=8):
    """max over the box of ``alpha sigma_max(F(alpha, t))`` (grid, then L-BFGS-B)."""
    A, B, C, D = M[:nz, :nz], M[:nz, nz:], M[nz:, :nz], M[nz:, nz:]

    def gain(t):
        T = np.repeat(np.asarray(t, float), sizes)
        K = np.eye(nz) - alpha * A * T[None, :]
        F = D + alpha * (C * T[None, :]) @ np.linalg.solve(K, B)
        return alpha * np.linalg.svd(F, compute_uv=False)[0]

    pts = np.array(list(itertools.product(np.linspace(-1, 1, grid), repeat=len(sizes))))
    vals = np.array([gain(p) for p in pts])
    best = vals.max()
    for p in pts[np.argsort(-vals)[:refine]]:
        r = minimize(lambda t: -gain(t), p, bounds=[(-1, 1)] * len(sizes), method="L-BFGS-B")
        best = max(best, -r.fun)
    return best


def _check(gamma, seed):
    M, blk, nz = _arm_matrix(gamma)
    struct = BlockStructure(blk)
    sizes = [b.rows for b in struct.blocks if b.kind == "real"]
    scale = np.linalg.norm(M, 2)
    lo, delta = lower_bound((M / scale)[None], struct, seed=seed)
    lower = lo[0] * scale
    assert verify_lower_bound(M, blk, delta[0] / scale, lower=lower, tol=1e-8)
    # no destabilising perturbation 0.05 % smaller than the certificate: the bound is tight
    assert _best_gain(M, nz, sizes, (1.0 / lower) * (1 - 5e-4)) < 1.0


@pytest.mark.parametrize("gamma", [3.0, 30.0])
def test_lower_bound_with_performance_block_is_tight_against_brute_force(gamma):
    _check(gamma, seed=0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 8))
@pytest.mark.parametrize("gamma", [3.0, 5.0, 10.0, 30.0])
def test_lower_bound_with_performance_block_is_tight_for_every_seed(gamma, seed):
    _check(gamma, seed)
