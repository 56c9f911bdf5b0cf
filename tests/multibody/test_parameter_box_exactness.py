"""Exactness of the box checks of masses and inertias, against independent references.

- multi-affinity is read from the LFT's structure: products of distinct ureals are
  multi-affine (a dense grid evaluated in closed form never goes below the vertices),
  a square, a product ``m L L``, a ratio, and a quantity that is affine but for a term
  ``1e-12 k^2`` are not; a quantity built to agree with its vertex interpolation at the
  points a numerical test would probe is not taken as exact;
- an ill-conditioned tensor ``diag(1e10, 1e10, 1 - 8 m (1 - m))``, negative at
  ``m = 1/2`` (closed form), is refused;
- symmetry is relative to the tensor's size (a 1e-6 body with 5e-10 asymmetry is
  refused, rounding-level asymmetry is not);
- the sampling of an undecided quantity uses :data:`MAX_GRID_POINTS` extra points for
  1 to 10 ureals, and for one ureal finds the minimum of ``(k - 1)^2`` to the grid
  spacing;
- an exact zero reached at a vertex or at the nominal (``m0 L^2 / 12`` with ``m0``
  down to 0, ``(k - 1)^2``) is accepted although its evaluation gives ``-1e-17``;
  ``-1e-9`` times the quantity's size is refused.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import DimensionError, RobustMBWarning
from robustmb.multibody import RevoluteJoint, RigidBody
from robustmb.multibody.bodies import check_inertia, check_nonnegative
from robustmb.multibody.parameter_box import (
    MAX_GRID_POINTS,
    box_samples,
    multi_affine,
    semidefinite_samples,
)


def _u(name, lo, hi, nominal=None):
    return rmb.ureal(name, 0.5 * (lo + hi) if nominal is None else nominal, range=(lo, hi))


def test_products_of_distinct_ureals_are_multi_affine_and_their_vertices_bound_them():
    a, b, c = _u("a", -1.0, 2.0), _u("b", 0.5, 3.0), _u("c", -2.0, -0.5)
    x = 1.0 + 2.0 * a * b - 3.0 * b * c + a * b * c - 0.5 * c
    assert multi_affine(rmb.umat(x))
    samples, exact, _ = box_samples(x)
    assert exact
    # closed form on a dense grid: never below the smallest vertex value (multi-affine)
    g = np.linspace(0.0, 1.0, 21)
    A, B, C = np.meshgrid(-1 + 3 * g, 0.5 + 2.5 * g, -2 + 1.5 * g, indexing="ij")
    f = 1.0 + 2.0 * A * B - 3.0 * B * C + A * B * C - 0.5 * C
    vert = [float(v[0, 0]) for w, v in samples if "vertex" in w]
    assert len(vert) == 8
    assert f.min() >= min(vert) - 1e-12 and f.max() <= max(vert) + 1e-12


@pytest.mark.parametrize(
    "make",
    [
        lambda k, L: k * k,
        lambda k, L: 2.0 * k * L * L,
        lambda k, L: 1.0 / (2.0 + k),
        lambda k, L: 1.0 + k + 1e-12 * k * k,  # numerically almost affine
    ],
)
def test_non_affine_quantities_are_not_taken_as_multi_affine(make):
    k, L = _u("k", 0.5, 1.5), _u("L", 0.8, 1.2)
    x = make(k, L)
    assert not multi_affine(rmb.umat(x))
    assert not box_samples(x)[1]


def test_quantity_matching_its_vertex_interpolation_at_fixed_points_is_refused():
    # zero at both vertices and at the points a numerical interpolation test probed
    # (the nominal 0.5 and two fixed interior points): negative elsewhere
    m = _u("m", 0.0, 1.0, nominal=0.5)
    t1, t2 = np.random.default_rng(0).uniform(0.1, 0.9, size=2)
    ts = np.linspace(0.0, 1.0, 20001)
    q = ts * (1 - ts) * (ts - 0.5) * (ts - t1) * (ts - t2)
    c = -0.9 / q.min()  # the closed form's minimum is 0.5 - 0.9 = -0.4 < 0
    mass = 0.5 + c * m * (1 - m) * (m - 0.5) * (m - t1) * (m - t2)
    assert (0.5 + c * q).min() < -0.3
    assert not box_samples(mass)[1]
    with pytest.raises(DimensionError, match="mass must be non-negative"):
        RigidBody("b", mass=mass, inertia=0.1)


def test_ill_conditioned_tensor_negative_inside_the_box_is_refused():
    m = _u("m2", 0.0, 1.0, nominal=0.02)
    j33 = 1.0 - 8.0 * m * (1.0 - m)  # closed form: 1 at both ends, -1 at m = 1/2
    with pytest.raises(DimensionError, match="positive semidefinite") as err:
        RigidBody("rod", mass=1.0, inertia=[[1e10, 0, 0], [0, 1e10, 0], [0, 0, j33]])
    point = float(str(err.value).split("'m2': ")[1].split("}")[0])
    # the point named is one where the closed form is negative
    assert 1.0 - 8.0 * point * (1.0 - point) < 0


def test_symmetry_is_relative_to_the_tensor_size():
    small = [[1e-6, 5e-10, 0], [0, 1e-6, 0], [0, 0, 1e-6]]
    with pytest.raises(DimensionError, match="symmetric"):
        RigidBody("small", mass=1e-3, inertia=small)
    with pytest.raises(DimensionError, match="symmetric"):
        check_inertia(np.array(small), "inertia")
    # a rotated small tensor computed in floating point: asymmetric at rounding level only
    th = 0.3
    R = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
    J = R @ np.diag([1e-6, 2e-6, 2.5e-6]) @ R.T
    J[0, 1] += 4 * np.finfo(float).eps * 1e-6
    body = RigidBody("rot", mass=1e-3, inertia=J)
    # kept as given, not symmetrised
    assert np.array_equal(np.array(body.inertia, dtype=float), J)


@pytest.mark.parametrize("p", [1, 2, 3, 7, 8, 10])
def test_sampling_uses_max_grid_points(p):
    us = [_u(f"u{i}", 0.5, 1.5) for i in range(p)]
    x = (us[0] - 1.0) * (us[0] - 1.0) + 0.01
    for u in us[1:]:
        x = x + 0.1 * u
    samples, exact, what = box_samples(x)
    assert not exact and "not everywhere" in what
    assert len(samples) == 1 + 2**p + MAX_GRID_POINTS
    if p == 1:
        # closed-form minimum 0.01 at k = 1; the grid comes within its spacing
        vals = np.array([float(v[0, 0]) for _, v in samples])
        assert vals.min() - 0.01 <= (1.0 / (MAX_GRID_POINTS - 1)) ** 2


def test_exact_zero_at_a_vertex_or_nominal_is_not_refused_for_rounding():
    m0, L = _u("m0", 0.0, 2.0, nominal=1.0), _u("L", 0.8, 1.2, nominal=1.0)
    k = _u("k", 0.5, 1.5, nominal=1.0)
    rod = m0 * L * L / 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobustMBWarning)  # semidefinite only: not proved
        check_nonnegative(rod, "mass")
        check_nonnegative((k - 1.0) * (k - 1.0), "joint 'j': inertia")
        RigidBody("b", mass=m0, inertia=[[rod, 0, 0], [0, rod, 0], [0, 0, rod]])
        RevoluteJoint("j", ("ground", "O"), ("b", "P"), [1, 0, 0], inertia=(k - 1.0) * (k - 1.0))
    # a value 1e-9 below zero relative to the quantity's size (0.25 over the box) is not noise
    with pytest.raises(DimensionError, match="non-negative"):
        check_nonnegative((k - 1.0) * (k - 1.0) - 2.5e-10, "mass")
    with pytest.raises(DimensionError, match="non-negative"):
        check_nonnegative(rod - 1e-9 * 0.24, "mass")


def test_semidefinite_samples_multi_affine_needs_no_mu():
    a, b = _u("a", 1.0, 2.0), _u("b", -0.5, 0.5)
    J = [[a, b, 0.0], [b, a, 0.0], [0.0, 0.0, a * 2.0]]
    samples, exact, _ = semidefinite_samples(J)
    assert exact and len(samples) == 5
    # closed form: eigenvalues a +- b, 2 a: minimum 0.5 at a = 1, |b| = 0.5 (a vertex)
    mins = [np.linalg.eigvalsh(v)[0] for _, v in samples]
    assert min(mins) == pytest.approx(0.5)
