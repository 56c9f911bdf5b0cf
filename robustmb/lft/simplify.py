"""Exact Delta-reduction: remove redundant occurrences of scalar parameters.

For the reduction the states and every non-scalar block are external
channels, so an uncertain object is a static LFT ``Fu(N, Delta)`` in its
scalar parameters, ``Delta = diag(delta_i I_{r_i})``.  If a subspace
``V = V_1 (+) ... (+) V_k`` of the Delta channels (one ``V_i`` per block)
contains the range of ``N12`` and satisfies ``N11_ij V_j`` in ``V_i`` for all
``i, j``, then ``z`` stays in ``V`` for every ``Delta``, and projecting on
orthonormal bases of the ``V_i`` gives an exact LFT with ``dim V_i``
repetitions ("structured controllability").  The dual, applied to the
transposed LFT, removes unobservable directions.  The 1-D reduction iterates one
block with every other block held whole (a Kalman minimal realisation in
``1/delta_i``); the n-D reduction iterates all blocks together.

In floating point the rank decisions decide the map: a direction 1e-14 on the input side
of the Delta channels and 1e8 on the output side is part of ``A(Delta)``.  A direction is
dropped only if its product with what it feeds is at rounding level, and the reduced map
is accepted only if it equals the original to the rounding of the original's evaluation
at the corners of the box and at random points (:func:`_same_map`).  If it does not, the
reduction is taken again on balanced channels (powers of two, an exact similarity); if
that fails too, the model is kept as written.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import ArgumentError
from .arguments import real_number
from .canonical_basis import canonical_basis
from .model import UncertainModel, as_model
from .realization import make_realization

_LEVELS = ("basic", "full")
_EPS = np.finfo(float).eps
_TINY = 1e3 * np.finfo(float).tiny
# A dropped direction's part of the map must be below this multiple of the norms of the
# rows and columns whose product it adds to: their rounding, not a relative tolerance.
_RANK_EPS = 16 * _EPS
# The reduced map must equal the original within this multiple of the original's
# entrywise rounding bound |N21 Delta| |(I - N11 Delta)^-1| |N12| + |N22|, and within
# this multiple of the map's own scale at the entry (the geometric mean of the largest
# magnitudes in its row and in its column): where the map is a small difference of large
# products, a change at the products' rounding level can still move it relatively much.
_MAP_EPS = 16 * _EPS
_SCALE_EPS = 64 * _EPS


def _orth(mat, rtol, feeds=None):
    """Orthonormal basis of the range of ``mat``, rank decided on both sides; the canonical
    basis of that range (:func:`~.canonical_basis.canonical_basis`).

    Columns are normalised first: a column's scale is that of a state or
    external channel (states of a fast controller can be 1e11 times those
    of a plant), and must not decide whether its direction exists.  A
    direction is a candidate for dropping if it is below ``rtol`` relative to
    unit columns.  ``feeds`` (columns: the rows of ``mat``) is what the channels
    feed: a direction small on the input side can be multiplied by a large gain on
    the output side, so the dropped part ``U_d U_d^H mat`` must also pass
    ``|feeds U_d| |U_d^H mat| <= _RANK_EPS |feeds_a| |mat_b|`` for every row ``a`` of
    ``feeds`` and column ``b`` of ``mat`` (the rounding of their product); otherwise the
    rank grows.
    """
    if mat.shape[1] == 0:
        return mat[:, :0]
    norms = np.linalg.norm(mat, axis=0)
    keep = norms > np.finfo(float).tiny
    if not np.any(keep):
        return mat[:, :0]
    u, s, _ = np.linalg.svd(mat[:, keep] / norms[keep], full_matrices=False)
    rank = int(np.sum(s > rtol * s[0]))
    if feeds is not None and rank < u.shape[1]:
        ref = _RANK_EPS * np.outer(np.linalg.norm(feeds, axis=1), norms) + _TINY
        while rank < u.shape[1]:
            ud = u[:, rank:]
            part = np.abs(feeds @ ud) @ np.abs(ud.conj().T @ mat)
            if np.all(part <= ref):
                break
            rank += 1
    # the singular vectors' signs (and rotations among equal singular values) are LAPACK's
    # choice: the basis handed on is fixed by the range alone, so that the reduced
    # realisation (and any D,G scaling stored for it) is the same on every build
    return canonical_basis(u[:, :rank])


def _structured_subspace(n, sizes, active, tol):
    """Orthonormal bases of the smallest structured subspace (see module docstring).

    ``sizes`` are the blocks' channel counts; only blocks in ``active`` are
    reduced, the others keep their whole space.  Block ``i``'s channels feed the
    columns ``n[:, i's channels]``: the rank decisions weigh them (:func:`_orth`).
    """
    nd = sum(sizes)
    n11, n12 = n[:nd, :nd], n[:nd, nd:]
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    sl = [slice(offs[i], offs[i + 1]) for i in range(len(sizes))]
    bases = []
    for i, r in enumerate(sizes):
        bases.append(
            _orth(n12[sl[i]], tol, n[:, sl[i]]) if i in active else np.eye(r, dtype=n11.dtype)
        )
    changed = True
    while changed:
        changed = False
        for i in active:
            cand = [n12[sl[i]]] + [n11[sl[i], sl[j]] @ bases[j] for j in range(len(sizes))]
            new = _orth(np.hstack(cand), tol, n[:, sl[i]])
            if new.shape[1] > bases[i].shape[1]:
                bases[i] = new
                changed = True
    return bases


def _project(n, nd, sizes, bases):
    """Reduce the Delta channels (first ``nd`` rows/cols of ``n``) onto ``bases``."""
    from scipy.linalg import block_diag

    t = block_diag(*bases) if bases else np.zeros((0, 0))
    ne_out, ne_in = n.shape[0] - nd, n.shape[1] - nd
    left = block_diag(t.conj().T, np.eye(ne_out))
    right = block_diag(t, np.eye(ne_in))
    return left @ n @ right, [b.shape[1] for b in bases]


def _reduce(n, nd, sizes, active, tol, dual):
    if dual:
        n = n.T
    bases = _structured_subspace(n, sizes, active, tol)
    # A block kept whole keeps its channels as they are (a full-rank basis spans the same
    # space): rotating them would only destroy the sparsity that indexing relies on.
    bases = [
        np.eye(k, dtype=b.dtype) if b.shape[1] == k else b
        for b, k in zip(bases, sizes, strict=True)
    ]
    n, sizes = _project(n, nd, sizes, bases)
    if dual:
        n = n.T
    return n, sizes


def _static_form(real):
    """Static map ``N`` with the scalar blocks' channels first, and the bookkeeping."""
    nw, nz, nx = real.nw, real.nz, real.nx
    full = real.as_static_map()  # rows [x'; z; y], cols [x; w; u]
    scal_w, scal_z, other_w, other_z, names, sizes = [], [], [], [], [], []
    for name, el, r, ws, zs in real.block_slices():
        if el.is_scalar:
            scal_w.extend(range(nx + ws.start, nx + ws.stop))
            scal_z.extend(range(nx + zs.start, nx + zs.stop))
            names.append(name)
            sizes.append(r)
        else:
            other_w.extend(range(nx + ws.start, nx + ws.stop))
            other_z.extend(range(nx + zs.start, nx + zs.stop))
    cols = np.r_[scal_w, range(nx), other_w, range(nx + nw, full.shape[1])].astype(int)
    rows = np.r_[scal_z, range(nx), other_z, range(nx + nz, full.shape[0])].astype(int)
    return full[np.ix_(rows, cols)], names, sizes


def _rebuild(real, n, names, sizes):
    """Realization from a reduced static form (inverse of :func:`_static_form`)."""
    nd = sum(sizes)
    nx = real.nx
    blocks = {}
    other = {nm: (el, r) for nm, (el, r) in real.blocks.items() if not el.is_scalar}
    n_ow = sum(r * el.block_shape[0] for el, r in other.values())
    n_oz = sum(r * el.block_shape[1] for el, r in other.values())
    # Block order: the original order, reduced counts; empty blocks disappear.
    red = dict(zip(names, sizes, strict=True))
    sw = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    start = dict(zip(names, sw[:-1], strict=True))
    w_index, z_index = [], []
    ow = nd + nx  # other blocks' columns follow the states in n
    oz = nd + nx
    for name, (el, r) in real.blocks.items():
        if el.is_scalar:
            if red[name] == 0:
                continue
            blocks[name] = (el, red[name])
            w_index.extend(range(start[name], start[name] + red[name]))
            z_index.extend(range(start[name], start[name] + red[name]))
        else:
            p, m = el.block_shape
            blocks[name] = (el, r)
            w_index.extend(range(ow, ow + r * p))
            z_index.extend(range(oz, oz + r * m))
            ow += r * p
            oz += r * m
    x_cols = list(range(nd, nd + nx))
    u_cols = list(range(nd + nx + n_ow, n.shape[1]))
    x_rows = list(range(nd, nd + nx))
    y_rows = list(range(nd + nx + n_oz, n.shape[0]))
    a = n[np.ix_(x_rows, x_cols)]
    b = n[np.ix_(x_rows, w_index + u_cols)]
    c = n[np.ix_(z_index + y_rows, x_cols)]
    d = n[np.ix_(z_index + y_rows, w_index + u_cols)]
    return make_realization(a, b, c, d, blocks)


def _static_eval(n, sizes, deltas):
    """``Fu(N, diag(delta_i I_{r_i}))`` and its entrywise rounding bound
    ``|N21 Delta| |(I - N11 Delta)^-1| |N12| + |N22|``, or None when the loop is singular."""
    nd = sum(sizes)
    if nd == 0:
        return n, np.abs(n)
    dvec = np.repeat(deltas, sizes)
    n11, n12, n21, n22 = n[:nd, :nd], n[:nd, nd:], n[nd:, :nd], n[nd:, nd:]
    lhs = np.eye(nd) - n11 * dvec[None, :]
    try:
        inv = np.linalg.inv(lhs)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(inv)) or np.linalg.cond(lhs) > 1e8:
        return None
    n21d = n21 * dvec[None, :]
    value = n22 + n21d @ (inv @ n12)
    bound = np.abs(n21d) @ (np.abs(inv) @ np.abs(n12)) + np.abs(n22)
    return value, bound


def _check_points(k, npts, rng):
    """Corners of the normalised box (all of them up to 2**6, else a random subset), then
    random points inside it and out to twice its size."""
    if k <= 6:
        corners = np.array(list(itertools.product((-1.0, 1.0), repeat=k)))
    else:
        corners = rng.choice((-1.0, 1.0), size=(64, k))
    inner = rng.uniform(-1.0, 1.0, (npts, k))
    outer = rng.uniform(-2.0, 2.0, (npts, k))
    return np.vstack([corners, inner, outer])


def _same_map(n0, sizes0, n1, sizes1, npts=8, entrywise=False):
    """Whether two static forms give the same map, to rounding, at the corners of the box
    and at random points.

    The test is a forward-error test, entrywise at every point:
    ``|M1 - M0| <= _MAP_EPS E0``, ``E0`` the rounding bound of the original's evaluation
    (:func:`_static_eval`; the reduced realisation's own bound can be larger where a
    projection mixes channels of very different scales, and must not widen the test),
    and ``|M1 - M0| <= _SCALE_EPS sqrt(r_i c_j)``, ``r_i`` and ``c_j`` the largest
    magnitudes of ``M0``'s row ``i`` and column ``j`` over the points (unless the map is
    there at the rounding level of its products).
    Where the loop is singular (near a pole of the map in Delta) the point is skipped.

    With ``entrywise`` (the analyses' reduction), every entry must also be reproduced to
    ``_SCALE_EPS`` of its own largest magnitude over the points, ``|M1 - M0|_ij <=
    _SCALE_EPS max |M0_ij|``, not of its row's and column's: an entry that is small
    beside the products it was computed from (``1e8 (1 + 5e-15) k - 1e8 k = 5e-7 k``) or
    beside its row and column is still part of the model the analysis certifies, and can
    decide its stability (a 5e-7 entry beside a 1e7 one).
    """
    rng = np.random.default_rng(12345)
    pairs = []
    for deltas in _check_points(len(sizes0), npts, rng):
        e0 = _static_eval(n0, sizes0, deltas)
        e1 = _static_eval(n1, sizes1, deltas)
        if e0 is not None and e1 is not None:
            pairs.append((e0, e1))
    if not pairs:
        return False
    scale = _row_col_scale(np.max([np.abs(e0[0]) for e0, _ in pairs], axis=0))
    # where the map is itself at the rounding level of its products (z - z), it is
    # numerically zero there: only the rounding bound applies
    noise = scale <= _MAP_EPS * _row_col_scale(np.max([e0[1] for e0, _ in pairs], axis=0))
    cap = np.where(noise, np.inf, _SCALE_EPS * scale)
    peak = np.max([np.abs(e0[0]) for e0, _ in pairs], axis=0)
    for (m0, b0), (m1, _) in pairs:
        limit = np.minimum(_MAP_EPS * b0, cap) + _TINY
        if entrywise:
            limit = np.minimum(limit, _SCALE_EPS * peak + _TINY)
        if not np.all(np.abs(m1 - m0) <= limit):
            return False
    return True


def _coupling_negligible(n, sizes, i, n0, nd0):
    """Whether block ``i``'s channels couple the external channels at rounding level: the
    entries of ``|N21_i| |N12_i|`` below ``_SCALE_EPS`` times those of the original
    ``|N21| |N12| + |N22|`` (``n0`` with ``nd0`` Delta channels)."""
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    nd, sl = offs[-1], slice(offs[i], offs[i + 1])
    through = np.abs(n[nd:, sl]) @ np.abs(n[sl, nd:])
    a0 = np.abs(n0)
    ref = a0[nd0:, :nd0] @ a0[:nd0, nd0:] + a0[nd0:, nd0:]
    return bool(np.all(through <= _SCALE_EPS * ref + _TINY))


def _absent(n0, sizes0, i, npts=8):
    """Whether block ``i`` is absent from the map of the static form ``n0``: closing it
    (``delta_i = 0``) changes the map by at most the rounding of the block's own terms,
    ``|M(Delta) - M(Delta, delta_i = 0)| <= _MAP_EPS |N21_i delta_i| |((I - N11 Delta)^-1
    N12)_i|`` entrywise, at the points of :func:`_same_map`.

    ``a - a`` passes (its terms cancel to their own rounding); ``1e8 k + 1e-8 b - 1e8 k``
    does not for ``b``, whose part is real though below the rounding of the products
    ``1e8 k`` beside it (the test of :func:`_same_map` alone would let it go).
    """
    rng = np.random.default_rng(12345)
    nd = sum(sizes0)
    offs = np.concatenate([[0], np.cumsum(sizes0)]).astype(int)
    sl = slice(offs[i], offs[i + 1])
    n11, n12, n21 = n0[:nd, :nd], n0[:nd, nd:], n0[nd:, :nd]
    for deltas in _check_points(len(sizes0), npts, rng):
        closed = np.array(deltas, float)
        closed[i] = 0.0
        e, e_closed = _static_eval(n0, sizes0, deltas), _static_eval(n0, sizes0, closed)
        if e is None or e_closed is None:
            continue
        dvec = np.repeat(deltas, sizes0)
        inner = np.linalg.solve(np.eye(nd) - n11 * dvec[None, :], n12)
        own = np.abs(n21[:, sl] * dvec[None, sl]) @ np.abs(inner[sl])
        if not np.all(np.abs(e[0] - e_closed[0]) <= _MAP_EPS * own + _TINY):
            return False
    return True


def _row_col_scale(a):
    """``sqrt(r_i c_j)``, ``r_i`` and ``c_j`` the largest entries of row ``i`` and column
    ``j`` of the nonnegative ``a``."""
    return np.sqrt(a.max(axis=1, initial=0.0)[:, None] * a.max(axis=0, initial=0.0)[None, :])


def _remove_block(n, sizes, i):
    """The static form with block ``i`` closed at ``delta_i = 0`` (its channels removed)."""
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    keep = np.r_[0 : offs[i], offs[i + 1] : n.shape[0]]
    keep_c = np.r_[0 : offs[i], offs[i + 1] : n.shape[1]]
    out = list(sizes)
    out[i] = 0
    return n[np.ix_(keep, keep_c)], out


def _balance(n, sizes):
    """Powers of two ``d`` (one per Delta channel) that balance each channel's row against
    its column: ``diag(d) N diag(1/d)`` on the Delta channels is the same LFT exactly
    (Delta commutes with a diagonal scaling and powers of two scale without rounding)."""
    nd = sum(sizes)
    d = np.ones(nd)
    if nd == 0:
        return d
    a = np.abs(n)
    for _ in range(8):
        done = True
        for j in range(nd):
            # the diagonal entry does not change with the scaling
            col = np.sqrt(np.sum(a[:j, j] ** 2) + np.sum(a[j + 1 :, j] ** 2))
            row = np.sqrt(np.sum(a[j, :j] ** 2) + np.sum(a[j, j + 1 :] ** 2))
            if col <= _TINY or row <= _TINY:
                continue
            f = 2.0 ** np.round(0.5 * np.log2(col / row))
            if f != 1.0:
                a[j, :] *= f
                a[:, j] /= f
                d[j] *= f
                done = False
        if done:
            break
    return d


def _scale(n, d):
    nd = d.size
    n = n.copy()
    n[:nd, :] *= d[:, None]
    n[:, :nd] /= d[None, :]
    return n


def _reduce_all(n, sizes, level, tol, d):
    """The 1-D and n-D reductions iterated to a fixed point on ``diag(d) N diag(1/d)``;
    the channels of blocks never reduced are scaled back."""
    sizes0 = list(sizes)
    n = _scale(n, d)
    k = len(sizes)
    while True:
        before = sum(sizes)
        for i in range(k):  # 1-D: one parameter at a time
            for dual in (False, True):
                n, sizes = _reduce(n, sum(sizes), sizes, [i], tol, dual)
        if level == "full" and k > 1:  # n-D: all parameters together
            for dual in (False, True):
                n, sizes = _reduce(n, sum(sizes), sizes, list(range(k)), tol, dual)
        if level == "basic" or sum(sizes) == before:
            break
    offs0 = np.concatenate([[0], np.cumsum(sizes0)]).astype(int)
    back = np.concatenate(
        [
            1.0 / d[offs0[i] : offs0[i + 1]] if r == r0 else np.ones(r)
            for i, (r, r0) in enumerate(zip(sizes, sizes0, strict=True))
        ]
    )
    return _scale(n, back), sizes


def reduce_realization(real, level="full", rtol=1e-10, drop_absent=False, entrywise=None):
    """Reduce a realization's scalar blocks; returns a new realization.

    With ``drop_absent``, a block whose coupling is at rounding level after the
    reduction (``b - b`` leaves a residue of one occurrence) is removed, closed at its
    nominal value, when the map is unchanged to rounding without it; without
    ``entrywise``, only if the original map also changes by no more than the rounding
    of the block's own terms when it is closed (:func:`_absent`).  With
    ``entrywise`` (default: ``drop_absent``; the analyses' reduction asks for both),
    every entry of the map must be reproduced to rounding of its own value
    (``_same_map(entrywise=True)``), not only of the products it is computed from.
    """
    entrywise = drop_absent if entrywise is None else entrywise
    n, names, sizes = _static_form(real)
    if not names:
        return real
    n0, sizes0 = n, list(sizes)
    k = len(sizes)
    n, sizes = _reduce_all(n0, sizes0, level, rtol, np.ones(sum(sizes0)))

    def same(n1, sizes1):
        return _same_map(n0, sizes0, n1, sizes1, entrywise=entrywise)

    if sum(sizes) < sum(sizes0) and not same(n, sizes):
        # on the channels as written the rank decisions changed the map: take them again
        # on balanced channels (each channel's row as large as its column), where a
        # direction small on one side and amplified on the other is weighed by the product
        n, sizes = _reduce_all(n0, sizes0, level, rtol, _balance(n0, sizes0))
    # a block whose coupling is at rounding level is absent: closed at its nominal value
    # if the map is unchanged.  Only on request (simplify and the analyses ask for it).
    for i in range(k if drop_absent else 0):
        if sizes[i] and _coupling_negligible(n, sizes, i, n0, sum(sizes0)):
            if not entrywise and not _absent(n0, sizes0, i):
                continue
            n_try, sizes_try = _remove_block(n, sizes, i)
            if same(n_try, sizes_try):
                n, sizes = n_try, sizes_try
    if sum(sizes) == sum(sizes0):
        return real
    if not same(n, sizes):
        # the reduced map is not the original to rounding: keep the model as written
        return real
    return _rebuild(real, n, names, sizes)


def simplify(x, level="full", *, rtol=1e-10):
    """Remove redundant occurrences of uncertain parameters, keeping the map exactly.

    Parameters
    ----------
    x : uncertain object
        Matrix or system.
    level : {"full", "basic"}
        ``"basic"``: one pass of per-parameter (1-D) reduction.  ``"full"``:
        1-D and n-D (all parameters together) reductions iterated to a fixed
        point.
    rtol : float
        A direction is a candidate for removal when its weight is below ``rtol``
        relative to unit-normalised channels (scale-free rank decisions); it is
        removed only if its product with what the channels feed is at rounding
        level.  The reduced map is checked against the original at the corners
        of the box and at random parameter values, entrywise to the rounding of
        the original's evaluation; if they differ, the original is returned
        unreduced.

    Returns
    -------
    UncertainModel
        Same map, with no more occurrences of any element.  An element the map does not
        depend on (its part cancels exactly, ``a - a``, to the rounding of the
        arithmetic that built it) has no occurrence left and is no longer in
        ``.uncertainty``.  The states are kept: an element in the state matrices stays
        even when the transfer function does not depend on it (``G - G`` with
        ``G = 1 / (s + a)`` keeps ``a``).

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> X = rmb.hstack(a * (a + 4), 6 * a * a)
    >>> X.blocks
    {'a': 4}
    >>> rmb.simplify(X).blocks
    {'a': 2}
    >>> b = rmb.ureal("b", 2.0)
    >>> rmb.simplify(a * a + b - b).blocks
    {'a': 2}
    """
    if level not in _LEVELS:
        raise ArgumentError(f"simplify: level must be one of {_LEVELS}, got {level!r}")
    rtol = real_number(rtol, "rtol", "simplify", nonnegative=True)
    m = as_model(x)
    real = reduce_realization(m._real, level, rtol, drop_absent=True, entrywise=False)
    out = m._like(
        real, dt=m.dt, input_names=m.input_names, output_names=m.output_names, name=m.name
    )
    assert isinstance(out, UncertainModel)
    return out
