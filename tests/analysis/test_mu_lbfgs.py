"""The batched limited-memory BFGS of the D,G bound against independent references.

References: scipy.optimize.minimize (dense BFGS, tight gradient tolerance) on smooth
problems and on a max-eigenvalue problem whose top eigenvalue stays simple (smooth near
its minimiser); a semidefinite program (cvxpy) on a nonsmooth max-eigenvalue problem.
"""

import numpy as np
import pytest
from scipy.optimize import minimize

from robustmb.analysis.mu_lbfgs import batched_bfgs
from robustmb.errors import ArgumentError


def _batched(fun_one, x0, **kw):
    """Run :func:`batched_bfgs` on the problems ``k`` given by ``fun_one(k, x) -> (f, g)``."""

    def fun(x, idx):
        out = [fun_one(k, xi) for k, xi in zip(idx, x, strict=True)]
        return np.array([o[0] for o in out]), np.array([o[1] for o in out])

    return batched_bfgs(fun, x0, **kw)


def _rosenbrock(c, shift):
    def f(x):
        r = x - c
        val = np.sum(100.0 * (r[1:] - r[:-1] ** 2) ** 2 + (1.0 - r[:-1]) ** 2) + shift
        g = np.zeros_like(x)
        g[1:] += 200.0 * (r[1:] - r[:-1] ** 2)
        g[:-1] += -400.0 * r[:-1] * (r[1:] - r[:-1] ** 2) - 2.0 * (1.0 - r[:-1])
        return val, g

    return f


def _logsumexp(A, b, q):
    # sum log-sum-exp of affine functions + a quadratic: smooth and strictly convex
    def f(x):
        z = A @ x + b
        zmax = z.max()
        e = np.exp(z - zmax)
        val = zmax + np.log(e.sum()) + 0.5 * x @ q @ x
        return val, A.T @ (e / e.sum()) + q @ x

    return f


def _lam_max_simple(A0, As, c):
    # lambda_max(A0 + sum x_i A_i) + |x - c|^2 with a well separated top eigenvalue
    def f(x):
        X = A0 + np.tensordot(x, As, axes=1)
        w, V = np.linalg.eigh(X)
        v = V[:, -1]
        val = w[-1] + np.sum((x - c) ** 2)
        g = np.einsum("i,kij,j->k", v, As, v) + 2.0 * (x - c)
        return val, g

    return f


def _scipy_min(f, x0):
    res = minimize(f, x0, jac=True, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
    return res.fun


@pytest.mark.parametrize("memory, dense_below", [(5, 0), (12, 0), (12, 200)])
def test_smooth_problems_reach_scipy_bfgs_minimum(memory, dense_below):
    rng = np.random.default_rng(3)
    p = 6
    probs, x0 = [], []
    for k in range(3):
        probs.append(_rosenbrock(rng.standard_normal(p), 1.0 + k))
        x0.append(rng.standard_normal(p))
    for _ in range(3):
        A = rng.standard_normal((9, p))
        q = np.diag(rng.uniform(0.1, 2.0, p))
        probs.append(_logsumexp(A, rng.standard_normal(9), q))
        x0.append(rng.standard_normal(p))
    x0 = np.array(x0)
    x, f = _batched(
        lambda k, xi: probs[k](xi),
        x0,
        maxiter=5000,
        rtol=1e-15,
        memory=memory,
        dense_below=dense_below,
    )
    for k, prob in enumerate(probs):
        ref = _scipy_min(prob, x0[k])
        assert abs(f[k] - ref) <= 1e-8 * abs(ref), (k, f[k], ref)
        # the returned value is the function's value at the returned point
        assert prob(x[k])[0] == pytest.approx(f[k], rel=1e-14, abs=0)


@pytest.mark.parametrize("dense_below", [0, 200])
def test_max_eigenvalue_problem_reaches_scipy_bfgs_minimum(dense_below):
    rng = np.random.default_rng(7)
    n, p = 8, 10
    probs, x0 = [], []
    for _ in range(4):
        A0 = np.diag(np.arange(n, dtype=float) * 2.0)  # top eigenvalue 2 above the next
        As = rng.standard_normal((p, n, n)) * 0.1
        As = 0.5 * (As + np.swapaxes(As, 1, 2))
        probs.append(_lam_max_simple(A0, As, rng.standard_normal(p) * 0.3))
        x0.append(rng.standard_normal(p))
    x0 = np.array(x0)
    x, f = _batched(
        lambda k, xi: probs[k](xi), x0, maxiter=2000, rtol=1e-15, dense_below=dense_below
    )
    for k, prob in enumerate(probs):
        ref = _scipy_min(prob, x0[k])
        assert abs(f[k] - ref) <= 1e-8 * abs(ref), (k, f[k], ref)


@pytest.mark.parametrize("dense_below", [0, 200])
def test_nonsmooth_max_eigenvalue_against_sdp(dense_below):
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(11)
    n, p = 5, 4
    A0 = rng.standard_normal((n, n))
    A0 = A0 + A0.T
    As = rng.standard_normal((p, n, n))
    As = As + np.swapaxes(As, 1, 2)
    As -= np.trace(As, axis1=1, axis2=2)[:, None, None] * np.eye(n) / n  # bounded below

    def fun(x, idx):
        X = A0 + np.einsum("bk,kij->bij", x, As)
        w, V = np.linalg.eigh(X)
        v = V[:, :, -1]
        return w[:, -1], np.einsum("bi,kij,bj->bk", v, As, v)

    xv, t = cp.Variable(p), cp.Variable()
    expr = A0 + sum(xv[k] * As[k] for k in range(p))
    prob = cp.Problem(cp.Minimize(t), [t * np.eye(n) - expr >> 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    ref = prob.value
    x, f = batched_bfgs(
        fun, rng.standard_normal((3, p)), maxiter=3000, rtol=1e-15, dense_below=dense_below
    )
    # an upper bound of the minimum by construction (values at points), close to it
    assert np.all(f >= ref - 1e-7 * abs(ref))
    assert np.all(f <= ref + 1e-4 * abs(ref)), (f, ref)


def test_best_point_and_stopping_rules():
    c = np.array([[1.0, -2.0], [3.0, 0.5], [0.0, 0.0]])

    def fun(x, idx):
        d = x - c[idx]
        return np.sum(d**2, axis=1) + 1.0, 2.0 * d

    x0 = np.zeros((3, 2))
    x, f = batched_bfgs(fun, x0, fstop=1.5, dense_below=0)
    assert np.all(f <= np.sum(c**2, axis=1) + 1.0)  # never worse than the start
    assert np.all((f <= 1.5) | np.isclose(f, 1.0))
    # stop() flags a problem at once: it keeps its start
    x, f = batched_bfgs(fun, x0, stop=lambda v: np.array([True, False, False]), dense_below=0)
    assert np.array_equal(x[0], x0[0]) and f[0] == pytest.approx(np.sum(c[0] ** 2) + 1.0)
    assert np.allclose(x[1], c[1])


def test_bad_arguments_are_named():
    def fun(x, idx):
        return np.sum(x**2, axis=1), 2 * x

    with pytest.raises(ArgumentError, match="x0"):
        batched_bfgs(fun, np.zeros(3))
    with pytest.raises(ArgumentError, match="memory"):
        batched_bfgs(fun, np.zeros((1, 3)), memory=0)
    for bad in (2.7, "12", True):
        with pytest.raises(ArgumentError, match="memory"):
            batched_bfgs(fun, np.zeros((1, 3)), memory=bad)
    with pytest.raises(ArgumentError, match="dense_below"):
        batched_bfgs(fun, np.zeros((1, 3)), dense_below=-1)
