"""Certificates of ``mu(M) <= beta`` with ``beta`` far below ``mu`` that the floating-point
evaluation of the certificate condition must not accept: entries lost to underflow in the
scalings, a factorisation with large growth, ill-conditioned ``D``, a non-Hermitian ``G`` or
an off-pattern ``D``, a ``mu = 0`` claim under the default tolerance.

Every ``mu`` is a closed form: two ``1 x 1`` complex blocks on ``[[0, a], [c, 0]]`` give
``mu = sqrt(|a c|)`` (diagonal scalings reach it), a real ``1 x 1`` block on ``[[1]]`` gives
``1``, two complex ``1 x 1`` blocks on an upper-triangular ``M`` give ``max |m_ii|``
(``det(I - Delta M)`` is the product of ``1 - delta_i m_ii``), a complex repeated scalar
gives the spectral radius.
"""

import mpmath
import numpy as np
import pytest

from robustmb.analysis.frequency_certificate import bounds_at_scalings
from robustmb.analysis.mu_rounding import certificate_excess, certify_scalings
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import ScalingParametrization, verify_upper_bound

TWO_COMPLEX = [(1, 1), (1, 1)]


def test_prescaling_of_m_does_not_flush_small_entries():
    # M / 2^665 loses 1e-130 to underflow: the nilpotent remainder passed at beta = 1e-80
    a, c = 1e200, 1e-130
    M = np.array([[0.0, a], [c, 0.0]])
    mu = np.sqrt(a) * np.sqrt(c)  # 1e35
    D = np.diag([1.0, 1e300])
    with np.errstate(over="ignore"):  # ||D||_F of the structure check overflows: inf
        assert not verify_upper_bound(M, TWO_COMPLEX, 1e-80, D, tol=0.0)
    assert not certificate_excess(M, TWO_COMPLEX, 1e-80, D)[0] <= 0
    Dl = D.astype(complex)[None]
    beta = certify_scalings(M[None].astype(complex), TWO_COMPLEX, [1e-80], Dl, 0 * Dl)[0]
    assert beta[0] >= mu


def test_underflow_in_the_scaled_matrix_is_in_the_allowance():
    # d2 * c = 2e-325 underflows to 0 in Dl @ M
    c = 1e-40
    M = np.array([[0.0, 1.0], [c, 0.0]])
    mu = np.sqrt(c)  # 1e-20
    D = np.diag([6e-309, 2e-285])
    for beta in (1e-23, 0.5 * mu):
        assert not verify_upper_bound(M, TWO_COMPLEX, beta, D, tol=0.0)
    # the same D certifies sigma_max(D M D^-1) = (d2 / d1) c = 3.3e-17 (d2 / d1 = 1e24 / 3)
    assert verify_upper_bound(M, TWO_COMPLEX, 1.01 * (1e24 / 3) * c, D, tol=0.0)
    assert not verify_upper_bound(M, TWO_COMPLEX, 0.99 * (1e24 / 3) * c, D, tol=0.0)


def test_lu_growth_is_bounded_a_posteriori():
    # Wilkinson's matrix: partial pivoting grows by 2^59, cond(D) ~ 27 only; the computed
    # D M D^-1 loses its +-10 eigenvalues and looked like a certificate of 1.49
    n = 60
    W = np.eye(n) - np.tril(np.ones((n, n)), -1)
    W[:, -1] = 1
    D = W.T.copy()
    At = np.zeros((n, n))
    At[57, 58] = At[58, 57] = 10.0
    At[57, 59] = At[58, 59] = 1.0
    M = np.linalg.solve(D, At @ D)
    # mu = rho(M): 10 for D^-1 At D, and M is that up to a rounding of relative size
    # 1e-16 * growth; mpmath at 60 digits gives 10.000000000 for the stored M
    assert np.max(np.abs(np.linalg.eigvals(M))) > 9.0
    for beta in (1.485, 5.0):
        assert not verify_upper_bound(M, [(n, 0)], beta, D, tol=0.0)


def _graded_triangular_cases(count):
    """``(M, D)`` with ``D`` upper triangular of condition number 1e24 - 1e33 and
    ``M = D^-1 A0 D`` rounded."""
    rng = np.random.default_rng(11)
    for trial in range(count):
        n = 4 + trial % 5
        U = np.triu(rng.standard_normal((n, n)) * 10.0 ** rng.uniform(0, 4, (n, n)))
        np.fill_diagonal(U, 10.0 ** rng.uniform(-6, 0, n))
        A0 = rng.standard_normal((n, n)) * 10.0 ** rng.uniform(-3, 3, (n, n))
        yield trial, np.linalg.solve(U, A0 @ U), U


def test_ill_conditioned_triangular_d_is_not_trusted_to_first_order():
    # an allowance near 1 (first order only) accepted bounds whose exact condition
    # sigma_max(D M D^-1) <= beta was false by factors 4 to 1e6 (11 of these 30 cases):
    # the smallest accepted beta must satisfy it, checked at 60 digits
    checked = 0
    for _, M, D in _graded_triangular_cases(30):
        blk = [(M.shape[0], 0)]
        hi = 1.0
        while not certificate_excess(M, blk, hi, D)[0] <= 0 and hi < 1e300:
            hi *= 1e4
        if hi >= 1e300:
            continue  # nothing accepted (the a-posteriori bound on Dr^-1 fails)
        lo = hi / 1e4
        for _ in range(40):
            mid = np.sqrt(lo * hi)
            lo, hi = (lo, mid) if certificate_excess(M, blk, mid, D)[0] <= 0 else (mid, hi)
        assert verify_upper_bound(M, blk, hi, D, tol=0.0)
        with mpmath.workdps(60):
            Dm = mpmath.matrix(D.tolist())
            A = Dm * mpmath.matrix(M.tolist()) * mpmath.inverse(Dm)
            assert max(mpmath.svd_r(A, compute_uv=False)) <= hi
        checked += 1
    assert checked >= 3  # cond(D) up to 1e20 is still accepted where it is proven


@pytest.mark.parametrize("s, beta", [(1.0, 0.5), (10.0, 0.05)])
def test_non_hermitian_g_is_projected(s, beta):
    # g_violation 8e-11 <= 1e-10 relative to ||G|| = 2.5e10 s, but an anti-Hermitian part
    # of absolute size s lowered the margin; mu([[1]]) = 1 for a real scalar
    G = np.array([[2.5e10 * s - 1j * s]])
    assert not verify_upper_bound(np.array([[1.0]]), [(-1, 0)], beta, np.eye(1), G, tol=0.0)


def test_off_pattern_d_is_projected():
    # upper triangular M: mu = max |m_ii| = 1; the off-pattern entry 99.9 (1e-10 of
    # ||D||) made Dl M Dr^-1 no similarity
    M = np.array([[0.0, -1e10], [0.0, 1.0]])
    D = np.array([[1.0, 0.0], [99.9, 1e12]])
    for beta in (0.5, 0.02):
        assert not verify_upper_bound(M, TWO_COMPLEX, beta, D, tol=0.0)
    # sigma_max of the projected certificate: |[[0, -0.01], [0, 1]]| = 1.00005
    assert verify_upper_bound(M, TWO_COMPLEX, 1.0001, np.diag([1.0, 1e12]), tol=0.0)


def test_mu_zero_claim_gets_no_tolerance():
    # mu(diag(1e-4, 1e4 j)) = 1e-4 under two real scalars (the second is 0 on a non-real
    # number); at beta = 0 the default tol admitted mu up to sqrt(tol) ||A||
    M = np.diag([1e-4, 1e4j])
    G = np.diag([0.0, 1e5]).astype(complex)
    assert not verify_upper_bound(M, [(-1, 0), (-1, 0)], 0.0, np.eye(2), G)
    # mu of the second block alone is 0 and is proven
    assert verify_upper_bound(np.array([[1e4j]]), [(-1, 0)], 0.0, np.eye(1), np.array([[1e5]]))


def test_subnormal_sigma_max_is_scaled_exactly():
    # mu(diag(1e-310, 0)) = 1e-310 under two complex scalars
    M = np.array([[1e-310, 0.0], [0.0, 0.0]])
    assert verify_upper_bound(M, TWO_COMPLEX, 1e-309, np.eye(2), tol=0.0)
    assert not verify_upper_bound(M, TWO_COMPLEX, 0.9e-310, np.eye(2), tol=0.0)


def test_singular_scaling_row_gives_inf_not_an_error():
    # finite parameters whose Dr is singular to the LU factorisation: D = [[d, u], [0, 1]]
    # with d = exp(-300), u = 1e200, so the pivot 0 - (d / u) * 1 underflows to 0;
    # mu = rho(M) = 0.5 for the complex repeated scalar
    blk = [(2, 0)]
    M = np.array([[[0.5, 1.0], [0.0, 0.5]]] * 2, dtype=complex)
    x = np.zeros((2, ScalingParametrization(BlockStructure(blk)).p))
    x[1, [0, 2]] = -300.0, 1e200
    beta = bounds_at_scalings(M, blk, x)[0]
    assert np.isfinite(beta[0]) and beta[0] >= 0.5
    assert beta[1] >= 0.5  # inf, or the checked sigma_max(M) bound
