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
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from .arguments import real_number
from .canonical_basis import canonical_basis
from .model import UncertainModel, as_model
from .realization import make_realization

_LEVELS = ("basic", "full")


def _orth(mat, rtol):
    """Orthonormal basis of the range of ``mat``, rank decided scale-free; the canonical
    basis of that range (:func:`~.canonical_basis.canonical_basis`).

    Columns are normalised first: a column's scale is that of a state or
    external channel (states of a fast controller can be 1e11 times those
    of a plant), and must not decide whether its direction exists.  A
    direction is dropped only if it is negligible relative to unit columns.
    """
    if mat.shape[1] == 0:
        return mat[:, :0]
    norms = np.linalg.norm(mat, axis=0)
    keep = norms > np.finfo(float).tiny
    if not np.any(keep):
        return mat[:, :0]
    u, s, _ = np.linalg.svd(mat[:, keep] / norms[keep], full_matrices=False)
    # the singular vectors' signs (and rotations among equal singular values) are LAPACK's
    # choice: the basis handed on is fixed by the range alone, so that the reduced
    # realisation (and any D,G scaling stored for it) is the same on every build
    return canonical_basis(u[:, : int(np.sum(s > rtol * s[0]))])


def _structured_subspace(n11, n12, sizes, active, tol):
    """Orthonormal bases of the smallest structured subspace (see module docstring).

    ``sizes`` are the blocks' channel counts; only blocks in ``active`` are
    reduced, the others keep their whole space.
    """
    offs = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    sl = [slice(offs[i], offs[i + 1]) for i in range(len(sizes))]
    bases = []
    for i, n in enumerate(sizes):
        bases.append(_orth(n12[sl[i]], tol) if i in active else np.eye(n, dtype=n11.dtype))
    changed = True
    while changed:
        changed = False
        for i in active:
            cand = [n12[sl[i]]] + [n11[sl[i], sl[j]] @ bases[j] for j in range(len(sizes))]
            new = _orth(np.hstack(cand), tol)
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
    n11, n12 = n[:nd, :nd], n[:nd, nd:]
    bases = _structured_subspace(n11, n12, sizes, active, tol)
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
    """``Fu(N, diag(delta_i I_{r_i}))``, or None when the loop is singular."""
    nd = sum(sizes)
    if nd == 0:
        return n
    dvec = np.repeat(deltas, sizes)
    n11, n12, n21, n22 = n[:nd, :nd], n[:nd, nd:], n[nd:, :nd], n[nd:, nd:]
    lhs = np.eye(nd) - n11 * dvec[None, :]
    try:
        sol = np.linalg.solve(lhs, n12)
    except np.linalg.LinAlgError:
        return None
    if np.linalg.cond(lhs) > 1e8:
        return None
    return n22 + (n21 * dvec[None, :]) @ sol


def _same_map(n0, sizes0, n1, sizes1, npts=4, rtol=1e-7):
    """Whether two static forms give the same map at random parameter values.

    Entry ``(i, j)`` is compared against the geometric mean of its row's and
    column's largest magnitudes, so that badly scaled states or channels
    neither hide a difference nor produce a false one.
    """
    rng = np.random.default_rng(12345)
    k = len(sizes0)
    done = 0
    for _ in range(4 * npts):
        deltas = rng.uniform(-0.9, 0.9, k)
        m0 = _static_eval(n0, sizes0, deltas)
        m1 = _static_eval(n1, sizes1, deltas)
        if m0 is None or m1 is None:
            continue
        a = np.abs(m0)
        ref = np.sqrt(a.max(axis=1, initial=0.0)[:, None] * a.max(axis=0, initial=0.0)[None, :])
        if np.any(np.abs(m1 - m0) > rtol * ref + 1e3 * np.finfo(float).tiny):
            return False
        done += 1
        if done == npts:
            break
    return True


def reduce_realization(real, level="full", rtol=1e-10):
    """Reduce a realization's scalar blocks; returns a new realization."""
    n, names, sizes = _static_form(real)
    if not names:
        return real
    n0, sizes0 = n, list(sizes)
    tol = rtol
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
    if sum(sizes) < sum(sizes0) and not _same_map(n0, sizes0, n, sizes):
        # A rank decision removed a direction the map depends on: keep the original.
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
        A direction is treated as absent when its weight is below ``rtol``
        relative to unit-normalised channels (scale-free rank decisions).  The
        reduced map is checked against the original at random parameter
        values; if they differ, the original is returned unreduced.

    Returns
    -------
    UncertainModel
        Same map, with no more occurrences of any element.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> X = rmb.hstack(a * (a + 4), 6 * a * a)
    >>> X.blocks
    {'a': 4}
    >>> rmb.simplify(X).blocks
    {'a': 2}
    """
    if level not in _LEVELS:
        raise ArgumentError(f"simplify: level must be one of {_LEVELS}, got {level!r}")
    rtol = real_number(rtol, "rtol", "simplify", nonnegative=True)
    m = as_model(x)
    real = reduce_realization(m._real, level, rtol)
    out = m._like(
        real, dt=m.dt, input_names=m.input_names, output_names=m.output_names, name=m.name
    )
    assert isinstance(out, UncertainModel)
    return out
