"""mussv upper bounds never below the exact mu, whatever the conditioning of D.

The certificate test of ``_certify`` takes the rounding error of the margin into account
(:func:`~robustmb.analysis.mu_rounding.margin_rounding_allowance`).  Checked against mu known
exactly for the floating-point matrix (one full complex block: the largest singular value,
mpmath at 50 digits; a repeated complex scalar on a triangular matrix: the largest
diagonal modulus; near-Jordan ``e I + N`` under exact power-of-two similarities: ``|e|``
for a real or complex repeated scalar), and the allowance itself against the margin
evaluated at 50 digits.
"""

import mpmath
import numpy as np
import pytest
from _mu_margin_mp import margin_mp, to_mp
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.mu_rounding import margin_rounding_allowance
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import upper_bound_margin, verify_upper_bound


def _upper(M, blk):
    r = rmb.mussv(M, blk, lower=False)
    # the same rounding-safe test, whatever the conditioning of D
    assert verify_upper_bound(M, blk, r.upper, r.D, r.G, tol=0.0)
    return r


@settings(max_examples=30, deadline=None)
@given(r=st.integers(1, 4), c=st.integers(1, 4), seed=st.integers(0, 10**6), k=st.integers(-40, 40))
def test_full_block_not_below_sigma_max(r, c, seed, k):
    rng = np.random.default_rng(seed)
    M = (rng.standard_normal((c, r)) + 1j * rng.standard_normal((c, r))) * 2.0**k
    with mpmath.workdps(50):
        mu = max(mpmath.svd_c(to_mp(M), compute_uv=False))
    up = mpmath.mpf(_upper(M, [(r, c)]).upper)
    assert up >= mu
    assert up <= mu * (1 + 1e-9)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 10**6), k=st.integers(-40, 40))
def test_triangular_repeated_scalar_not_below_spectral_radius(n, seed, k):
    rng = np.random.default_rng(seed)
    M = np.tril(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))) * 2.0**k
    mu = max(abs(mpmath.mpc(complex(z))) for z in np.diag(M))
    up = mpmath.mpf(_upper(M, [(n, 0)]).upper)
    assert up >= mu
    assert up <= mu * (1 + 1e-6)


def _jordan(n, e, exps):
    T = 2.0 ** np.array(exps[:n], dtype=float)
    return (e * np.eye(n) + np.eye(n, k=-1)) * T[None, :] / T[:, None]  # exact similarity


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(2, 4),
    log_e=st.sampled_from([-14, -13, -12, -10, -8, -6, -4, -2, 0]),
    sign=st.sampled_from([-1.0, 1.0]),
    real=st.booleans(),
    exps=st.lists(st.integers(-10, 10), min_size=4, max_size=4),
)
def test_near_jordan_not_below_mu(n, log_e, sign, real, exps):
    e = 10.0**log_e
    M = _jordan(n, sign * e, exps)
    blk = [(-n, 0)] if real else [(n, 0)]
    assert _upper(M, blk).upper >= e


def test_reported_ill_conditioned_cases():
    # accepted before with margin <= 1 + 1e-13: 9.999999998808668e-14 (D of cond 3.7e19)
    # and 9.999999999999075e-13 (cond 3.9e17), both below mu = e
    for e in (1e-13, 1e-12):
        M = np.array([[e, 0.0], [1.0, e]])
        assert _upper(M, [(-2, 0)]).upper >= e
    r = _upper(np.array([[0.0, 0.0], [1.0, 0.0]]), [(2, 0)])
    assert r.upper >= 0.0


@pytest.mark.parametrize(
    "M, blk",
    [
        (np.array([[1e-12, 0.0], [1.0, 1e-12]]), [(-2, 0)]),
        (np.array([[1e-10, 0.0, 0.0], [1.0, 1e-10, 0.0], [0.0, 1.0, 1e-10]]), [(3, 0)]),
        (np.array([[0.0, 0.0], [1.0, 0.0]]), [(2, 0)]),
        (np.array([[1e-8, 0.0], [1.0, 1e-8]]), [(-1, 0), (-1, 0)]),
    ],
)
def test_allowance_bounds_the_rounding_error(M, blk):
    r = rmb.mussv(M, blk, lower=False)
    if r.upper == 0:
        pytest.skip("a mu = 0 certificate has no margin to compare")
    margin, delta = margin_rounding_allowance(M, blk, r.upper, r.D, r.G)
    with mpmath.workdps(50):
        exact = margin_mp(M, BlockStructure(blk), mpmath.mpf(r.upper), r.D, r.G)
        computed = mpmath.mpf(margin) ** 2 * (1 if margin >= 0 else -1)
        assert abs(computed - exact) <= delta
        assert exact <= 1
    assert margin == upper_bound_margin(M, blk, r.upper, r.D, r.G)


def test_diagonal_scaling_has_a_small_allowance():
    M = np.array([[0.5, 1e-10], [1e10, 0.5]])
    D = np.diag([1.0, 1e-10])
    m, d = margin_rounding_allowance(M, [(1, 0), (1, 0)], 1.6, D)
    assert d < 1e-13
    with mpmath.workdps(50):
        blk = BlockStructure([(1, 0), (1, 0)])
        exact = margin_mp(M, blk, mpmath.mpf(1.6), D, np.zeros((2, 2)))
        assert abs(mpmath.mpf(m) ** 2 - exact) <= d
