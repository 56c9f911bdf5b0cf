"""Structural minimal realization: drop states and Delta occurrences cut off from the I/O.

The sparsity pattern of an LFT realization is a directed graph whose nodes are
the states and the occurrences of the uncertain elements (one repetition of a
block: its ``p`` w-channels and ``m`` z-channels together, as ``w = delta z``
couples them).  An edge ``i -> j`` exists when node ``j``'s input depends on
node ``i``'s output through an exactly nonzero entry (``A``, ``Bw``, ``Cz``,
``Dzw``).  A node not reachable from any input carries no signal (zero initial
state, ``w = Delta 0 = 0``); a node from which no output is reachable does not
affect the outputs.  Removing both kinds leaves the same input-output map for
every value of Delta, with fewer states and occurrences: MATLAB's ``sminreal``,
applied to the uncertainty channels as well.

Selecting a channel of a stacked model (``vstack(T, S, KS)[1, 0]``) leaves the
other channels' states and occurrences unreachable-to-output; without this
reduction every analysis would carry them, and the mu bounds of repeated
occurrences are looser.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from .model import as_model
from .realization import Realization, make_realization


def _units(real: Realization):
    """Per occurrence: ``(name, w_indices, z_indices)`` in channel order."""
    out = []
    for name, el, r, ws, zs in real.block_slices():
        p, m = el.block_shape
        for k in range(r):
            out.append(
                (
                    name,
                    np.arange(ws.start + k * p, ws.start + (k + 1) * p),
                    np.arange(zs.start + k * m, zs.start + (k + 1) * m),
                )
            )
    return out


def _reachable(adj, sources):
    """Boolean mask of the nodes reachable from any of ``sources`` (``adj[i, j]``: i -> j)."""
    n = adj.shape[0]
    # a super-source node n linked to every source
    rows = np.concatenate([adj.row, np.full(len(sources), n)])
    cols = np.concatenate([adj.col, sources])
    g = sp.csr_matrix((np.ones(len(rows), bool), (rows, cols)), shape=(n + 1, n + 1))
    order = breadth_first_order(g, n, directed=True, return_predecessors=False)
    mask = np.zeros(n + 1, bool)
    mask[order] = True
    return mask[:n]


def structural_keep(real: Realization):
    """Masks ``(states, occurrences)`` of the nodes both reachable and observable.

    Returns
    -------
    keep_x : ndarray of bool, shape (nx,)
    keep_units : ndarray of bool, one per occurrence (see :func:`_units`)
    """
    nx, nw, nz = real.nx, real.nw, real.nz
    units = _units(real)
    nun = len(units)
    nu, ny = real.nu, real.ny
    # node order: states, occurrences, inputs, outputs
    n = nx + nun + nu + ny
    # channel -> node maps
    w_node = np.empty(nw, int)
    z_node = np.empty(nz, int)
    for k, (_, wi, zi) in enumerate(units):
        w_node[wi] = nx + k
        z_node[zi] = nx + k
    col_node = np.concatenate([np.arange(nx), w_node, nx + nun + np.arange(nu)])  # [x; w; u]
    row_node = np.concatenate([np.arange(nx), z_node, nx + nun + nu + np.arange(ny)])  # [x'; z; y]
    big = real.as_static_map()  # rows [x'; z; y], cols [x; w; u]
    r_idx, c_idx = np.nonzero(big)
    src, dst = col_node[c_idx], row_node[r_idx]
    adj = sp.coo_matrix((np.ones(len(src), bool), (src, dst)), shape=(n, n))
    adj_t = sp.coo_matrix((np.ones(len(src), bool), (dst, src)), shape=(n, n))
    inputs = nx + nun + np.arange(nu)
    outputs = nx + nun + nu + np.arange(ny)
    keep = _reachable(adj, inputs) & _reachable(adj_t, outputs)
    return keep[:nx], keep[nx : nx + nun]


def structural_reduce(real: Realization) -> Realization:
    """The realization without the states and occurrences cut off from inputs or outputs."""
    keep_x, keep_u = structural_keep(real)
    if keep_x.all() and keep_u.all():
        return real
    units = _units(real)
    w_keep = np.zeros(real.nw, bool)
    z_keep = np.zeros(real.nz, bool)
    reps: dict[str, int] = {}
    for k, (name, wi, zi) in enumerate(units):
        if keep_u[k]:
            w_keep[wi] = True
            z_keep[zi] = True
            reps[name] = reps.get(name, 0) + 1
    blocks = {name: (el, reps[name]) for name, (el, _) in real.blocks.items() if reps.get(name, 0)}
    xs = np.flatnonzero(keep_x)
    cols = np.concatenate([np.flatnonzero(w_keep), real.nw + np.arange(real.nu)])
    rows = np.concatenate([np.flatnonzero(z_keep), real.nz + np.arange(real.ny)])
    return make_realization(
        real.a[np.ix_(xs, xs)],
        real.b[np.ix_(xs, cols)],
        real.c[np.ix_(rows, xs)],
        real.d[np.ix_(rows, cols)],
        blocks,
    )


def sminreal(x):
    """Structural minimal realization of an uncertain object.

    Removes the states and the occurrences of uncertain elements that the
    sparsity pattern of the realization shows to be unreachable from every
    input or without effect on every output (see the module docstring).  The
    input-output map is unchanged for every value of the uncertainty; elements
    left with no occurrence disappear.  Indexing an uncertain object applies it.

    Parameters
    ----------
    x : uncertain object

    Returns
    -------
    UncertainModel
        Same map and signal names, no more states or occurrences.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.lft.structural import sminreal
    >>> a = rmb.ureal("a", 1.0)
    >>> b = rmb.ureal("b", 2.0)
    >>> s = control.tf("s")
    >>> G = rmb.block_diag(a / (s + 1), b / (s + 2))
    >>> H = G @ np.array([[1.0], [0.0]])  # the second input is never driven
    >>> H.nstates, H.blocks
    (2, {'a': 1, 'b': 1})
    >>> sminreal(H).nstates, sminreal(H).blocks
    (1, {'a': 1})
    >>> G[1, 1].blocks  # indexing applies it
    {'b': 1}
    """
    m = as_model(x)
    real = structural_reduce(m._real)
    if real is m._real:
        return m
    return m._like(
        real, dt=m.dt, input_names=m.input_names, output_names=m.output_names, name=m.name
    )


__all__ = ["sminreal", "structural_reduce", "structural_keep"]
