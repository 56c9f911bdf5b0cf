"""Upper bound of the structured singular value by D,G scalings.

The bound (Fan, Tits & Doyle 1991; Young, Newlin & Doyle 1995) is: ``mu(M) <= beta``
whenever there are scalings ``D`` (commuting with the structure) and ``G``
(Hermitian, nonzero only on the real scalar blocks) with::

    sigma_max( (I + Gl^2)^(-1/4) (Dl M Dr^-1 / beta - j Gm) (I + Gr^2)^(-1/4) ) <= 1.

``Dl`` (``n_z x n_z``) scales the rows of ``M`` and ``Dr`` (``n_w x n_w``) its columns;
they share the block of every repeated scalar and the number ``d_i`` of every full
block (``d_i I_c`` on the left, ``d_i I_r`` on the right), so non-square full blocks are
handled.  ``Gm`` carries the real-block ``G_i`` from the rows ``z_i`` to the columns
``w_i`` of ``M`` and ``Gl``, ``Gr`` are the same blocks on either side.

Internally the bound is computed in the equivalent "generalised eigenvalue" form::

    beta^2 = lambda_max( A^H A + j (A^H Gh - Gh^H A) ),   A = Dl M Dr^-1,

which is the linear matrix inequality ``M^H Pl M + j(M^H Q - Q^H M) - beta^2 Pr <= 0``
(``P = D^H D``, ``Q = Dl^H Gh Dr``) written in the coordinates of the current scaling.

Two methods are provided:

* ``"fast"``: Osborne balancing of the block norms (each channel of a repeated scalar
  on its own), then the log-sum-exp smoothing of the eigenvalues minimised for a
  rising smoothing parameter (relative to the value): by damped Newton with the exact
  Hessian when ``D`` is diagonal (:mod:`~robustmb.analysis.mu_upper_newton`), else by
  a batched BFGS (three stages, then ``lambda_max`` itself; limited-memory from 200
  parameters on, :mod:`~robustmb.analysis.mu_lbfgs`), there (from 200 parameters)
  polished by damped Newton with the exact Hessian in local coordinates
  ``D' = exp(S) D`` (:mod:`~robustmb.analysis.mu_upper_blocknewton`), vectorised over
  the stack.
  ``D`` is parametrised by upper-triangular blocks with log-diagonals and
  column-relative off-diagonal entries, ``G`` by its Hermitian entries, and the
  matrix is normalised at the balanced start: the method is invariant under
  diagonal similarities that commute with the structure (physical units);
* ``"lmi"``: the fast result refined by a Dinkelbach sequence of semidefinite
  programs (cvxpy) in the coordinates of the current scaling, which converges to
  the optimal D,G bound without bisection.

Both return certificates in the sigma_max form above, checked by
:func:`verify_upper_bound` without trusting the optimiser.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy import sparse

from .mu_lbfgs import batched_bfgs
from .mu_margin import _scaled_matrix, expand_scalings, upper_bound_margin
from .mu_margin import certificate_from_gevp as certificate_from_gevp  # kept importable here
from .mu_rounding import certificate_excess
from .mu_structure import FULL, REAL, BlockStructure, as_matrix_stack, dagger
from .mu_upper_blocknewton import polish_block_newton
from .mu_upper_diagonal import _objective_diagonal
from .mu_upper_newton import _MAX_SPREAD, newton_stages
from .mu_upper_start import _x_from_logd, exact_similarity, osborne_scaling

# Largest spread of log P of the exact prescaling (P M P^-1 with P a power of two per
# unit): e^80 = 5.5e34, the largest and smallest scale factors within double range of
# the entries of a normalised M.
_PRESCALE_SPREAD = 80.0
# The same for the wide prescaling of a matrix whose bound stayed far above its lower
# bound (a block-triangular M): e^600, kept only where the similarity stays exact.
_WIDE_SPREAD = 600.0

__all__ = [
    "verify_upper_bound",
    "upper_bound_margin",
    "expand_scalings",
]


# --------------------------------------------------------------------------- parametrisation
def n_scaling_parameters(blk) -> int:
    """Number of D,G parameters of the optimiser for the structure ``blk`` (the length
    of the warm-start rows that the sweeps pass between frequencies)."""
    return scaling_parametrization(BlockStructure(blk)).p


def scaling_parametrization(struct: BlockStructure) -> ScalingParametrization:
    """The :class:`ScalingParametrization` of ``struct``, built once per block structure.

    Building the parameter maps costs tens of milliseconds for the structures of an
    LFT with repeated scalars (dense maps, then their sparse forms), as much as a whole
    bound at one frequency; sweeps, stacks and certificate checks ask for the same
    structure again and again, so one copy serves every caller.  Its parameter maps are
    never modified after it is built; the only thing added later is the constant
    derivative factors of the Newton polish (``_newton_factors``, built on first use
    from those maps by :mod:`robustmb.analysis.mu_upper_newton` and the same for every
    caller), so sharing the object changes no result.

    Examples
    --------
    >>> a = scaling_parametrization(BlockStructure([(-2, 0), (1, 1)]))
    >>> a is scaling_parametrization(BlockStructure([(-2, 0), (1, 1)])), a.p
    (True, 9)
    """
    return _parametrization_of(tuple(b.blk for b in struct.blocks))


@functools.lru_cache(maxsize=64)
def _parametrization_of(blk):
    return ScalingParametrization(BlockStructure(list(blk)))


class ScalingParametrization:
    """Real parameter vector ``x`` -> scalings ``(Dl, Dr, Gh)`` of a block structure.

    Full block ``i``: one parameter ``s`` with ``D_i = exp(s) I``.  Repeated scalar
    block of size ``r``: ``D_i = (I + U) E``, ``E`` diagonal with ``exp`` of ``r``
    parameters and ``U`` strictly upper triangular with ``r(r-1)/2`` complex entries
    (every positive definite ``D^H D`` is reached once).  ``U`` is relative to the
    column's diagonal: a diagonal similarity ``P M P^-1`` moves the optimal ``D`` to
    ``D P^-1``, i.e. shifts the ``exp`` parameters only, so the optimiser sees the same
    problem however the channels are scaled.
    Real block: Hermitian ``G_i`` (``r^2`` parameters).
    """

    def __init__(self, struct: BlockStructure):
        self.struct = struct
        n, m = struct.n_z, struct.n_w
        self.n, self.m = n, m
        exp_l, exp_r, lin_l, lin_r, lin_g = [], [], [], [], []
        col_l, col_r = [], []  # (exp parameter of the column, off-diagonal target)
        p = 0
        for b in struct.blocks:
            if b.kind == FULL:
                for k in range(b.cols):
                    exp_l.append((p, (b.z.start + k) * n + b.z.start + k))
                for k in range(b.rows):
                    exp_r.append((p, (b.w.start + k) * m + b.w.start + k))
                p += 1
                continue
            oz, ow, r = b.z.start, b.w.start, b.rows
            p_diag = p
            for k in range(r):
                exp_l.append((p, (oz + k) * n + oz + k))
                exp_r.append((p, (ow + k) * m + ow + k))
                p += 1
            for k in range(r):
                for j in range(k + 1, r):
                    col_l.append((p_diag + j, (oz + k) * n + oz + j))
                    col_r.append((p_diag + j, (ow + k) * m + ow + j))
                    for coef in (1.0, 1j):
                        lin_l.append((p, (oz + k) * n + oz + j, coef))
                        lin_r.append((p, (ow + k) * m + ow + j, coef))
                        p += 1
        self.n_d = p
        for b in struct.blocks:
            if b.kind != REAL:
                continue
            oz, ow, r = b.z.start, b.w.start, b.rows
            for k in range(r):
                lin_g.append((p, (oz + k) * m + ow + k, 1.0))
                p += 1
            for k in range(r):
                for j in range(k + 1, r):
                    lin_g.append((p, (oz + k) * m + ow + j, 1.0))
                    lin_g.append((p, (oz + j) * m + ow + k, 1.0))
                    p += 1
                    lin_g.append((p, (oz + k) * m + ow + j, 1j))
                    lin_g.append((p, (oz + j) * m + ow + k, -1j))
                    p += 1
        self.p = p
        self.exp_l = self._dense_exp(exp_l, n * n)
        self.exp_r = self._dense_exp(exp_r, m * m)
        self.lin_l = self._dense_lin(lin_l, n * n)
        self.lin_r = self._dense_lin(lin_r, m * m)
        self.lin_g = self._dense_lin(lin_g, n * m)
        # real and imaginary parts kept apart: float @ complex products are slow in numpy
        nd = self.n_d
        self._ll = (self.lin_l[:nd].real.copy(), self.lin_l[:nd].imag.copy())
        self._lr = (self.lin_r[:nd].real.copy(), self.lin_r[:nd].imag.copy())
        self._lg = (self.lin_g.real.copy(), self.lin_g.imag.copy())
        self._el = self.exp_l[:nd].copy()
        self._er = self.exp_r[:nd].copy()
        # column maps: exp(x_j) at the off-diagonal entries of column j
        self._cl = self._dense_exp(col_l, n * n)[:nd]
        self._cr = self._dense_exp(col_r, m * m)[:nd]
        # Without repeated scalar blocks of size > 1 both D are diagonal: the scaled
        # matrix and the gradient then need no solves (see _objective_diagonal); the
        # exp maps restricted to the diagonals, and the G parameters' (row, column) pairs
        self.diagonal = not (self._cl.any() or self._cr.any() or lin_l or lin_r)
        self._el_diag = self._el[:, :: n + 1].copy()
        self._er_diag = self._er[:, :: m + 1].copy()
        # The maps have one or two nonzeros per parameter: as sparse matrices the
        # products with a (B, p) batch cost O(B p) instead of O(B p n^2) (dense: most of
        # the objective's time for a few hundred parameters).  Kept transposed (CSR of
        # shape (n^2, p)) for x -> entries, and as is (p, n^2) for the chain rule.
        fwd = {
            "el": self._el, "cl": self._cl, "ll0": self._ll[0], "ll1": self._ll[1],
            "er": self._er, "cr": self._cr, "lr0": self._lr[0], "lr1": self._lr[1],
            "lg0": self._lg[0], "lg1": self._lg[1],
        }  # fmt: skip
        self._sp_t = {k: sparse.csr_matrix(v.T) for k, v in fwd.items()}
        self._sp_elcl = sparse.csr_matrix(self._el + self._cl)
        self._sp_ercr = sparse.csr_matrix(self._er + self._cr)
        self._sp = {k: sparse.csr_matrix(v) for k, v in fwd.items()}
        g_rows, g_cols = np.nonzero(self.lin_g)
        self._g_entries = (g_rows, g_cols // m, g_cols % m, self.lin_g[g_rows, g_cols])

    def _dense_exp(self, entries, size):
        E = np.zeros((self.p, size))
        for src, tgt in entries:
            E[src, tgt] = 1.0
        return E

    def _dense_lin(self, entries, size):
        L = np.zeros((self.p, size), dtype=complex)
        for src, tgt, coef in entries:
            L[src, tgt] += coef
        return L

    # ---------------------------------------------------------------- x -> scalings
    def matrices(self, x: np.ndarray):
        """``(Dl, Dr, Gh)`` for a batch ``x`` of shape ``(B, p)``."""
        B = x.shape[0]
        xd = x[:, : self.n_d]
        ex = np.exp(np.clip(xd, -300.0, 300.0))
        sp = self._sp_t

        def mul(key, v):  # v @ map, the map sparse
            return (sp[key] @ v.T).T

        Dl = mul("el", ex) + mul("cl", ex) * (mul("ll0", xd) + 1j * mul("ll1", xd))
        Dr = mul("er", ex) + mul("cr", ex) * (mul("lr0", xd) + 1j * mul("lr1", xd))
        Gh = mul("lg0", x) + 1j * mul("lg1", x)
        return (
            Dl.reshape(B, self.n, self.n),
            Dr.reshape(B, self.m, self.m),
            Gh.reshape(B, self.n, self.m),
        )

    def gradient(self, x, Dl, Dr, Gamma_l, Gamma_r, C):
        """Chain rule: ``dphi = Re<Gamma_l, dDl> + Re<Gamma_r, dDr> - 2 Im sum(C * dGh)``."""
        B = Dl.shape[0]
        gl = np.conj(Gamma_l.reshape(B, -1))
        gr = np.conj(Gamma_r.reshape(B, -1))
        g = np.zeros((B, self.p))
        nd = self.n_d
        ex = np.exp(np.clip(x[:, :nd], -300.0, 300.0))
        # x_j scales the whole column j of the block (dD = D dx there); an off-diagonal
        # parameter enters as dD = exp(x_j) coef dx (coef 1 or j)
        sp = self._sp

        def mul(S, v):  # v @ S.T, S sparse (parameters x entries)
            return (S @ v.T).T

        gdl, gdr = (gl * Dl.reshape(B, -1)).real, (gr * Dr.reshape(B, -1)).real
        g[:, :nd] += mul(self._sp_elcl, gdl) + mul(self._sp_ercr, gdr)
        gl = gl * (self._sp_t["cl"] @ ex.T).T
        gr = gr * (self._sp_t["cr"] @ ex.T).T
        g[:, :nd] += mul(sp["ll0"], gl.real) - mul(sp["ll1"], gl.imag)
        g[:, :nd] += mul(sp["lr0"], gr.real) - mul(sp["lr1"], gr.imag)
        Cf = C.reshape(B, -1)
        g += -2.0 * (mul(sp["lg0"], Cf.imag) + mul(sp["lg1"], Cf.real))
        return g


def _gevp_form(M, Dl, Dr, Gh):
    """``A = Dl M Dr^-1`` and ``X = A^H A + j(A^H Gh - Gh^H A)``."""
    A = _scaled_matrix(M, Dl, Dr)
    AhG = dagger(A) @ Gh
    X = dagger(A) @ A + 1j * (AhG - dagger(AhG))
    return A, 0.5 * (X + dagger(X))


def scaled_objective(M, x, param: ScalingParametrization, t=None):
    """``phi = lambda_max(A^H A + j(A^H Gh - Gh^H A))`` and its gradient in ``x``.

    With ``t`` the smooth log-sum-exp ``(1/t) log sum_i exp(t lambda_i)`` is returned
    instead (``lambda_max <= phi_t <= lambda_max + log(m) / t``).  Both gradients are the
    same bilinear form of the projector ``Pi`` (``v v^H`` for the top eigenvector ``v``,
    the softmax-weighted sum of all eigenprojectors for ``phi_t``):
    ``dphi = 2 Re tr(Pi (A + jGh)^H dA) - 2 Im tr(Pi^T ... dGh)``.
    """
    if param.diagonal:
        return _objective_diagonal(M, x, param, t)
    Dl, Dr, Gh = param.matrices(x)
    with np.errstate(over="ignore", invalid="ignore"):
        A, X = _gevp_form(M, Dl, Dr, Gh)
    finite = np.all(np.isfinite(X), axis=(1, 2)) & np.all(np.isfinite(A), axis=(1, 2))
    if not finite.all():
        # A trial scaling so extreme that the scaled matrix overflows: report +inf
        # there (the line search then backs off) and evaluate the others.
        f = np.full(x.shape[0], np.inf)
        g = np.zeros_like(x)
        if finite.any():
            t_fin = None if t is None else np.broadcast_to(np.asarray(t, float), f.shape)[finite]
            f[finite], g[finite] = scaled_objective(M[finite], x[finite], param, t=t_fin)
        return f, g
    w, V = np.linalg.eigh(X)
    top = w[:, -1]
    if t is None:
        f = top
        Pi = V[:, :, -1:] @ dagger(V[:, :, -1:])
    else:
        t = np.broadcast_to(np.asarray(t, dtype=float), top.shape)
        with np.errstate(over="ignore"):  # far-off eigenvalues: exp(-inf) = 0 is right
            e = np.exp(t[:, None] * (w - top[:, None]))
        s = e.sum(axis=1)
        f = top + np.log(s) / t
        Pi = (V * (e / s[:, None])[:, None, :]) @ dagger(V)
    with np.errstate(over="ignore", invalid="ignore"):
        # dA enters as 2 Re tr(Pi (A + jGh)^H dA); dA = dDl Dl^-1 A - A dDr Dr^-1
        P = (A + 1j * Gh) @ Pi  # n x m
        Gamma_l = 2.0 * P @ dagger(np.linalg.solve(Dl, A))
        Gamma_r = -2.0 * dagger(A) @ P @ dagger(np.linalg.inv(Dr))
        C = np.conj(A) @ np.swapaxes(Pi, 1, 2)
        g = param.gradient(x, Dl, Dr, Gamma_l, Gamma_r, C)
    # A gradient that overflowed although the value did not: a zero gradient keeps the
    # (valid) value and ends that problem's descent instead of poisoning its BFGS matrix.
    g[~np.all(np.isfinite(g), axis=1)] = 0.0
    return f, g


# --------------------------------------------------------------------------- fast method
def upper_bound_fast(
    Ms: np.ndarray,
    struct: BlockStructure,
    *,
    x0=None,
    seed=0,
    smoothing=(1e1, 1e3, 1e5),
    maxiter=250,
    polish=60,
    stop=None,
    jitter=1e-3,
    newton=(1e1, 1e2, 1e3, 1e5, 1e7, 1e9, 1e11),
    block_newton=tuple(3.0 * 2.0**k for k in range(12)),
    block_newton_from=200,
    polish_stop=None,
    prescale=True,
    wide=False,
):
    """D,G upper bound for every matrix of the stack ``Ms`` (already normalised).

    Osborne balancing, then BFGS on the smooth log-sum-exp of the eigenvalues for each
    ``t`` in ``smoothing`` (continuation: the minimiser of the smooth function is a good
    start at the next ``t``), then BFGS on ``lambda_max`` itself.  At the optimum
    ``lambda_max`` is usually multiple, where plain BFGS stalls; the smooth stages get
    past that.  Returns ``(phi, x, param)`` with ``phi = beta^2`` (``<= 0`` certifies
    ``mu = 0``).

    ``stop(phi)``, given the current values of all matrices (each an upper bound of
    the final ``phi``: the smooth values exceed ``lambda_max``), flags those whose
    bound is already good enough for the caller; their optimisation ends there.
    ``jitter`` is the size of the random perturbation of the start (0 keeps a warm
    start exactly, so that a start already good enough ends at once).

    With diagonal ``D`` (no repeated scalar of size > 1) damped Newton with the exact
    Hessian replaces BFGS, for ``t`` in ``newton`` from ``min(smoothing)`` on
    (:mod:`~robustmb.analysis.mu_upper_newton`; ``newton=()`` keeps BFGS).  Otherwise
    (repeated scalar blocks: full ``D`` blocks) with at least ``block_newton_from``
    parameters the BFGS result is polished by damped Newton in local coordinates for each
    relative ``t`` of ``block_newton`` (:mod:`~robustmb.analysis.mu_upper_blocknewton`;
    ``block_newton=()`` skips it).  The default 200 is where
    :func:`~robustmb.analysis.mu_lbfgs.batched_bfgs` switches to limited memory and is
    iteration-limited: on the robotic arm's 11-fold repeated scalars (``p`` = 495 to 523)
    the polish takes 8 to 23 times the time of the BFGS stages and brings the bounds to
    0.38 to 1.00 of theirs; on smaller structures it gained at most 0.3 % for 1.24 to 2.9
    times the time, so there the result is that of the BFGS stages unchanged.  Its work
    arrays are cut into chunks of at most 1e6 complex entries (peak memory in
    ``benchmarks/RESULTS.md``).  The polish never raises: rows where it fails
    numerically keep their BFGS scaling.  ``polish_stop(phi)``, like ``stop`` but for the
    polish alone, flags the problems whose BFGS bound is already good enough for the
    caller: they are not polished (a sweep certifying a fixed level polishes only the
    bounds still above it).

    With ``prescale`` the optimisation runs on ``P M P^-1``, ``P`` the Osborne balancing
    of the block norms rounded to powers of two (an exact similarity), and the returned
    parameters are those of ``M`` (``D P``: a shift of the ``exp`` parameters, see
    :class:`ScalingParametrization`).  The optimiser keeps the spread of its log-D
    parameters below ``_MAX_SPREAD`` (the rounding allowance of the certificate), which
    is then measured from the balanced matrix: a matrix whose entries span many decades
    (1e-13 .. 1e10: a lightly damped mode seen at high frequency through a stiff
    controller) needs a larger spread in its own coordinates.
    """
    param = scaling_parametrization(struct)
    shift = None
    if prescale:
        logd0 = osborne_scaling(Ms, struct, max_spread=_PRESCALE_SPREAD)
        if wide:
            logd0 = _wide_prescaling(Ms, struct, logd0)
        Ms, logd0 = exact_similarity(Ms, struct, logd0)
        shift = _x_from_logd(logd0, struct, param)
        if x0 is not None:
            x0 = np.asarray(x0, dtype=float) - shift
    if x0 is None:
        x0 = _x_from_logd(osborne_scaling(Ms, struct, max_spread=_MAX_SPREAD - 1.0), struct, param)
    # Work on M / c with c = sigma_max of the starting scaled matrix, so that the values,
    # gradients and G parameters are of order one: BFGS starts from the identity and
    # its stopping rule is relative, both of which assume that.  (G scales with M.)
    Dl0, Dr0, _ = param.matrices(x0)
    A0 = _scaled_matrix(Ms, Dl0, Dr0)
    c = np.linalg.norm(A0, 2, axis=(-2, -1))
    c = np.where(np.isfinite(c) & (c > 0), c, 1.0)
    Ms = Ms / c[:, None, None]
    x0 = np.array(x0, dtype=float)
    x0[:, param.n_d :] /= c[:, None]
    if stop is not None:
        user_stop = stop

        def stop(phi):
            return user_stop(phi * c**2)

    if polish_stop is not None:
        user_polish_stop = polish_stop

        def polish_stop(phi):
            return user_polish_stop(phi * c**2)

    # a small deterministic perturbation moves the start off exact eigenvalue ties
    rng = np.random.default_rng(seed)
    x = x0 + jitter * rng.standard_normal(x0.shape)
    fstop = -1e-9 if struct.has_real else None

    def lam_max(x, idx, t=None):
        return scaled_objective(Ms[idx], x, param, t=None if t is None else t[idx])

    everything = np.arange(len(Ms))
    if param.diagonal and newton:
        # a warm start that skips the coarse smoothing skips the coarse Newton stages too
        schedule = [t for t in newton if t >= min(smoothing)]
        best_f, best_x, slow = newton_stages(Ms, x, param, schedule, fstop=fstop, stop=stop)
        if slow.any():  # Newton ran out of steps: BFGS too, keep the lower bound
            rows = np.flatnonzero(slow)
            sub_stop = None if stop is None else _sub_stop(stop, best_f, rows)
            kw = dict(smoothing=smoothing, maxiter=maxiter, polish=polish, jitter=0.0)
            f_b, x_b, _ = upper_bound_fast(
                Ms[rows], struct, x0=x[rows], stop=sub_stop, newton=(), prescale=False, **kw
            )
            better = f_b < best_f[rows]
            best_f[rows[better]], best_x[rows[better]] = f_b[better], x_b[better]
        best_x[:, param.n_d :] *= c[:, None]
        if shift is not None:
            best_x += shift
        return best_f * c**2, best_x, param
    best_f = lam_max(x, everything)[0]
    best_x = x.copy()
    for t in smoothing:
        x = _smoothed_stage(lam_max, x, best_f.copy(), t, maxiter, fstop, stop)
        f = lam_max(x, everything)[0]
        better = f < best_f
        best_f[better], best_x[better] = f[better], x[better]
    x, f = batched_bfgs(lam_max, best_x, maxiter=polish, fstop=fstop, stop=stop)
    better = f < best_f
    best_f[better], best_x[better] = f[better], x[better]
    if block_newton and not param.diagonal and param.p >= block_newton_from:
        enough = stop
        if polish_stop is not None:

            def enough(phi):
                return polish_stop(phi) | (False if stop is None else stop(phi))

        polish_block_newton(Ms, best_f, best_x, param, block_newton, fstop, enough, lam_max)
    best_x[:, param.n_d :] *= c[:, None]
    if shift is not None:
        best_x += shift
    return best_f * c**2, best_x, param


def _wide_prescaling(Ms, struct, logd0):
    """Osborne balancing without the usual limits, where it keeps ``P M P^-1`` exact.

    A block-triangular ``M`` whose off-diagonal blocks dwarf its diagonal ones (``mu``
    30 orders below ``sigma_max``) needs scalings spread far beyond ``e^80``.  The floor
    of the balancing is lowered and the spread widened to ``_WIDE_SPREAD``; a row keeps
    this scaling only when every nonzero entry of ``P M P^-1`` (powers of two) stays a
    finite normal number, so that the similarity is still exact; else ``logd0``.
    """
    wide = osborne_scaling(Ms, struct, max_spread=_WIDE_SPREAD, floor=1e-300)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        scaled, _ = exact_similarity(Ms, struct, wide)
    tiny = np.finfo(float).tiny
    parts = (scaled.real, scaled.imag) if np.iscomplexobj(scaled) else (scaled,)
    origs = (Ms.real, Ms.imag) if np.iscomplexobj(Ms) else (Ms,)
    exact = np.ones(len(Ms), dtype=bool)
    for part, orig in zip(parts, origs, strict=True):
        bad = (orig != 0) & ~(np.isfinite(part) & (np.abs(part) >= tiny))
        exact &= ~bad.any(axis=(1, 2))
    return np.where(exact[:, None], wide, logd0)


def _sub_stop(stop, values, rows):
    """``stop`` for the problems ``rows`` only (the others keep ``values``)."""

    def sub(phi):
        full = values.copy()
        full[rows] = phi
        return stop(full)[rows]

    return sub


def _smoothed_stage(lam_max, x, f_all, t, maxiter, fstop, stop, max_rounds=8):
    """BFGS on the log-sum-exp smoothing with ``t`` taken relative to the current value.

    An absolute ``t`` is far too coarse when the bound is much smaller than
    ``sigma_max(M)`` (a badly scaled ``M``, e.g. a robust-performance matrix at a large
    performance level), and the value can fall by orders of magnitude during a stage.
    So ``t / phi`` is fixed at the start of a round and a problem whose value falls
    below a quarter of that start is stopped and re-smoothed in the next round.
    ``f_all`` holds current values of all problems (for the caller's ``stop``).
    """
    todo = np.arange(x.shape[0])
    for _ in range(max_rounds):
        f0 = lam_max(x[todo], todo)[0]
        f_all[todo] = f0
        if stop is not None:
            # lambda_max itself already good enough (e.g. a warm start): no smoothing,
            # whose values exceed lambda_max and would not trigger the stop
            keep = ~stop(f_all)[todo]
            todo, f0 = todo[keep], f0[keep]
            if todo.size == 0:
                break
        t_rel = np.zeros(x.shape[0])
        # values below 1e-12 are round-off for a matrix normalised to sigma_max = 1
        t_rel[todo] = t / np.maximum(np.abs(f0), 1e-12)
        rescale_below = 0.25 * f0

        def fun(xx, sub, todo=todo, t_rel=t_rel):
            return lam_max(xx, todo[sub], t_rel)

        def sub_stop(f, todo=todo, rescale_below=rescale_below):
            f_all[todo] = f
            out = f < rescale_below
            if stop is not None:
                out |= stop(f_all)[todo]
            return out

        # the smoothed value is within log(m) / t_rel of lambda_max: finer progress is wasted
        xs, fs = batched_bfgs(fun, x[todo], maxiter=maxiter, rtol=1e-10, fstop=fstop, stop=sub_stop)
        x[todo] = xs
        again = fs < rescale_below
        if fstop is not None:
            again &= fs > fstop
        if stop is not None:
            f_all[todo] = fs
            again &= ~stop(f_all)[todo]
        todo = todo[again]
        if todo.size == 0:
            break
    return x


# --------------------------------------------------------------------------- LMI method
def upper_bound_lmi(M, struct: BlockStructure, Dl, Dr, Gh, *, max_sdp=12, rtol=1e-9, eps=1e-5):
    """Refine one scaling ``(Dl, Dr, Gh)`` of ``M`` to the optimal D,G bound.

    Dinkelbach iteration on the generalised eigenvalue problem: in the coordinates
    of the current scaling (``A = Dl M Dr^-1 / beta``, ``lambda_max = 1``) solve::

        max t  s.t.  A^H Pl A + j(A^H Q - Q^H A) - Pr + t I <= 0,  eps I <= P <= I,

    and move to the new scaling ``P = R^H R``.  Every step decreases ``beta`` and the
    iteration stops when no SDP improvement is left.  Returns ``(phi, Dl, Dr, Gh)``.
    """
    import cvxpy as cp

    A0, X0 = _gevp_form(M[None], Dl[None], Dr[None], Gh[None])
    phi = float(np.linalg.eigvalsh(X0)[0, -1])
    if phi <= 0:
        return phi, Dl, Dr, Gh
    n, m = struct.n_z, struct.n_w
    for _ in range(max_sdp):
        beta = np.sqrt(phi)
        A = A0[0] / beta
        Pv, Qv, cons = [], [], []
        PL = 0
        PR = 0
        QT = 0  # A^H Q
        for b in struct.blocks:
            Ai = A[b.z, :]  # c x m
            Sw = np.zeros((b.rows, m))
            Sw[np.arange(b.rows), np.arange(b.w.start, b.w.stop)] = 1.0
            if b.kind == FULL:
                v = cp.Variable()
                cons += [v >= eps, v <= 1.0]
                PL = PL + v * (Ai.conj().T @ Ai)
                PR = PR + v * (Sw.T @ Sw)
            else:
                v = cp.Variable((b.rows, b.rows), hermitian=True)
                cons += [v >> eps * np.eye(b.rows), v << np.eye(b.rows)]
                PL = PL + Ai.conj().T @ v @ Ai
                PR = PR + Sw.T @ v @ Sw
                if b.kind == REAL:
                    q = cp.Variable((b.rows, b.rows), hermitian=True)
                    Qv.append((b, q))
                    QT = QT + Ai.conj().T @ q @ Sw
            Pv.append((b, v))
        t = cp.Variable()
        expr = PL - PR + t * np.eye(m)
        if not isinstance(QT, int):
            expr = expr + 1j * QT - 1j * QT.H
        expr = 0.5 * (expr + expr.H)
        prob = cp.Problem(cp.Maximize(t), cons + [expr << 0])
        with warnings.catch_warnings():
            # cvxpy's complex-to-real reduction warns about its own constants, and the
            # solver flags "inaccurate" near t = 0; the step is re-evaluated exactly below
            warnings.simplefilter("ignore", UserWarning)
            try:
                prob.solve(solver=cp.CLARABEL)
            except cp.error.SolverError:
                try:
                    prob.solve(solver=cp.SCS, eps=1e-9)
                except cp.error.SolverError:
                    break
        if t.value is None or not np.isfinite(t.value) or t.value <= rtol:
            break
        # new scaling in the current coordinates: R^H R = P
        RL = np.zeros((n, n), dtype=complex)
        RR = np.zeros((m, m), dtype=complex)
        for b, v in Pv:
            if b.kind == FULL:
                d = np.sqrt(max(float(v.value), eps))
                RL[b.z, b.z] = d * np.eye(b.cols)
                RR[b.w, b.w] = d * np.eye(b.rows)
            else:
                # R^H R = P from the eigendecomposition: the solver's P may be slightly
                # indefinite, and any factor keeps the block structure
                w, V = np.linalg.eigh(0.5 * (np.asarray(v.value) + np.asarray(v.value).conj().T))
                R = np.sqrt(np.maximum(w, eps))[:, None] * V.conj().T
                RL[b.z, b.z] = R
                RR[b.w, b.w] = R
        Qh = np.zeros((n, m), dtype=complex)
        for b, q in Qv:
            Q = np.asarray(q.value)
            Qh[b.z, b.w] = 0.5 * (Q + Q.conj().T)
        Dl_new = RL @ Dl
        Dr_new = RR @ Dr
        # Gh in the new coordinates: R_l^-H Q R_r^-1 (scaled back by beta)
        Gh_new = beta * np.linalg.solve(RL.conj().T, Qh) @ np.linalg.inv(RR)
        A_new, X_new = _gevp_form(M[None], Dl_new[None], Dr_new[None], Gh_new[None])
        phi_new = float(np.linalg.eigvalsh(X_new)[0, -1])
        if not phi_new < phi * (1 - 1e-12):
            break
        improvement = phi - phi_new
        phi, Dl, Dr, Gh, A0 = phi_new, Dl_new, Dr_new, Gh_new, A_new
        if phi <= 0 or improvement <= rtol * phi:
            break
    return phi, Dl, Dr, Gh


def verify_upper_bound(M, blk, beta, D, G=None, *, tol=1e-6):
    """Check a D,G certificate of ``mu(M) <= beta`` without trusting how it was found.

    Parameters
    ----------
    M : array_like, shape (n, m) or (nw, n, m)
        The matrix (or frequency stack) of the bound.
    blk : list of (r, c)
        Block structure in MATLAB ``mussv`` convention.
    beta : float or array_like
        Claimed upper bound(s).
    D : array_like, shape (n, n) or (nw, n, n)
        Left scaling ``Dl`` (block diagonal: any invertible block for a repeated scalar,
        ``d I`` for a full block).  The right scaling is implied by ``blk``.
    G : array_like, optional
        Left ``Gl``: Hermitian blocks on the real scalar blocks, zero elsewhere.
    tol : float
        Slack allowed on the comparison with 1 (relative).  ``tol = 0`` is a proof.

    Returns
    -------
    bool or numpy.ndarray of bool
        True where ``D`` and ``G`` have the required structure and the margin of
        :func:`upper_bound_margin` (``sigma_max((I + Gl^2)^(-1/4) (Dl M Dr^-1/beta - j Gm)
        (I + Gr^2)^(-1/4)) <= 1`` in a form whose slack is relative to ``beta``), with a
        bound on its rounding error, passes with the slack ``tol``:
        ``over <= tol`` for ``over`` of :func:`~robustmb.analysis.mu_rounding.certificate_excess`
        (``margin^2 + delta <= 1`` at ``tol = 0``, ``delta`` the rounding allowance, which
        grows with the conditioning of ``D`` as it acts on ``M``, so an ill-conditioned
        ``D`` is accepted exactly when the rounding analysis proves its margin);
        ``tol`` then admits about ``tol * beta`` below the certified bound.  For ``beta =
        0`` the ``mu = 0`` form's largest eigenvalue plus its allowance must be at most
        ``0`` whatever ``tol`` is (a slack there would admit ``mu`` up to about
        ``sqrt(tol) ||Dl M Dr^-1||``).  The structure of ``D`` and ``G`` is checked with a
        relative tolerance ``1e-10``; the certificate evaluated is then their projection
        (``D`` block diagonal with ``d I`` on the full blocks, ``G`` the Hermitian part of
        its real-block diagonal), so ``tol = 0`` proves ``mu <= beta`` for that pair.

    Examples
    --------
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> bool(verify_upper_bound(M, [(2, 2)], 5.47, np.eye(2)))
    True
    >>> bool(verify_upper_bound(M, [(2, 2)], 5.40, np.eye(2)))
    False
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    nw = Ms.shape[0]
    Dm = np.broadcast_to(np.asarray(D, dtype=complex), (nw, struct.n_z, struct.n_z))
    Gm = np.zeros_like(Dm) if G is None else np.broadcast_to(np.asarray(G, dtype=complex), Dm.shape)
    beta_arr = np.broadcast_to(np.asarray(beta, dtype=float), (nw,))
    # the tolerance decides only whether (D, G) is meant as a certificate; the one
    # evaluated is its projection (a D that commutes with the structure, a Hermitian G on
    # the real blocks), for which the certificate condition is a proof
    ok = (struct.scaling_violation(Dm) <= 1e-10) & (struct.g_violation(Gm) <= 1e-10)
    ok &= np.isfinite(beta_arr) & (beta_arr >= 0)
    over = np.full(nw, np.inf)
    if ok.any():
        Dp, Gp = _project_scalings(struct, Dm[ok], Gm[ok])
        over[ok] = certificate_excess(Ms[ok], struct, beta_arr[ok], Dp, Gp)[0]
    # a claim mu = 0 gets no slack: tol bounds a relative eigenvalue there, not tol * beta
    res = ok & (over <= np.where(beta_arr > 0, tol, 0.0))
    return bool(res[0]) if single else res


def _project_scalings(struct, D, G):
    """The nearest structured pair to ``(D, G)`` (stacks): ``D`` block diagonal (the
    scalar blocks' entries, ``d I`` with the first diagonal entry on a full block), ``G``
    the Hermitian part of its blocks on the real scalars, zero elsewhere."""
    Dp, Gp = np.zeros_like(D), np.zeros_like(G)
    for b in struct.blocks:
        if b.is_scalar:
            Dp[:, b.z, b.z] = D[:, b.z, b.z]
        else:
            idx = np.arange(b.z.start, b.z.stop)
            Dp[:, idx, idx] = D[:, b.z.start, b.z.start][:, None]
        if b.kind == REAL:
            blkG = G[:, b.z, b.z]
            Gp[:, b.z, b.z] = 0.5 * (blkG + dagger(blkG))
    return Dp, Gp
