"""Exact LFT algebra: sums, products, concatenation, feedback, LFTs and star products.

Each operation appends the operands' realizations (merging elements of equal
names into repeated blocks) and closes a static interconnection of their
external channels (:mod:`.realization`), so the result is an exact LFT of the
same map.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError, DivisionByZeroError, UncertainTypeError
from . import realization as rz
from .arguments import integer
from .canonical_basis import canonical_basis, unit_basis
from .delta import check_nominal_well_posed
from .model import (
    UncertainModel,
    as_model,
    common_dt,
    interconnect,
    stack,
    static_model,
    unique_names,
)


def _models(*xs):
    return [as_model(x) for x in xs]


def is_scalar_number(x):
    return isinstance(x, numbers.Number) or (
        isinstance(x, np.ndarray | np.generic) and np.ndim(x) == 0
    )


def _is_1x1(m: UncertainModel):
    return m.shape == (1, 1)


def _scale(m: UncertainModel, c) -> UncertainModel:
    """Multiply a model by a number: scaling its output channels only."""
    c = complex(c) if isinstance(c, complex) or np.iscomplexobj(c) else float(c)
    if not np.isfinite(c):
        raise DimensionError(f"cannot scale by a non-finite number {c}")
    r = m._real
    nz = r.nz
    cmat = r.c.astype(np.result_type(r.c, c)).copy()
    dmat = r.d.astype(np.result_type(r.d, c)).copy()
    cmat[nz:] *= c
    dmat[nz:] *= c
    real = rz.make_realization(r.a, r.b, cmat, dmat, r.blocks)
    return m._like(real, dt=m.dt, input_names=m.input_names, output_names=m.output_names)


def negate(x):
    """``-x``."""
    return _scale(as_model(x), -1.0)


def _expand_scalar(s: UncertainModel, shape) -> UncertainModel:
    """A 1x1 object repeated into every entry of a ``shape`` matrix (one occurrence)."""
    p, m = shape
    return matmul(matmul(np.ones((p, 1)), s), np.ones((1, m)))


def add(x, y):
    """``x + y`` with scalar expansion of 1x1 operands.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> (a + 2).nominal()
    array([[3.]])
    """
    mx, my = _models(x, y)
    if mx.shape != my.shape:
        if _is_1x1(mx):
            mx = _expand_scalar(mx, my.shape)
        elif _is_1x1(my):
            my = _expand_scalar(my, mx.shape)
        else:
            raise DimensionError(f"cannot add a {mx.shape} object to a {my.shape} object")
    ny, nu = mx.shape
    rin = np.vstack([np.eye(nu), np.eye(nu)])
    lout = np.hstack([np.eye(ny), np.eye(ny)])
    src = mx if not isinstance(x, numbers.Number) else my
    return interconnect(
        [mx, my], rin, None, lout, input_names=src.input_names, output_names=src.output_names
    )


def matmul(x, y):
    """Matrix product / series connection ``x @ y`` (``y`` acts first).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 2.0)
    >>> (np.array([[1.0], [2.0]]) @ a).nominal()
    array([[2.],
           [4.]])
    """
    if is_scalar_number(x):
        return _scale(as_model(y), x)
    if is_scalar_number(y):
        return _scale(as_model(x), y)
    mx, my = _models(x, y)
    if mx.shape[1] != my.shape[0]:
        raise DimensionError(
            f"cannot multiply a {mx.shape} object by a {my.shape} object: "
            f"{mx.shape[1]} inputs vs {my.shape[0]} outputs"
        )
    ny1, nu1 = mx.shape
    ny2, nu2 = my.shape
    # inputs u = [u1; u2], outputs y = [y1; y2]; u1 = y2, u2 = v, o = y1.
    rin = np.vstack([np.zeros((nu1, nu2)), np.eye(nu2)])
    fb = np.zeros((nu1 + nu2, ny1 + ny2))
    fb[:nu1, ny1:] = np.eye(ny2)
    lout = np.hstack([np.eye(ny1), np.zeros((ny1, ny2))])
    return interconnect(
        [mx, my], rin, fb, lout, input_names=my.input_names, output_names=mx.output_names
    )


# A nonzero entry of a * M may be a sum of terms up to this many times larger than
# the entry: its rounding is then at most a few multiples of this times eps.
_CANCEL = 16.0


def _geometric_scaling(d, sweeps=10):
    """Powers of two ``(rows, cols)`` with ``d / rows / cols`` of entries near 1 in magnitude.

    ``log2 |d_ij| ~ r_i + c_j`` is fitted over the nonzero entries by alternating
    means (a least-squares fit), so a matrix ``D1 C D2`` with diagonal ``D1, D2`` of
    any magnitudes becomes about ``C``.  Dividing by powers of two is exact.
    """
    nz = d != 0
    logs = np.log2(np.abs(np.where(nz, d, 1.0)))
    per_row = np.maximum(nz.sum(axis=1), 1)
    per_col = np.maximum(nz.sum(axis=0), 1)
    r = np.zeros(d.shape[0])
    c = np.zeros(d.shape[1])
    for _ in range(sweeps):
        r = np.where(nz, logs - c[None, :], 0.0).sum(axis=1) / per_row
        c = np.where(nz, logs - r[:, None], 0.0).sum(axis=0) / per_col
    return np.exp2(np.round(r)), np.exp2(np.round(c))


def _rank_factors(d):
    """``(left, right)`` with ``d = left @ right`` in every entry and the fewest columns.

    The rank is decided on ``d`` equilibrated by power-of-two row and column
    scalings (:func:`_geometric_scaling`), which are exact and make the decision
    free of units: ``diag(1e8, 1e-8)`` has rank 2, not 1.  The factors are
    accepted only if every entry of ``left @ right`` is free of cancellation,
    whatever order it is summed in (an LFT evaluation sums it differently from
    numpy): a zero of ``d`` has no nonzero term ``left[i, k] * right[k, j]``, so
    it stays an exact zero for every value of the scalar; a nonzero entry has
    ``(|left| @ |right|)[i, j] <= _CANCEL * |d[i, j]|``, so its rounding stays
    relative to itself; and ``left @ right`` reproduces ``d`` to rounding.
    Otherwise, or when the rank is full, ``None``: the caller repeats the scalar
    along the shorter side, which is exact for every entry.
    """
    p, q = d.shape
    with np.errstate(over="ignore", under="ignore"):
        rows, cols = _geometric_scaling(d)
    # scalings beyond the float range (entries spread over more than ~600 decades)
    # would divide by 0 or inf: no factorisation then
    if not all(np.all(np.isfinite(x) & (x > 0)) for x in (rows, cols)):
        return None
    with np.errstate(over="ignore", under="ignore"):
        e = d / rows[:, None] / cols[None, :]
    if not np.all(np.isfinite(e)):
        return None
    u, sv, _ = np.linalg.svd(e)
    tol = max(p, q) * np.finfo(float).eps * sv[0]
    k = int(np.sum(sv > tol))
    if k >= min(p, q):
        return None
    # Two factorisations that depend on the range of e only (not on the signs LAPACK
    # gives the singular vectors); the first acceptable one is used.  e = Q (Q^H e)
    # with Q the canonical orthonormal basis; d = b' d[piv] with b' the basis equal to I
    # on pivot rows, which copies those rows of d (their zeros included) exactly.
    basis = canonical_basis(u[:, :k])
    piv, b = unit_basis(u[:, :k])
    zero = d == 0
    mag = np.abs(d)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for left, right in (
            (rows[:, None] * basis, (basis.conj().T @ e) * cols[None, :]),
            (rows[:, None] * b / rows[piv][None, :], d[piv]),
        ):
            if not (np.all(np.isfinite(left)) and np.all(np.isfinite(right))):
                continue
            # structural: the zeros of d are zeros of every term, not sums cancelling
            terms = (left != 0).astype(int) @ (right != 0).astype(int)
            if np.any(terms[zero]):
                continue
            if np.any((np.abs(left) @ np.abs(right))[~zero] > _CANCEL * mag[~zero]):
                continue
            err = np.abs(left @ right - d)
            if np.all(err <= 16 * max(p, q) * np.finfo(float).eps * mag):
                return left, right
    return None


def _scalar_times(s: UncertainModel, m: UncertainModel):
    """``s * m`` for an uncertain 1x1 ``s``: the fewest repetitions of ``s``'s blocks."""
    p, q = m.shape
    factors = None
    if not m._real.blocks and m.nstates == 0:
        # A constant matrix: factor it by rank so s enters rank(D) times.
        d = m._real.d
        if not np.any(d):
            return static_model(
                np.zeros((p, q)),
                dt=common_dt([s.dt, m.dt]),
                is_system=s.is_system or m.is_system,
            )
        factors = _rank_factors(d) if d.size else None
    if factors is not None:
        left, right = factors
        out = matmul(matmul(left, block_diag(*([s] * left.shape[1]))), right)
        # the numpy factors carry neither m's sampling time nor its kind (a static system)
        out = out._like(out._real, is_system=s.is_system or m.is_system, dt=common_dt([s.dt, m.dt]))
    elif p <= q:
        out = matmul(block_diag(*([s] * p)), m)
    else:
        out = matmul(m, block_diag(*([s] * q)))
    out.input_names, out.output_names = m.input_names, m.output_names
    return out


def multiply(x, y):
    """``x * y``: matrix product, or entrywise scaling when one operand is 1x1.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 2.0)
    >>> (a * [[1.0, 2.0]]).nominal()
    array([[2., 4.]])
    """
    if is_scalar_number(x) or is_scalar_number(y):
        return matmul(x, y)
    mx, my = _models(x, y)
    if _is_1x1(mx) and not _is_1x1(my):
        return _scalar_times(mx, my)
    if _is_1x1(my) and not _is_1x1(mx):
        return _scalar_times(my, mx)
    return matmul(mx, my)


def _singular_up_to_scaling(d):
    """True when ``d`` is numerically singular after equilibrating its rows and columns.

    Inverting ``diag(1e10, 1e-10)`` is exact: the test must not depend on units.
    """
    mag = np.abs(d)
    rows = mag.max(axis=1)
    if not np.all(rows > 0):
        return True
    mag = mag / rows[:, None]
    cols = mag.max(axis=0)
    if not np.all(cols > 0):
        return True
    eq = d / rows[:, None] / cols[None, :]
    sv = np.linalg.svd(eq, compute_uv=False)
    return bool(sv[-1] <= 1e3 * len(sv) * np.finfo(float).eps * sv[0])


def inv(x):
    """Inverse of a square object whose feedthrough at the range centres is invertible.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 2.0, range=(1.0, 3.0))
    >>> float(rmb.lft.inv(a).usubs({"a": 1.5})[0, 0])
    0.6666666666666666
    """
    m = as_model(x)
    ny, nu = m.shape
    if ny != nu:
        raise DimensionError(f"only square objects can be inverted, got shape {m.shape}")
    r = m._real
    nw, nz = r.nw, r.nz
    dyu = r.d[nz:, nw:]
    if nu and _singular_up_to_scaling(dyu):
        if not np.any(dyu) and not (np.any(r.d[nz:, :nw]) and np.any(r.d[:nz, nw:])):
            raise DimensionError(
                f"cannot invert {m.name!r}: its feedthrough is zero for every value of its "
                "elements (strictly proper), so its inverse is improper"
            )
        names = ", ".join(m.blocks) or "no uncertain elements"
        raise DimensionError(
            f"cannot invert {m.name!r}: its value (feedthrough) at the centre of the ranges of "
            f"{names} is singular, so the inverse is not defined over the whole uncertainty set"
        )
    e = np.linalg.inv(dyu)
    bw, bu = r.b[:, :nw], r.b[:, nw:]
    cz, cy = r.c[:nz], r.c[nz:]
    dzw, dzu, dyw = r.d[:nz, :nw], r.d[:nz, nw:], r.d[nz:, :nw]
    a = r.a - bu @ e @ cy
    b = np.hstack([bw - bu @ e @ dyw, bu @ e])
    c = np.vstack([cz - dzu @ e @ cy, -e @ cy])
    d = np.block([[dzw - dzu @ e @ dyw, dzu @ e], [-e @ dyw, e]])
    real = rz.make_realization(a, b, c, d, r.blocks)
    out = m._like(real, dt=m.dt, input_names=m.output_names, output_names=m.input_names)
    check_nominal_well_posed(out, f"the inverse of {m.name!r}")
    return out


def divide(x, y):
    """``x / y`` for a scalar or square ``y`` (``x @ inv(y)``; scalar ``y`` scales)."""
    if is_scalar_number(y):
        if y == 0:
            raise DivisionByZeroError(f"division of an uncertain object by zero (divisor {y!r})")
        return matmul(x, 1.0 / y)
    my = as_model(y)
    if is_scalar_number(x):
        return matmul(x, inv(my))
    mx = as_model(x)
    if _is_1x1(my):
        # Scalars commute: x / y = inv(y) x.  With the inverse on the output side,
        # the entries of a row such as [-k/m, -c/m, 1/m] share their 1/m.
        return multiply(inv(my), mx)
    return matmul(mx, inv(my))


def power(x, k):
    """Integer power of a square object (negative powers invert)."""
    if not isinstance(k, numbers.Integral):
        raise UncertainTypeError(f"only integer powers are supported, got {k!r}")
    m = as_model(x)
    if m.shape[0] != m.shape[1]:
        raise DimensionError(f"powers need a square object, got shape {m.shape}")
    if k < 0:
        return power(inv(m), -k)
    if k == 0:
        return static_model(np.eye(m.shape[0]), dt=m.dt, is_system=m.is_system)
    out = m
    for _ in range(k - 1):
        out = matmul(out, m)
    return out


def transpose(x):
    """Transpose; every element must be a scalar parameter (``Delta^T = Delta``)."""
    m = as_model(x)
    r = m._real
    full = [n for n, (el, _) in r.blocks.items() if not el.is_scalar]
    if full:
        raise UncertainTypeError(
            f"cannot transpose {m.name!r}: the transpose of the LTI uncertainty {full} is a "
            "different element"
        )
    real = rz.make_realization(r.a.T, r.c.T, r.b.T, r.d.T, r.blocks)
    return m._like(real, dt=m.dt, input_names=m.output_names, output_names=m.input_names)


def select(x, rows, cols):
    """Sub-object of the given output rows and input columns."""
    m = as_model(x)
    ny, nu = m.shape
    rin = np.eye(nu)[:, cols]
    lout = np.eye(ny)[rows, :]
    return interconnect(
        [m],
        rin,
        None,
        lout,
        input_names=[m.input_names[i] for i in cols],
        output_names=[m.output_names[i] for i in rows],
    )


def _operands(xs, what):
    """Operands given as arguments or, as numpy does, as one list or tuple of them."""
    if len(xs) == 1 and isinstance(xs[0], list | tuple):
        xs = tuple(xs[0])
    if not xs:
        raise DimensionError(f"{what}: nothing to stack (no operands given)")
    return xs


def hstack(*xs):
    """Horizontal concatenation ``[x1, x2, …]`` (equal numbers of outputs).

    The operands are given as arguments or, as with ``numpy.hstack``, as one
    list or tuple.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> rmb.hstack(a, 2 * a).shape
    (1, 2)
    >>> rmb.hstack([a, 2 * a, 3.0]).shape
    (1, 3)
    """
    return stack(_operands(xs, "hstack"), "h")


def vstack(*xs):
    """Vertical concatenation ``[x1; x2; …]`` (equal numbers of inputs).

    The operands are given as arguments or, as with ``numpy.vstack``, as one
    list or tuple: ``vstack([a, b])`` stacks ``a`` on ``b``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> rmb.vstack(a, 1.0).shape
    (2, 1)
    >>> rmb.vstack([a, 1.0]).shape
    (2, 1)
    """
    return stack(_operands(xs, "vstack"), "v")


def block_diag(*xs):
    """Block-diagonal concatenation (appended inputs and outputs).

    The operands are given as arguments or as one list or tuple.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> rmb.block_diag(a, [[1.0, 2.0]]).shape
    (2, 3)
    """
    ms = _models(*_operands(xs, "block_diag"))
    if len(ms) == 1:
        return ms[0]
    nu = sum(m.shape[1] for m in ms)
    ny = sum(m.shape[0] for m in ms)
    return interconnect(
        ms,
        np.eye(nu),
        None,
        np.eye(ny),
        input_names=unique_names(n for m in ms for n in m.input_names),
        output_names=unique_names(n for m in ms for n in m.output_names),
    )


def feedback(sys1, sys2=1.0, sign=-1):
    """Feedback loop ``u1 = v + sign * sys2(y1)``, output ``y1``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0)
    >>> round(float(rmb.feedback(k, 1.0).nominal()[0, 0]), 12)
    0.666666666667
    """
    if sign not in (1, -1) or isinstance(sign, bool):
        raise ArgumentError(f"feedback: sign must be -1 (negative) or +1 (positive), got {sign!r}")
    g, k = _models(sys1, sys2)
    ny, nu = g.shape
    if k.shape != (nu, ny):
        if _is_1x1(k) and ny == nu:
            k = multiply(k, np.eye(ny))
        else:
            raise DimensionError(
                f"feedback: the loop element has shape {k.shape}, expected {(nu, ny)}"
            )
    rin = np.vstack([np.eye(nu), np.zeros((ny, nu))])
    fb = np.zeros((nu + ny, ny + nu))
    fb[:nu, ny:] = sign * np.eye(nu)
    fb[nu:, :ny] = np.eye(ny)
    lout = np.hstack([np.eye(ny), np.zeros((ny, nu))])
    loop = [f"{g.name}.{n}" for n in g.output_names] + [f"{k.name}.{n}" for n in k.output_names]
    out = interconnect(
        [g, k],
        rin,
        fb,
        lout,
        input_names=g.input_names,
        output_names=g.output_names,
        loop_names=loop,
    )
    check_nominal_well_posed(out, "the feedback loop")
    return out


def lft_upper(M, Delta):
    """Upper LFT ``Fu(M, Delta)``: ``Delta`` closes ``M``'s first channels.

    ``Delta`` of shape ``(p, q)`` takes ``M``'s first ``q`` outputs to its
    first ``p`` inputs.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> M = np.array([[0.5, 1.0], [1.0, 0.0]])
    >>> float(rmb.lft_upper(M, 1.0).nominal()[0, 0])
    2.0
    """
    m, dl = _models(M, Delta)
    p, q = dl.shape
    ny, nu = m.shape
    if p > nu or q > ny:
        raise DimensionError(f"lft_upper: Delta {dl.shape} does not fit M {m.shape}")
    # u = [uM; uD], y = [yM; yD]; uM[:p] = yD, uD = yM[:q], uM[p:] = v, o = yM[q:].
    rin = np.zeros((nu + q, nu - p))
    rin[p:nu] = np.eye(nu - p)
    fb = np.zeros((nu + q, ny + p))
    fb[:p, ny:] = np.eye(p)
    fb[nu:, :q] = np.eye(q)
    lout = np.zeros((ny - q, ny + p))
    lout[:, q:ny] = np.eye(ny - q)
    loop = [f"{m.name}.{n}" for n in m.output_names] + [f"{dl.name}.{n}" for n in dl.output_names]
    out = interconnect(
        [m, dl],
        rin,
        fb,
        lout,
        input_names=m.input_names[p:],
        output_names=m.output_names[q:],
        loop_names=loop,
    )
    check_nominal_well_posed(out, "the upper LFT")
    return out


def lft_lower(P, K):
    """Lower LFT ``Fl(P, K)``: ``K`` closes ``P``'s last channels (``u = K y``).

    ``K`` of shape ``(p, q)`` takes ``P``'s last ``q`` outputs to its last
    ``p`` inputs.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = np.array([[0.0, 1.0], [1.0, 0.5]])
    >>> float(rmb.lft_lower(P, 1.0).nominal()[0, 0])
    2.0
    """
    return star(P, K, as_model(K).shape[0], as_model(K).shape[1])


def star(P, Q, nu, ny):
    """Redheffer star product, with MATLAB's ``lft(P, Q, nu, ny)`` conventions.

    The first ``nu`` outputs of ``Q`` feed the last ``nu`` inputs of ``P``
    (the signals ``u``); the last ``ny`` outputs of ``P`` feed the first ``ny``
    inputs of ``Q`` (the signals ``y``).  Inputs: ``P``'s first ones then
    ``Q``'s remaining ones; likewise outputs.  A controller ``K`` with ``nu``
    outputs and ``ny`` inputs closes ``P``'s loop as ``star(P, K, nu, ny)``.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = np.array([[0.0, 1.0], [1.0, 0.5]])
    >>> float(rmb.star(P, 1.0, 1, 1).nominal()[0, 0])
    2.0
    >>> K = np.array([[2.0], [3.0]])  # 2 controls from 1 measurement
    >>> P3 = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    >>> float(rmb.star(P3, K, 2, 1).nominal()[0, 0])  # 1*2 + 1*3
    5.0
    """
    nu, ny = integer(nu, "nu", "star"), integer(ny, "ny", "star")
    p, q = _models(P, Q)
    pny, pnu = p.shape
    qny, qnu = q.shape
    if nu > qny or nu > pnu or ny > pny or ny > qnu:
        raise DimensionError(
            f"star: cannot connect the first nu={nu} outputs of Q {q.shape} to the last "
            f"inputs of P {p.shape} and the last ny={ny} outputs of P to Q"
        )
    m1, p1 = pnu - nu, pny - ny  # P's remaining inputs / outputs
    m2, p2 = qnu - ny, qny - nu  # Q's remaining inputs / outputs
    nin, nout = pnu + qnu, pny + qny
    rin = np.zeros((nin, m1 + m2))
    rin[:m1, :m1] = np.eye(m1)
    rin[pnu + ny :, m1:] = np.eye(m2)
    fb = np.zeros((nin, nout))
    fb[m1:pnu, pny : pny + nu] = np.eye(nu)  # u: P's last inputs <- Q's first outputs
    fb[pnu : pnu + ny, p1:pny] = np.eye(ny)  # y: Q's first inputs <- P's last outputs
    lout = np.zeros((p1 + p2, nout))
    lout[:p1, :p1] = np.eye(p1)
    lout[p1:, pny + nu :] = np.eye(p2)
    loop = [f"{p.name}.{n}" for n in p.output_names] + [f"{q.name}.{n}" for n in q.output_names]
    out = interconnect(
        [p, q],
        rin,
        fb,
        lout,
        input_names=p.input_names[:m1] + q.input_names[ny:],
        output_names=p.output_names[:p1] + q.output_names[nu:],
        loop_names=loop,
    )
    check_nominal_well_posed(out, "the star product")
    return out


__all__ = [
    "add",
    "negate",
    "matmul",
    "multiply",
    "inv",
    "divide",
    "power",
    "transpose",
    "select",
    "hstack",
    "vstack",
    "block_diag",
    "feedback",
    "lft_upper",
    "lft_lower",
    "star",
]
