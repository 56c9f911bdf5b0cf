"""mussv against external oracles and closed forms; certificates re-verified independently."""

from __future__ import annotations

import numpy as np
import pytest
from _oracles import ORACLES, load_oracle

from robustmb.analysis.mu_lower import verify_lower_bound
from robustmb.analysis.mu_upper import expand_scalings, upper_bound_margin, verify_upper_bound
from robustmb.analysis.mussv import mussv
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    FloatRangeError,
    IllPosedError,
    UncertainTypeError,
)


def as_matrix(data):
    if isinstance(data, dict):
        return np.array(data["re"], dtype=float) + 1j * np.array(data["im"], dtype=float)
    return np.array(data, dtype=float)


def assert_certified(M, blk, res, *, tol=1e-8):
    """Both certificates hold, checked by the stand-alone verifiers."""
    assert np.all(verify_upper_bound(M, blk, res.upper, res.D, res.G, tol=tol))
    lower = np.atleast_1d(res.lower)
    deltas = [res.delta] if np.ndim(res.upper) == 0 else res.delta
    for lo, d in zip(lower, deltas, strict=True):
        assert (lo == 0.0) == (d is None)
    assert np.all(verify_lower_bound(M, blk, res.delta, lower=res.lower, tol=tol))
    assert np.all(lower <= np.atleast_1d(res.upper) * (1 + 1e-9) + 1e-300)


# ------------------------------------------------------------------ analytic identities
ANALYTIC = load_oracle("mu_analytic_identities")["cases"] if ORACLES.exists() else []


@pytest.mark.parametrize("case", ANALYTIC, ids=[c["name"][:48] for c in ANALYTIC])
def test_analytic_identities(case):
    M = as_matrix(case["matrix"])
    blk = [tuple(b) for b in case["matlab_mussv_blk"]]
    expected = case["expected_mu"]
    res = mussv(M, blk)
    assert_certified(M, blk, res)
    if expected == 0.0:
        assert res.upper <= 1e-9
        assert res.lower == 0.0 and res.delta is None
    else:
        assert res.upper == pytest.approx(expected, rel=1e-6)
        assert res.lower == pytest.approx(expected, rel=1e-6)


# ------------------------------------------------------------------ dkpy LMI bounds
@pytest.mark.parametrize(
    "name",
    ["mu_dkpy_complex_mixed_blocks_7x7", "mu_dkpy_complex_nonsquare_full_blocks_10x4"],
)
def test_dkpy_lmi_upper_bounds(name):
    data = load_oracle(name)
    M = as_matrix(data["matrix"])
    blk = [tuple(b) for b in data["block_structure"]["matlab_mussv_blk"]]
    expected = data["expected"]["mu_upper_bound"]
    res = mussv(M, blk)
    assert res.upper == pytest.approx(expected, rel=data["tolerance"]["rel"])
    assert res.lower <= expected * (1 + data["tolerance"]["rel"])
    assert_certified(M, blk, res)
    if name.endswith("10x4"):
        # two full blocks: the D-scaling bound is mu, so the bounds must meet
        assert res.lower == pytest.approx(res.upper, rel=1e-6)


# ------------------------------------------------------------------ S&P distillation (mu_RP)
def distillation_N(omega):
    s = 1j * np.asarray(omega)
    G0 = np.array([[87.8, -86.4], [108.2, -109.6]])
    eye = np.eye(2)
    out = []
    for sk in s:
        G = G0 / (75 * sk + 1)
        K = 0.7 * (75 * sk + 1) / (sk + 1e-5) * np.linalg.inv(G0)
        wp = 0.5 * (10 * sk + 1) / (10 * sk + 1e-5)
        wi = (sk + 0.2) / (0.5 * sk + 1)
        Si = np.linalg.inv(eye + K @ G)
        So = np.linalg.inv(eye + G @ K)
        # inputs [di; w], outputs [Wi u; Wp e] of lft(P, K) with u = K y
        out.append(np.block([[-wi * Si @ K @ G, -wi * Si @ K], [wp * So @ G, wp * So]]))
    return np.array(out)


def test_skogestad_distillation_rp_rs_np():
    data = load_oracle("mu_rp_skogestad_distillation_inverse_controller")
    omega = np.logspace(-3, 3, 61)
    N = distillation_N(omega)
    tol = data["tolerance"]["rel"]
    exp = data["expected"]
    rp_blk = [tuple(b) for b in data["analysis"]["RP"]["blk"]]
    rp = mussv(N, rp_blk)
    assert rp.upper.shape == (61,)
    assert rp.upper.max() == pytest.approx(exp["mu_RP_peak_on_grid"], rel=tol)
    assert rp.lower.max() == pytest.approx(exp["mu_RP_peak_on_grid"], rel=tol)
    assert_certified(N, rp_blk, rp)
    rs_blk = [tuple(b) for b in data["analysis"]["RS"]["blk"]]
    rs = mussv(N[:, :2, :2], rs_blk)
    assert rs.upper.max() == pytest.approx(exp["mu_RS_peak_on_grid"], rel=tol)
    np_res = mussv(N[:, 2:, 2:], [(2, 2)])
    assert np_res.upper.max() == pytest.approx(exp["mu_NP_peak_on_grid"], rel=tol)


# ------------------------------------------------------------------ Julia L3 discrete loop
def l3_response(data, omega):
    sysd = data["system"]
    A, B, C, D = (np.array(sysd[k], dtype=float) for k in "ABCD")
    z = np.exp(1j * np.asarray(omega) * sysd["Ts"])
    resolvent = np.linalg.solve(z[:, None, None] * np.eye(A.shape[0]) - A, B)
    return C @ resolvent + D


def test_julia_l3_three_complex_scalars():
    data = load_oracle("mu_julia_L3_discrete_3_complex_scalars")
    blk = [tuple(b) for b in data["block_structure"]["matlab_mussv_blk"]]
    part1 = data["expected"]["part1"]
    M = l3_response(data, part1["frequencies_rad_s"])
    res = mussv(M, blk)
    # three complex scalars (2S + F = 3): mu equals the D bound, the second number of
    # each published pair; the bounds must meet on it
    mu_ref = np.array(part1["bound_pairs_upper_lower"])[:, 1]
    np.testing.assert_allclose(res.upper, mu_ref, rtol=data["tolerance"]["rel"])
    np.testing.assert_allclose(res.lower, mu_ref, rtol=data["tolerance"]["rel"])
    assert_certified(M, blk, res)
    part2 = data["expected"]["part2"]
    L = l3_response(data, np.logspace(-2, 2, 300))
    T = L @ np.linalg.inv(np.eye(3) + L)
    res2 = mussv(T, blk)
    tols = part2["tolerances_in_source"]
    rtol = {k: float(v.split()[-1]) for k, v in tols.items()}
    assert res2.upper[0] == pytest.approx(part2["mu_at_first_frequency"], rel=rtol["first"])
    assert res2.upper.max() == pytest.approx(part2["max_over_grid"], rel=rtol["max"])
    assert res2.upper[-1] == pytest.approx(part2["mu_at_last_frequency"], rel=rtol["last"])
    np.testing.assert_allclose(res2.lower, res2.upper, rtol=1e-5)


# ------------------------------------------------------------------ closed forms on random data
def test_single_blocks_closed_forms():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    full = mussv(M, [(3, 4)])
    assert full.upper == pytest.approx(np.linalg.norm(M, 2), rel=1e-9)
    assert full.lower == pytest.approx(np.linalg.norm(M, 2), rel=1e-9)
    S = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
    rho = np.abs(np.linalg.eigvals(S)).max()
    rep = mussv(S, [(4, 0)])
    assert rep.upper == pytest.approx(rho, rel=1e-7)
    assert rep.lower == pytest.approx(rho, rel=1e-9)


def test_repeated_real_scalar_ignores_larger_complex_eigenvalues():
    # eigenvalues 1 and 3 +- 2j: only the real one can be reached by a real delta
    rng = np.random.default_rng(1)
    V = rng.standard_normal((3, 3))
    A = V @ np.array([[1.0, 0, 0], [0, 3, 2], [0, -2, 3]]) @ np.linalg.inv(V)
    res = mussv(A, [(-3, 0)])
    assert res.upper == pytest.approx(1.0, rel=1e-7)
    assert res.lower == pytest.approx(1.0, rel=1e-9)
    assert_certified(A, [(-3, 0)], res)
    assert np.isrealobj(res.delta) or np.abs(res.delta.imag).max() == 0.0


def _real_scalar_mu_on_a_grid(M, n):
    """mu of k real scalars from a dense grid: det(I - M diag(d)) is affine in each d_i,
    so with all but one on the grid the last follows exactly; the smallest max |d_i| found
    is that of an actual singular point, hence 1/min <= mu (to grid resolution)."""
    k = M.shape[0]
    r = 4.0 / np.abs(M).max()
    grid = np.stack(
        [x.ravel() for x in np.meshgrid(*[np.linspace(-r, r, n)] * (k - 1), indexing="ij")], 1
    )
    best = np.inf
    for last in range(k):
        d = np.zeros((len(grid), k))
        d[:, [i for i in range(k) if i != last]] = grid
        f0 = np.linalg.det(np.eye(k) - M * d[:, None, :])
        d[:, last] = 1.0
        slope = np.linalg.det(np.eye(k) - M * d[:, None, :]) - f0
        with np.errstate(divide="ignore", invalid="ignore"):
            d_last = np.where(np.abs(slope) > 1e-14, -f0 / slope, np.inf)
        best = min(best, np.maximum(np.abs(grid).max(axis=1), np.abs(d_last)).min())
    return 1.0 / best


def test_real_scalar_lower_bound_found_when_a_channel_is_not_reached():
    # diag(0, -2): the first scalar is not reached by M, the second is destabilising at
    # d2 = -1/2, so mu = 2 exactly; random sparse real matrices against a dense grid
    # (a start stuck at the eigenvalue 0 of the unreached channel used to be ranked first
    # and the lower bound came out 0 on a fifth of these)
    res = mussv(np.diag([0.0, -2.0]), [(-1, 0), (-1, 0)])
    assert res.lower == pytest.approx(2.0, rel=1e-12)
    rng = np.random.default_rng(0)
    for trial in range(60):
        k = 2 if trial < 50 else 3
        M = rng.standard_normal((k, k))
        M[rng.random((k, k)) < 0.3] = 0.0
        blk = [(-1, 0)] * k
        res = mussv(M, blk)
        mu_grid = _real_scalar_mu_on_a_grid(M, 2001 if k == 2 else 301)
        assert res.upper >= mu_grid * (1 - 1e-9)
        assert res.lower >= 0.98 * mu_grid
        assert_certified(M, blk, res)


@pytest.mark.parametrize(
    "blk",
    [[(2, 0), (1, 1)], [(1, 1), (1, 1), (1, 1)], [(2, 3), (1, 2)], [(3, 0)], [(1, 0), (2, 2)]],
)
def test_complex_structures_with_2s_plus_f_at_most_3_are_exact(blk):
    rng = np.random.default_rng(len(blk) + sum(r for r, _ in blk))
    n = sum(c if c else r for r, c in blk)
    m = sum(r for r, _ in blk)
    M = rng.standard_normal((3, n, m)) + 1j * rng.standard_normal((3, n, m))
    res = mussv(M, blk)
    np.testing.assert_allclose(res.lower, res.upper, rtol=1e-5)
    assert_certified(M, blk, res)


def test_stack_matches_single_matrices_and_zero_matrix():
    rng = np.random.default_rng(2)
    blk = [(-1, 0), (2, 3), (1, 1)]
    Ms = rng.standard_normal((4, 5, 4)) + 1j * rng.standard_normal((4, 5, 4))
    Ms[2] = 0.0
    res = mussv(Ms, blk)
    single = np.array([mussv(M, blk, lower=False).upper for M in Ms])
    np.testing.assert_allclose(res.upper, single, rtol=1e-7)
    assert res.upper[2] == 0.0 and res.lower[2] == 0.0 and res.delta[2] is None
    assert res.D.shape == (4, 5, 5) and res.G.shape == (4, 5, 5)
    assert_certified(Ms, blk, res)


def test_upper_only_option_and_lmi_method_certified():
    rng = np.random.default_rng(3)
    blk = [(-2, 0), (1, 2), (1, 1)]
    M = rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
    fast = mussv(M, blk, options="U")
    assert fast.lower == 0.0 and fast.delta is None
    lmi = mussv(M, blk, method="lmi")
    assert lmi.method == "lmi"
    assert lmi.upper <= fast.upper * (1 + 1e-9)
    assert lmi.upper == pytest.approx(fast.upper, rel=1e-6)
    assert_certified(M, blk, lmi)


# ------------------------------------------------------------------ verifiers reject bad evidence
def test_verifiers_reject_tampered_certificates():
    rng = np.random.default_rng(4)
    blk = [(-1, 0), (2, 0), (1, 2)]
    M = rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
    res = mussv(M, blk)
    assert verify_upper_bound(M, blk, res.upper, res.D, res.G)
    assert not verify_upper_bound(M, blk, 0.98 * res.upper, res.D, res.G)
    D_bad = res.D.copy()
    D_bad[0, 3] = 1.0  # couples two blocks: does not commute with Delta
    assert not verify_upper_bound(M, blk, res.upper, D_bad, res.G)
    G_bad = res.G.copy()
    G_bad[1, 1] = 1.0  # G on a complex block
    assert not verify_upper_bound(M, blk, res.upper, res.D, G_bad)
    delta = res.delta
    assert verify_lower_bound(M, blk, delta, lower=res.lower)
    assert not verify_lower_bound(M, blk, 1.01 * delta)  # no longer singular
    assert not verify_lower_bound(M, blk, delta, lower=1.01 * res.lower)
    d_bad = delta.astype(complex)
    d_bad[0, 0] += 1e-3j  # the real block made complex
    assert not verify_lower_bound(M, blk, d_bad)
    Dl, Dr, Gl, Gm, Gr = expand_scalings(blk, res.D, res.G)
    assert Dr.shape == (4, 4) and Gm.shape == (5, 4)
    assert upper_bound_margin(M, blk, res.upper, res.D, res.G) <= 1 + 1e-9


# ------------------------------------------------------------------ errors
def test_bad_input_raises_named_errors():
    M = np.ones((3, 2))
    with pytest.raises(DimensionError, match=r"\(sum c, sum r\) = \(2, 3\).*block 0"):
        mussv(M, [(3, 2)])
    with pytest.raises(DimensionError, match="block 1"):
        mussv(M, [(1, 1), (-2, 3)])
    with pytest.raises(DimensionError, match="shape"):
        mussv(np.ones((2, 2, 2, 2)), [(2, 2)])
    with pytest.raises(IllPosedError, match=r"M\[1\]"):
        mussv(np.array([np.eye(2), np.full((2, 2), np.nan)]), [(2, 2)])
    # a bad value of a known argument, not an operand of a wrong type
    with pytest.raises(ArgumentError, match="mussv: method"):
        mussv(np.eye(2), [(2, 2)], method="exact")
    with pytest.raises(ArgumentError, match="bogus"):
        mussv(np.eye(2), [(2, 2)], method="bogus")
    # an unknown options letter, a non-bool lower and a bad seed were ignored, taken as
    # True, or failed inside numpy
    with pytest.raises(ArgumentError, match="options letter 'z'"):
        mussv(np.eye(2), [(2, 2)], options="z")
    assert mussv(np.eye(2), [(2, 2)], options="sU").lower == 0.0
    with pytest.raises(ArgumentError, match="lower must be True or False"):
        mussv(np.eye(2), [(2, 2)], lower="no")
    for seed in ("x", -1, 1.5, True):
        with pytest.raises(ArgumentError, match="seed must be a non-negative integer"):
            mussv(np.eye(2), [(2, 2)], seed=seed)
    # all entries subnormal: named, not a LAPACK non-convergence; the smallest normal
    # scale and the zero matrix are still answered
    with pytest.raises(FloatRangeError, match=r"M\[1\].*1e-310"):
        mussv(np.array([np.eye(2), np.diag([1e-310, 0.0])]), [(1, 1), (1, 1)])
    tiny = np.finfo(float).tiny
    assert mussv(np.diag([tiny, 0.0]), [(1, 1), (1, 1)]).upper >= tiny
    assert mussv(np.zeros((2, 2)), [(1, 1), (1, 1)]).upper == 0.0
    with pytest.raises(UncertainTypeError, match="non-integer"):
        mussv(np.eye(2), [(1.5, 1)])
