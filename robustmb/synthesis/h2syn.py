"""Full-order H2-optimal controller: two Riccati equations, LMI fallback.

For a continuous-time plant with ``D22 = 0`` (loop shifting removes it), ``D11 = 0``,
``D12`` of full column rank and ``D21`` of full row rank, the optimal controller is
(Zhou, Doyle & Glover 1996, ch. 14, without the normalisation of ``D12``, ``D21``)

    X = Ric(A, B2, C1'C1, D12'D12, C1'D12),  F = -(D12'D12)^-1 (B2'X + D12'C1),
    Y = Ric(A', C2', B1 B1', D21 D21', B1 D21'),  L = -(Y C2' + B1 D21') (D21 D21')^-1,
    K = [[A + B2 F + L C2, -L], [F, 0]],

with optimal cost ``||Tzw||_2^2 = trace(B1' X B1) + trace((D12'D12) F Y F')``.  Singular
problems go to the H2 LMI (:func:`.lmi.lmi_h2`).  The closed-loop norm is re-computed
with :func:`robustmb.h2norm` on the plant the user gave.

In discrete time the optimal controller may use the current measurement (it has a
feedthrough).  With ``M = D12'D12 + B2'X B2`` and ``V = D21 D21' + C2 Y C2'`` from the two
discrete Riccati equations

    X = A'XA + C1'C1 - (A'XB2 + C1'D12) M^-1 (B2'XA + D12'C1),
    Y = AYA' + B1B1' - (AYC2' + B1D21') V^-1 (C2YA' + D21B1'),

the full-information optimum is ``u = F x + F0 w`` with ``F = -M^-1 (B2'XA + D12'C1)``,
``F0 = -M^-1 (B2'XB1 + D12'D11)``; the output-feedback optimum replaces it by its
least-squares estimate from ``y_0..y_k`` (separation): with the one-step predictor
``xh+ = A xh + B2 u + Lp (y - C2 xh)``, ``Lp = (AYC2' + B1D21') V^-1``,

    u = F xh + L0 (y - C2 xh),   L0 = (F Y C2' + F0 D21') V^-1,

and the optimal cost ``||Tzw||_2^2 = trace(D11'D11 + B1'XB1) + trace(M (F Y F' - L0 V L0'))``
(completing the square; ``x_k`` is uncorrelated with ``w_k``).  See Chen & Francis,
*Optimal Sampled-Data Control Systems* (1995), ch. 6 for the same result.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import control
import numpy as np
import scipy.linalg
import slycot
from scipy.linalg.lapack import dposv
from slycot.exceptions import SlycotError

try:
    from slycot import _wrapper  # the f2py binding of SLICOT that slycot's functions call
except ImportError:  # pragma: no cover
    _wrapper = None

from robustmb._blas import single_blas_thread
from robustmb.analysis import h2norm
from robustmb.errors import ArgumentError, IllPosedError

from .arguments import refuse_free_tunables
from .hinf_riccati import regularity
from .lmi import _balancing, lmi_h2
from .plant import (
    as_controller,
    check_solvable,
    closed_loop,
    normalised_performance,
    partition_plant,
    regularise,
    shift_back,
)
from .static import static_h2

__all__ = ["H2synResult", "h2syn"]


@dataclass
class H2synResult:
    """Result of :func:`h2syn`.

    Attributes
    ----------
    controller : control.StateSpace
    norm : float
        H2 norm of the closed loop, computed independently of the synthesis.
    gamma : float
        Same as ``norm`` (the name shared with :class:`~.hinfsyn.HinfsynResult`).
    gamma_bracket : tuple
        ``(optimal value from the synthesis, norm)``.  The first entry is an estimate,
        not a certified lower bound: with ``"riccati"`` the optimum to rounding, with
        ``"lmi"`` the SDP's optimal level, accurate to the solver's tolerance (up to about
        3e-5 relative above the optimum was measured where the optimum is not attained).
    closed_loop : control.StateSpace
        ``Fl(P, K)`` from ``w`` to ``z`` (the loop the norm was verified on), with the
        plant's ``w`` / ``z`` signal names (as :func:`~.hinfsyn.hinfsyn`'s); built on first
        access when the synthesis kept only its matrices.
    method : str
        ``"riccati"`` or ``"lmi"``; ``"static"`` for a plant without states (see
        :func:`.static.static_h2`).
    """

    controller: control.StateSpace
    norm: float
    gamma: float
    gamma_bracket: tuple
    _closed_loop: object  # control.StateSpace, or its (A, B, C, D, dt) until first access
    method: str
    # (w names, z names) given to the closed loop on first access, or None
    _names: tuple | None = dataclasses.field(default=None, repr=False)

    @property
    def closed_loop(self) -> control.StateSpace:
        cl = self._closed_loop
        if isinstance(cl, tuple) or self._names is not None:
            A, B, C, D, dt = _loop_matrices(cl)
            names = {}
            if self._names is not None:
                names = {"inputs": self._names[0], "outputs": self._names[1]}
            self._closed_loop = control.ss(A, B, C, D, dt, **names)
            self._names = None
        return self._closed_loop


def _are(A, B, Q, R, S, discrete=False, check_stable=True, r_ok=None, gain=False):
    """Stabilising solution of the continuous or discrete algebraic Riccati equation.

    Continuous: ``A'X + XA - (XB + S) R^-1 (B'X + S') + Q = 0``; discrete:
    ``X = A'XA - (A'XB + S) (R + B'XB)^-1 (B'XA + S') + Q``.  SLICOT SB02MD (ordered
    Schur form of the Hamiltonian / symplectic matrix) on the problem with the cross term
    removed: tens of microseconds for small plants, against milliseconds for scipy's
    solvers with their argument checks and balancing.  When SB02MD fails (e.g. a singular
    ``A`` in discrete time) or its residual is not at rounding level, scipy decides.

    ``r_ok``: whether ``R`` is well conditioned (``lambda_min > 1e-12 lambda_max``), when
    the caller already knows it from singular values; ``None`` computes it.  An
    ill-conditioned ``R`` goes to scipy directly.  With ``check_stable=False`` (continuous
    time only) the stability of ``A + B F`` is left to the caller: h2syn's closed-loop
    spectrum contains it (separation), and a failure there repeats the design with the
    check.  ``gain=True`` returns ``(X, F)`` with the continuous-time optimal gain
    ``F = -R^-1 (B'X + S')``, formed from the ``R^-1 [B', S']`` already computed.
    """
    n = A.shape[0]
    if r_ok is None:
        r = np.linalg.eigvalsh(R)  # R is symmetric positive semidefinite: no SVD needed
        r_ok = r[0] > 1e-12 * max(r[-1], 1e-300)
    X = None
    if r_ok:
        # R^-1 [B', S'] by Cholesky (LAPACK DPOSV, no wrapper overhead); R is symmetric
        # positive definite here, a failed factorisation leaves the problem to scipy
        _, G, info = dposv(R, np.hstack([B.T, S.T]))
        if info == 0:
            X = _sb02md(A, B, Q, R, S, G, discrete, check_stable)
    if X is None:
        # Singular R (no control penalty / measurement noise) is fine in discrete time as
        # long as R + B'XB is invertible; the cross-term-free form does not exist.
        solver = scipy.linalg.solve_discrete_are if discrete else scipy.linalg.solve_continuous_are
        X = solver(A, B, Q, R, s=S)
        if gain:
            return X, -np.linalg.solve(R, B.T @ X + S.T)
        return X
    if gain:
        return X, -(G[:, :n] @ X + G[:, n:])
    return X


def _sb02md(A, B, Q, R, S, G, discrete, check_stable):
    """SB02MD on the cross-term-free problem, checked; ``None`` when scipy must decide."""
    n = A.shape[0]
    Ab = A - B @ G[:, n:]
    Gb = B @ G[:, :n]
    Qb = Q - S @ G[:, n:]
    Gb, Qb = 0.5 * (Gb + Gb.T), 0.5 * (Qb + Qb.T)
    try:
        # SB02MD overwrites its arguments, hence the copies
        X = _slicot_sb02md(n, Ab.copy(), Gb.copy(), Qb.copy(), "D" if discrete else "C")
    except (SlycotError, ValueError):
        return None
    if X is None or not np.isfinite(X).all():
        return None
    # Stability of the closed loop built from X itself, not SB02MD's ordered spectrum
    # (stable by construction): an inaccurate or anti-stabilising X must go to scipy.
    # The margin is relative to the size of the closed-loop matrix (rounding level).
    if discrete:
        XA, XB = X @ Ab, X @ B
        K = np.linalg.solve(R + B.T @ XB, XB.T @ Ab)
        T = XA.T @ B @ K
        terms = (Ab.T @ XA, T, Qb, X)
        res = np.abs(terms[0] - T + Qb - X).max()
        stable = np.abs(np.linalg.eigvals(Ab - B @ K)).max() < 1 - 1e-10
        scale = sum(np.abs(t).max() for t in terms)
    else:
        AX, GX = Ab.T @ X, Gb @ X
        XGX = X @ GX
        res = np.abs(AX + AX.T - XGX + Qb).max()
        scale = np.abs(AX).max() + np.abs(XGX).max() + np.abs(Qb).max()
        stable = True
        if check_stable:
            Acl = Ab - GX
            stable = np.linalg.eigvals(Acl).real.max() < -1e-10 * np.abs(Acl).max()
    if stable and res <= 1e-11 * scale:
        return X
    return None


def _riccati_h2(P, check_stable=True, r_ok=(None, None)):
    """Optimal cost and controller matrices of a regular continuous plant (``D22 = 0``);
    ``r_ok``: whether ``D12'D12`` and ``D21 D21'`` are well conditioned, if known."""
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    R = P.D12.T @ P.D12
    Rt = P.D21 @ P.D21.T
    X, F = _are(A, B2, C1.T @ C1, R, C1.T @ P.D12, check_stable=check_stable, r_ok=r_ok[0],
                gain=True)  # fmt: skip
    # the dual equation's gain is L' (R~ symmetric, Y symmetric)
    Y, Lt = _are(A.T, C2.T, B1 @ B1.T, Rt, B1 @ P.D21.T, check_stable=check_stable,
                 r_ok=r_ok[1], gain=True)  # fmt: skip
    L = Lt.T
    K = (A + B2 @ F + L @ C2, -L, F, np.zeros((B2.shape[1], C2.shape[0])))
    opt = (B1.T @ X @ B1).trace() + (R @ F @ Y @ F.T).trace()
    return float(np.sqrt(max(opt, 0.0))), K


def _lyap_h2(A, B, C, D, dt, margin=0.0):
    """H2 norm of a closed loop from its Gramian (SLICOT SB03MD), independent of synthesis.

    One Fortran call gives the eigenvalues of ``A`` (the stability test) and the Gramian;
    ``inf`` when not stable (or a continuous loop has a feedthrough).  Continuous time:
    stable means every eigenvalue has real part below ``-margin``.  Falls back to
    :func:`robustmb.h2norm` when SB03MD fails or warns (close eigenvalues, failed QR).
    """
    discrete = bool(dt)
    if not discrete and D.any():
        return np.inf
    feed = float(np.sum(D * D)) if discrete else 0.0
    if A.shape[0] == 0:
        return float(np.sqrt(feed))
    try:
        out = _slicot_sb03md(A.copy(), -B @ B.T, "D" if discrete else "C")
    except (SlycotError, Warning, ValueError):
        out = None
    if out is None:
        return h2norm(control.ss(A, B, C, D, dt))
    W, scale, wr, wi = out
    if (np.hypot(wr, wi).max() >= 1) if discrete else (wr.max() >= -margin):
        return np.inf
    # W is positive semidefinite for a stable A: a negative trace is rounding (optimum 0)
    return float(np.sqrt(max((C @ W @ C.T).trace() / scale + feed, 0.0)))


def _slicot_sb02md(n, A, G, Q, dico):
    """SLICOT SB02MD through slycot's Fortran binding (slycot's Python wrapper adds a
    docstring-driven error translation that costs as much as the solve on small plants):
    the stabilising ``X``, or ``None`` when SLICOT reports a failure (``info != 0``).
    ``hinv="I"``: with slycot's default "D" the discrete solution is the anti-stabilising
    one.  Overwrites its array arguments."""
    if _wrapper is None:  # pragma: no cover - slycot without the binding module
        return slycot.sb02md(n, A, G, Q, dico, hinv="I")[0]
    out = _wrapper.sb02md(dico, n, A, G, Q, hinv="I", uplo="U", scal="N", sort="S",
                          ldwork=max(3, 6 * n))  # fmt: skip
    return out[1] if out[-1] == 0 else None


def _slicot_sb03md(A, C, dico):
    """SLICOT SB03MD (``A' X + X A = C`` or ``A' X A - X = C`` with ``trana="T"``, i.e. the
    Gramian equation of ``A``) through slycot's Fortran binding: ``(X, scale, wr, wi)``
    with the eigenvalues of ``A`` in double precision (slycot's wrapper returns them as
    complex64), or ``None`` when SLICOT reports a failure or a warning (close eigenvalues
    of ``A`` and ``-A'``, perturbed solution)."""
    n = A.shape[0]
    if _wrapper is None:  # pragma: no cover - slycot without the binding module
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _, _, X, scale, _, _, w = slycot.sb03md57(A, C=C, dico=dico, trana="T")
        return X, scale, w.real.astype(float), w.imag.astype(float)
    ldwork = max(2 * n * n, 3 * n) if dico == "C" else 2 * n * n + 2 * n
    out = _wrapper.sb03md(dico, n, A, np.zeros((n, n)), C, job="X", fact="N", trana="T",
                          ldwork=ldwork)  # fmt: skip
    if out[-1] != 0:
        return None
    return out[2], out[3], out[6][:n], out[7][:n]


def _riccati_h2_discrete(P):
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D11, D12, D21 = P.D11, P.D12, P.D21
    try:
        X = _are(A, B2, C1.T @ C1, D12.T @ D12, C1.T @ D12, discrete=True)
        Y = _are(A.T, C2.T, B1 @ B1.T, D21 @ D21.T, B1 @ D21.T, discrete=True)
    except (np.linalg.LinAlgError, ValueError) as exc:
        raise IllPosedError(
            f"h2syn: the discrete Riccati equations have no stabilising solution ({exc})"
        ) from exc
    M = D12.T @ D12 + B2.T @ X @ B2
    V = D21 @ D21.T + C2 @ Y @ C2.T
    F = -np.linalg.solve(M, B2.T @ X @ A + D12.T @ C1)
    F0 = -np.linalg.solve(M, B2.T @ X @ B1 + D12.T @ D11)
    Lp = np.linalg.solve(V, (A @ Y @ C2.T + B1 @ D21.T).T).T
    L0 = np.linalg.solve(V, (F @ Y @ C2.T + F0 @ D21.T).T).T
    # xh+ = (A + B2 F - (Lp + B2 L0) C2) xh + (Lp + B2 L0) y,  u = (F - L0 C2) xh + L0 y
    Bk = Lp + B2 @ L0
    K = (A + B2 @ F - Bk @ C2, Bk, F - L0 @ C2, L0)
    opt = np.trace(D11.T @ D11 + B1.T @ X @ B1) + np.trace(M @ (F @ Y @ F.T - L0 @ V @ L0.T))
    return float(np.sqrt(max(opt, 0.0))), K


def h2syn(P, nmeas, ncon, *, method="auto"):
    """Full-order H2-optimal controller with a verified closed-loop H2 norm.

    Parameters
    ----------
    P : control.StateSpace, control.TransferFunction or uncertain system
        Generalised plant, inputs ``[w; u]``, outputs ``[z; y]``, continuous or discrete
        time.  In discrete time the H2 norm is ``sqrt(sum_k trace(g_k' g_k))`` over the
        impulse response (no sampling-time factor, as :func:`robustmb.h2norm`), ``D11``
        is allowed, ``D12`` / ``D21`` may be rank deficient as long as the Riccati
        equations have stabilising solutions (``D12'D12 + B2'X B2`` and
        ``D21 D21' + C2 Y C2'`` invertible), and the optimal controller generally has a
        feedthrough term.
    nmeas, ncon : int or sequence of str
        Measurements and controls (last outputs / inputs, or their names).
    method : {"auto", "riccati", "lmi"}
        ``"auto"``: Riccati formulae for a regular plant with ``D11 = 0``, else the LMI.
        Discrete time: the discrete Riccati equations, and the discrete H2 LMI
        (:func:`.lmi.lmi_h2`) when they have no stabilising solution or for
        ``method="lmi"``.

    Returns
    -------
    H2synResult

    Raises
    ------
    FreeTunableError
        For a ``P`` with free tunable parameters (checked first).
    IllPosedError
        Plant not stabilisable / detectable, no controller makes the loop strictly proper
        (for a plant without states: ``D11 + D12 Q D21 = 0`` has no solution), or
        (discrete time) the Riccati equations have no stabilising solution.
    ArgumentError
        For a ``method`` not listed, or ``nmeas`` / ``ncon`` neither a count nor signal
        names.
    DimensionError, SignalError
        For a wrong partition.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> res = rmb.h2syn(P, 1, 1)
    >>> K = control.tf(res.controller)
    >>> bool(np.allclose(K.num[0][0], [-1.0]) and np.allclose(K.den[0][0], [1.0, 3.0]))
    True

    Discrete time: the scalar plant ``x+ = x + w1 + u``, ``z = [x; u]``, ``y = x + w2``
    has optimal cost ``5 ** 0.25`` (both Riccati solutions are the golden ratio).

    >>> Pd = control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                 [[0, 0, 0], [0, 0, 1], [0, 1, 0]], 1.0)
    >>> bool(np.isclose(rmb.h2syn(Pd, 1, 1).norm, 5 ** 0.25))
    True
    """
    if method not in ("auto", "riccati", "lmi"):
        raise ArgumentError(f"h2syn: method must be 'auto', 'riccati' or 'lmi'; got {method!r}")
    refuse_free_tunables(P, "P", "h2syn")
    given = partition_plant(P, nmeas, ncon)
    # the H2 norm scales with z and w like the H-infinity norm: design at unit scale
    plant, scale = normalised_performance(given)
    res = _h2syn(plant, method)
    n_w, n_z = given.B1.shape[1], given.C1.shape[0]
    if given.input_names and given.output_names:
        # the closed loop maps w to z: it keeps their names (as hinfsyn's)
        res._names = (list(given.input_names[:n_w]), list(given.output_names[:n_z]))
    if plant is given:
        return res
    K = res.controller
    cl = closed_loop(given, (K.A, K.B, K.C, K.D))
    if not given.dt and not np.any(_loop_matrices(res._closed_loop)[3]):
        # the design's loop is strictly proper, its feedthrough at rounding level dropped
        # (see ``_verified``): the same residue, rescaled, is dropped here
        cl = control.ss(cl.A, cl.B, cl.C, np.zeros_like(cl.D), cl.dt)
    return dataclasses.replace(
        res, norm=res.norm / scale, gamma=res.gamma / scale,
        gamma_bracket=tuple(g / scale for g in res.gamma_bracket), _closed_loop=cl,
    )  # fmt: skip


def _loop_matrices(cl):
    """``(A, B, C, D, dt)`` of a closed loop kept as a StateSpace or as its matrices."""
    return cl if isinstance(cl, tuple) else (cl.A, cl.B, cl.C, cl.D, cl.dt)


def _h2syn(plant, method):
    """:func:`h2syn` on a partitioned plant."""
    if plant.A.shape[0] == 0:
        K, cl, norm, opt = static_h2(plant)
        return H2synResult(
            as_controller(K, plant.controller_dt), norm, norm, (opt, norm), cl, "static"
        )
    P0 = plant.with_d22_zero()
    regular, r_ok = regularity(P0)
    riccati = plant.dt > 0 or (regular and not P0.D11.any())
    if method == "riccati" and not riccati:
        raise IllPosedError(
            "method='riccati' needs D11 = 0, D12 of full column rank and D21 of full row rank"
        )
    if method == "lmi" or not riccati:
        check_solvable(plant)
        return _lmi(plant, P0)
    # Fast path: the solvability checks run only when the Riccati design fails, to say why.
    try:
        with single_blas_thread():
            return _discrete(plant, P0) if plant.dt > 0 else _continuous(plant, P0, r_ok)
    except (IllPosedError, np.linalg.LinAlgError, ValueError) as exc:
        check_solvable(plant)
        if plant.dt > 0 and method == "auto":
            # singular discrete problem (D12'D12 + B2'X B2 or D21 D21' + C2 Y C2' singular)
            return _lmi(plant, P0)
        if isinstance(exc, IllPosedError):
            raise
        # the solvability test passed, yet a Riccati solver failed: say which design step
        raise IllPosedError(
            "h2syn: the control or filter Riccati equation of the H2 design has no "
            f"stabilising solution ({type(exc).__name__}: {exc}); the plant may have a "
            "mode on or near the stability boundary that the control inputs cannot reach "
            "or the measurements cannot see, or a u -> z / w -> y zero on that boundary"
        ) from exc


def _continuous(plant, P0, r_ok=(None, None)):
    """Riccati design and its verification on arrays; two ``StateSpace`` objects at the end.

    The controller has no feedthrough, so loop shifting and the lower LFT need no inverse:
    ``Ak = Ak0 - Bk D22 Ck`` and the closed loop is
    ``[[A, B2 Ck], [Bk C2, Ak0]], [B1; Bk D21], [C1, D12 Ck], D11``.  Its spectrum is
    ``eig(A + B2 F)`` and ``eig(A + L C2)`` (separation), so the stability test of the
    verification also certifies both Riccati solutions; when it fails the design is
    repeated with each Riccati solution tested on its own (scipy as fallback).  ``r_ok``:
    conditioning of ``D12'D12`` and ``D21 D21'`` from the regularity test's singular values.
    """
    for check_stable in (False, True):
        opt, (Ak0, Bk, Ck, Dk) = _riccati_h2(P0, check_stable=check_stable, r_ok=r_ok)
        n = Ak0.shape[0]
        Acl = np.empty((2 * n, 2 * n))
        Acl[:n, :n] = plant.A
        Acl[:n, n:] = plant.B2 @ Ck
        Acl[n:, :n] = Bk @ plant.C2
        Acl[n:, n:] = Ak0
        Bcl = np.vstack([plant.B1, Bk @ plant.D21])
        Ccl = np.hstack([plant.C1, plant.D12 @ Ck])
        # the per-Riccati margin of _are, relative to the closed-loop matrix
        margin = 1e-10 * np.abs(Acl).max() if not check_stable else 0.0
        norm = _lyap_h2(Acl, Bcl, Ccl, plant.D11, 0.0, margin)
        if np.isfinite(norm):
            break
    else:
        raise IllPosedError("the riccati H2 controller failed the closed-loop verification")
    Ak = Ak0 - Bk @ plant.D22 @ Ck if plant.D22.any() else Ak0
    K = control.StateSpace(Ak, Bk, Ck, Dk, 0)
    cl = (Acl, Bcl, Ccl, plant.D11.copy(), 0)  # the StateSpace on first access
    return H2synResult(K, norm, norm, (min(opt, norm), norm), cl, "riccati")


# Bound on X and Y of the H2 LMI in the balanced coordinates (both ~1 to 1e3 there; the
# plant's own coordinates need 1e8): on a random 6-state plant a bound of 1e8 left the
# level 5e-5 above the optimum, 1e5 8e-6 (the bound's multiplier degrades the scaling)
_BALANCED_BOUND = 1e5


def _lmi_scalings(P0):
    """Rescalings of the H2 LMI, best first: ``[(dual, T, scale), ...]`` (maybe empty).

    From a Riccati design of the plant, or of its regularised version (``eps u`` and
    ``eps x`` in ``z``, ``eps v`` in ``y`` and ``eps`` noise on ``x``: :func:`.plant.regularise`
    with ``states=True``) when the plant is singular: with that controller's closed-loop
    controllability Gramian ``Wc``, the LMI's ``Y`` is near ``Wc[:n, :n]`` and ``X`` near
    ``inv(Wc)[:n, :n]``; ``T`` makes both equal and diagonal (:func:`.lmi._balancing`),
    and the scale is the design's H2 norm, so that ``trace W`` of the SDP is near 1.  The
    LMI of the transposed plant (``dual``) has the observability Gramian ``Wo`` in that
    role.  A Gramian singular at the optimum (the estimation error, or the part of the
    state ``z`` does not see, vanishes) means an unbounded ``X``, where the solver stops
    early (0.1 % above the optimum and more on random plants with ``D21`` square), so the
    form with the better conditioned Gramian goes first.  Both Gramians are regularised by
    1e-6 of their norm before the balancing: the exact estimate is infinite there.  In
    continuous time a ``D11`` is left out of the design (the Gramians do not depend on it).
    """
    n = P0.A.shape[0]
    discrete = P0.dt > 0
    for eps in (0.0, 1e-6, 1e-4):
        Pr = regularise(P0, eps, states=True) if eps else P0
        try:
            if discrete:
                opt, K = _riccati_h2_discrete(Pr)
            else:
                Pr = dataclasses.replace(Pr, D11=np.zeros_like(Pr.D11))
                opt, K = _riccati_h2(Pr)
            cl = closed_loop(Pr, K)
            eig = np.linalg.eigvals(cl.A)
            if (np.abs(eig).max() >= 1) if discrete else (eig.real.max() >= 0):
                continue
            lyap = scipy.linalg.solve_discrete_lyapunov if discrete else _clyap
            forms = []
            for dual, W in (
                (False, lyap(cl.A, cl.B @ cl.B.T)),
                (True, lyap(cl.A.T, cl.C.T @ cl.C)),
            ):
                W = 0.5 * (W + W.T)
                cond = np.linalg.cond(W)
                W = W + 1e-6 * np.linalg.norm(W, 2) * np.eye(W.shape[0])
                T = _balancing(W[:n, :n], np.linalg.inv(W)[:n, :n])
                if T is not None and np.all(np.isfinite(T)) and np.linalg.cond(T) < 1e8:
                    forms.append((cond, dual, T))
        except (IllPosedError, np.linalg.LinAlgError, ValueError):
            continue
        if forms and np.isfinite(opt) and opt > 0:
            return [(dual, T, opt) for _, dual, T in sorted(forms, key=lambda f: f[0])]
    return []


def _clyap(A, Q):
    """Continuous Gramian: ``A W + W A' + Q = 0``."""
    return scipy.linalg.solve_continuous_lyapunov(A, -Q)


def _verified(plant, K0):
    """``(K, closed loop, H2 norm)`` of an LMI controller on the user's plant.

    A continuous closed-loop feedthrough at rounding level (the LMI's equality holds to
    rounding) is not a real one and is dropped; a larger one makes the norm infinite.
    """
    K = shift_back(K0, plant.D22)
    cl = closed_loop(plant, K)
    if not plant.dt:
        size = max(np.abs(cl.C).max(initial=0.0) * np.abs(cl.B).max(initial=0.0), 1.0)
        if np.abs(cl.D).max(initial=0.0) <= 1e-9 * size:
            cl = control.ss(cl.A, cl.B, cl.C, np.zeros_like(cl.D))
    return K, cl, _lyap_h2(cl.A, cl.B, cl.C, cl.D, cl.dt)


def _lmi(plant, P0, rtol=0.01):
    """H2 LMI (either time domain): the best verified controller within ``rtol``.

    Each candidate of :func:`.lmi.lmi_h2` (the optimum's own point, then backed-off
    levels) is verified on the user's plant as it comes: closed-loop stability and its H2
    norm from the Gramian.  The first within ``rtol`` of the LMI optimum stops the
    search; the bracket is ``(LMI optimum, verified norm)``.
    """
    found = []

    def accept(K0, opt):
        try:
            K, cl, norm = _verified(plant, K0)
        except (IllPosedError, np.linalg.LinAlgError, ValueError):
            return False
        ok = bool(np.isfinite(norm) and norm <= opt * (1 + rtol))
        if ok:
            found.append((norm, K, cl))
        return ok

    # Rescaled plant first (both forms when both balance), then the plant's own scaling,
    # each with Clarabel alone before
    # SCS is allowed (SCS takes tens of seconds): the rescaling rescues the SB10DD plant,
    # but on a plant whose control cannot reach z it turns Clarabel's 0.4 s into a failure
    scalings = _lmi_scalings(P0) + [(False, None, 1.0)]
    attempts = [(*f, fb) for fb in (False, True) for f in scalings]
    opt, error = np.inf, None
    for dual, Ta, sa, fallback in attempts:
        try:
            bound = 1e8 if Ta is None else _BALANCED_BOUND
            level, _ = lmi_h2(
                P0, accept=accept, T=Ta, scale=sa, fallback=fallback, dual=dual, bound=bound
            )
        except IllPosedError as exc:
            error = exc
            continue
        opt = min(opt, level)
        if found:
            break
    if not found and not np.isfinite(opt) and error is not None:
        raise error
    if found:
        norm, K, cl = min(found, key=lambda f: f[0])
        bracket = (min(opt, norm), norm)
        return H2synResult(as_controller(K, plant.controller_dt), norm, norm, bracket, cl, "lmi")
    raise IllPosedError(
        f"no H2 LMI controller came within {rtol:.0%} of the LMI optimum {opt:.6g} "
        "in the closed-loop verification (SDP solution too inaccurate)"
    )


def _discrete(plant, P0):
    opt, K0 = _riccati_h2_discrete(P0)
    K = shift_back(K0, plant.D22)
    cl = closed_loop(plant, K)
    norm = _lyap_h2(cl.A, cl.B, cl.C, cl.D, cl.dt)
    if not np.isfinite(norm):
        raise IllPosedError("the discrete H2 controller failed the closed-loop verification")
    return H2synResult(
        as_controller(K, plant.controller_dt), norm, norm, (min(opt, norm), norm), cl, "riccati"
    )
