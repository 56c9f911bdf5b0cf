"""Block Newton on the D,G bound with repeated scalar blocks (full ``D`` blocks).

References: the objective of :func:`~robustmb.analysis.mu_upper.scaled_objective` (the global
parametrisation, tested elsewhere against finite differences) for the values; central
finite differences of the values and of the analytic gradient for the Hessian; the optimal
D,G bound of the SDP method (:func:`~robustmb.analysis.mu_upper.upper_bound_lmi`, cvxpy);
the lower bound's perturbation checked by ``verify_lower_bound``; and the stand-alone
certificate check ``verify_upper_bound``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustmb.analysis.mu_lower import verify_lower_bound
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import (
    ScalingParametrization,
    scaled_objective,
    upper_bound_fast,
    upper_bound_lmi,
    verify_upper_bound,
)
from robustmb.analysis.mu_upper_blocknewton import LocalGenerators, local_hessian, smoothed_value
from robustmb.analysis.mussv import mussv

# at least one repeated scalar of size > 1 is added to every drawn structure
_BLOCK = st.sampled_from([(-1, 0), (1, 0), (-2, 0), (2, 0), (-3, 0), (3, 0), (1, 1), (2, 3)])
_REPEATED = st.sampled_from([(-2, 0), (2, 0), (-3, 0), (3, 0)])


def _problem(blk, seed, complex_matrix, batch=2):
    struct = BlockStructure(blk)
    param = ScalingParametrization(struct)
    rng = np.random.default_rng(seed)
    shape = (batch, struct.n_z, struct.n_w)
    M = rng.normal(size=shape)
    if complex_matrix:
        M = M + 1j * rng.normal(size=shape)
    x = 0.3 * rng.normal(size=(batch, param.p))
    return struct, param, LocalGenerators(param), M, x, rng


@settings(max_examples=12, deadline=None)
@given(
    st.lists(_BLOCK, min_size=0, max_size=2),
    _REPEATED,
    st.integers(0, 2**32 - 1),
    st.booleans(),
)
def test_local_hessian_matches_finite_differences(blk, rep, seed, complex_matrix):
    blk = [rep, *blk]
    struct, param, gen, M, x, rng = _problem(blk, seed, complex_matrix)
    B, p = x.shape
    Dl, Dr, Gh = param.matrices(x)
    t = np.array([3.0, 30.0])
    f, g, H, top, gt = local_hessian(gen, M, Dl, Dr, Gh, t)
    # values: the global parametrisation's objective at the same scaling
    f_glob = scaled_objective(M, x, param, t)[0]
    lam_glob = scaled_objective(M, x, param, None)[0]
    assert np.allclose(f, f_glob, rtol=1e-11, atol=1e-11)
    assert np.allclose(top, lam_glob, rtol=1e-11, atol=1e-11)

    def value(theta):
        return smoothed_value(M, *gen.retract(Dl, Dr, Gh, theta), t)[0]

    def grad(theta):  # local gradient at the retracted point
        return local_hessian(gen, M, *gen.retract(Dl, Dr, Gh, theta), t)[1]

    h = 1e-6
    eye = np.eye(p)
    g_fd = np.stack(
        [(value(h * eye[k][None].repeat(B, 0)) - value(-h * eye[k][None].repeat(B, 0))) / (2 * h)
         for k in range(p)], axis=1,
    )  # fmt: skip
    gscale = np.max(np.abs(g)) + 1.0
    assert np.allclose(g, g_fd, rtol=1e-6, atol=1e-7 * gscale)
    # Hessian: symmetrised finite differences of the analytic gradient along random
    # directions (the local gradient field differs from the gradient of f(retract(theta))
    # by a term antisymmetric in the two directions), and second differences of the value
    hscale = np.max(np.abs(H)) + 1.0
    for _ in range(3):
        u, w = rng.normal(size=(2, p))
        du = (grad(h * np.tile(u, (B, 1))) - grad(-h * np.tile(u, (B, 1)))) / (2 * h)
        dw = (grad(h * np.tile(w, (B, 1))) - grad(-h * np.tile(w, (B, 1)))) / (2 * h)
        sym = 0.5 * (du @ w + dw @ u)
        scale = hscale * np.linalg.norm(u) * np.linalg.norm(w)
        assert np.allclose(np.einsum("i,bij,j->b", u, H, w), sym, rtol=1e-5, atol=1e-6 * scale)
    k, l = rng.integers(0, p, size=2)
    h2 = 1e-4
    ek, el = h2 * eye[k], h2 * eye[l]

    def v(a):
        return value(np.repeat(a[None], B, 0))

    d2 = (v(ek + el) - v(ek - el) - v(el - ek) + v(-ek - el)) / (4 * h2 * h2)
    assert np.allclose(H[:, k, l], d2, rtol=1e-4, atol=1e-5 * hscale)
    # d g / d t against a finite difference in t
    ht = 1e-5 * t
    fd_t = (
        local_hessian(gen, M, Dl, Dr, Gh, t + ht)[1] - local_hessian(gen, M, Dl, Dr, Gh, t - ht)[1]
    ) / (2 * ht[:, None])
    assert np.allclose(gt, fd_t, rtol=1e-5, atol=1e-6 * (np.max(np.abs(gt)) + 1.0))


@pytest.mark.parametrize("seed", range(4))
def test_back_to_global_parameters_keeps_the_bound(seed):
    """The scaling reached in local coordinates, re-factored into the triangular global
    parametrisation (Cholesky factor, unitary rest moved into G), has the same spectrum."""
    blk = [(-3, 0), (2, 0), (-1, 0), (1, 2)]
    struct, param, gen, M, x, rng = _problem(blk, seed, True, batch=3)
    Dl, Dr, Gh = gen.retract(*param.matrices(x), rng.normal(size=x.shape))
    x_back = gen.to_global(Dl, Dr, Gh)
    t = np.array([1.0, 10.0, 100.0])
    f_local, top_local = smoothed_value(M, Dl, Dr, Gh, t)
    assert np.allclose(scaled_objective(M, x_back, param, t)[0], f_local, rtol=1e-9)
    assert np.allclose(scaled_objective(M, x_back, param, None)[0], top_local, rtol=1e-9)


def _random_repeated(rng):
    blk = []
    for _ in range(int(rng.integers(2, 4))):
        r = int(rng.integers(2, 7))
        blk.append((-r, 0) if rng.random() < 0.5 else (r, 0))
    if rng.random() < 0.5:
        blk.append((1, 1))
    return blk


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_bound_near_the_lmi_optimum_and_above_the_lower_bound(seed):
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(700 + seed)
    blk = _random_repeated(rng)
    struct = BlockStructure(blk)
    M = rng.normal(size=(struct.n_z, struct.n_w)) + 1j * rng.normal(size=(struct.n_z, struct.n_w))
    res = mussv(M, blk)
    # sound: certified, and never below a verified lower bound
    assert verify_upper_bound(M, blk, res.upper, res.D, res.G, tol=1e-8)
    assert verify_lower_bound(M, blk, res.delta, lower=res.lower)
    assert res.lower <= res.upper * (1 + 1e-9)
    # near the optimal D,G bound: the SDP refinement of the BFGS-only scaling
    s = np.linalg.norm(M, 2)
    phi, x, param = upper_bound_fast(M[None] / s, struct, block_newton=())
    Dl, Dr, Gh = param.matrices(x)
    phi_lmi = upper_bound_lmi(M / s, struct, Dl[0], Dr[0], Gh[0])[0]
    opt = np.sqrt(max(phi_lmi, 0.0)) * s
    assert res.upper >= opt * (1 - 1e-4)
    assert res.upper <= opt * 1.02
