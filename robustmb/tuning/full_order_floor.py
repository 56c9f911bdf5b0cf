"""The full-order H-infinity level: an SDP estimate and a certified lower bound (floor).

Gahinet and Apkarian's characterisation ("A linear matrix inequality approach to
H-infinity control", Int. J. Robust Nonlinear Control 4, 1994): a controller of order at
most ``n`` with ``||Fl(P, K)||_inf < g`` exists iff symmetric ``X, Y`` satisfy

    To' Mx(X, g) To < 0,   Tc' My(Y, g) Tc < 0,   W = [[X, I], [I, Y]] >= 0,

    Mx = [[A'X + XA, X B1, C1'], [B1'X, -g I, D11'], [C1, D11, -g I]],
    My = [[AY + YA', Y C1', B1], [C1 Y, -g I, D11], [B1', D11', -g I]],

with ``To = diag(No, I)``, ``No`` a basis of the null space of ``[C2 D21]``, and
``Tc = diag(Nc, I)``, ``Nc`` one of ``[B2' D12']``.  The smallest such ``g`` (an SDP) is
the full-order optimum, and no controller of order ``<= n`` -- a static gain, a PID on
this plant -- does better.  A solver only *estimates* it: on singular plants the infimum
is not attained and the returned optimum moves with the scaling of the data.

The *certified floor* comes from the dual side (weak duality).  For ``Zx, Zy >= 0`` and
``Q = [[Q11, Q12], [Q12', Q22]] >= 0`` put ``Sx = To Zx To'``, ``Sy = Tc Zy Tc'``; the
Lagrangian ``g + <Sx, Mx> + <Sy, My> - <Q, W>`` is at most ``g`` at every feasible point
and it does not depend on ``X, Y, g`` when

    Q11 = A Sx11 + Sx11 A' + Sx12 B1' + B1 Sx12',
    Q22 = A' Sy11 + Sy11 A + Sy12 C1 + C1' Sy12',
    t := <Sx, diag(0, I, I)> + <Sy, diag(0, I, I)> > 0

(after dividing ``Sx, Sy, Q`` by ``t``).  Its value

    floor = (<Sx, Mx(0, 0)> + <Sy, My(0, 0)> - 2 trace(Q12)) / t

is then below every achievable level.  The dual point comes from an SDP solved in floating
point; the statement above is checked in exact rational arithmetic on the plant's own
floats (exact null-space bases, ``Q11, Q22`` and ``t`` formed exactly, positive
definiteness by Sylvester's criterion on integers), so rounding in the solver can make
the floor lower than the optimum but never false.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..analysis._statespace import as_statespace_data
from ..errors import DimensionError, IllPosedError
from ..synthesis.lmi import CLARABEL_TIGHT
from ..synthesis.lmi_dual import dual_sdp_terms
from ._exact import floor_float, is_positive_definite_exact, nullspace_exact, to_exact

# Margins of the dual point inside its cone (relative), tried in increasing order: a
# larger margin survives more rounding but costs value, so the first certified is kept.
_MARGINS = (1e-10, 1e-8, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 1e-3)
# Weights of the deepest point added to the dual optimum, relative to the optimum's
# ``trace Zx + trace Zy`` (see ``_combined``), increasing.
_WEIGHTS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3)
# Relative losses of value allowed to the deepest near-optimal dual point, increasing.
_LOSSES = (1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)


@dataclass
class FullOrderFloor:
    """Result of :func:`full_order_floor`.

    Attributes
    ----------
    lower : float
        Certified lower bound on the H-infinity norm of ``Fl(P, K)`` over every controller
        ``K`` of order at most ``n`` (static gains and PIDs included); ``0.0`` when no
        certificate was found (0 is always a bound).
    estimate : float
        The SDP optimum as the solver returned it: an estimate of the full-order optimum,
        neither an upper nor a lower bound (nan when the primal solve failed).
    certified : bool
        Whether ``lower`` comes from a dual certificate checked exactly.
    """

    lower: float
    estimate: float
    certified: bool


def _partition(P, nmeas, ncon, who):
    a, b, c, d, dt = as_statespace_data(P, argname="P")
    if dt != 0:
        raise DimensionError(f"{who}: continuous-time plants only")
    nw, nz = b.shape[1] - ncon, c.shape[0] - nmeas
    if nw < 1 or nz < 1:
        raise DimensionError(f"{who}: P of shape {d.shape} has no performance channels")
    return dict(
        a=a,
        b1=b[:, :nw],
        b2=b[:, nw:],
        c1=c[:nz],
        c2=c[nz:],
        d11=d[:nz, :nw],
        d12=d[:nz, nw:],
        d21=d[nz:, :nw],
    )


def _primal(m, to, tc, solver):
    """Primal SDP: ``(gamma, X, Y)`` (``X`` of the ``Mx`` inequality)."""
    import cvxpy as cp

    a, b1, c1, d11 = m["a"], m["b1"], m["c1"], m["d11"]
    n, nw, nz = a.shape[0], b1.shape[1], c1.shape[0]
    x = cp.Variable((n, n), symmetric=True)
    y = cp.Variable((n, n), symmetric=True)
    g = cp.Variable()
    mx = cp.bmat(
        [
            [a.T @ x + x @ a, x @ b1, c1.T],
            [b1.T @ x, -g * np.eye(nw), d11.T],
            [c1, d11, -g * np.eye(nz)],
        ]
    )
    my = cp.bmat(
        [
            [a @ y + y @ a.T, y @ c1.T, b1],
            [c1 @ y, -g * np.eye(nz), d11],
            [b1.T, d11.T, -g * np.eye(nw)],
        ]
    )
    sym = lambda e: 0.5 * (e + e.T)  # noqa: E731 - cvxpy wants explicit symmetry
    cons = [
        sym(to.T @ mx @ to) << 0,
        sym(tc.T @ my @ tc) << 0,
        cp.bmat([[x, np.eye(n)], [np.eye(n), y]]) >> 0,
    ]
    prob = cp.Problem(cp.Minimize(g), cons)
    try:
        prob.solve(solver=solver or cp.CLARABEL)
    except cp.error.SolverError as exc:
        raise IllPosedError(f"full-order LMI: the solver failed ({exc})") from None
    except BaseException as exc:  # Clarabel's panics (pyo3 PanicException), see _dual
        if type(exc).__name__ != "PanicException":
            raise
        raise IllPosedError(f"full-order LMI: the solver failed ({exc})") from None
    if g.value is None:
        raise IllPosedError(f"full-order LMI: the solver failed ({prob.status})")
    return float(g.value), np.asarray(x.value), np.asarray(y.value)


def _dual(m, to, tc, nq, nr, mu, solver, center=False, level=None, one_sided=False):
    """Dual SDP on its minimal face, ``mu`` inside the cone: float ``(value, Sx, Sy, Q12)``.

    ``center=True`` solves instead for the deepest point of the face's cone (largest
    ``s`` with ``Zx, Zy >= s I`` and ``Q >= s |A| I`` at ``trace Zx + trace Zy = 1``, or
    with a ``level``: at ``t = 1`` among the points of value at least ``level``); its
    ``value`` is that depth ``s`` (``<= 0``: no interior point).  ``one_sided``: the dual
    of the full-control relaxation (``Zy = 0``, ``Q12 = 0``, only ``Q11 >= 0``).

    ``to, tc, nq, nr`` are orthonormal bases: of the spaces of ``Sx``, ``Sy`` and of those
    holding the ranges of ``Q11``, ``Q22`` (``Q12 = nq R nr'``).  The margin ``mu``
    (relative, on ``Zx, Zy`` and on the compressed ``Q``) lets the exact check absorb the
    solver's residuals.  None when the solver fails.
    """
    import cvxpy as cp

    a = m["a"]
    t = dual_sdp_terms(a, m["b1"], m["c1"], m["d11"], to, tc, nq, nr)
    zx, zy, r, sx, sy, q, ex, value = t.zx, t.zy, t.r, t.sx, t.sy, t.q, t.ex, t.value
    qscale = max(np.linalg.norm(a, 2), 1.0)
    fixed = []
    if one_sided:
        q = nq.T @ t.qx @ nq
        fixed = [zy == 0, r == 0]
    if center:
        s = cp.Variable()
        norm = [cp.trace(zx) + cp.trace(zy) == 1]
        if level is not None:
            norm = [cp.trace(sx @ ex) + cp.trace(sy @ ex) == 1, value >= level]
        cons = norm + [
            0.5 * (q + q.T) >> s * qscale * np.eye(q.shape[0]),
            zx >> s * np.eye(zx.shape[0]),
            *([] if one_sided else [zy >> s * np.eye(zy.shape[0])]),
        ]
        prob = cp.Problem(cp.Maximize(s), cons + fixed)
    else:
        cons = [
            cp.trace(sx @ ex) + cp.trace(sy @ ex) == 1,
            0.5 * (q + q.T) >> mu * qscale * np.eye(q.shape[0]),
            zx >> mu * np.eye(zx.shape[0]),
            *([] if one_sided else [zy >> mu * np.eye(zy.shape[0])]),
        ]
        prob = cp.Problem(cp.Maximize(value), cons + fixed)
    try:
        tight = mu == 0 and solver in (None, cp.CLARABEL, "CLARABEL")
        prob.solve(solver=solver or cp.CLARABEL, **(CLARABEL_TIGHT if tight else {}))
    except (cp.error.SolverError, ValueError):
        # ValueError: cvxpy cannot form a cone of an empty face (augmented AC1)
        return None
    except BaseException as exc:
        # Clarabel's internal panics reach Python as pyo3's PanicException, a
        # BaseException (seen on the augmented COMPleib AC1): a failed solve like any other.
        if type(exc).__name__ != "PanicException":
            raise
        return None
    if zx.value is None or prob.status not in ("optimal", "optimal_inaccurate"):
        return None
    sxv = to @ zx.value @ to.T
    syv = tc @ zy.value @ tc.T
    val = float(s.value) if center else float(prob.value)
    return val, 0.5 * (sxv + sxv.T), 0.5 * (syv + syv.T), nq @ r.value @ nr.T


def _inner(z):
    """``z`` moved just inside the PSD cone: shifted by twice its most negative eigenvalue
    (each shift changes ``Q``, so it is kept as small as the solver's residual)."""
    z = 0.5 * (z + z.T)
    low = np.linalg.eigvalsh(z)[0] if z.size else 0.0
    return z + (2.0 * max(-low, 0.0) + 1e-300) * np.eye(z.shape[0])


def _coords(basis_f, s):
    """``z`` with ``basis z basis' ~ s`` (least squares)."""
    left = np.linalg.lstsq(basis_f, s, rcond=None)[0]
    return np.linalg.lstsq(basis_f, left.T, rcond=None)[0]


def _free(N):
    """Rows of the exact basis ``N`` (from :func:`nullspace_exact`) that hold the identity."""
    rows = []
    for j in range(N.shape[1]):
        rows.append(next(i for i in range(N.shape[0]) if N[i, j] == 1 and sum(N[i] != 0) == 1))
    return rows


def _exact_bound(m, bases, sx, sy, q12, one_sided=False):
    """Exact check of a float dual point; the certified value (rational) or None.

    ``one_sided``: the point of the full-control relaxation (see :func:`_certify`), ``Sy``
    and ``Q12`` taken as exactly zero and ``Q11 >= 0`` checked alone.
    """
    to_ex, tc_ex, nq_ex, nr_ex = bases
    a, b1, c1 = m["a"], m["b1"], m["c1"]
    n, nw, nz = a.shape[0], b1.shape[1], c1.shape[0]
    # Coordinates of the float point in the exact bases (rounding here only changes which
    # dual point is checked).
    zx = _inner(_coords(to_ex.astype(float), sx))
    zy = _inner(_coords(tc_ex.astype(float), sy))
    zx_e, zy_e = to_exact(0.5 * (zx + zx.T)), to_exact(0.5 * (zy + zy.T))
    if one_sided:
        zy_e = to_exact(np.zeros(zy.shape))
    if not is_positive_definite_exact(zx_e):
        return None
    if not (one_sided or is_positive_definite_exact(zy_e)):
        return None
    A, B1, C1, D11 = (to_exact(m[k]) for k in ("a", "b1", "c1", "d11"))
    Sx = to_ex @ zx_e @ to_ex.T
    Sy = tc_ex @ zy_e @ tc_ex.T
    Qx = A @ Sx[:n, :n] + Sx[:n, :n] @ A.T + Sx[:n, n : n + nw] @ B1.T + B1 @ Sx[n : n + nw, :n]
    Qy = A.T @ Sy[:n, :n] + Sy[:n, :n] @ A + Sy[:n, n : n + nz] @ C1 + C1.T @ Sy[n : n + nz, :n]
    t = sum(Sx[i, i] for i in range(n, n + nw + nz)) + sum(Sy[i, i] for i in range(n, n + nz + nw))
    if t <= 0:
        return None
    # Q11 = nq G nq' and Q22 = nr H nr' exactly (their ranges lie in the faces by
    # construction; checked), so Q >= 0 follows from [[G, R], [R', H]] > 0 for Q12 = nq R nr'.
    fq, fr = _free(nq_ex), _free(nr_ex)
    G = Qx[np.ix_(fq, fq)]
    H = Qy[np.ix_(fr, fr)]
    if np.any(nq_ex @ G @ nq_ex.T != Qx) or np.any(nr_ex @ H @ nr_ex.T != Qy):
        return None
    base = 2 * (
        np.sum(Sx[n + nw :, :n] * C1)
        + np.sum(Sx[n + nw :, n : n + nw] * D11)
        + np.sum(Sy[n + nz :, :n] * B1.T)
        + np.sum(Sy[n + nz :, n : n + nz] * D11.T)
    )
    if one_sided:  # Q = diag(Q11, 0), Q12 = 0
        return base / t if is_positive_definite_exact(G) else None
    r = np.linalg.lstsq(nq_ex.astype(float), q12, rcond=None)[0]
    r = np.linalg.lstsq(nr_ex.astype(float), r.T, rcond=None)[0].T
    # R is free: shrink it towards 0 until the block matrix is positive definite (its
    # trace term is the only price).
    for shrink in (1.0, 1 - 1e-9, 1 - 1e-6, 1 - 1e-3, 0.99, 0.9, 0.5, 0.0):
        R = to_exact(shrink * r)
        if is_positive_definite_exact(np.block([[G, R], [R.T, H]])):
            Q12 = nq_ex @ R @ nr_ex.T
            return (base - 2 * sum(Q12[i, i] for i in range(n))) / t
    return None


def _bases(m):
    """Exact bases ``(To, Tc, Nq, Nr)`` of the dual's minimal face (object arrays).

    Rows of ``[C2 D21]`` free of ``D21`` (``C^ = L C2`` with ``L D21 = 0``) let ``X`` grow
    along ``C^' M C^`` without changing the ``X`` inequality; every dual point therefore
    has ``Q11 C^' = 0``, which holds exactly when ``Sx`` also lives in the null space of
    ``C^ [A B1]``.  ``Nq`` spans the null space of ``C^`` (the range of ``Q11``).  The same
    on the ``Y`` side with ``B^ = B2 R``, ``D12 R = 0``.
    """
    nw, nz = m["b1"].shape[1], m["c1"].shape[0]
    A, B1, C1 = to_exact(m["a"]), to_exact(m["b1"]), to_exact(m["c1"])
    C2, D21, B2, D12 = (to_exact(m[k]) for k in ("c2", "d21", "b2", "d12"))

    def diag_eye(nb, k):
        out = np.empty((nb.shape[0] + k, nb.shape[1] + k), dtype=object)
        out[...] = 0
        out[: nb.shape[0], : nb.shape[1]] = nb
        for i in range(k):
            out[nb.shape[0] + i, nb.shape[1] + i] = 1
        return out

    chat = nullspace_exact(D21.T).T @ C2
    no = nullspace_exact(np.vstack([np.hstack([C2, D21]), np.hstack([chat @ A, chat @ B1])]))
    bhat = B2 @ nullspace_exact(D12)
    nc = nullspace_exact(
        np.vstack([np.hstack([B2.T, D12.T]), np.hstack([bhat.T @ A.T, bhat.T @ C1.T])])
    )
    return diag_eye(no, nz), diag_eye(nc, nw), nullspace_exact(chat), nullspace_exact(bhat.T)


def _plain_bases(m):
    """Float orthonormal ``To, Tc`` of the primal LMIs (plain null spaces)."""
    nw, nz = m["b1"].shape[1], m["c1"].shape[0]
    no = sla.null_space(np.hstack([m["c2"], m["d21"]]))
    nc = sla.null_space(np.hstack([m["b2"].T, m["d12"].T]))
    return sla.block_diag(no, np.eye(nz)), sla.block_diag(nc, np.eye(nw))


def _orth(t_ex):
    return sla.orth(t_ex.astype(float)) if t_ex.shape[1] else t_ex.astype(float)


def _transform(m, T):
    Ti = np.linalg.inv(T)
    out = dict(m)
    out.update(a=T @ m["a"] @ Ti, b1=T @ m["b1"], b2=T @ m["b2"], c1=m["c1"] @ Ti, c2=m["c2"] @ Ti)
    return out


def _balancing(x, y):
    """``T`` with ``T Y T'`` and ``T^-T X T^-1`` equal and diagonal (None if not definite)."""
    try:
        ly = np.linalg.cholesky(0.5 * (y + y.T))
    except np.linalg.LinAlgError:
        return None
    u, s, _ = np.linalg.svd(ly.T @ (0.5 * (x + x.T)) @ ly)
    if s[-1] <= 0:
        return None
    T = (s**0.25)[:, None] * np.linalg.solve(ly.T, u).T
    return T if np.all(np.isfinite(T)) and np.linalg.cond(T) < 1e12 else None


def full_order_gamma(P, nmeas, ncon, *, solver=None):
    """Estimate of the optimal continuous-time full-order H-infinity level (SDP optimum).

    An *estimate*: on singular plants the SDP's infimum is not attained and the value the
    solver returns moves with the data's scaling (by up to 25 % on COMPleib AC7).  For a
    bound no controller can beat, use :func:`full_order_floor` (``.lower``).

    Parameters
    ----------
    P : control.StateSpace
        Generalised plant; its last ``nmeas`` outputs are measurements and last
        ``ncon`` inputs controls (``D22`` is ignored: it does not change the optimum).
    nmeas, ncon : int
    solver : str, optional
        cvxpy solver (default CLARABEL).

    Returns
    -------
    float
        The SDP optimum as solved.

    Examples
    --------
    >>> import control
    >>> # x' = -x + w + u, z = [x; u], y = x + w: the optimum is below the open loop's 1.
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> g = full_order_gamma(P, 1, 1)
    >>> bool(0.0 < g < 1.0)
    True
    """
    m = _partition(P, nmeas, ncon, "full_order_gamma")
    return _primal(m, *_plain_bases(m), solver)[0]


def full_order_floor(P, nmeas, ncon, *, solver=None):
    """Certified lower bound on the H-infinity norm any controller of order ``<= n`` achieves.

    The dual of the Gahinet--Apkarian LMIs is solved (after a state balancing from the
    primal solution) at a few margins from the cone's boundary; each dual point is checked
    in exact rational arithmetic on the plant's own numbers and the best one kept (see the
    module notes).  The bound holds for static gains, PIDs and every controller whose order
    does not exceed the plant's.

    The dual is restricted to the face that the rows of ``C2`` free of ``D21`` (and the
    columns of ``B2`` free of ``D12``) force.  When no margin gives a point that passes,
    the deepest dual point of near-optimal value is tried (thin faces); when that fails
    too, the same on a relaxation: the plant with the derivatives of its noise-free
    measurements (and controls acting as derivatives of its unpenalised ones) added, whose
    optimum is at most the plant's and whose face is right when a measurement has relative
    degree above one.  When the optimal face is smaller still -- ``Y`` growing along the
    direction of a stable invariant zero of ``(A, B2, C1, D12)`` with ``D12`` square
    (:mod:`robustmb.synthesis.lmi_dual`; an irrational direction in general) -- no dual
    point can be checked; the last resort is then the full-control relaxation (the
    control-side inequality dropped), a weaker bound, and failing that ``certified`` is
    False (``lower = 0``).  On COMPleib, AC15, AC17, HE2, HE4, REA1 and REA2 are certified
    (within 0.005 %--0.15 % of the estimate), DIS1 (1e-4 below a verified controller, on
    the augmented plant), AC6 (1.0 % below, by the thin-face step) and HE1 (full-control
    relaxation: 0.05546, 25 % below a verified 0.0736166 -- loose); AC1 (optimum about
    3e-5), AC2 and AC7 are not.

    Parameters
    ----------
    P : control.StateSpace
        Continuous generalised plant; last ``nmeas`` outputs are measurements, last
        ``ncon`` inputs controls (``D22`` plays no role).
    nmeas, ncon : int
    solver : str, optional
        cvxpy solver (default CLARABEL).

    Returns
    -------
    FullOrderFloor
        ``.lower`` (certified; 0 when no dual point passed), ``.estimate`` (SDP optimum),
        ``.certified``.

    Raises
    ------
    DimensionError
        A discrete-time plant, or no performance channels.  (A failing SDP solver gives
        ``estimate = nan`` and, without a dual point, ``certified = False``.)

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> # Unstable 1/(s - 1), disturbance at its input, z = [x; 0.1 u], y = x + 0.1 n.
    >>> P = control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]])
    >>> fl = full_order_floor(P, 1, 1)
    >>> K = rmb.hinfsyn(P, 1, 1)           # a verified full-order controller
    >>> bool(fl.certified and 0.0 < fl.lower <= K.gamma)
    True
    >>> round(fl.lower, 5)
    0.15177
    """
    m0 = _partition(P, nmeas, ncon, "full_order_floor")
    try:
        est0 = _primal(m0, *_plain_bases(m0), solver)[0]
    except IllPosedError:
        est0 = float("nan")  # the dual may still solve; the estimate is then unknown
    # Then with z scaled by a power of two (exact in floating point: every level scales by
    # it), the optimum near 1, when the plant's own scaling gives no certificate.
    k = int(np.clip(np.round(np.log2(est0)), -60, 60)) if est0 > 0 else 0
    # Then on the plant with more measurements and controls (a relaxation, see _augmented);
    # last, the full-control relaxation (control-side inequality dropped), a weaker bound.
    aug = _augmented(m0)
    for base, one_sided in ((m0, False), (aug, False), (aug or m0, True)):
        if base is None:
            continue
        for kk in [0] + ([k] if k else []):
            m = dict(
                base,
                c1=np.ldexp(base["c1"], -kk),
                d11=np.ldexp(base["d11"], -kk),
                d12=np.ldexp(base["d12"], -kk),
            )
            best = _certify(m, solver, one_sided)
            if best is not None:
                lower = max(float(np.ldexp(floor_float(best), kk)), 0.0)
                return FullOrderFloor(lower, est0, True)
    return FullOrderFloor(0.0, est0, False)


def _rank(M):
    return np.linalg.matrix_rank(M, tol=1e-9 * max(np.abs(M).max(), 1e-300)) if M.size else 0


def _with_derivatives(a, b1, c, d):
    """``(c, d)`` with the derivatives of the noise-free measurements added as rows:
    ``C^ A`` and ``C^ B1`` with ``C^ = L c``, ``L d = 0``, repeated on the new rows while
    the rank of ``[c, d]`` grows (at most ``n`` times)."""
    for _ in range(a.shape[0]):
        chat = sla.null_space(d.T).T @ c if d.shape[0] else c
        if not chat.size:
            break
        cn, dn = np.vstack([c, chat @ a]), np.vstack([d, chat @ b1])
        if _rank(np.hstack([cn, dn])) == _rank(np.hstack([c, d])):
            break
        c, d = cn, dn
    return c, d


def _augmented(m):
    """The plant with the derivatives of its noise-free measurements measured too, and
    controls acting as derivatives of its unpenalised ones (None when nothing is added).

    ``y' = [y; C^ A x + C^ B1 w]`` with ``C^ = L C2``, ``L D21 = 0`` (repeated on the new
    rows while the rank grows), and new controls entering as ``A B^`` in the state and
    ``C1 B^`` in ``z`` with ``B^ = B2 R``, ``D12 R = 0`` (repeated likewise).  Every
    controller ``K`` of the plant is the controller ``[[K, 0], [0, 0]]`` of the augmented
    one, with the same closed loop and order, so the augmented plant's optimum -- and any
    floor of it -- is at most the plant's.  Its data hold the plant's own numbers exactly
    (the added rows and columns are rounded products, which does not matter: any added
    measurement or control keeps the relaxation valid).  The point is the dual's face: on
    plants where a noise-free measurement has relative degree above one (DIS1), the face
    formed by :func:`_bases` is too large, while the augmented plant's is right.
    """
    a = m["a"]
    c, d = _with_derivatives(a, m["b1"], m["c2"], m["d21"])
    # the control side is the measurement side of the transposed (dual) plant
    bt, et = _with_derivatives(a.T, m["c1"].T, m["b2"].T, m["d12"].T)
    b, e = bt.T, et.T
    if c.shape == m["c2"].shape and b.shape == m["b2"].shape:
        return None
    return dict(m, c2=c, d21=d, b2=b, d12=e)


def _certify(m, solver, one_sided=False):
    """Best exactly checked dual value of the plant ``m`` (a Fraction) or None.

    ``one_sided``: of the full-control relaxation instead (the control-side inequality
    dropped: ``Sy = 0``), a weaker bound whose dual face involves only the filter side.
    """
    bases = _bases(m)
    to_ex, tc_ex, nq_ex, nr_ex = bases
    try:
        _, x, y = _primal(m, *_plain_bases(m), solver)
        T = _balancing(x, y)
    except (IllPosedError, ArithmeticError, np.linalg.LinAlgError):
        T = None  # the balancing is only an aid
    nw, nz = m["b1"].shape[1], m["c1"].shape[0]
    best = None
    # The dual is solved in the original state coordinates and in balanced ones (x_b = T x,
    # from the primal solution), at increasing margins; the exact check always uses the
    # original data.
    for Tk in [np.eye(m["a"].shape[0])] + ([T] if T is not None else []):
        Ti = np.linalg.inv(Tk)
        jx = sla.block_diag(Ti, np.eye(nw + nz))
        jy = sla.block_diag(Tk, np.eye(nz + nw))
        spaces = (
            _orth(sla.block_diag(Tk, np.eye(nw + nz)) @ to_ex.astype(float)),
            _orth(sla.block_diag(Ti.T, np.eye(nz + nw)) @ tc_ex.astype(float)),
            _orth(Tk @ nq_ex.astype(float)),
            _orth(Ti.T @ nr_ex.astype(float)),
        )
        found = None
        for mu in _MARGINS:
            cand = _dual(_transform(m, Tk), *spaces, mu, solver, one_sided=one_sided)
            if cand is None:
                continue
            _, sxb, syb, q12b = cand
            # Original coordinates: Sx = J Sx_b J', Sy = K' Sy_b K, Q12 = T^-1 Q12_b T.
            found = _exact_bound(
                m, bases, jx @ sxb @ jx.T, jy.T @ syb @ jy, Ti @ q12b @ Tk, one_sided
            )
            if found is not None:
                break
        if found is None:
            maps = (jx, jy, Ti, Tk)
            found = _combined(m, bases, _transform(m, Tk), spaces, solver, maps, one_sided)
        if found is not None:
            best = found if best is None else max(best, found)
    return best


def _combined(m, bases, mb, spaces, solver, maps, one_sided=False):
    """A dual point deep enough inside the face to pass the exact check, near the optimum.

    Used when no margin of ``_MARGINS`` gives a point that passes: on thin faces (COMPleib
    AC6: the deepest point of unit trace lies 2e-6 inside, the solver's residuals are
    1e-6) a margin fixed in advance is either too small for the residuals or costs all the
    value.  First the deepest point among those whose value is within ``_LOSSES`` of the
    margin-free optimum's (each checked exactly, the first that passes kept).  Failing
    that, the optimum plus ``w`` times the face's deepest point (value unconstrained): the
    cone is convex, so the sum is dual feasible and lies deeper inside the face as ``w``
    grows, while its value ``(v_opt + w v_deep) / (t_opt + w t_deep)`` moves away from the
    optimum.  None when the face has no interior or nothing passes.
    """
    jx, jy, Ti, Tk = maps
    side = {"one_sided": one_sided}
    opt = _dual(mb, *spaces, 0.0, solver, **side)
    if opt is None:
        return None
    # First the deepest point among those of value near the optimum's: checked directly.
    for loss in _LOSSES:
        level = opt[0] - loss * abs(opt[0])
        near = _dual(mb, *spaces, 0.0, solver, center=True, level=level, **side)
        if near is not None and near[0] > 0:
            sxb, syb, q12b = near[1:]
            val = _exact_bound(
                m, bases, jx @ sxb @ jx.T, jy.T @ syb @ jy, Ti @ q12b @ Tk, one_sided
            )
            if val is not None:
                return val
    deep = _dual(mb, *spaces, 0.0, solver, center=True, **side)
    if deep is None or not deep[0] > 0:
        return None
    size = np.trace(opt[1]) + np.trace(opt[2])  # the deep point has trace Zx + trace Zy = 1
    for w in _WEIGHTS:
        sxb, syb, q12b = (o + w * size * d for o, d in zip(opt[1:], deep[1:], strict=True))
        val = _exact_bound(m, bases, jx @ sxb @ jx.T, jy.T @ syb @ jy, Ti @ q12b @ Tk, one_sided)
        if val is not None:
            return val
    return None
