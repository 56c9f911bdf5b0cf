"""mussv lower bounds never above the exact mu, even at the level of rounding.

Families where mu is known exactly for the floating-point matrix: a repeated complex
scalar (the spectral radius; triangular matrices give it as the largest diagonal modulus,
dense ones through mpmath at 50 digits), one full complex block (the largest singular
value, mpmath), a real 1x1 scalar (``|m|`` for real ``m``, 0 otherwise) and near-Jordan
blocks ``e I + N`` (``mu = |e|`` for a real or complex repeated scalar), also under
power-of-two diagonal similarities (exact, same mu).  Each bound must be ``<= mu`` with
no tolerance, and within ``1e-8`` of it.
"""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.mu_lower import certified_lower, verify_lower_bound
from robustmb.analysis.mu_structure import BlockStructure

CLOSE = 1e-8


def _check(M, blk, mu):
    r = rmb.mussv(M, blk)
    lower = mpmath.mpf(float(r.lower))
    assert lower <= mu, (r.lower, mu)
    assert lower >= mu * (1 - CLOSE), (r.lower, mu)
    assert verify_lower_bound(M, blk, r.delta, lower=r.lower)
    return r


def _jordan(n, e, shift_scale=1.0):
    return e * np.eye(n) + shift_scale * np.eye(n, k=-1)


def test_reported_jordan_case():
    # the case that returned 1.0000000000001001e-12 > mu = 1e-12 before
    M = _jordan(3, 1e-12)
    for blk in ([(-3, 0)], [(3, 0)]):
        r = _check(M, blk, mpmath.mpf(1e-12))
        assert r.lower <= 1e-12


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(2, 5),
    log_e=st.floats(-14, 0),
    sign=st.sampled_from([-1.0, 1.0]),
    real=st.booleans(),
    exps=st.lists(st.integers(-20, 20), min_size=5, max_size=5),
    sub=st.floats(0.1, 10.0),
)
def test_near_jordan_blocks(n, log_e, sign, real, exps, sub):
    e = sign * 10.0**log_e
    T = np.diag(2.0 ** np.array(exps[:n], dtype=float))  # exact similarity
    M = (np.diag(1 / np.diag(T)) @ _jordan(n, e, sub)) @ T  # entries exact
    blk = [(-n, 0)] if real else [(n, 0)]
    _check(M, blk, mpmath.mpf(abs(e)))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 10**6), cplx=st.booleans())
def test_triangular_repeated_complex_scalar(n, seed, cplx):
    rng = np.random.default_rng(seed)
    M = np.tril(rng.standard_normal((n, n)))
    if cplx:
        M = M + 1j * np.tril(rng.standard_normal((n, n)))
    diag = [mpmath.mpc(complex(z)) for z in np.diag(M)]
    mu = max(abs(z) for z in diag)
    _check(M, [(n, 0)], mu)


def _rho(M):
    """Spectral radius of the floating-point ``M`` (mpmath, at the working precision)."""
    E = mpmath.eig(_mp(M), left=False, right=False)
    E = E[0] if isinstance(E, tuple) else E
    return max(abs(z) for z in E)


def _mp(M):
    return mpmath.matrix([[mpmath.mpc(complex(z)) for z in row] for row in M])


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 10**6), scale=st.integers(-30, 30))
def test_dense_repeated_complex_scalar(n, seed, scale):
    rng = np.random.default_rng(seed)
    M = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))) * 2.0**scale
    with mpmath.workdps(50):
        mu = _rho(M)
        _check(M, [(n, 0)], mu)


@settings(max_examples=20, deadline=None)
@given(r=st.integers(1, 4), c=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_full_complex_block(r, c, seed):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((c, r)) + 1j * rng.standard_normal((c, r))
    with mpmath.workdps(50):
        mu = max(mpmath.svd_c(_mp(M), compute_uv=False))
        _check(M, [(r, c)], mu)


@settings(max_examples=20, deadline=None)
@given(m=st.floats(-1e12, 1e12, allow_nan=False).filter(lambda x: abs(x) > 1e-12))
def test_real_scalar_one_by_one(m):
    _check(np.array([[m]]), [(-1, 0)], mpmath.mpf(abs(m)))


def test_real_scalar_complex_entry_is_zero():
    r = rmb.mussv(np.array([[1.0 + 1e-3j]]), [(-1, 0)])
    assert r.lower == 0.0 and r.delta is None


@pytest.mark.parametrize("n", [2, 3, 4])
def test_exact_check_on_a_double_real_root(n):
    # a Jordan block with an even multiplicity has no sign change: the exact zero of
    # det(I - t A) at t = 1 / lambda is what certifies it
    e = 3e-9
    M = _jordan(n, e)
    lower, d = certified_lower(M, [(-n, 0)], np.eye(n) / e)
    assert mpmath.mpf(lower) <= mpmath.mpf(e)
    assert lower >= e * (1 - CLOSE)
    assert verify_lower_bound(M, [(-n, 0)], d, lower=lower)


def test_ill_conditioned_eigenvalue_is_deflated():
    # a non-triangular near-Jordan block: its computed eigenvalues are off by about
    # eps^(1/4) relative to the exact ones of the floating-point matrix (the complex-scalar
    # bound was 1.0846e-3 against the exact spectral radius 1.0486e-3); the eigenvalue
    # error bound keeps the reported bound below
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    M = Q @ _jordan(4, 1e-3) @ Q.T
    with mpmath.workdps(60):
        mu = _rho(M)
    for blk in ([(4, 0)], [(-4, 0)]):
        r = rmb.mussv(M, blk)
        assert mpmath.mpf(r.lower) <= mu


def test_multiple_eigenvalue_beyond_the_exact_check():
    # 2 I (12 x 12): twelve equal eigenvalues, too many for the exact check; their discs
    # form one cluster, which holds the exact eigenvalues (complex scalar: mu = 2)
    r = _check(2.0 * np.eye(12), [(12, 0)], mpmath.mpf(2))
    assert r.lower > 0


def test_triangular_multiple_real_eigenvalue_beyond_the_exact_check():
    # a real repeated scalar on 2 I (12 x 12): twelve equal real eigenvalues form an even
    # cluster, and n is past the rational determinant; M and delta triangular give the
    # eigenvalues M_ii delta_ii of M delta exactly (mu = 2)
    r = _check(2.0 * np.eye(12), [(-12, 0)], mpmath.mpf(2))
    assert r.lower > 0
    # the same on a triangular matrix with a double eigenvalue 3 and distinct others
    M = np.tril(np.random.default_rng(5).standard_normal((12, 12)), -1)
    M[np.diag_indices(12)] = [3.0, 3.0] + list(np.linspace(-2.5, 2.5, 10))
    _check(M, [(-12, 0)], mpmath.mpf(3))


def test_exact_check_uses_the_exact_product():
    # a dense near-Jordan block (Q J_4(1e-3) Q^T, rounded) with a non-power-of-two
    # repeated complex scalar: the rational check on the rounded product M delta gave
    # 1.03207e-3 against mu = rho(M) = 1.02860e-3 (the rounding moves the defective
    # eigenvalue by about eps^(1/4)); on the exact product it stays below
    M = np.array(
        [
            [0.3247579618276307, -0.25402581344341485, -0.8445696762054951, -0.2875928690757912],
            [-0.07540406768022466, -0.16929806380989845, 0.2818110637225044, -0.9121866059683125],
            [0.2843756760398774, -0.018222600103538277, -0.14790899892551035, 0.17074376971363817],
            [
                -0.8912623821308981,
                0.043798286173071604,
                -0.3995477953304539,
                -0.0035508990922226355,
            ],
        ]
    )
    c = 103.67897222930539
    with mpmath.workdps(80):
        mu = _rho(M)
    lower, _ = certified_lower(M, [(4, 0)], c * np.eye(4))
    assert mpmath.mpf(lower) <= mu
    assert lower > 0.9 * mu


def _smax(B):
    mp = mpmath.matrix([[complex(z) for z in row] for row in B])
    return max(mpmath.svd_c(mp, compute_uv=False))


@pytest.mark.parametrize("cplx", [True, False])
@pytest.mark.parametrize("seed", range(10))
def test_mixed_block_diagonal(seed, cplx):
    # M = diag(a, B) with a real scalar on a and a full complex block on B: mu is the
    # larger of |a| and sigma_max(B); M delta is complex whenever the search puts a
    # (needless) real part next to the complex block
    rng = np.random.default_rng(seed)
    a = rng.standard_normal() * (3.0 if seed % 2 else 0.3)
    B = rng.standard_normal((2, 2)) + (1j * rng.standard_normal((2, 2)) if cplx else 0)
    M = np.zeros((3, 3), dtype=complex if cplx else float)
    M[0, 0], M[1:, 1:] = a, B
    _check(M, [(-1, 0), (2, 2)], max(mpmath.mpf(abs(a)), _smax(B)))


@pytest.mark.parametrize("seed", range(10))
def test_complex_triangular_real_repeated_scalar(seed):
    # real repeated scalar on a complex lower-triangular M: mu is the largest modulus of
    # its real diagonal entries
    rng = np.random.default_rng(seed)
    M = np.tril(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    M[0, 0], M[1, 1] = 3 * rng.standard_normal(), rng.standard_normal()
    _check(M, [(-3, 0)], max(abs(mpmath.mpf(M[0, 0].real)), abs(mpmath.mpf(M[1, 1].real))))


def test_mixed_pencil_root_certifies_a_coupled_perturbation():
    # the real part of delta is needed (coupled M): the complex part is rescaled by the
    # root z of det(I - M delta_R - z M delta_C), shown to lie near z_hat exactly
    rng = np.random.default_rng(3)
    M = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    blk = [(-1, 0), (2, 2)]
    r = rmb.mussv(M, blk)
    assert r.delta is not None and r.delta[0, 0] != 0
    lower, d = certified_lower(M, blk, r.delta)
    assert d is not None
    assert verify_lower_bound(M, blk, d, tol=1e-12)
    # the pencil root, not the 1e-8 deflation of an unchecked value
    nrm = BlockStructure(blk).block_norm(r.delta)
    assert (1 - 1e-10) / nrm <= lower <= r.upper
    # brute force: det(I - M d) at d has |det| far below the scale of the entries
    K = mpmath.eye(3) - mpmath.matrix([[complex(z) for z in row] for row in M @ d])
    assert abs(mpmath.det(K)) < 1e-12


def test_unchecked_real_structure_on_complex_matrix_is_deflated():
    # a real repeated scalar on a dense complex M with exact real eigenvalues +-1
    # (M^2 = I): det(I - M delta) = 1 - (2j)(-0.5j) = 0 exactly for delta = I, which the
    # rounding-level test accepts; the unchecked value is reduced by 1e-8
    M = np.array([[0.0, 2.0j], [-0.5j, 0.0]])
    struct = BlockStructure([(-2, 0)])
    lower, d = certified_lower(M, struct, np.eye(2))
    assert lower == pytest.approx(1 - 1e-8, rel=1e-15)
    assert lower < 1.0


def test_unchecked_real_structure_needs_a_singular_perturbation():
    # M = [[1, 2 + 1e-3j], [0.5, -1]] has eigenvalues +-sqrt(2 + 5e-4 j), none real: no
    # real delta I makes I - M delta singular (mu = 0), and 0.7 I, far from it
    # (sigma_min(I - 0.7 M) is of order 1), gives no bound
    M = np.array([[1.0, 2.0 + 1e-3j], [0.5, -1.0]])
    assert np.all(np.abs(np.linalg.eigvals(M).imag) > 1e-5)
    lower, d = certified_lower(M, BlockStructure([(-2, 0)]), 0.7 * np.eye(2))
    assert lower == 0.0 and d is None


@pytest.mark.parametrize(
    "M",
    [
        np.array([[-2 + 1e-10j]]),
        np.array([[-2 + 1e-10j, 0.0], [0.0, 1.0 + 1e-10j]]),
    ],
)
def test_real_scalars_on_a_complex_diagonal_give_mu_zero(M):
    # det(I - M diag(d)) = prod(1 - m_i d_i) with every m_i non-real: |1 - m_i d_i| >=
    # |Im(m_i) d_i| > 0 for d_i != 0 and = 1 at d_i = 0, so no real d makes it 0 and
    # mu = 0 exactly; the lower bound must not exceed it (nor the upper bound)
    blk = [(-1, 0)] * len(M)
    r = rmb.mussv(M, blk)
    assert r.lower == 0.0 and r.delta is None
    assert r.lower <= r.upper
