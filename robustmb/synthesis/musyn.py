"""mu-synthesis by D-K and D,G-K iteration on an uncertain plant.

Each iteration
    K-step  H-infinity synthesis (:func:`.hinfsyn.hinfsyn`) on the scaled plant
            ``diag(D(s), I) M diag(D(s)^-1, I) diag(Mg(s), I) + beta [[Ng(s), 0], [0, 0]]``
            (``Mg = I``, ``Ng = 0`` without real blocks);
    mu-step mu upper bound of the closed loop ``N = Fl(M, K)`` on a frequency grid with the
            robust-performance structure (the uncertainty blocks, real ones kept real,
            and one full block from the performance outputs to the disturbances), by
            :func:`robustmb.mussv`;
    fit     the certificate ``sigma_max((Dl N Dr^-1/beta - j G)(I + G^2)^(-1/2)) <= 1``
            of the upper bound at each frequency, relative to the performance block, is
            turned into stable rational scalings: ``D`` of every block by a stable
            minimum-phase factor (a scalar ``g prod (s + z_j)/(s + p_j)`` fitted in
            magnitude, or a full triangular factor for a repeated scalar,
            :func:`fit_factor`), ``-j G`` of every real block by a para-skew-Hermitian
            ``h = H - H~`` (:func:`fit_skew`) absorbed through its normalised coprime
            factors ``h = N M^-1`` (:func:`skew_coprime`); each of the lowest order up
            to ``max_order`` that fits.

Closed loops are evaluated in a realisation whose slow and fast modes are decoupled
(:func:`_separated`): a weight's near-integrator, the controller's copy of it and fast
controller poles otherwise make the response near ``w = 0`` inaccurate in double
precision.

Real parameters are complexified with ``mixed_mu=False`` (plain D-K, a valid but
conservative choice); repeated scalars get one scalar D with ``full_dg=False``.
Optionally each iteration's controller is reduced by balanced truncation and the
reduced one is what is selected and certified.  The default grid follows the closed
loops: each iteration widens it to a decade beyond its closed loop's pole moduli.  The
returned controller is the one with the smallest certified peak over the whole frequency
axis (:func:`robustmb.analysis.mu_sweep.certified_mu_peak`; the iterations are certified
in the order of their peaks on the final grid until the best certificate is within 1 % of
its grid peak), which is its ``.mu``; ``.certificate`` is the :func:`robustmb.wcgain`
result of the uncertain closed loop.

A discrete-time plant is designed on its bilinear continuous-time equivalent (mu is kept
pointwise under the frequency map ``nu = tan(w dt / 2)``), and the discrete closed loop
with the mapped-back controller is what is certified, over the unit circle.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import control
import numpy as np
import scipy.linalg
import slycot

from robustmb._progress import ProgressBar
from robustmb.analysis import freqresp, mussv, wcgain
from robustmb.analysis._separation import separated_blocks
from robustmb.analysis.mu_structure import dagger, hermitian_power
from robustmb.analysis.mu_upper import _scaled_matrix, expand_scalings
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, SignalError, warn
from robustmb.lft import lft_lower, lftdata, simplify
from robustmb.lft.arguments import frequencies

from .arguments import refuse_free_tunables
from .bilinear_map import (
    flip_plant,
    nyquist_flip,
    to_continuous,
)
from .hinfsyn import hinfsyn
from .musyn_selection import _default_grid, _select, _widened_grid
from .plant import closed_loop, partition_plant, signal_order
from .scaling_fit import (
    _balanced,
    _inverse,
    _static,
    fit_factor,
    fit_magnitude,
    fit_skew,
    skew_coprime,
)

__all__ = [
    "MusynResult",
    "fit_factor",
    "fit_magnitude",
    "musyn",
    "reduce_controller",
]


@dataclass
class MusynResult:
    """Result of :func:`musyn`.

    Attributes
    ----------
    controller : control.StateSpace
    mu : float
        Certified upper bound of the robust-performance mu of the closed loop, over the
        whole frequency axis (``inf`` when the interval cover could not be closed; the
        grid peaks are in ``history``).
    history : list of dict
        Per iteration: ``iteration``, ``mu_peak`` (grid peak of the upper bound),
        ``gamma`` (verified norm of the K-step's scaled loop), ``gamma_opt`` (the
        K-step's estimate of its optimal level), ``order`` (controller states),
        ``d_orders``; except for the last, ``fit_level`` (grid peak of the scaled loop
        with the fitted scalings and this iteration's controller, the level the next
        K-step starts from), ``full_d`` and ``scalings`` (which fit was kept); with
        ``controller_order``, also ``reduced_order`` and ``reduced_mu_peak`` (grid peak
        of the loop with the reduced controller, ``inf`` when that loop is unstable);
        ``final_mu_peak``, the grid peak of the (reduced) controller's loop on the final
        (widest) grid, for every iteration with a stabilising controller; ``selected``
        (``True``) on the iteration whose controller is returned.
    certificate : object
        :func:`robustmb.wcgain` result on the uncertain closed loop (worst-case gain over
        the uncertainty; below 1 means robust performance), or ``None`` for a plant given
        as ``(M, blk)``.
    blk : list
        The robust-performance block structure used.
    mu_certificate : object
        The :class:`~robustmb.analysis.mu_sweep.MuPeak` evidence of ``.mu``.
    """

    controller: control.StateSpace
    mu: float
    history: list
    certificate: object
    blk: list
    mu_certificate: object = field(repr=False, default=None)


def _rp_structure(blocks, nw, nz, mixed):
    """mussv ``blk`` and, per uncertainty block, ``(kind, z channels, w channels)``.

    ``kind`` is ``"full"`` (one scalar scaling), ``"complex"`` (repeated complex scalar)
    or ``"real"`` (repeated real scalar, complexified unless ``mixed``).
    """
    blk, info = [], []
    for name, kind, reps, shape in blocks:
        if kind in ("ultidyn", "ltidyn"):
            if reps != 1:
                raise DimensionError(f"ultidyn {name!r} appears {reps} times; musyn needs 1")
            r, c = shape
            blk.append((r, c))
            info.append(("full", c, r))
        elif kind == "real" and mixed:
            blk.append((-reps, 0))
            info.append(("real", reps, reps))
        else:  # ucomplex, and ureal without mixed mu: a repeated complex scalar
            blk.append((reps, 0))
            info.append(("complex", reps, reps))
    blk.append((nw, nz))
    return blk, info


@dataclass
class _Scaling:
    """Rational scalings of one block: ``DL`` (z side), ``DRinv`` (w side), and for a
    real block ``T = [M; N]``, the coprime factors of its G scaling (w side)."""

    DL: control.StateSpace
    DRinv: control.StateSpace
    T: control.StateSpace | None = None


def _identity_scalings(info):
    return [_Scaling(_static(np.eye(c)), _static(np.eye(r))) for _, c, r in info]


def _shrink_g(Nw, blk, Dl, G, peak, steps=20):
    """Smallest ``t G`` (``t`` in [0, 1], per frequency) that with the same ``Dl`` still
    certifies ``mu <= peak`` in the one-sided form: where mu is well below the peak the
    optimiser's ``G`` is arbitrary, and ``G = 0`` is the easiest to fit."""
    Dl_, Dr, _, Gm, _ = expand_scalings(blk, Dl, G)
    A = _scaled_matrix(Nw, Dl_, Dr) / peak

    def ok(t):
        Gt = Gm * t[:, None, None]
        X = A - 1j * Gt
        lam, V = np.linalg.eigh(np.eye(Gt.shape[2]) + dagger(Gt) @ Gt)
        W = (V / np.sqrt(lam)[:, None, :]) @ dagger(V)  # (I + G^H G)^(-1/2)
        return np.linalg.norm(X @ W, 2, axis=(1, 2)) <= 1 + 1e-9

    lo, hi = np.zeros(len(Nw)), np.ones(len(Nw))
    done = ok(lo)
    hi[done] = 0.0
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        good = ok(mid)
        hi = np.where(good, mid, hi)
        lo = np.where(good, lo, mid)
    return G * hi[:, None, None]


def _fit_scalings(omega, res, info, peak, *, max_order, full_dg, weight, Nw=None):
    """Rational D (and G) scalings from the mu upper bound's certificates on the grid.

    ``mussv`` certifies ``mu <= beta(w)`` by ``sigma_max((Dl N Dr^-1/beta - j G)
    (I + G^2)^(-1/2)) <= 1`` with ``Dl = (I + G^2)^(-1/4) D`` (``D``, ``G`` as stored).
    The same ``Dl`` and ``beta G`` certify the peak, so ``G`` is rescaled to
    ``G beta(w) / peak``.  ``Dl`` is normalised by the performance block's scalar, each
    block's ``Dl`` is replaced by a fitted stable minimum-phase factor ``F = U Dl``
    (``U(w)`` unitary, :func:`fit_factor`), and ``G`` is carried into the same
    coordinates, ``h ~ -j U G U^H``, fitted exactly para-skew-Hermitian (:func:`fit_skew`)
    and absorbed through its normalised coprime factors (:func:`skew_coprime`):
    ``(F N F_r^-1 / peak + h) M = (F N F_r^-1 / peak) M + N``.
    """
    D, G = np.asarray(res.D), np.asarray(res.G)
    real = any(kind == "real" for kind, _, _ in info)
    Dl = hermitian_power(G, -0.25) @ D if real else D
    ref = Dl[:, -1, -1]  # the performance block's scalar (real, positive)
    Dl = Dl / ref[:, None, None]
    Gp = G * (np.asarray(res.upper) / peak)[:, None, None]
    if real and Nw is not None:
        Gp = _shrink_g(Nw, res.blk, Dl * ref[:, None, None], Gp, peak)
    out, pos = [], 0
    for kind, c, r in info:
        z = slice(pos, pos + c)
        pos += c
        if kind == "full":
            d, _ = fit_magnitude(omega, np.abs(Dl[:, z.start, z.start]), max_order=max_order,
                                 weight=weight)  # fmt: skip
            out.append(_Scaling(control.append(*[d] * c), control.append(*[_inverse(d)] * r)))
            continue
        Db = Dl[:, z, z]
        if full_dg or r == 1:
            F, T = fit_factor(omega, dagger(Db) @ Db, max_order=max_order, weight=weight)
            U = T @ np.linalg.inv(Db)
        else:  # one scalar per block: the geometric mean of the scaling's singular values
            mag = np.abs(np.linalg.det(Db)) ** (1.0 / r)
            d, _ = fit_magnitude(omega, mag, max_order=max_order, weight=weight)
            F = control.append(*[d] * r)
            ph = d(1j * omega).ravel() if d.nstates else np.ones(omega.size)
            U = (ph / np.abs(ph))[:, None, None] * np.eye(r)
        sc = _Scaling(F, _inverse(F))
        if kind == "real":
            Gb = Gp[:, z, z]
            if np.max(np.abs(Gb)) > 1e-9:
                H, _ = fit_skew(omega, U @ (-1j * Gb) @ dagger(U), max_order=max_order,
                                weight=weight)  # fmt: skip
                H = _balanced(H)
                try:
                    Ac, Bc, CM, DM, CN = skew_coprime(H)
                except (np.linalg.LinAlgError, ValueError):
                    Ac = None  # no stabilising Riccati solution: this block keeps D only
                if Ac is not None and (Ac.size == 0 or np.linalg.eigvals(Ac).real.max() >= 0):
                    Ac = None  # an inaccurate Riccati solution: keep D only
                if H.nstates and Ac is not None:
                    sc.T = _balanced(
                        control.ss(Ac, Bc, np.vstack([CM, CN]), np.vstack([DM, np.zeros((r, r))]))
                    )
        out.append(sc)
    return out


def _scaled_plant(M, scalings, peak, nrest_out, nrest_in):
    """``diag(DL, I) M diag(DR^-1, I) diag(Mg, I) + peak [[Ng, 0], [0, 0]]``.

    ``Mg``, ``Ng`` are the coprime factors of the real blocks' G scalings (``Mg = I``,
    ``Ng = 0`` elsewhere); they share their states.
    """
    left = [sc.DL for sc in scalings] + [_static(np.eye(nrest_out))]
    right = [sc.DRinv for sc in scalings] + [_static(np.eye(nrest_in))]
    Q = control.append(*left) * M * control.append(*right)
    if all(sc.T is None for sc in scalings):
        return Q
    ny, nu = Q.noutputs, Q.ninputs
    parts, rows_v, rows_e = [], [], []  # output k of the appended T goes to v or to e
    zpos, wpos, ne = 0, 0, 0
    ez = []  # (z channel, e index)
    for sc in scalings:
        c, r = sc.DL.noutputs, sc.DRinv.ninputs
        if sc.T is None:
            parts.append(_static(np.eye(r)))
            rows_v += list(range(wpos, wpos + r))
            rows_e += [None] * r
        else:
            parts.append(sc.T)
            rows_v += list(range(wpos, wpos + r)) + [None] * r
            rows_e += [None] * r + list(range(ne, ne + r))
            ez += [(zpos + k, ne + k) for k in range(r)]
            ne += r
        zpos, wpos = zpos + c, wpos + r
    parts.append(_static(np.eye(nrest_in)))
    rows_v += list(range(wpos, wpos + nrest_in))
    rows_e += [None] * nrest_in
    T = control.append(*parts)
    perm = np.zeros((nu + ne, T.noutputs))
    for k, (v, e) in enumerate(zip(rows_v, rows_e, strict=True)):
        if v is not None:
            perm[v, k] = 1.0
        if e is not None:
            perm[nu + e, k] = 1.0
    T = _static(perm) * T
    Ez = np.zeros((ny, ne))
    for zc, e in ez:
        Ez[zc, e] = peak
    if Q.nstates:
        Qe = control.ss(Q.A, np.hstack([Q.B, np.zeros((Q.nstates, ne))]), Q.C,
                        np.hstack([Q.D, Ez]))  # fmt: skip
    else:
        Qe = _static(np.hstack([Q.D, Ez]))
    return Qe * T


def _separated(N):
    """``N`` with its eigenvalue clusters decoupled by a similarity (continuous time).

    See :func:`robustmb.analysis._separation.separated_blocks`; returned unchanged when
    there is no modulus gap of 1e3 or the split would be ill conditioned.
    """
    if N.nstates < 2 or N.dt:
        return N
    blocks = separated_blocks(N.A, N.B, N.C, depth=1)
    if len(blocks) == 1:
        return N
    A = scipy.linalg.block_diag(*[a for a, _, _ in blocks])
    B = np.vstack([b for _, b, _ in blocks])
    C = np.hstack([c for _, _, c in blocks])
    return control.ss(A, B, C, N.D)


def reduce_controller(K, order):
    """Balanced truncation of a controller to ``order`` states (SLICOT AB09MD).

    The stable part is truncated (balanced, square-root method); unstable modes, which
    balanced truncation cannot reduce, are kept, so the result may have more than
    ``order`` states when ``K`` has more than ``order`` unstable poles.  The feedthrough
    is kept (truncation, not singular perturbation).

    Examples
    --------
    >>> import control
    >>> K = control.ss(control.tf([1.0], [1.0, 1.0]) * control.tf([1.0], [0.01, 1.0]))
    >>> Kr = reduce_controller(K, 1)
    >>> Kr.nstates, bool(abs(Kr(0.0).real - 1.0) < 0.02)
    (1, True)
    """
    if K.nstates <= order:
        return K
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AB09MD warns when it must keep unstable modes
        nr, Ar, Br, Cr, _, _ = slycot.ab09md(
            "C", "B", "N", K.nstates, K.ninputs, K.noutputs,
            K.A.copy(), K.B.copy(), K.C.copy(), alpha=0.0, nr=int(order),
        )  # fmt: skip
    return control.ss(Ar[:nr, :nr], Br[:nr], Cr[:, :nr], K.D)


def _is_count(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _are_names(x):
    """A signal name or a nonempty sequence of them."""
    if isinstance(x, str):
        return True
    return isinstance(x, (list, tuple)) and len(x) > 0 and all(isinstance(v, str) for v in x)


def _named_channels(P, nmeas, ncon, nd_in, nd_out):
    """``P`` with the named measurements and controls moved last, and their counts.

    The order comes from :func:`.plant.signal_order` (as for :func:`hinfsyn`).  For a
    plain ``M`` with ``blk`` the first ``nd_in`` inputs and ``nd_out`` outputs are the
    Delta channels and must not be named.
    """
    if hasattr(P, "nominal") and hasattr(P, "blocks"):
        ins, outs = list(P.input_names), list(P.output_names)
    elif isinstance(P, control.InputOutputSystem):
        ins, outs = list(P.input_labels), list(P.output_labels)
    else:
        ins = outs = None
    m, p = (P.ninputs, P.noutputs) if ins is None else (None, None)
    in_order, out_order, nmeas, ncon = signal_order(ins, outs, nmeas, ncon, m, p)
    if in_order[:nd_in] != list(range(nd_in)) or out_order[:nd_out] != list(range(nd_out)):
        raise SignalError(
            "musyn: nmeas / ncon name a Delta channel of M (the first channels, of blk): "
            "name measurements and controls only"
        )
    if isinstance(P, control.StateSpace):
        Q = control.ss(P.A, P.B[:, in_order], P.C[out_order], P.D[np.ix_(out_order, in_order)],
                       P.dt, inputs=[ins[i] for i in in_order],
                       outputs=[outs[i] for i in out_order])  # fmt: skip
        return Q, nmeas, ncon
    return P[out_order, in_order], nmeas, ncon


def _check_arguments(P, nmeas, ncon, max_iter, max_order, blk, mixed_mu, full_dg):
    """Argument errors found before any synthesis runs."""
    refuse_free_tunables(P, "P", "musyn")
    for value, name in ((mixed_mu, "mixed_mu"), (full_dg, "full_dg")):
        if not isinstance(value, (bool, np.bool_)):
            raise ArgumentError(f"musyn: {name} must be True or False; got {value!r}")
    if not _is_count(max_iter) or max_iter < 1:
        raise ArgumentError(f"musyn: max_iter must be an integer >= 1; got {max_iter!r}")
    if not _is_count(max_order) or max_order < 0:
        raise ArgumentError(f"musyn: max_order must be an integer >= 0; got {max_order!r}")
    for value, name in ((nmeas, "nmeas"), (ncon, "ncon")):
        if not (_is_count(value) or _are_names(value)):
            raise ArgumentError(
                f"musyn: {name} must be an integer count or signal name(s); got {value!r}"
            )
    uncertain = hasattr(P, "nominal") and hasattr(P, "blocks")
    if blk is None and not uncertain:
        raise ArgumentError(
            f"musyn: P is a {type(P).__name__} without uncertain elements: give an "
            "uncertain system, or the Delta channels' structure with blk"
        )
    if blk is not None and uncertain:
        raise ArgumentError(
            "musyn: blk is given with an uncertain P, whose uncertain elements already "
            "define the structure: drop blk, or pass the Delta-channel model M of "
            "rmb.lftdata(P) with blk"
        )
    if blk is not None:
        ok = isinstance(blk, (list, tuple)) and len(blk) > 0
        for b in blk if ok else ():
            if not (
                isinstance(b, (list, tuple))
                and len(b) == 2
                and all(_is_count(x) for x in b)
                and b[0] != 0
                and (b[1] >= 0 if b[0] > 0 else b[1] == 0)
            ):
                ok = False
        if not ok:
            raise ArgumentError(
                "musyn: blk must be a nonempty list of integer pairs (-r, 0) real, (r, 0) "
                f"complex repeated scalar or (r, c) full block; got {blk!r}"
            )


def _discrete_grid(omega, dt, flip):
    """Frequencies (rad/s) of a discrete plant mapped to its bilinear equivalent:
    ``nu = |tan(theta / 2)|`` with ``theta = w dt`` (plus ``pi`` for the flipped plant
    ``P(-z)``); points mapped to infinity are dropped."""
    if np.any(omega > np.pi / dt * (1 + 1e-12)):
        raise ArgumentError(
            f"musyn: omega has a frequency above the Nyquist frequency pi/dt = {np.pi / dt:g} "
            "rad/s of the discrete plant"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = np.abs(np.tan((omega * dt + (np.pi if flip else 0.0)) / 2))
    return np.unique(nu[np.isfinite(nu) & (nu < 1e12)])


def musyn(
    P,
    nmeas,
    ncon,
    *,
    omega=None,
    max_iter=5,
    max_order=4,
    blk=None,
    progress=False,
    controller_order=None,
    mixed_mu=True,
    full_dg=True,
):
    """Robust-performance controller by D-K (or D,G-K) iteration.

    Parameters
    ----------
    P : uncertain system
        Plant with uncertain elements, continuous or discrete time; its last ``nmeas``
        outputs are measurements and last ``ncon`` inputs are controls.  Alternatively a
        ``control.StateSpace`` ``M`` with the Delta channels first, together with ``blk``
        (uncertainty blocks only, MATLAB ``mussv`` convention: ``(-r, 0)`` real,
        ``(r, 0)`` complex repeated scalar, ``(r, c)`` full block).
    nmeas, ncon : int or sequence of str
        Number of measurements (last outputs) and controls (last inputs), or their signal
        names (of ``P``, or of ``M`` with ``blk``, where the Delta channels cannot be
        named), which then become ``y`` and ``u`` in the given order, as in
        :func:`hinfsyn`.
    omega : array_like, optional
        Frequency grid of the D-step in rad/s, finite and >= 0, in discrete time at most
        the Nyquist frequency ``pi / dt`` (default: 60 points from two decades below
        the slowest to two above the fastest pole of the plant, of its bilinear
        equivalent in discrete time, widened at the same density in every iteration to
        a decade beyond the moduli of the closed loop's poles).  A warning is issued when
        the returned controller's certified peak exceeds its grid peak by more than 1 %:
        the grid then misses the peak.
    max_iter : int
        Number of D-K iterations, at least 1.
    max_order : int
        Largest order of each fitted scaling, at least 0.
    blk : list, optional
        Uncertainty structure when ``P`` is a plain state-space model.
    progress : bool
        Show a progress bar (:class:`robustmb._progress.ProgressBar`, on stderr) over the
        iterations and the final certification, with the peak mu of each iteration.
    controller_order : int, optional
        Reduce each iteration's controller to this many states by balanced truncation
        (:func:`reduce_controller`).  The D-K iteration itself runs at full order; the
        reduced controller of each iteration is evaluated on the uncertain loop, the best
        one is returned, and ``.mu`` / ``.certificate`` certify that reduced controller.
    mixed_mu : bool
        (``True`` or ``False``.)  Treat real parameters as real (MATLAB's ``MixedMU``):
        the mu-step computes the mixed mu upper bound with D and G scalings, and both are
        fitted and absorbed in the K-step (D,G-K iteration).  With ``False`` real
        parameters are complexified (plain D-K; valid but conservative, and so is the
        returned ``.mu``).
    full_dg : bool
        Full (``r x r``) D scalings for repeated scalar blocks (MATLAB's ``FullDG``);
        with ``False`` one scalar per block.

    Notes
    -----
    The G scaling of a real block enters the K-step exactly (up to the fit): ``-j G`` is
    fitted by a para-skew-Hermitian ``h = H - H~`` and absorbed through the normalised
    coprime factors ``h = N M^-1`` (``M M^H = (I + G^2)^-1``), so the K-step bounds
    ``sigma_max((D N D^-1 / beta - j G)(I + G^2)^(-1/2))``, the mixed-mu certificate.
    Every reported mu (``history``, ``.mu``) is computed afresh on the closed loop.

    A discrete-time plant is designed on its bilinear continuous-time equivalent
    (``z = (1 + s) / (1 - s)``, which keeps mu at corresponding frequencies, so the D-K
    iteration's grid peaks and norms are the discrete ones), on ``P(-z)`` when it has a
    pole at or near ``z = -1`` (:func:`.bilinear_map.flip_plant`); the controller is mapped back
    to the plant's sampling time, and ``.mu`` and ``.certificate`` certify the discrete
    closed loop over the unit circle.  The grid peaks in ``history`` are at the mapped
    frequencies.

    Returns
    -------
    MusynResult

    Warns
    -----
    RobustMBWarning
        When the K-step of an iteration after the first fails (an ill-conditioned scaled
        plant): the iteration stops there and the best controller so far is returned;
        when the returned controller's certified peak exceeds its grid peak by more than
        1 % (see ``omega``).

    Raises
    ------
    FreeTunableError
        For a ``P`` with free tunable parameters (checked first).
    ArgumentError
        For ``max_iter`` below 1, ``max_order`` below 0, non-integer ``nmeas`` / ``ncon``,
        an ``omega`` that is not a grid of finite frequencies >= 0 (at most ``pi / dt`` in
        discrete time), ``mixed_mu`` or ``full_dg`` not a bool, a plain system without
        ``blk``, an uncertain ``P`` with ``blk``, or a ``blk`` that is not a list of
        integer pairs (checked before any synthesis).
    DimensionError
        For channel counts or ``blk`` that do not fit the plant.
    SignalError
        For unknown or repeated signal names, or names of Delta channels.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> d = rmb.ultidyn("d", (1, 1), bound=0.5)
    >>> G = rmb.uss(control.tf([1.0], [1.0, 1.0])) * (1 + d)
    >>> W = rmb.uss(control.tf([0.5, 0.5], [1.0, 0.01]))
    >>> P = rmb.vstack(W, 1.0) * rmb.hstack(1.0, -G)     # z = W e, y = e = w - G u
    >>> res = rmb.musyn(P, 1, 1, max_iter=2)
    >>> [h["order"] for h in res.history]
    [2, 6]
    >>> bool(res.history[1]["mu_peak"] < res.history[0]["mu_peak"] and res.mu < 1)
    True
    """
    _check_arguments(P, nmeas, ncon, max_iter, max_order, blk, mixed_mu, full_dg)
    uncertain = blk is None
    if not (_is_count(nmeas) and _is_count(ncon)):
        # a full block (r, c) takes c outputs of M and feeds r inputs (as _rp_structure)
        nd_in = 0 if uncertain else sum(r if c else abs(r) for r, c in blk)
        nd_out = 0 if uncertain else sum(c if c else abs(r) for r, c in blk)
        P, nmeas, ncon = _named_channels(P, nmeas, ncon, nd_in, nd_out)
    if uncertain:
        M, blocks = lftdata(simplify(P))
        if not blocks:
            raise ArgumentError(
                "musyn: P has no uncertain elements: nothing to make robust (use hinfsyn "
                "for a nominal design)"
            )
    else:
        M = P
        blocks = []
        for i, (r, c) in enumerate(blk):
            if c:
                blocks.append((f"b{i}", "ultidyn", 1, (r, c)))
            else:
                blocks.append((f"b{i}", "real" if r < 0 else "complex", abs(r), (1, 1)))
    if not isinstance(M, control.StateSpace):
        M = control.ss([], [], [], np.atleast_2d(M))
    rp_probe, info = _rp_structure(blocks, 1, 1, mixed_mu)
    nd_z = sum(c for _, c, _ in info)
    nd_w = sum(r for _, _, r in info)
    ny, nu = M.noutputs, M.ninputs
    nz, nw = ny - nd_z - nmeas, nu - nd_w - ncon
    if nz < 1 or nw < 1:
        raise DimensionError(
            f"nmeas = {nmeas}, ncon = {ncon} leave no performance channels "
            f"({nz} outputs, {nw} inputs)"
        )
    rp_blk, info = _rp_structure(blocks, nw, nz, mixed_mu)
    mixed = any(kind == "real" for kind, _, _ in info)
    step = "DG-K" if mixed else "D-K"
    full = partition_plant(M, nmeas, ncon)
    # A discrete plant: the D-K iteration runs on its bilinear continuous equivalent
    # (z = (1 + s) / (1 - s); mu is kept pointwise under the frequency map, every
    # H-infinity norm too), on P(-z) for a pole at or near z = -1; the controller is mapped
    # back and the discrete loop certified.
    discrete = full.dt > 0
    flip = discrete and full.A.shape[0] > 0 and nyquist_flip(full)
    if discrete:
        M = (to_continuous(flip_plant(full) if flip else full)).statespace()
    work = partition_plant(M, nmeas, ncon) if discrete else full
    omega = frequencies(omega, "musyn")
    if omega is not None and discrete:
        omega = _discrete_grid(omega, full.dt, flip)
        if omega.size == 0:
            omega = None
    follow = omega is None  # the default grid follows the closed loops' poles
    if follow:
        omega, density = _default_grid(M.A)
    if controller_order is not None and (
        not isinstance(controller_order, (int, np.integer))
        or isinstance(controller_order, (bool, np.bool_))
        or controller_order < 0
    ):
        raise DimensionError(
            f"controller_order must be a non-negative integer, got {controller_order!r}"
        )
    scalings, peak_prev = _identity_scalings(info), 1.0
    history, tried = [], []
    bar = ProgressBar(max_iter + 1, "musyn", enabled=bool(progress))
    for it in range(1, max_iter + 1):
        bar.start(f"{step} {it}: K-step")
        Ps = _scaled_plant(M, scalings, peak_prev, nz + nmeas, nw + ncon)
        t0 = time.perf_counter()
        try:
            syn = hinfsyn(Ps, nmeas, ncon)
        except IllPosedError as err:
            if it == 1:
                raise
            # an ill-conditioned scaled plant: stop, keeping the best controller so far,
            # and say so (the iterations left are not run)
            history.append({"iteration": it, "mu_peak": np.inf, "failed": str(err)})
            warn(
                f"musyn: the K-step of iteration {it} failed on the scaled plant ({err}); "
                f"stopping after {it - 1} of {max_iter} iterations with the best "
                "controller so far (history[-1]['failed'] has the reason)"
            )
            bar.advance(label=f"{step} {it}: K-step failed, stopping")
            break
        K = syn.controller
        t1 = time.perf_counter()
        bar.note(f"{step} {it}: mu-step")
        N = _separated(closed_loop(work, (K.A, K.B, K.C, K.D)))
        if follow:
            omega = _widened_grid(omega, N.A, density)
        Nw = freqresp(N, omega)
        res = mussv(Nw, rp_blk, lower=False)
        peak = float(np.max(res.upper))
        t2 = time.perf_counter()
        entry = {
            "iteration": it,
            "mu_peak": peak,
            "gamma": float(syn.gamma),
            "gamma_opt": float(syn.gamma_opt),
            "order": int(K.nstates),
            "d_orders": [int(sc.DL.nstates) for sc in scalings],
        }
        if mixed:
            entry["g_orders"] = [int(sc.T.nstates) if sc.T is not None else 0 for sc in scalings]
        cand, cand_peak, cand_N = K, peak, N
        if controller_order is not None:
            cand = reduce_controller(K, controller_order)
            cand_N = _separated(closed_loop(work, (cand.A, cand.B, cand.C, cand.D)))
            stable = cand_N.nstates == 0 or np.max(np.linalg.eigvals(cand_N.A).real) < 0
            cand_peak = (
                float(np.max(mussv(freqresp(cand_N, omega), rp_blk, lower=False).upper))
                if stable
                else np.inf
            )
            entry.update(reduced_order=int(cand.nstates), reduced_mu_peak=cand_peak)
        history.append(entry)
        label = f"{step} {it}: peak mu {peak:.4f}, order {K.nstates}"
        if controller_order is not None:
            label += f" (reduced to {cand.nstates}: {cand_peak:.4f})"
        bar.advance(label=f"{label}; K {t1 - t0:.1f} s, mu {t2 - t1:.1f} s")
        if np.isfinite(cand_peak):
            tried.append((it, cand, cand_N))
        if it < max_iter:
            # Any stable D (commuting with the structure) and para-skew h give a valid
            # bound, so the fit whose scaled loop with the current K is smallest on the
            # grid is kept: the next K-step then starts from about that level (a full D
            # of an ill-conditioned P(w) can fit worse than one scalar per block).
            fits = []
            # the mixed fit (D and G) and, for real blocks, the complexified one (D of
            # the complex structure's bound, no G): a G scaling that varies fast or is
            # far from zero where mu is not active can fit worse than D-K's D alone
            variants = [(info, res, "DG" if mixed else "D")]
            if mixed:
                info_c = [("complex" if k == "real" else k, c, r) for k, c, r in info]
                blk_c = [(abs(r), c) for r, c in rp_blk]
                variants.append((info_c, mussv(Nw, blk_c, lower=False), "D"))
            for inf, rs, kind in variants:
                cands = [
                    (
                        form,
                        kind,
                        _fit_scalings(
                            omega,
                            rs,
                            inf,
                            peak,
                            max_order=max_order,
                            full_dg=form,
                            weight=rs.upper / np.max(rs.upper),
                            Nw=Nw,
                        ),
                    )  # fmt: skip
                    for form in ((True, False) if full_dg else (False,))
                ]
                for form, tag, sc in cands:
                    Ns = _separated(
                        closed_loop(
                            partition_plant(
                                _scaled_plant(M, sc, peak, nz + nmeas, nw + ncon), nmeas, ncon
                            ),
                            (K.A, K.B, K.C, K.D),
                        )
                    )
                    level = float(np.max(np.linalg.norm(freqresp(Ns, omega), 2, axis=(1, 2))))
                    fits.append((level, form, tag, sc))
            level, form, kind, scalings = min(fits, key=lambda f: f[0])
            entry.update(fit_level=level, full_d=bool(form), scalings=kind)
            peak_prev = peak
    if not tried:
        bar.close()
        raise IllPosedError(
            f"controller_order = {controller_order}: no reduced controller of any of the "
            f"{max_iter} iterations stabilises the nominal loop (raise the order)"
        )
    bar.start("certification")
    K, cert_mu = _select(tried, omega, rp_blk, full, flip, history)
    certificate = None
    if uncertain:
        certificate = wcgain(lft_lower(P, K))
    bar.advance(label=f"certified mu {float(cert_mu.upper):.4f}")
    bar.close()
    return MusynResult(K, float(cert_mu.upper), history, certificate, rp_blk, cert_mu)
