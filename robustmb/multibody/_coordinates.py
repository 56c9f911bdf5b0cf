"""Integrators of generalised coordinates around static LFT blocks.

The blocks are static maps built on structured signal keys (see
``signals.expand``); the coordinates ``q`` and their rates ``q_dot`` are
inputs of those maps and become states here (``q' = q_dot``,
``q_dot' = q_ddot``).
"""

from __future__ import annotations

import control
import numpy as np

from .. import lft
from . import _generic as g


def close_coordinates(static, n, nu, ny, *, rates):
    """States ``[q; qd]`` around a static map ``[q; qd; u] -> [qdd; y]`` (qdd: n, y: ny).

    Returns an uncertain system with inputs ``u`` and outputs ``[q; (qd); y]``.
    """
    nout = 3 * n + ny
    rows = list(range(n)) + (list(range(n, 2 * n)) if rates else []) + list(range(3 * n, nout))
    top = np.hstack([np.eye(2 * n), np.zeros((2 * n, nu))])
    sigma = g.vcat(top, static)  # [q; qd; qdd; y]
    if g.is_number(sigma):
        a = np.zeros((2 * n, 2 * n))
        a[:n, n:] = np.eye(n)
        a[n:, :] = sigma[2 * n : 3 * n, : 2 * n]
        b = np.vstack([np.zeros((n, nu)), sigma[2 * n : 3 * n, 2 * n :]])
        c_full = np.vstack([np.eye(2 * n), sigma[2 * n :, : 2 * n]])
        d_full = np.vstack([np.zeros((2 * n, nu)), sigma[2 * n :, 2 * n :]])
        return lft.uss(control.ss(a, b, c_full[rows], d_full[rows]))
    kint = control.ss(
        np.zeros((2 * n, 2 * n)),
        np.hstack([np.zeros((2 * n, n)), np.eye(2 * n), np.zeros((2 * n, ny))]),
        np.vstack([np.eye(2 * n), np.zeros((nu, 2 * n))]),
        np.zeros((2 * n + nu, nout)),
    )
    closed = lft.feedback(sigma, kint, sign=1)
    return closed[rows, list(range(2 * n, 2 * n + nu))]


def integrate_coordinates(static, q_cols, qd_cols, qdd_cols):
    """States ``[q; qd]`` driven by acceleration inputs of a static map.

    ``static`` has inputs that include the coordinates (columns ``q_cols``),
    their rates (``qd_cols``) and accelerations (``qdd_cols``).  Returns a
    system whose inputs are the other columns (accelerations kept, in their
    order) and whose outputs are the static outputs followed by ``[q; qd]``.
    """
    n = len(q_cols)
    ny, nin = g.shape(static)
    keep = [c for c in range(nin) if c not in set(q_cols) | set(qd_cols)]
    nv = len(keep)
    a = np.zeros((2 * n, 2 * n))
    a[:n, n:] = np.eye(n)
    b = np.zeros((2 * n, nv))
    for i, c in enumerate(qdd_cols):
        b[n + i, keep.index(c)] = 1.0
    c_mat = np.zeros((nin + 2 * n, 2 * n))
    d_mat = np.zeros((nin + 2 * n, nv))
    for i, c in enumerate(q_cols):
        c_mat[c, i] = 1.0
    for i, c in enumerate(qd_cols):
        c_mat[c, n + i] = 1.0
    for i, c in enumerate(keep):
        d_mat[c, i] = 1.0
    c_mat[nin:, :] = np.eye(2 * n)
    k = control.ss(a, b, c_mat, d_mat)
    s = lft.umat(static) if g.is_number(static) else static
    return lft.block_diag(s, np.eye(2 * n)) @ k
