"""mussv bounds against brute force: perturbation search, exact identities, certificates.

For random matrices and block structures (real and complex repeated scalars,
full blocks), including strongly scaled ``D M D^-1`` (same mu), every reported
bound is checked with numpy only: the upper bound dominates the largest
``|lambda(M Delta)|`` found by a randomised + Nelder-Mead search over the
structure, the lower bound's ``delta`` is in the structure with the claimed norm
and makes ``I - M delta`` singular, the D,G certificate satisfies the scaled
norm condition of the Notes of :func:`robustmb.mussv`, and the exact identities
(one full block: the largest singular value; one repeated complex scalar: the
spectral radius; one repeated real scalar: the largest real eigenvalue modulus)
are bracketed.
"""

import numpy as np
import pytest
from _soundness_brute import mu_brute_lower, random_structured, structure_norm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robustmb as rmb

BLOCKS = [(-1, 0), (-2, 0), (1, 0), (2, 0), (1, 1), (2, 1), (1, 2), (2, 2)]


def _dims(blk):
    rows = sum(abs(c) if c else abs(r) for r, c in blk)  # rows of M = columns of delta
    cols = sum(abs(r) for r, c in blk)
    return rows, cols


def _block_scaling(blk, logd):
    """``Dl, Dr`` with one scalar per block: ``mu(Dl M Dr^-1) = mu(M)``."""
    dl, dr = [], []
    for (r, c), x in zip(blk, logd, strict=True):
        k_row = abs(c) if c else abs(r)
        dl += [10.0**x] * k_row
        dr += [10.0**x] * abs(r)
    return np.diag(dl), np.diag(dr)


def _inv_quarter(g):
    w, v = np.linalg.eigh(g)
    return (v * (1.0 + w**2) ** -0.25) @ v.conj().T


def _block_masks(blk):
    """Boolean masks of the real-block entries of Gl (rows x rows), Gr (cols), Gm (rows x cols)."""
    rows, cols = _dims(blk)
    ml = np.zeros((rows, rows), bool)
    mr = np.zeros((cols, cols), bool)
    mm = np.zeros((rows, cols), bool)
    i = j = 0
    for r, c in blk:
        k_row = abs(c) if c else abs(r)
        if r < 0 and c == 0:
            ml[i : i + k_row, i : i + k_row] = True
            mr[j : j + abs(r), j : j + abs(r)] = True
            mm[i : i + k_row, j : j + abs(r)] = True
        i += k_row
        j += abs(r)
    return ml, mr, mm


def check_mussv(m, blk, res, rng, brute=True):
    """Violations of the soundness of ``res = mussv(m, blk)`` (an empty list when sound)."""
    bad = []
    upper, lower = float(res.upper), float(res.lower)
    if lower > upper * (1 + 1e-8):
        bad.append(f"lower {lower} above upper {upper}")
    # lower bound: a verified singular perturbation
    if lower > 0:
        delta = np.asarray(res.delta)
        size, ok = structure_norm(delta, blk)
        if not ok:
            bad.append("delta is not in the structure")
        if abs(size * lower - 1) > 1e-6:
            bad.append(f"delta norm {size} is not 1/lower = {1 / lower}")
        smin = np.linalg.svd(np.eye(m.shape[0]) - m @ delta, compute_uv=False)[-1]
        if smin > 1e-6 * (1 + np.linalg.norm(m, 2) * size):
            bad.append(f"I - M delta is not singular (sigma_min = {smin})")
    # upper bound: random search for a larger destabilising perturbation
    if brute:
        b, _ = mu_brute_lower(m, blk, rng, n_random=200, n_opt=2)
        if b > upper * (1 + 1e-6):
            bad.append(f"brute-force lower bound {b} above the certified upper bound {upper}")
    # the D,G certificate, recomputed
    if upper > 0:
        dl, dr, gl, gm, gr = res.scalings()
        rows, cols = _dims(blk)
        for _ in range(3):
            d = random_structured(blk, rng)
            if np.linalg.norm(d @ dl - dr @ d) > 1e-8 * np.linalg.norm(dl) * np.linalg.norm(dr):
                bad.append("D scalings do not commute with the structure")
                break
        ml, mr, mm = _block_masks(blk)
        for g, mask in ((gl, ml), (gr, mr), (gm, mm)):
            if np.any(np.abs(g[~mask]) > 1e-10 * max(1.0, np.abs(g).max())):
                bad.append("G scaling outside the real blocks")
                break
        scaled = dl @ m @ np.linalg.inv(dr) / upper - 1j * gm
        cond = np.linalg.norm(_inv_quarter(gl) @ scaled @ _inv_quarter(gr), 2)
        if cond > 1 + 1e-6:
            bad.append(f"D,G certificate fails: scaled norm {cond} > 1")
        del rows, cols
    return bad


structures = st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=3)


@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    blk=structures,
    seed=st.integers(0, 2**16),
    real=st.booleans(),
    decades=st.sampled_from([0.0, 3.0]),
)
def test_mussv_bounds_hold(blk, seed, real, decades):
    rng = np.random.default_rng(seed)
    rows, cols = _dims(blk)
    m = rng.standard_normal((rows, cols))
    if not real:
        m = m + 1j * rng.standard_normal((rows, cols))
    dl, dr = _block_scaling(blk, rng.uniform(-decades / 2, decades / 2, len(blk)))
    ms = dl @ m @ np.linalg.inv(dr)
    res = rmb.mussv(ms, blk)
    assert check_mussv(ms, blk, res, rng) == []


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 4), seed=st.integers(0, 2**16), kind=st.sampled_from(["full", "c", "r"]))
def test_mussv_brackets_exact_values(n, seed, kind):
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((n, n)) + (0 if kind == "r" else 1j) * rng.standard_normal((n, n))
    ev = np.linalg.eigvals(m)
    if kind == "full":
        blk, exact = [(n, n)], np.linalg.norm(m, 2)
    elif kind == "c":
        blk, exact = [(n, 0)], np.max(np.abs(ev))
    else:  # a real repeated scalar: only real eigenvalues of M can be reached
        blk = [(-n, 0)]
        realev = ev[np.abs(ev.imag) <= 1e-10 * np.maximum(np.abs(ev), 1)]
        exact = np.max(np.abs(realev)) if realev.size else 0.0
    res = rmb.mussv(m, blk)
    assert res.lower <= exact * (1 + 1e-6) + 1e-12
    assert res.upper >= exact * (1 - 1e-6)


def test_mixed_blocks_under_strong_scaling_reproducer():
    blk = [(-1, 0), (1, 0), (1, 1)]
    rng = np.random.default_rng(0)
    m = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    d = np.diag([1e4, 1.0, 1e-4])
    ms = d @ m @ np.linalg.inv(d)
    res = rmb.mussv(ms, blk)
    assert check_mussv(ms, blk, res, rng) == []


def test_real_block_lower_bound_survives_scaling_reproducer():
    blk = [(-1, 0), (-1, 0), (-1, 0)]
    rng = np.random.default_rng(3)
    m = rng.standard_normal((3, 3))
    ref = rmb.mussv(m, blk)
    assert ref.lower > 0
    d = np.diag([1e5, 1.0, 1e-5])  # entries of D M D^-1 up to ~1e10
    res = rmb.mussv(d @ m @ np.linalg.inv(d), blk)
    assert res.lower >= 0.5 * ref.lower


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(
    blk=st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=4),
    seed=st.integers(0, 2**32 - 1),
    real=st.booleans(),
    decades=st.sampled_from([0.0, 2.0, 3.0]),
)
def test_mussv_bounds_hold_campaign(blk, seed, real, decades):
    test_mussv_bounds_hold.hypothesis.inner_test(blk, seed, real, decades)
