"""Raw LFT realizations and the two primitives every operation is built from.

A realization holds the state-space matrices of the augmented system ``P``::

    [x' ]   [A   Bw  Bu ] [x]
    [z  ] = [Cz  Dzw Dzu] [w]        w = Delta z
    [y  ]   [Cy  Dyw Dyu] [u]

with the Delta channels first (``B = [Bw Bu]``, ``C = [Cz; Cy]``), and an
ordered mapping ``blocks: name -> (element, repetitions)``.  Block ``i`` with
``r`` repetitions of a ``p x m`` element occupies ``r*p`` consecutive
w-channels and ``r*m`` consecutive z-channels, in the blocks' order.

Every operation of the LFT algebra is :func:`append` (block-diagonal union of
realizations, merging the blocks of equal names) followed by :func:`close`
(a static interconnection of the external inputs and outputs, with algebraic
loops eliminated exactly).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy import sparse
from scipy.sparse import csgraph

from ..errors import IllPosedError, NameConflictError


@dataclass(frozen=True)
class Realization:
    """State-space data of an augmented LFT system (see module docstring)."""

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    blocks: dict  # name -> (element, repetitions)

    @property
    def nx(self) -> int:
        return self.a.shape[0]

    @property
    def nw(self) -> int:
        return sum(r * el.block_shape[0] for el, r in self.blocks.values())

    @property
    def nz(self) -> int:
        return sum(r * el.block_shape[1] for el, r in self.blocks.values())

    @property
    def nu(self) -> int:
        return self.b.shape[1] - self.nw

    @property
    def ny(self) -> int:
        return self.c.shape[0] - self.nz

    def block_slices(self):
        """Yield ``(name, element, reps, w_slice, z_slice)`` in channel order."""
        iw = iz = 0
        for name, (el, r) in self.blocks.items():
            p, m = el.block_shape
            yield name, el, r, slice(iw, iw + r * p), slice(iz, iz + r * m)
            iw += r * p
            iz += r * m

    def as_static_map(self):
        """The matrix ``[[A, B], [C, D]]`` with the row/column counts of each partition."""
        top = np.hstack([self.a, self.b])
        bottom = np.hstack([self.c, self.d])
        return np.vstack([top, bottom])


def result_dtype(*arrays):
    return np.result_type(float, *arrays)


def make_realization(a, b, c, d, blocks) -> Realization:
    dtype = result_dtype(a, b, c, d)
    return Realization(
        np.asarray(a, dtype=dtype),
        np.asarray(b, dtype=dtype),
        np.asarray(c, dtype=dtype),
        np.asarray(d, dtype=dtype),
        dict(blocks),
    )


def merge_blocks(block_dicts):
    """Merge block dictionaries, checking that equal names mean equal elements.

    Returns the merged ``blocks`` and, for each input dictionary, a list that
    gives, per block of that dictionary, the repetition offset inside the merged
    block.
    """
    merged: dict = {}
    offsets = []
    for blocks in block_dicts:
        offs = []
        for name, (el, r) in blocks.items():
            if name in merged:
                known, r0 = merged[name]
                if not known.same_as(el):
                    raise NameConflictError(
                        f"two different uncertain elements are named '{name}': {known!r} and {el!r}"
                    )
                merged[name] = (known, r0 + r)
                offs.append(r0)
            else:
                merged[name] = (el, r)
                offs.append(0)
        offsets.append(offs)
    return merged, offsets


def _channel_permutation(reals, merged, offsets, side):
    """Index arrays placing each realization's Delta channels into the merged layout."""
    k = 0 if side == "w" else 1
    start = {}
    pos = 0
    for name, (el, r) in merged.items():
        start[name] = pos
        pos += r * el.block_shape[k]
    perms = []
    for real, offs in zip(reals, offsets, strict=True):
        idx = []
        for (name, (el, r)), off in zip(real.blocks.items(), offs, strict=True):
            size = el.block_shape[k]
            first = start[name] + off * size
            idx.extend(range(first, first + r * size))
        perms.append(np.asarray(idx, dtype=int))
    return perms, pos


def append(reals) -> tuple[Realization, list[int], list[int]]:
    """Block-diagonal union of realizations; blocks of equal names are merged.

    Returns the realization (external inputs and outputs stacked in order) and
    the lists of input and output sizes of each part.
    """
    merged, offsets = merge_blocks([r.blocks for r in reals])
    wperm, nw = _channel_permutation(reals, merged, offsets, "w")
    zperm, nz = _channel_permutation(reals, merged, offsets, "z")
    nus = [r.nu for r in reals]
    nys = [r.ny for r in reals]
    nx = sum(r.nx for r in reals)
    nu, ny = sum(nus), sum(nys)
    dtype = result_dtype(*[r.d for r in reals], *[r.a for r in reals])
    a = np.zeros((nx, nx), dtype)
    b = np.zeros((nx, nw + nu), dtype)
    c = np.zeros((nz + ny, nx), dtype)
    d = np.zeros((nz + ny, nw + nu), dtype)
    ix = iu = iy = 0
    for r, wp, zp in zip(reals, wperm, zperm, strict=True):
        xs = slice(ix, ix + r.nx)
        ucols = np.arange(nw + iu, nw + iu + r.nu)
        yrows = np.arange(nz + iy, nz + iy + r.ny)
        cols = np.concatenate([wp, ucols])
        rows = np.concatenate([zp, yrows])
        a[xs, xs] = r.a
        b[xs, cols] = r.b
        c[rows, xs] = r.c
        d[np.ix_(rows, cols)] = r.d
        ix += r.nx
        iu += r.nu
        iy += r.ny
    return Realization(a, b, c, d, merged), nus, nys


def _cyclic_components(gain):
    """Index arrays of the strongly connected parts of the loop gain's graph that hold a cycle.

    Signal ``i`` feeds signal ``j`` when ``gain[j, i] != 0``.  Outside these parts
    the loop ``I - gain`` is (block) triangular with unit diagonal: its determinant
    is exactly 1 whatever the magnitude of the entries, so a series chain is never
    an algebraic loop.
    """
    pattern = gain != 0
    # Cheap exits: a strictly triangular gain (series connections) has no cycle.
    if not np.tril(pattern).any() or not np.triu(pattern).any():
        return []
    ncomp, labels = csgraph.connected_components(
        sparse.csr_matrix(pattern), directed=True, connection="strong"
    )
    sizes = np.bincount(labels, minlength=ncomp)
    cyclic = sizes > 1
    selfloop = np.flatnonzero(np.diagonal(pattern))
    cyclic[labels[selfloop]] = True
    if not cyclic.any():
        return []
    order = np.argsort(labels, kind="stable")
    bounds = np.cumsum(sizes)
    return [order[bounds[k] - sizes[k] : bounds[k]] for k in np.flatnonzero(cyclic)]


def _balanced(gain):
    """``(B, t)`` with ``B = diag(t)^-1 gain diag(t)``: a diagonal similarity that evens the
    row and column norms, so the loop test does not depend on the signals' units."""
    if gain.shape[0] < 2:
        return gain, np.ones(gain.shape[0])
    # LAPACK's gebal without permutation: ``scale`` holds the diagonal of the similarity.
    gebal = sla.get_lapack_funcs("gebal", (gain,))
    bal, _, _, scale, _ = gebal(gain, scale=1, permute=0)
    return bal, np.asarray(scale, dtype=float)


def singular_loop(gain, components=None):
    """Indices of the signals of a singular algebraic loop ``I - gain``, or ``None``.

    The test is structural and scale-aware: only the strongly connected parts of
    the signal graph (actual loops) are tested, each after a diagonal balancing, by
    ``(1 + ||B||) ||(I - B)^-1||`` (1-norms) against ``1 / (1e3 n eps)``: the
    cancellation of ``I - B`` relative to the size of its terms (the condition number
    of ``I - B`` alone is 1 for a scalar loop ``1 - b`` whatever ``b``, and would pass
    ``b = 1 - 1e-16``).

    Examples
    --------
    >>> import numpy as np
    >>> singular_loop(np.array([[0.5]])) is None
    True
    >>> singular_loop(np.array([[1.0 - 1e-16]])).tolist()  # singular to rounding
    [0]
    """
    if components is None:
        components = _cyclic_components(gain)
    for idx in components:
        sub, _ = _balanced(gain[np.ix_(idx, idx)])
        k = len(idx)
        m = np.eye(k) - sub
        try:
            cond = (1.0 + np.linalg.norm(sub, 1)) * np.linalg.norm(np.linalg.inv(m), 1)
        except np.linalg.LinAlgError:
            cond = np.inf
        if not np.isfinite(cond) or cond * 1e3 * k * np.finfo(float).eps >= 1.0:
            # The signals carrying the loop's null direction name it.
            _, _, vh = np.linalg.svd(m)
            v = np.abs(vh[-1])
            return idx[v > 1e-6 * v.max()] if v.max() > 0 else idx
    return None


def centre_values(blocks, limit=6):
    """``"k = 1.0, d = 0"``: the value of each element at which an LFT's Delta is zero.

    An LFT is built about these values, so its interconnections must be well posed there.

    Examples
    --------
    >>> from robustmb.lft.elements import ureal
    >>> centre_values({"k": (ureal("k", 0.5, range=(0.0, 2.0)), 1)})
    'k = 1.0'
    """
    parts = []
    for name, (el, _) in list(blocks.items())[:limit]:
        if el.kind == "real":
            value = el.center
        elif el.kind == "complex":
            value = el.nominal
        else:
            value = 0  # a full block (ultidyn, matrix realp) is zero at its centre
        parts.append(f"{name} = {value!r}")
    more = len(blocks) - limit
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def loop_inverse(gain, names, what="interconnection", where=""):
    """Inverse of the loop matrix ``I - gain``, with an error naming the loop's signals.

    ``where`` completes the error's "is ill-posed" (e.g. at which element values).
    """
    n = gain.shape[0]
    if n == 0:
        return np.eye(0, dtype=gain.dtype)
    components = _cyclic_components(gain)
    if not components:
        # Unit (block) triangular: an LU inverse is exact up to rounding at any scale.
        return np.linalg.inv(np.eye(n) - gain)
    bad = singular_loop(gain, components)
    if bad is not None:
        signals = [names[i] for i in bad] if names is not None else []
        raise IllPosedError(
            f"the {what} is ill-posed{where}: its algebraic loop through "
            f"{', '.join(map(str, signals)) or 'the connected signals'} has no unique solution"
        )
    # Invert the balanced loop and undo the similarity: accurate for badly scaled loops.
    bal, t = _balanced(gain)
    q = np.linalg.inv(np.eye(n) - bal)
    return t[:, None] * q / t[None, :]


def close(real: Realization, rin, fb, lout, dvo=None, *, loop_names=None) -> Realization:
    """Static interconnection of a realization's external channels.

    With the realization's inputs ``u`` and outputs ``y``, the new input ``v``
    and output ``o`` are related by ``u = rin v + fb y`` and ``o = lout y + dvo v``.
    The algebraic loop ``y = ... + Dyu fb y`` is solved exactly; a singular loop
    raises :class:`IllPosedError` naming ``loop_names`` (one per entry of ``y``).
    """
    nw, nz, nx = real.nw, real.nz, real.nx
    bw, bu = real.b[:, :nw], real.b[:, nw:]
    cz, cy = real.c[:nz], real.c[nz:]
    dzw, dzu = real.d[:nz, :nw], real.d[:nz, nw:]
    dyw, dyu = real.d[nz:, :nw], real.d[nz:, nw:]
    rin = np.asarray(rin)
    lout = np.asarray(lout)
    nv = rin.shape[1]
    if fb is None or not np.any(fb):
        # u = rin v: no loop to solve.
        cu = np.zeros((bu.shape[1], nx), cy.dtype)
        dwu = np.zeros((bu.shape[1], nw), dyw.dtype)
        dvu = rin
        ycx, ydw, ydv = cy, dyw, dyu @ rin
    else:
        fb = np.asarray(fb)
        # The loop is that of the LFT at Delta = 0, i.e. at the centres of the ranges.
        where = ""
        if real.blocks:
            where = f" at the centre of the ranges ({centre_values(real.blocks)})"
        q = loop_inverse(dyu @ fb, loop_names, where=where)
        # y = q (Cy x + Dyw w + Dyu rin v)
        ycx, ydw, ydv = q @ cy, q @ dyw, q @ (dyu @ rin)
        cu, dwu, dvu = fb @ ycx, fb @ ydw, rin + fb @ ydv
    a = real.a + bu @ cu
    b = np.hstack([bw + bu @ dwu, bu @ dvu])
    c = np.vstack([cz + dzu @ cu, lout @ ycx])
    dvo = np.zeros((lout.shape[0], nv)) if dvo is None else np.asarray(dvo)
    d = np.block([[dzw + dzu @ dwu, dzu @ dvu], [lout @ ydw, lout @ ydv + dvo]])
    return make_realization(a, b, c, d, real.blocks)


def close_delta(real: Realization, names, deltas) -> Realization:
    """Close the Delta channels of the named blocks with static normalised values.

    ``deltas`` maps each name to the matrix ``I_r kron delta`` acting on that
    block's channels (``w_block = Delta_block z_block``).
    """
    keep_w, keep_z, sel_w, sel_z = [], [], [], []
    remaining = {}
    for name, el, r, ws, zs in real.block_slices():
        if name in names:
            sel_w.append(np.arange(ws.start, ws.stop))
            sel_z.append(np.arange(zs.start, zs.stop))
        else:
            keep_w.append(np.arange(ws.start, ws.stop))
            keep_z.append(np.arange(zs.start, zs.stop))
            remaining[name] = (el, r)
    sel_w = np.concatenate(sel_w) if sel_w else np.zeros(0, int)
    sel_z = np.concatenate(sel_z) if sel_z else np.zeros(0, int)
    keep_w = np.concatenate(keep_w) if keep_w else np.zeros(0, int)
    keep_z = np.concatenate(keep_z) if keep_z else np.zeros(0, int)
    kmat = sla.block_diag(*[deltas[n] for n in real.blocks if n in names])
    nw, nz = real.nw, real.nz
    ucols = np.arange(nw, real.b.shape[1])
    yrows = np.arange(nz, real.c.shape[0])
    # Reorder: inputs [kept w, u, selected w]; outputs [kept z, y, selected z].
    cols = np.concatenate([keep_w, ucols, sel_w])
    rows = np.concatenate([keep_z, yrows, sel_z])
    a, b, c, d = real.a, real.b[:, cols], real.c[rows], real.d[np.ix_(rows, cols)]
    a, b, c, d = lower_close(a, b, c, d, len(sel_w), len(sel_z), kmat, names=list(names))
    return make_realization(a, b, c, d, remaining)


def lower_close(a, b, c, d, nk_in, nk_out, k, *, names=None):
    """Close the last ``nk_in`` inputs with ``K`` times the last ``nk_out`` outputs.

    ``u_s = K y_s``; returns the realization of the remaining channels.  Works
    for a static ``K``; the loop ``I - D_ss K`` must be invertible.
    """
    ni, no = b.shape[1] - nk_in, c.shape[0] - nk_out
    b_r, b_s = b[:, :ni], b[:, ni:]
    c_r, c_s = c[:no], c[no:]
    d_rr, d_rs, d_sr, d_ss = d[:no, :ni], d[:no, ni:], d[no:, :ni], d[no:, ni:]
    if nk_out == 0:
        return a, b_r, c_r, d_rr
    what = "LFT" if names is None else "LFT at the values given for " + ", ".join(map(str, names))
    kq = k @ loop_inverse(d_ss @ k, None, what)
    a2 = a + b_s @ kq @ c_s
    b2 = b_r + b_s @ kq @ d_sr
    c2 = c_r + d_rs @ kq @ c_s
    d2 = d_rr + d_rs @ kq @ d_sr
    return a2, b2, c2, d2
