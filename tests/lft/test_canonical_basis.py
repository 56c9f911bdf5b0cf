"""The canonical basis of a subspace, and Delta-reductions that do not depend on the signs
LAPACK gives singular vectors."""

import numpy as np
import pytest
from _svd_signs import flip_singular_vectors

import robustmb as rmb
from robustmb.lft.canonical_basis import canonical_basis


def _orthonormal(rng, n, r, complex_=False):
    a = rng.standard_normal((n, r))
    if complex_:
        a = a + 1j * rng.standard_normal((n, r))
    return np.linalg.qr(a)[0]


@pytest.mark.parametrize("complex_", [False, True])
@pytest.mark.parametrize(("n", "r"), [(1, 1), (4, 1), (6, 3), (11, 11), (9, 5)])
def test_same_basis_from_every_basis_of_the_subspace(n, r, complex_):
    rng = np.random.default_rng(n * 10 + r)
    u = _orthonormal(rng, n, r, complex_)
    q = canonical_basis(u)
    # orthonormal, and the same subspace: equal orthogonal projectors
    assert np.allclose(q.conj().T @ q, np.eye(r), atol=1e-12)
    assert np.allclose(q @ q.conj().T, u @ u.conj().T, atol=1e-12)
    for _ in range(3):
        # any other orthonormal basis of it: a unitary mix of the columns, signs/phases
        mix = _orthonormal(rng, r, r, complex_)
        assert np.allclose(canonical_basis(u @ mix), q, atol=1e-11)


def test_basis_of_coordinate_axes_is_the_axes_in_order():
    # span{e3, e1} (given rotated and flipped): the canonical basis is [e1, e3]
    e = np.eye(4)
    u = np.column_stack([e[:, 2] - e[:, 0], -e[:, 2] - e[:, 0]]) / np.sqrt(2)
    assert np.allclose(canonical_basis(u), e[:, [0, 2]], atol=1e-15)


def _realisation(x):
    real = x._real
    return real.as_static_map(), dict(x.blocks)


def test_simplify_realisation_does_not_depend_on_singular_vector_signs(monkeypatch):
    # a rational matrix with repeated occurrences of a and b: the reduction keeps several
    # channels of each, in a basis chosen by the reduction
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0, percent=10)
    X = rmb.umat([[a, b], [b * b, a / b], [1 - b, 1 + a * b]])
    ref, blocks = _realisation(rmb.simplify(X))
    assert max(blocks.values()) > 1
    flip_singular_vectors(monkeypatch)
    got, blocks2 = _realisation(rmb.simplify(X))
    assert blocks2 == blocks
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())


def test_scalar_times_matrix_does_not_depend_on_singular_vector_signs(monkeypatch):
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    d = np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.0]])
    ref, blocks = _realisation(a * rmb.umat(d))
    assert blocks == {"a": 2}
    flip_singular_vectors(monkeypatch)
    got, _ = _realisation(a * rmb.umat(d))
    assert np.allclose(got, ref, rtol=1e-13, atol=1e-13)
