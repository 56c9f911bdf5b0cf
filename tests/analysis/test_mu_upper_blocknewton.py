"""Block Newton on the D,G bound with repeated scalar blocks (full ``D`` blocks).

References: the objective of :func:`~robustmb.analysis.mu_upper.scaled_objective` (the global
parametrisation, tested elsewhere against finite differences) for the values; central
finite differences of the values and of the analytic gradient for the Hessian; the optimal
D,G bound of the SDP method (:func:`~robustmb.analysis.mu_upper.upper_bound_lmi`, cvxpy);
the lower bound's perturbation checked by ``verify_lower_bound``; and the stand-alone
certificate check ``verify_upper_bound``.
"""

import importlib

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
from robustmb.analysis.mu_upper_blocknewton import (
    LocalGenerators,
    local_hessian,
    polish_block_newton,
    smoothed_value,
)
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
    # upper_bound_lmi is not a certified optimum (it can end a little above it), so only
    # the upper side is checked here; the lower side is the verified lower bound above
    assert res.upper <= opt * 1.02


def _rotated_nilpotent():
    c, s = np.cos(0.7), np.sin(0.7)
    Q = np.array([[c, -s], [s, c]])
    return Q @ np.array([[0.0, 1.0], [0.0, 0.0]]) @ Q.T


def _random_nilpotent(rng, r=3):
    Q = np.linalg.qr(rng.normal(size=(r, r)) + 1j * rng.normal(size=(r, r)))[0]
    N = np.triu(rng.normal(size=(r, r)) + 1j * rng.normal(size=(r, r)), 1)
    return Q @ N @ Q.conj().T


def _nilpotent_cases():
    M = _rotated_nilpotent()
    rng = np.random.default_rng(1)
    return [(M[None], [(2, 0)]), (np.stack([M, 0.5 * np.eye(2) + 0.1]), [(2, 0)])] + [
        (_random_nilpotent(rng)[None], [(3, 0)]) for _ in range(8)
    ]


@pytest.mark.parametrize("case", range(10))
def test_polish_on_nilpotent_matrices_gives_verified_bounds(case, monkeypatch):
    """mu of a repeated complex scalar is the spectral radius: 0 for a nilpotent matrix,
    approached only as cond(D) grows without limit.  The polish (forced on these small
    structures) used to factor D^H D by Cholesky, which failed there; now every bound is
    certified by the independent check and none is below rho(M)."""
    mussv_module = importlib.import_module("robustmb.analysis.mussv")

    def forced(*args, **kwargs):
        return upper_bound_fast(*args, block_newton_from=0, **kwargs)

    monkeypatch.setattr(mussv_module, "upper_bound_fast", forced)
    M, blk = _nilpotent_cases()[case]
    res = mussv(M, blk)
    # exact spectral radii: 0 for the nilpotent matrices, 0.7 for [[0.6, 0.1], [0.1, 0.6]]
    rho = np.array([0.0, 0.7])[: len(M)]
    assert np.all(verify_upper_bound(M, blk, res.upper, res.D, res.G, tol=1e-8))
    assert np.all(res.upper >= rho * (1 - 1e-9))
    assert np.all(res.upper <= np.linalg.norm(M, 2, axis=(1, 2)) * (1 + 1e-9))


@pytest.mark.parametrize("seed", range(3))
def test_back_to_global_parameters_with_ill_conditioned_d(seed):
    """to_global on D blocks of condition 1e11 (D^H D would have 1e22, beyond a Cholesky
    factorisation in double precision): finite parameters whose triangular factor R
    (positive diagonal) has R^H R = D^H D to rounding, i.e. D = W R with W unitary."""
    blk = [(3, 0), (-2, 0), (1, 1)]
    struct, param, gen, M, x, rng = _problem(blk, seed, True, batch=2)
    Dl, Dr, Gh = (np.array(a) for a in param.matrices(x))
    blocks = (slice(0, 3), slice(3, 5))
    for sl in blocks:
        r = sl.stop - sl.start
        for b in range(2):
            U = np.linalg.qr(rng.normal(size=(r, r)) + 1j * rng.normal(size=(r, r)))[0]
            V = np.linalg.qr(rng.normal(size=(r, r)) + 1j * rng.normal(size=(r, r)))[0]
            D = U @ np.diag(np.logspace(0, -11, r)) @ V
            Dl[b, sl, sl] = D
            Dr[b, sl, sl] = D
    x_back = gen.to_global(Dl, Dr, Gh)
    assert np.all(np.isfinite(x_back))
    R = param.matrices(x_back)[0]
    for sl in blocks:
        D, Rb = Dl[:, sl, sl], R[:, sl, sl]
        assert np.allclose(np.tril(Rb, -1), 0.0)
        assert np.all(np.real(np.diagonal(Rb, axis1=1, axis2=2)) > 0)
        gram_d = np.conj(np.swapaxes(D, 1, 2)) @ D
        gram_r = np.conj(np.swapaxes(Rb, 1, 2)) @ Rb
        assert np.allclose(gram_r, gram_d, rtol=0.0, atol=1e-13)


def test_polish_failure_keeps_the_bfgs_result(monkeypatch):
    """A numerical failure inside the polish leaves every row as BFGS left it."""
    import robustmb.analysis.mu_upper_blocknewton as bn

    def broken(*args, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")

    monkeypatch.setattr(bn, "block_newton_stages", broken)
    struct, param, _, M, x, _ = _problem([(2, 0), (1, 1)], 3, True, batch=2)
    f = scaled_objective(M, x, param, None)[0]
    f0, x0 = f.copy(), x.copy()

    def lam_max(xx, rows):
        return scaled_objective(M[rows], xx, param, None)

    polish_block_newton(M, f, x, param, (3.0,), None, None, lam_max)
    assert np.array_equal(f, f0) and np.array_equal(x, x0)


@pytest.mark.parametrize("blk", [[(3, 0), (2, 0), (1, 1)], [(-3, 0), (2, 0), (-1, 0)]])
def test_small_structures_skip_the_polish_by_default(blk):
    """Below the limited-memory regime (p < 200) the default is the BFGS result itself:
    identical arrays with and without block_newton."""
    struct = BlockStructure(blk)
    rng = np.random.default_rng(5)
    shape = (3, struct.n_z, struct.n_w)
    M = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    M /= np.linalg.norm(M, 2, axis=(1, 2))[:, None, None]
    phi_d, x_d, param = upper_bound_fast(M, struct)
    phi_0, x_0, _ = upper_bound_fast(M, struct, block_newton=())
    assert param.p < 200
    assert np.array_equal(phi_d, phi_0) and np.array_equal(x_d, x_0)
    # forcing the polish on is never worse (it keeps only lower values)
    phi_f = upper_bound_fast(M, struct, block_newton_from=0)[0]
    assert np.all(phi_f <= phi_0)


def test_polish_stop_skips_the_polish_where_the_bound_is_good_enough():
    """``polish_stop`` leaves a problem it flags at its BFGS result (bit for bit) and
    polishes the others as without it; mussv's ``polish_target`` is the same rule in
    units of the bound."""
    struct = BlockStructure([(3, 0), (2, 0), (1, 1)])
    rng = np.random.default_rng(5)
    shape = (3, struct.n_z, struct.n_w)
    M = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    M /= np.linalg.norm(M, 2, axis=(1, 2))[:, None, None]
    # a BFGS cut short, so that the polish has something to do
    crude = dict(maxiter=3, polish=0)
    phi_0, x_0, _ = upper_bound_fast(M, struct, block_newton=(), **crude)
    phi_f, x_f, _ = upper_bound_fast(M, struct, block_newton_from=0, **crude)
    assert np.all(phi_f < phi_0)
    flag = np.array([True, False, True])
    phi_s, x_s, _ = upper_bound_fast(
        M, struct, block_newton_from=0, polish_stop=lambda phi: flag.copy(), **crude
    )
    assert np.array_equal(phi_s[flag], phi_0[flag]) and np.array_equal(x_s[flag], x_0[flag])
    assert np.array_equal(phi_s[~flag], phi_f[~flag])
