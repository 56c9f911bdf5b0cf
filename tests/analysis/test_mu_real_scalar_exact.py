"""Real-scalar mu lower bounds against exact references, and mussv_stack's options.

References computed here without the package:

* two real scalars on a complex 2 x 2 ``M``: ``det(I - M diag(x, y)) = 0`` is solved in
  closed form (``y`` from the linear equation, ``x`` a real root of the quadratic that
  makes ``y`` real);
* non-repeated real scalars on a real ``M``: ``det(I - M Delta)`` is affine in every
  parameter and equals 1 at 0, so ``mu`` is the largest positive real eigenvalue of
  ``M diag(v)`` over the vertices ``v`` of the box (numpy eigenvalues, all ``2^n``).
"""

import importlib

import numpy as np
import pytest
from _real_mu_vertices import vertex_mu

import robustmb as rmb
from robustmb.errors import ArgumentError

mussv_module = importlib.import_module("robustmb.analysis.mussv")


def _two_real_scalars_mu(M):
    m11, m22 = M[0, 0], M[1, 1]
    d = m11 * m22 - M[0, 1] * M[1, 0]
    coeffs = [np.imag(m11 * np.conj(d)), -np.imag(m11 * np.conj(m22) + np.conj(d)), -np.imag(m22)]
    best = np.inf
    for x in np.roots(coeffs):
        if abs(x.imag) > 1e-9 * abs(x):
            continue
        den = m22 - d * x.real
        y = (1 - m11 * x.real) / den
        best = min(best, max(abs(x.real), abs(y)))
    return 1.0 / best


def _complex_pairs():
    rng = np.random.default_rng(2)
    out = []
    for _ in range(40):
        M = rng.standard_normal((2, 2)) + 1j * rng.standard_normal((2, 2))
        out.append(M * 10.0 ** rng.uniform(-2, 2))
    return out


def test_two_real_scalars_lower_bound_is_exact():
    # the local searches left lower = 0 on some of these (mu 1.854, upper 4.23) and
    # stopped at a third of mu on another (0.0569 where mu = 0.1738)
    misses = []
    for k, M in enumerate(_complex_pairs()):
        ref = _two_real_scalars_mu(M)
        r = rmb.mussv(M, [(-1, 0), (-1, 0)])
        assert r.lower <= ref * (1 + 1e-12)  # never above mu
        assert r.upper >= ref * (1 - 1e-12)
        if r.lower < ref * (1 - 1e-9):
            misses.append((k, ref, r.lower))
        elif ref > 0:
            d = np.diag(r.delta)
            assert np.all(np.isreal(d)) and r.delta[0, 1] == 0 == r.delta[1, 0]
            assert abs(np.max(np.abs(d)) * r.lower - 1) < 1e-8
            assert np.linalg.svd(np.eye(2) - M @ r.delta, compute_uv=False)[-1] < 1e-8
    assert misses == []


def test_rank_one_two_real_scalars():
    # M = a b^H, the two parameters' contributions nearly parallel in the complex plane:
    # mu = 0.00282, far below sigma_max(M) = 1.25; the old search found no perturbation
    M = np.array(
        [
            [
                -0.00626980872392322 + 0.02560245745508409j,
                -0.00283651431658215 + 0.02105458608197928j,
            ],
            [
                -0.23159794941729298 + 0.9457189059079777j,
                -0.10477686451687442 + 0.7777269095643295j,
            ],
        ]
    )
    ref = _two_real_scalars_mu(M)
    assert 0.00281 < ref < 0.00283
    r = rmb.mussv(M, [(-1, 0), (-1, 0)])
    assert ref * (1 - 1e-9) <= r.lower <= ref * (1 + 1e-12)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_real_matrix_real_scalars_lower_bound_is_exact(n):
    rng = np.random.default_rng(10 + n)
    for _ in range(6):
        M = rng.standard_normal((n, n))
        ref = vertex_mu(M)
        r = rmb.mussv(M, [(-1, 0)] * n)
        assert r.upper >= ref * (1 - 1e-12)
        assert ref * (1 - 1e-9) <= r.lower <= ref * (1 + 1e-12)
        assert np.linalg.svd(np.eye(n) - M @ r.delta, compute_uv=False)[-1] < 1e-8


def test_mixed_structure_unchanged_by_real_candidates():
    # the closed forms apply to real scalars only; a complex block keeps the searches
    M = np.array([[1.0, 2.0], [3.0, 4.0]])
    r = rmb.mussv(M, [(-1, 0), (1, 0)])
    assert abs(r.lower - r.upper) < 1e-6 * r.upper


def test_empty_stack_result_prints():
    r = rmb.mussv(np.zeros((0, 2, 2)), [(1, 0), (1, 0)])
    assert r.upper.shape == (0,)
    assert "0 frequencies" in repr(r)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"lower": "x"}, "lower"),
        ({"lower": 1}, "lower"),
        ({"lower": "peak", "lower_floor": np.nan}, "lower_floor"),
        ({"target": -1.0}, "target"),
        ({"target": np.nan}, "target"),
        ({"rel_target": np.nan}, "rel_target"),
        ({"seed": -3}, "seed"),
    ],
)
def test_mussv_stack_refuses_bad_options(kwargs, name):
    M = np.array([[[1.0, 2.0], [3.0, 4.0]], [[0.5, 1.0], [1.5, 2.0]]])
    with pytest.raises(ArgumentError, match=name):
        mussv_module.mussv_stack(M, [(1, 0), (1, 0)], **kwargs)


def _two_real_scalars_mu_exact(M):
    # the same closed form in 60-digit arithmetic on the floating-point entries
    mp = pytest.importorskip("mpmath")
    with mp.workdps(60):
        m = [[mp.mpc(float(z.real), float(z.imag)) for z in row] for row in M]
        d = m[0][0] * m[1][1] - m[0][1] * m[1][0]
        c2 = mp.im(m[0][0] * mp.conj(d))
        c1 = -mp.im(mp.conj(d) + m[0][0] * mp.conj(m[1][1]))
        c0 = -mp.im(m[1][1])
        disc = c1 * c1 - 4 * c2 * c0
        if disc < 0:
            return 0.0
        best = mp.inf
        for x in ((-c1 + mp.sqrt(disc)) / (2 * c2), (-c1 - mp.sqrt(disc)) / (2 * c2)):
            y = (1 - m[0][0] * x) / (m[1][1] - d * x)
            best = min(best, max(abs(x), abs(y)))
        return float(1 / best)


def test_nearly_real_two_scalars():
    # imaginary parts 1e-15..1e-8 (a loop at very low frequency): the search's best
    # perturbation is a root of the real part, which the exact check rightly rejects,
    # and the bound fell to 0 (mu 1.768, upper 1.824); the next candidate is exact
    rng = np.random.default_rng(1)
    misses = []
    for k in range(16):
        M = rng.standard_normal((2, 2)) + 10.0 ** rng.uniform(-15, -8) * 1j * rng.standard_normal(
            (2, 2)
        )
        ref = _two_real_scalars_mu_exact(M)
        r = rmb.mussv(M, [(-1, 0), (-1, 0)])
        assert r.lower <= ref * (1 + 1e-12)
        assert r.upper >= ref * (1 - 1e-12)
        if r.lower < ref * (1 - 1e-9):
            misses.append((k, ref, r.lower))
    assert misses == []
