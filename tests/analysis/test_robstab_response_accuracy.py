"""robstab's certified lower bound on loops whose frequency response double precision
evaluates inaccurately (``cond(A)`` up to ``1e14``).

The reference margins come from the rational characteristic polynomial and mpmath
(:mod:`rank_one_loops`), with no robustmb code; the one of the seed-304 loop is itself
checked by the poles of ``A + k b c`` in 60-digit arithmetic either side of it.
"""

import mpmath
import numpy as np
import pytest
from rank_one_loops import exact_margin, rank_one_loop

import robustmb as rmb
from robustmb.analysis.checked_response import CheckedResponse, fdi_upper_bounds
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.frequency_intervals import Multiplier
from robustmb.analysis.uncertain_problem import uncertain_problem


def _max_real_pole(A, b, c, k):
    with mpmath.workdps(60):
        M = mpmath.matrix(A.tolist()) + mpmath.mpf(k) * (
            mpmath.matrix(b.tolist()) * mpmath.matrix(c.tolist())
        )
        return max(mpmath.re(z) for z in mpmath.eig(M, left=False, right=False))


def _exact_response(a, b, c, d, w):
    with mpmath.workdps(60):
        s = mpmath.mpc(0, w)
        X = mpmath.lu_solve(s * mpmath.eye(a.shape[0]) - mpmath.matrix(a.tolist()),
                            mpmath.matrix(b.tolist()))  # fmt: skip
        G = mpmath.matrix(c.tolist()) * X
        return np.array([[complex(G[i, j]) + d[i, j] for j in range(b.shape[1])]
                         for i in range(c.shape[0])])  # fmt: skip


def test_seed_304_reference_margin_is_a_crossing():
    """The reference: the loop is stable for |k| just below it and not just above it."""
    _, (A, b, c) = rank_one_loop(304)
    margin = exact_margin(A, b, c)
    assert 6.3310e-7 < margin < 6.3311e-7
    for k in (-margin * (1 - 1e-6), margin * (1 - 1e-6)):
        assert _max_real_pole(A, b, c, k) < 0
    assert max(_max_real_pole(A, b, c, s * margin * (1 + 1e-6)) for s in (-1, 1)) > 0


def test_seed_304_certified_lower_bound_is_below_the_exact_margin():
    """The double-precision M(jw) of this loop (cond(A) = 4.5e13) is off by 1.3e-3: the
    old sweep certified 6.33269e-7 against the exact 6.33104e-7."""
    loop, (A, b, c) = rank_one_loop(304)
    assert 1e13 < np.linalg.cond(A) < 1e14
    res = rmb.robstab(loop, sensitivity=False)
    margin = exact_margin(A, b, c)
    assert res.lower <= margin
    assert res.upper >= margin


def test_seed_336_certified_lower_bound_is_below_the_exact_margin():
    """Same defect, margin 6300.54: the old sweep certified 6304.09."""
    loop, (A, b, c) = rank_one_loop(336)
    res = rmb.robstab(loop, sensitivity=False)
    margin = exact_margin(A, b, c)
    assert res.lower <= margin <= res.upper


def test_checked_response_bounds_the_error_where_the_fast_one_is_off():
    """On the seed-304 loop's M the fast evaluation is off by far more than the checked
    one's bound, and the checked response lies within its bound of the 60-digit one."""
    loop, _ = rank_one_loop(304)
    a, b, c, d = uncertain_problem(loop).m11
    w = np.array([0.0, 0.3, 1.0, 100.0])
    fast = freqresp((a, b, c, d), w, method="schur")  # "auto" now refines these points
    got, err = CheckedResponse((a, b, c, d))(w)
    for k in range(w.size):
        exact = _exact_response(a, b, c, d, w[k])
        assert np.all(np.abs(got[k] - exact) <= err[k])
        assert np.max(np.abs(fast[k] - exact)) > 100 * np.max(err[k])
        assert np.max(err[k]) < 1e-9 * np.max(np.abs(exact))


def test_checked_response_at_infinity_and_on_a_pole():
    sysdata = (np.array([[0.0, 1.0], [-1.0, 0.0]]), np.eye(2), np.eye(2), np.full((2, 2), 0.5))
    got, err = CheckedResponse(sysdata)(np.array([np.inf, 1.0, 2.0]))
    assert np.all(got[0] == 0.5) and np.all(err[0] == 0)
    assert not np.all(np.isfinite(got[1]) & np.isfinite(err[1]))  # s = j is a pole
    # (2j I - A)^-1 = [[2j, 1], [-1, 2j]] / (1 - 4)
    expected = np.array([[2j, 1.0], [-1.0, 2j]]) / -3.0 + 0.5
    assert np.all(np.abs(got[2] - expected) <= err[2] + 1e-15)


def test_fdi_upper_bound_covers_every_perturbation_within_the_errors():
    """Brute force: lambda_max(Phi) of random responses within the entrywise error
    bounds never exceeds the bound, for scaled (diagonal D) and unscaled multipliers."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        p = 3
        m = rng.standard_normal((1, p, p)) + 1j * rng.standard_normal((1, p, p))
        err = np.abs(rng.standard_normal((1, p, p))) * 10.0 ** rng.uniform(-4, -1)
        x = rng.standard_normal((p, p))
        x = x @ x.T + np.eye(p)
        y = rng.standard_normal((p, p)) * 0.3
        y = 0.5 * (y + y.T)
        z = rng.standard_normal((p, p))
        z = z @ z.T + np.eye(p)
        scaled = trial % 2 == 0
        left = np.diag(10.0 ** rng.uniform(-2, 2, p)) if scaled else None
        right = np.diag(10.0 ** rng.uniform(-2, 2, p)) if scaled else None
        mult = Multiplier(x, y, z, left, right)
        beta = float(rng.uniform(0.5, 3.0))
        bound = fdi_upper_bounds(m, err, mult, beta)[0]
        phase = np.exp(2j * np.pi * rng.random((500, p, p)))
        pert = m + err * rng.random((500, p, p)) * phase
        corner = m + err * phase  # on the boundary of the error box
        for stack in (pert, corner):
            s = mult.scale_responses(stack)
            sh = np.conj(np.swapaxes(s, 1, 2))
            sy = sh @ y
            phi = sh @ x @ s - 1j * sy + 1j * np.conj(np.swapaxes(sy, 1, 2)) - beta**2 * z
            top = np.linalg.eigvalsh(0.5 * (phi + np.conj(np.swapaxes(phi, 1, 2))))[:, -1]
            assert np.all(top <= bound + 1e-12 * abs(bound))


@pytest.mark.slow
def test_ill_conditioned_family_certified_lower_bounds_are_true():
    """100+ loops with cond(A) in [1e8, 1e14]: every certified lower bound is at most
    the exact margin (the old code gave false bounds on seeds 304 and 336)."""
    checked = 0
    for seed in range(700):
        loop, (A, b, c) = rank_one_loop(seed)
        if not 1e8 <= np.linalg.cond(A) <= 1e14:
            continue
        res = rmb.robstab(loop, sensitivity=False)
        margin = exact_margin(A, b, c)
        assert res.lower <= margin, (seed, res.lower, margin)
        checked += 1
    assert checked >= 100
