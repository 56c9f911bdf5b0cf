"""The diagonal-scaling objective of the fast mu upper bound equals the general one.

Structures without repeated scalar blocks of size > 1 have diagonal D; the fast path
forms ``Dl M Dr^-1`` by broadcasting and only the diagonals of the gradient's factors.
Reference: the general path (solves with the full ``Dl``, ``Dr``), and a central finite
difference of the value for the gradient.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import ScalingParametrization, _objective_diagonal, scaled_objective

_BLOCK = st.sampled_from([(-1, 0), (1, 0), (1, 1), (2, 2), (2, 3), (3, 1)])


@settings(max_examples=40, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=4), st.integers(0, 2**32 - 1), st.booleans())
def test_diagonal_objective_matches_the_general_one(blk, seed, smooth):
    struct = BlockStructure(blk)
    param = ScalingParametrization(struct)
    assert param.diagonal
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(3, struct.n_z, struct.n_w)) + 1j * rng.normal(
        size=(3, struct.n_z, struct.n_w)
    )
    x = rng.normal(size=(3, param.p))
    t = np.array([3.0, 30.0, 300.0]) if smooth else None
    f_fast, g_fast = _objective_diagonal(M, x, param, t)
    param.diagonal = False
    f_ref, g_ref = scaled_objective(M, x, param, t)
    scale = np.max(np.abs(f_ref)) + 1.0
    assert np.allclose(f_fast, f_ref, rtol=1e-12, atol=1e-12 * scale)
    assert np.allclose(g_fast, g_ref, rtol=1e-10, atol=1e-10 * scale)
    if smooth:  # the smooth value is differentiable: check the gradient itself
        h = 1e-6
        for k in range(param.p):
            e = np.zeros(param.p)
            e[k] = h
            fd = (
                _objective_diagonal(M, x + e, param, t)[0]
                - _objective_diagonal(M, x - e, param, t)[0]
            ) / (2 * h)
            assert np.allclose(g_fast[:, k], fd, rtol=1e-5, atol=1e-5 * scale)


def test_repeated_scalars_keep_the_general_path():
    assert not ScalingParametrization(BlockStructure([(-2, 0), (1, 1)])).diagonal
    assert not ScalingParametrization(BlockStructure([(2, 0)])).diagonal


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_bfgs_with_tiny_steps_neither_overflows_nor_stalls():
    """Steps of 1e-80 make s.y about 1e-160: rho^2 = 1 / (s.y)^2 would overflow."""
    from robustmb.analysis.mu_upper import batched_bfgs

    Q = np.diag([1.0, 3.0, 10.0])

    def fun(x, idx):
        return np.einsum("bi,ij,bj->b", x, Q, x), 2 * x @ Q

    x0 = np.array([[1e-80, -2e-80, 3e-80], [1.0, -2.0, 3.0]])
    x, f = batched_bfgs(fun, x0, maxiter=200)
    assert np.all(np.isfinite(x)) and np.all(np.isfinite(f))
    f0 = fun(x0, None)[0]
    # a convex quadratic: BFGS reduces both far below the start (the closed-form minimum
    # is 0 at x = 0)
    assert np.all(f <= f0 * 1e-12)
