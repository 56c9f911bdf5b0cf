"""Rounding-safe acceptance of mu upper-bound certificates outside ``mussv``'s own path.

Three checks that took the computed margin at face value: the frequency certificates'
pointwise bounds (``bounds_at_scalings``), ``verify_upper_bound`` (which refused every D of
condition number 1e15 or more instead), and ``mu = 0`` claims (``beta = 0`` rows).
References, none produced by the code under test: ``mu`` known exactly for the
floating-point matrix (``[[e, 0], [1, e]]`` with a real or complex repeated scalar:
``det(I - delta M) = (1 - delta e)^2``, so ``mu = |e|``; a nilpotent matrix under one
repeated scalar: ``mu = 0``; a real scalar on a non-real number: ``mu = 0``) and the
certificate's margin evaluated at 80 digits by mpmath.
"""

import mpmath
import numpy as np
import pytest
from _mu_margin_mp import margin_mp
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.analysis.frequency_certificate import bounds_at_scalings
from robustmb.analysis.mu_margin import certificate_from_gevp
from robustmb.analysis.mu_rounding import certificate_excess, certify_scalings
from robustmb.analysis.mu_structure import BlockStructure
from robustmb.analysis.mu_upper import (
    ScalingParametrization,
    _gevp_form,
    upper_bound_margin,
    verify_upper_bound,
)
from robustmb.analysis.mussv import warm_upper_bounds


def _jordan(e, n=2):
    return e * np.eye(n) + np.eye(n, k=-1)


def _perturbed_scalings(M, blk, count, seed, rel=1e-6):
    """The optimiser's D,G parameters of ``M``, perturbed (a stored row is any row)."""
    _, x = warm_upper_bounds(M[None], blk)
    rng = np.random.default_rng(seed)
    return x * (1.0 + rel * rng.standard_normal((count, x.shape[1])))


@pytest.mark.parametrize("log_e", [-13.0, -12.5, -12.0])
def test_frequency_certificate_bounds_not_below_mu(log_e):
    # cond(D) ~ 1e18-1e20: the margin alone (<= 1 + 1e-13) accepted bounds up to 3e-11
    # relative below mu on these rows
    e, blk = 10.0**log_e, [(-2, 0)]
    M = _jordan(e)
    x = _perturbed_scalings(M, blk, 20, seed=1)
    beta, D, G = bounds_at_scalings(np.repeat(M[None], len(x), axis=0), blk, x)
    assert np.all(beta >= e)  # mu = e exactly
    struct = BlockStructure(blk)
    with mpmath.workdps(80):
        for k in np.flatnonzero(np.isfinite(beta))[:4]:
            assert margin_mp(M, struct, mpmath.mpf(beta[k]), D[k], G[k]) <= 1


# Near-optimal D,G parameters of [[1e-13, 0], [1, 1e-13]] under a repeated real scalar
# (cond(D) ~ 1e19), from one run of the fast optimiser.  Stored as an input: whether a
# plain sqrt(lambda_max(X)) below mu occurs among their perturbations depends on the
# optimiser's path, which other changes (its start) move.
_JORDAN_13_SCALINGS = np.array(
    [
        [
            1.44830706e01,
            -3.05624028e01,
            4.61122310e-02,
            7.04248001e-05,
            -6.62598007e-11,
            6.63707290e-11,
            8.22508628e-11,
            -5.19879418e-07,
        ]
    ]
)


def _below_mu_certificate(e):
    """A certificate of a bound below ``mu = e`` whose computed margin passes: the plain
    ``sqrt(lambda_max(X))`` of perturbed near-optimal scalings of ``[[e, 0], [1, e]]``."""
    blk = [(-2, 0)]
    M = _jordan(e)
    struct = BlockStructure(blk)
    rng = np.random.default_rng(1)
    x = _JORDAN_13_SCALINGS * (1.0 + 1e-6 * rng.standard_normal((40, 8)))
    Dl, Dr, Gh = ScalingParametrization(struct).matrices(x)
    Ms = np.repeat(M[None], len(Dl), axis=0)
    _, X = _gevp_form(Ms, Dl, Dr, Gh)
    beta = np.sqrt(np.linalg.eigvalsh(X)[:, -1])
    D, G = certificate_from_gevp(struct, beta, Dl, Gh)
    margin = upper_bound_margin(Ms, blk, beta, D, G)
    k = np.flatnonzero((beta < e) & (margin <= 1.0))
    assert k.size, "the family holds such a certificate"
    return M, blk, beta[k[0]], D[k[0]], G[k[0]]


def test_verify_rejects_a_bound_below_mu_with_an_ill_conditioned_d():
    M, blk, beta, D, G = _below_mu_certificate(1e-13)
    assert beta < 1e-13 and np.linalg.cond(D) > 1e15
    assert upper_bound_margin(M, blk, beta, D, G) <= 1.0  # the margin alone would pass
    assert not verify_upper_bound(M, blk, beta, D, G, tol=0.0)
    assert certificate_excess(M, blk, beta, D, G)[0] > 0


@pytest.mark.parametrize(
    "blk, n, e",
    [([(2, 0)], 2, 1e-10), ([(2, 0)], 2, 1e-12), ([(3, 0)], 3, 1e-12), ([(-2, 0)], 2, 1e-13)],
)
def test_verify_accepts_mussv_certificates_with_ill_conditioned_d(blk, n, e):
    M = _jordan(e, n)
    r = rmb.mussv(M, blk, lower=False)
    assert np.linalg.cond(r.D) >= 1e15  # refused before, whatever the margin
    assert r.upper >= e  # mu = e exactly
    assert verify_upper_bound(M, blk, r.upper, r.D, r.G, tol=0.0)
    with mpmath.workdps(80):
        assert margin_mp(M, BlockStructure(blk), mpmath.mpf(r.upper), r.D, r.G) <= 1


def test_verify_still_rejects_wrong_structure_and_low_bounds():
    M = _jordan(1e-12, 3)
    blk = [(3, 0)]
    r = rmb.mussv(M, blk, lower=False)
    assert not verify_upper_bound(M, blk, 0.5e-12, r.D, r.G, tol=0.0)
    D_bad = r.D.copy()
    D_bad[0, 0] = 0.0
    D_bad[0, 1:] = 0.0  # singular
    assert not verify_upper_bound(M, blk, r.upper, D_bad, r.G)
    assert not verify_upper_bound(M, blk, r.upper, r.D * np.nan, r.G)


@settings(max_examples=20, deadline=None)
@given(k=st.integers(20, 300), n=st.integers(2, 3), real=st.booleans())
def test_tiny_nonzero_mu_never_reported_zero(k, n, real):
    # mu = e > 0; the optimiser's bound squared underflows and was kept as 0 unchecked
    e = 10.0**-k
    M = _jordan(e, n)
    blk = [(-n, 0)] if real else [(n, 0)]
    r = rmb.mussv(M, blk, lower=False)
    assert r.upper >= e
    assert verify_upper_bound(M, blk, r.upper, r.D, r.G, tol=0.0)


def test_zero_is_reported_with_a_proof():
    # mu = 0 in each case; 0 is reported, each time by one of the proofs
    cases = [
        (np.zeros((2, 2)), [(-2, 0)]),  # M = 0
        (_jordan(0.0, 2), [(-2, 0)]),  # nilpotent under one repeated scalar (exact M^2 = 0)
        (np.array([[3.0 - 4.0j]]), [(-1, 0)]),  # real scalar on a non-real number
    ]
    for M, blk in cases:
        assert rmb.mussv(M, blk, lower=False).upper == 0.0
    # the mu = 0 form of the last is checked: its largest eigenvalue at 80 digits
    M, blk = cases[2]
    r = rmb.mussv(M, blk, lower=False)
    assert verify_upper_bound(M, blk, 0.0, r.D, r.G, tol=0.0)
    with mpmath.workdps(80):
        assert margin_mp(M, BlockStructure(blk), 0, r.D, r.G) <= 0
    # the same scalings do not prove mu = 0 for a matrix with mu > 0
    assert not verify_upper_bound(np.array([[3.0]]), blk, 0.0, r.D, r.G, tol=0.0)


def test_zero_claims_are_raised_unless_proven():
    # a claim mu = 0 with trivial scalings on matrices with a nonzero real eigenvalue
    rng = np.random.default_rng(3)
    blk = [(-2, 0)]
    eye, zero = np.eye(2, dtype=complex), np.zeros((2, 2), dtype=complex)
    for _ in range(10):
        M = rng.standard_normal((2, 2)) * 10.0 ** rng.integers(-200, 200)
        beta, D, G = certify_scalings(M[None], blk, [0.0], eye[None], zero[None])
        with mpmath.workdps(50):
            lam = mpmath.eig(mpmath.matrix(M.tolist()), left=False, right=False)
        mu = max((abs(z.real) for z in lam if abs(z.imag) <= 1e-40 * abs(z)), default=0)
        assert beta[0] >= mu > 0 or mu == 0
        assert verify_upper_bound(M, blk, beta[0], D[0], G[0], tol=0.0)
    # nearly nilpotent: mu = 2^-60, a tiny nonzero entry
    M = np.array([[0.0, 2.0**-120], [1.0, 0.0]])
    beta, _, _ = certify_scalings(M[None], blk, [0.0], eye[None], zero[None])
    assert beta[0] >= 2.0**-60


def test_failed_optimiser_rows_give_no_bound_or_a_checked_one():
    # nan, 0 and tiny claims with huge G scalings (garbage starting parameters): each row
    # ends as inf or as a bound that passes the check, never as nan
    rng = np.random.default_rng(7)
    blk = [(-1, 0), (-1, 0), (1, 1)]
    M = rng.standard_normal((4, 3, 3)) + 1j * rng.standard_normal((4, 3, 3))
    Dl = np.broadcast_to(np.eye(3, dtype=complex), (4, 3, 3)).copy()
    Gh = np.zeros((4, 3, 3), dtype=complex)
    Gh[:, 0, 0], Gh[:, 1, 1] = 1e200, -1e250
    beta, D, G = certify_scalings(M, blk, [np.nan, 0.0, 1e-300, 1.0], Dl, Gh)
    assert not np.any(np.isnan(beta))
    lower = rmb.mussv(M, blk).lower
    for k in np.flatnonzero(np.isfinite(beta)):
        assert verify_upper_bound(M[k], blk, beta[k], D[k], G[k], tol=0.0)
        assert beta[k] >= lower[k] > 0
