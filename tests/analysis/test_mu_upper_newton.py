"""Newton's method on the smoothed D,G bound (diagonal D): derivatives and results.

References: central finite differences of the gradient of ``_objective_diagonal``
(itself tested against the general objective and a finite difference of the value),
SLICOT AB13MD's D,G bound, the BFGS path of the same module (``newton=()``), and the
stand-alone certificate check.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import (
    ScalingParametrization,
    _objective_diagonal,
    upper_bound_fast,
    verify_upper_bound,
)
from robustmb.analysis.mu_upper_newton import objective_hessian
from robustmb.analysis.mussv import mussv

_BLOCK = st.sampled_from([(-1, 0), (1, 0), (1, 1), (2, 2), (2, 3), (3, 1)])


@settings(max_examples=30, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_hessian_matches_finite_differences_of_the_gradient(blk, seed):
    struct = BlockStructure(blk)
    param = ScalingParametrization(struct)
    rng = np.random.default_rng(seed)
    shape = (3, struct.n_z, struct.n_w)
    M = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    x = 0.3 * rng.normal(size=(3, param.p))
    t = np.array([3.0, 30.0, 300.0])
    f, g, H, top, gt = objective_hessian(M, x, param, t)
    f0, g0 = _objective_diagonal(M, x, param, t)
    lam = _objective_diagonal(M, x, param, None)[0]
    scale = np.max(np.abs(f0)) + 1.0
    assert np.allclose(f, f0, rtol=1e-12, atol=1e-12 * scale)
    assert np.allclose(g, g0, rtol=1e-10, atol=1e-10 * scale)
    assert np.allclose(top, lam, rtol=1e-12, atol=1e-12 * scale)
    h = 1e-6
    for k in range(param.p):
        e = np.zeros(param.p)
        e[k] = h
        fd = (
            _objective_diagonal(M, x + e, param, t)[1] - _objective_diagonal(M, x - e, param, t)[1]
        ) / (2 * h)
        hscale = np.max(np.abs(H)) + 1.0
        assert np.allclose(H[:, :, k], fd, rtol=1e-5, atol=1e-6 * hscale)
    # d g / d t against a finite difference in t
    ht = 1e-5 * t
    fd_t = (
        _objective_diagonal(M, x, param, t + ht)[1] - _objective_diagonal(M, x, param, t - ht)[1]
    ) / (2 * ht[:, None])
    assert np.allclose(gt, fd_t, rtol=1e-5, atol=1e-6 * (np.max(np.abs(gt)) + 1.0))


def _random_structure(rng):
    blk, nblock, itype = [], [], []
    for _ in range(int(rng.integers(2, 6))):
        if rng.random() < 0.4:
            blk.append((-1, 0))
            nblock.append(1)
            itype.append(1)
        else:
            p = int(rng.integers(1, 4))
            blk.append((p, p))
            nblock.append(p)
            itype.append(2)
    return blk, np.array(nblock), np.array(itype)


@pytest.mark.parametrize("seed", range(8))
def test_newton_bound_is_certified_and_not_above_bfgs_or_ab13md(seed):
    slycot = pytest.importorskip("slycot")
    rng = np.random.default_rng(300 + seed)
    blk, nblock, itype = _random_structure(rng)
    struct = BlockStructure(blk)
    n = struct.n_z
    # a stack with badly scaled channels, where the optimal D is far from identity
    scal = np.exp(rng.uniform(-3, 3, size=n))
    Ms = np.array(
        [
            scal[:, None] * (rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n))) / scal[None, :]
            for _ in range(4)
        ]
    )
    res = mussv(Ms, blk, lower=False)
    assert np.all(verify_upper_bound(Ms, blk, res.upper, res.D, res.G, tol=1e-12))
    ref = np.array([slycot.ab13md(M, nblock, itype)[0] for M in Ms])
    assert np.all(res.upper <= ref * (1 + 1e-8))
    assert np.allclose(res.upper, ref, rtol=1e-6)
    s = np.linalg.norm(Ms, 2, axis=(1, 2))
    phi_b, _, _ = upper_bound_fast(Ms / s[:, None, None], struct, newton=())
    beta_b = np.sqrt(np.maximum(phi_b, 0.0)) * s
    assert np.all(res.upper <= beta_b * (1 + 1e-9))


def test_newton_handles_unbounded_scalings_and_zero_mu():
    # upper triangular: mu is the largest |m_ii| only in the limit D -> infinity
    M = np.array([[0.5, 10.0, -3.0], [0.0, 2.0, 7.0], [0.0, 0.0, -1.0]])
    res = mussv(M, [(1, 1)] * 3, lower=False)
    assert res.upper == pytest.approx(2.0, rel=1e-8)
    assert verify_upper_bound(M, [(1, 1)] * 3, res.upper, res.D, res.G, tol=1e-12)
    # a real scalar facing a non-real gain: mu = 0, certified along a direction without
    # curvature (the objective is linear in G)
    res = mussv(np.array([[0.3 - 0.2j]]), [(-1, 0)], lower=False)
    assert res.upper == 0.0
    assert verify_upper_bound(np.array([[0.3 - 0.2j]]), [(-1, 0)], 0.0, res.D, res.G)


def test_bound_approached_as_g_grows_without_limit_is_not_worse_than_bfgs():
    """A frequency point of a random 6-state loop where the bound is approached only as
    the real block's G grows without limit: Newton runs out of steps there and the
    BFGS bound is taken too; the result is certified and not above either path's."""
    slycot = pytest.importorskip("slycot")
    M = np.array(
        [
            [236.59718882339502 - 40.099912608795606j, -52.55387191309426 + 10.943789611552168j,
             -65.56524718884839 + 14.275761942672847j],
            [35.67324442165035 - 6.292843009315531j, -10.51317145067567 + 1.686125979721749j,
             -12.704297305408192 + 2.233292523098029j],
            [-27.65876989597489 + 4.7516950563651115j, 5.094222252912544 - 1.249589809670492j,
             7.097358076743441 - 1.6513480333929158j],
        ]
    )  # fmt: skip
    blk = [(-1, 0), (2, 2)]
    res = mussv(M, blk, lower=False)
    assert verify_upper_bound(M, blk, res.upper, res.D, res.G, tol=1e-12)
    s = np.linalg.norm(M, 2)
    phi_b, _, _ = upper_bound_fast(M[None] / s, BlockStructure(blk), newton=())
    assert res.upper <= np.sqrt(phi_b[0]) * s * (1 + 1e-6)
    ref = slycot.ab13md(M, np.array([1, 2]), np.array([1, 2]))[0]
    assert res.upper <= ref * (1 + 1e-8)
