"""Tests of robustmb.analysis.model_family: norms and responses of a family in one batch.

Every batched result is compared with the single-model call (same certified value) and,
independently, with SLICOT (AB13DD for H-infinity, AB13BD for H2 through slycot),
python-control and dense per-frequency solves.
"""

import control
import numpy as np
import pytest
import slycot

from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.model_family import freqresp_stack, is_model_stack, mu_peak_stack
from robustmb.analysis.norms import h2norm, hinfnorm
from robustmb.errors import ArgumentError, DimensionError, FloatRangeError


def family(seed, count, n=6, m=3, p=3, strictly_proper=False):
    np.random.seed(seed)  # noqa: NPY002  (control.rss uses the global generator)
    return [control.rss(n, p, m, strictly_proper=strictly_proper) for _ in range(count)]


def ab13dd(G, dt=0.0):
    A, B, C, D = G.A, G.B, G.C, G.D
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    dico = "D" if dt else "C"
    return float(slycot.ab13dd(dico, "I", "N", "D", n, m, p, A, np.eye(n), B, C, D, 1e-12)[0])


def ab13bd(G):
    A, B, C, D = G.A, G.B, G.C, G.D
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    return float(slycot.ab13bd("C", "H", n, m, p, A, B, C, D))


def awkward_members():
    """Models that leave the batched path: unstable, defective-like, D near the peak."""
    unstable = control.ss(
        np.diag([-1.0, 0.5, -2, -3, -4, -5]), np.ones((6, 3)), np.ones((3, 6)), np.zeros((3, 3))
    )
    # Jordan-like block: eigenvector matrix far from orthogonal
    A = np.diag(-np.ones(6)) + np.diag(np.full(5, 1e3), 1)
    defective = control.ss(A, np.ones((6, 3)), np.eye(3, 6), np.zeros((3, 3)))
    # sigma_max(D) equal to the norm: the peak is approached at infinity
    highpass = control.ss(-np.eye(6), 1e-3 * np.ones((6, 3)), np.ones((3, 6)), np.eye(3))
    return [unstable, defective, highpass]


def test_hinfnorm_family_equals_single_calls_and_slycot():
    models = family(0, 40) + awkward_members()
    gamma, fpeak = hinfnorm(models)
    single = [hinfnorm(G) for G in models]
    for k, G in enumerate(models):
        if np.isinf(single[k][0]):
            assert np.isinf(gamma[k])
            continue
        assert gamma[k] == pytest.approx(single[k][0], rel=2e-8)
        assert gamma[k] == pytest.approx(ab13dd(G), rel=2e-8)
        # the value is attained at the returned frequency (dense solve, no shared code)
        if np.isfinite(fpeak[k]):
            H = G.C @ np.linalg.solve(1j * fpeak[k] * np.eye(G.nstates) - G.A, G.B) + G.D
            assert np.linalg.norm(H, 2) == pytest.approx(gamma[k], rel=1e-12)


def test_hinfnorm_tuple_of_stacked_arrays():
    models = family(1, 12, n=4, m=2, p=2)
    stacked = tuple(np.array([getattr(G, X) for G in models]) for X in "ABCD")
    assert is_model_stack(stacked)
    gamma, _ = hinfnorm(stacked, tol=1e-10)
    ref = np.array([ab13dd(G) for G in models])
    np.testing.assert_allclose(gamma, ref, rtol=1e-9)


def test_hinfnorm_discrete_family_uses_single_model_path():
    models = [control.c2d(G, 0.1) for G in family(2, 5, n=4, m=2, p=2)]
    gamma, fpeak = hinfnorm(models)
    for k, G in enumerate(models):
        assert (gamma[k], fpeak[k]) == hinfnorm(G)
        assert gamma[k] == pytest.approx(ab13dd(G, dt=0.1), rel=2e-8)


def test_h2norm_family_equals_single_calls_and_slycot():
    models = family(3, 40, strictly_proper=True) + awkward_members()[:2]
    values = h2norm(models)
    for k, G in enumerate(models):
        single = h2norm(G)
        if np.isinf(single):
            assert np.isinf(values[k])
            continue
        assert values[k] == pytest.approx(single, rel=1e-12)
        assert values[k] == pytest.approx(ab13bd(G), rel=1e-9)
        assert values[k] == pytest.approx(control.norm(G, 2), rel=1e-9)


def test_h2norm_family_with_feedthrough_is_infinite():
    models = [control.ss(G.A, G.B, G.C, np.ones((3, 3))) for G in family(4, 6)]
    models[2] = control.ss(models[2].A, models[2].B, models[2].C, np.zeros((3, 3)))
    values = h2norm(models)
    assert np.isinf(values[[0, 1, 3, 4, 5]]).all()
    assert values[2] == pytest.approx(ab13bd(models[2]), rel=1e-9)


def test_freqresp_stack_equals_dense_solves():
    models = family(5, 10) + [awkward_members()[1]]
    omega = np.array([0.0, 0.3, 1.0, 7.0, np.inf])
    H = freqresp_stack(models, omega)
    assert H.shape == (11, 5, 3, 3)
    for k, G in enumerate(models):
        np.testing.assert_allclose(H[k], freqresp(G, omega), rtol=1e-10, atol=1e-13)
        dense = G.C @ np.linalg.solve(1j * 0.3 * np.eye(G.nstates) - G.A, G.B) + G.D
        np.testing.assert_allclose(H[k, 1], dense, rtol=1e-9)


def test_family_of_different_sizes_is_rejected_naming_the_element():
    models = family(6, 3) + family(7, 1, n=5)
    with pytest.raises(DimensionError, match=r"sys\[3\]"):
        hinfnorm(models)
    with pytest.raises(DimensionError, match=r"sys\[3\]"):
        h2norm(models)


def test_empty_family_or_short_tuple_is_a_dimension_error():
    from robustmb.analysis.model_stack import as_statespace_stack

    with pytest.raises(DimensionError, match="empty family"):
        as_statespace_stack([])
    for bad in ((), (np.zeros((2, 1, 1)),) * 3):
        with pytest.raises(DimensionError, match="stacked tuple"):
            as_statespace_stack(bad)


def test_nested_list_is_still_a_static_gain():
    assert not is_model_stack([[1.0, 2.0], [3.0, 4.0]])
    assert not is_model_stack([(1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0)])
    assert hinfnorm([(3.0, 0.0), (0.0, 4.0)])[0] == pytest.approx(4.0)
    G = (-np.eye(2), np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)))
    assert is_model_stack([G, G])
    # G = 2 / (s + 1): squared H2 norm 4 / 2
    np.testing.assert_allclose(h2norm([G, G]), [np.sqrt(2.0)] * 2, rtol=1e-14)
    gamma, _ = hinfnorm([[3.0, 0.0], [0.0, 4.0]])
    assert gamma == pytest.approx(4.0)


def test_mu_peak_stack_equals_full_sweep_and_is_certified():
    from robustmb.analysis.model_family import mu_peak_stack
    from robustmb.analysis.mussv import mussv

    models = family(8, 3)
    R = freqresp_stack(models, np.logspace(-1, 1, 25))
    blk = [(-1, 0), (2, 2)]
    peak, index = mu_peak_stack(R, blk, candidates=4)
    for k in range(3):
        full = mussv(R[k], blk)
        assert peak[k] == pytest.approx(np.max(full.upper), rel=1e-6)
        assert full.upper[index[k]] == pytest.approx(peak[k], rel=1e-6)
        # SLICOT AB13MD's D,G bound on the same grid: ours is at least as tight
        slicot = [
            slycot.ab13md(np.ascontiguousarray(M), np.array([1, 2]), np.array([1, 2]))[0]
            for M in R[k]
        ]
        assert peak[k] <= np.max(slicot) * (1 + 1e-6)
        # a certified lower bound (destabilising delta) never exceeds the upper bound
        assert np.max(full.lower) <= peak[k] * (1 + 1e-12)
        assert np.max(full.lower) > 0.5 * peak[k]


def test_batched_balancing_is_the_single_model_balancing():
    from robustmb.analysis.balancing import balance_realization
    from robustmb.analysis.model_family import _balanced

    models = family(9, 20)
    A, B, C = (np.array([getattr(G, X) for G in models]) for X in "ABC")
    A[3] = np.triu(A[3])  # LAPACK permutes this one: the general path
    A[4, :, 0] = 0.0
    Ab, Bb, Cb = _balanced(A, B, C)
    for k in range(20):
        single = balance_realization(A[k], B[k], C[k])
        for batched, one in zip((Ab[k], Bb[k], Cb[k]), single, strict=True):
            np.testing.assert_array_equal(batched, one)


def test_mu_peak_stack_does_not_depend_on_the_number_of_candidates():
    from robustmb.analysis.model_family import mu_peak_stack

    R = freqresp_stack(family(10, 4), np.logspace(-1, 1, 30))
    blk = [(-1, 0), (1, 1), (1, 1)]
    peaks = [mu_peak_stack(R, blk, candidates=c)[0] for c in (1, 3, 30)]
    np.testing.assert_allclose(peaks[0], peaks[2], rtol=1e-6)
    np.testing.assert_allclose(peaks[1], peaks[2], rtol=1e-6)


def test_batch_kernels_leave_undecided_members_to_the_single_model_routine():
    from robustmb.analysis.batched_norms import h2norm_batch, hinfnorm_batch

    models = family(3, 5, n=4, m=2, p=2, strictly_proper=True)
    unstable = control.ss(np.diag([-1.0, 0.5, -2.0, -3.0]), np.ones((4, 2)), np.ones((2, 4)), 0)
    models.insert(2, unstable)
    gamma, fpeak = hinfnorm_batch(models)
    values = h2norm_batch(models)
    # the unstable member is not decided by the batch; every other one is, and right
    assert np.isnan(gamma[2]) and np.isnan(fpeak[2]) and np.isnan(values[2])
    stable = [k for k in range(len(models)) if k != 2]
    np.testing.assert_allclose(gamma[stable], [ab13dd(models[k]) for k in stable], rtol=2e-8)
    np.testing.assert_allclose(values[stable], [ab13bd(models[k]) for k in stable], rtol=1e-9)
    # the public calls settle it model by model
    assert np.isinf(hinfnorm(models)[0][2]) and np.isinf(h2norm(models)[2])


def test_family_member_beyond_the_float_range_raises_as_a_single_model_does():
    G = control.ss(-np.eye(2), 1e160 * np.ones((2, 1)), 1e160 * np.ones((1, 2)), 0)
    small = control.ss(-np.eye(2), np.ones((2, 1)), np.ones((1, 2)), 0)
    for norm in (hinfnorm, h2norm):
        with pytest.raises(FloatRangeError, match="beyond the range"):
            norm(G)
        with pytest.raises(FloatRangeError, match="beyond the range"):
            norm([small, G])


@pytest.mark.parametrize("tol", [-1.0, 0.0, 1.0, 5, "a", True, float("nan")])
def test_batched_hinfnorm_rejects_a_bad_tolerance_naming_it(tol):
    from robustmb.analysis.batched_norms import hinfnorm_batch
    from robustmb.analysis.model_family import hinfnorm_stack

    family = [control.tf([1.0], [1.0, 2 * z, 1.0]) for z in (0.05, 0.2)]
    for function in (hinfnorm_batch, hinfnorm_stack, hinfnorm):
        with pytest.raises(ArgumentError, match="tol"):
            function(family, tol=tol)


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1.0, 3e7, 1e250])
def test_shared_unit_scaling_is_exact_and_of_unit_size(scale):
    """G = 2^e G' with B', C', D' of size about 1, exactly (powers of 2 only)."""
    from robustmb.analysis._norm_common import _unit_scaled, _unit_scaled_stack

    rng = np.random.default_rng(1)
    B, C, D = (rng.normal(size=s) * scale for s in ((3, 2), (2, 3), (2, 2)))
    Bs, Cs, Ds, e = _unit_scaled(B, C, D)
    assert 0.1 < np.linalg.norm(Bs) <= 1.0 and np.linalg.norm(Ds) <= 1.0
    # every ratio is a power of 2: mantissas unchanged
    for X, Xs in ((B, Bs), (C, Cs), (D, Ds)):
        assert np.array_equal(np.frexp(X)[0], np.frexp(Xs)[0])
    # the stack version agrees model by model
    stack = _unit_scaled_stack(B[None].repeat(2, 0), C[None].repeat(2, 0), D[None].repeat(2, 0))
    assert np.array_equal(stack[0][1], Bs) and int(stack[3][1]) == e
    # 2^e D' is D exactly
    assert np.array_equal(np.ldexp(Ds, e), D)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_mu_peak_stack_names_the_models_with_non_finite_responses(bad):
    from robustmb.analysis.model_family import mu_peak_stack
    from robustmb.errors import IllPosedError

    R = np.ones((3, 2, 2, 2), dtype=complex)
    R[1, 0, 0, 1] = bad
    with pytest.raises(IllPosedError, match=r"model\(s\) \[1\]"):
        mu_peak_stack(R, [(1, 0), (1, 0)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"candidates": 0}, "candidates must be a positive integer"),
        ({"candidates": -1}, "candidates must be a positive integer"),
        ({"candidates": 2.5}, "candidates must be a positive integer"),
        ({"candidates": True}, "candidates must be a positive integer"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"seed": "a"}, "seed must be a non-negative integer"),
    ],
)
def test_mu_peak_stack_names_a_bad_candidates_or_seed(kwargs, message):
    R = np.ones((1, 3, 2, 2))
    with pytest.raises(ArgumentError, match=message):
        mu_peak_stack(R, [(1, 0), (1, 0)], **kwargs)


def test_mu_peak_stack_refuses_an_empty_frequency_grid():
    with pytest.raises(DimensionError, match="no frequency points"):
        mu_peak_stack(np.ones((2, 0, 2, 2)), [(1, 0), (1, 0)])


def test_a_tuple_of_model_tuples_is_a_family_not_stacked_arrays():
    # four 1-state models (A, B, C, D) in a tuple: np.asarray of each model tuple is
    # 3-D, and the tuple was read as a stacked (A, B, C, D) -- model k built from the
    # k-th matrix of every model; two-state models raised a bare numpy ValueError
    a = np.array([1.0, 2.0, 4.0, 8.0])
    one = tuple((np.array([[-x]]), np.ones((1, 1)), np.ones((1, 1)), np.zeros((1, 1))) for x in a)
    gamma, _ = hinfnorm(one)
    assert np.allclose(gamma, 1 / a, rtol=1e-8)  # |1 / (jw + a)| peaks at w = 0
    assert np.allclose(h2norm(one), np.sqrt(1 / (2 * a)), rtol=1e-10)
    H = freqresp_stack(one, [0.0, 1.0])
    assert np.allclose(H[:, :, 0, 0], 1 / (a[:, None] + np.array([0.0, 1j])), rtol=1e-12)
    two = tuple(
        (np.diag([-x, -2 * x]), np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1))) for x in a
    )
    gamma, _ = hinfnorm(two)
    assert np.allclose(gamma, 1.5 / a, rtol=1e-8)  # 1/(s + a) + 1/(s + 2a) at s = 0
    # sum_ij r_i r_j / (p_i + p_j) of the residues r = 1 at the poles -a, -2a
    assert np.allclose(h2norm(two), np.sqrt(17 / (12 * a)), rtol=1e-10)
    # a tuple of stacked arrays is still one
    stacked = tuple(np.array([m[i] for m in two]) for i in range(4))
    assert np.allclose(hinfnorm(stacked)[0], 1.5 / a, rtol=1e-8)
