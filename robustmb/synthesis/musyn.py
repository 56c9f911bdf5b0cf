"""mu-synthesis by D-K iteration on an uncertain plant.

Each iteration
    K-step  H-infinity synthesis (:func:`.hinfsyn.hinfsyn`) on the scaled plant
            ``diag(D(s), I, I) M diag(D(s)^-1, I, I)``;
    mu-step mu upper bound of the closed loop ``N = Fl(M, K)`` on a frequency grid with the
            robust-performance structure (the uncertainty blocks and one full block from
            the performance outputs to the disturbances), by :func:`robustmb.mussv`;
    D-fit   for every uncertainty block, the scalar scaling ``d_i(w)`` of the upper bound
            (relative to the performance block) is fitted in magnitude by a stable,
            minimum-phase ``g prod (s + z_j)/(s + p_j)`` (real positive zeros and poles),
            of the lowest order up to ``max_order`` that fits to ``fit_tol`` (log scale).

Scalars and real parameters get one scalar ``d`` per block (no full D for repeated
scalars, no G scalings for real parameters: ``ureal`` is treated as complex, a valid but
conservative choice).  Optionally each iteration's controller is reduced by balanced
truncation and the reduced one is what is selected and certified.  The
returned controller is the one with the smallest grid peak; its ``.mu`` is the certified
peak over the whole frequency axis (:func:`robustmb.analysis.mu_sweep.certified_mu_peak`),
and ``.certificate`` the :func:`robustmb.wcgain` result of the uncertain closed loop.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import control
import numpy as np
import scipy.optimize
import slycot

from robustmb._progress import ProgressBar
from robustmb.analysis import freqresp, mussv, wcgain
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.errors import DimensionError, IllPosedError
from robustmb.lft import lft_lower, lftdata, simplify

from .hinfsyn import hinfsyn
from .plant import closed_loop, partition_plant

__all__ = ["MusynResult", "fit_magnitude", "musyn", "reduce_controller"]


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
        ``gamma`` (of the K-step), ``order`` (controller states), ``d_orders``; with
        ``controller_order``, also ``reduced_order`` and ``reduced_mu_peak`` (grid peak
        of the loop with the reduced controller, ``inf`` when that loop is unstable).
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


def _rational(params, order, s):
    g = np.exp(params[0])
    z = np.exp(params[1 : 1 + order])
    p = np.exp(params[1 + order :])
    val = np.full(s.shape, g, dtype=complex)
    for zj, pj in zip(z, p, strict=True):
        val *= (s + zj) / (s + pj)
    return val


def fit_magnitude(omega, mag, *, max_order=4, fit_tol=0.05, weight=None):
    """Stable minimum-phase ``d(s)`` with ``|d(j w)| ~ mag`` (least squares in log scale).

    Returns a ``control.StateSpace`` (a static gain for order 0) and the order used.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.logspace(-2, 2, 40)
    >>> mag = np.abs((1j * w + 1) / (1j * w + 10))
    >>> d, order = fit_magnitude(w, mag)
    >>> order, bool(np.allclose(np.abs(d(1j * w)).ravel(), mag, rtol=1e-3))
    (1, True)
    """
    omega, logm = np.asarray(omega, float), np.log(np.asarray(mag, float))
    wts = np.ones_like(omega) if weight is None else np.asarray(weight, float)
    s = 1j * omega
    best = None
    for order in range(max_order + 1):
        corners = np.exp(np.linspace(np.log(omega[0]), np.log(omega[-1]), order + 2)[1:-1])
        x0 = np.concatenate([[np.median(logm)], np.log(corners), np.log(corners * 1.5)])

        def resid(x, order=order):
            return wts * (np.log(np.abs(_rational(x, order, s))) - logm)

        # Corner frequencies stay within a decade of the grid: a pole or zero far outside
        # it is not determined by the data and would only add stiff or near-axis modes.
        lo = np.full(x0.size, np.log(omega[0] / 10))
        hi = np.full(x0.size, np.log(omega[-1] * 10))
        lo[0], hi[0] = -np.inf, np.inf
        x0 = np.clip(x0, lo + 1e-9, hi - 1e-9)
        sol = scipy.optimize.least_squares(resid, x0, bounds=(lo, hi))
        err = np.sqrt(np.mean((np.log(np.abs(_rational(sol.x, order, s))) - logm) ** 2))
        if best is None or err < best[0] * 0.8:
            best = (err, order, sol.x)
        if err <= fit_tol:
            break
    err, order, x = best
    g, z, p = np.exp(x[0]), np.exp(x[1 : 1 + order]), np.exp(x[1 + order :])
    tf = control.tf([g], [1.0])
    for zj, pj in zip(z, p, strict=True):
        tf = tf * control.tf([1.0, zj], [1.0, pj])
    return control.ss(tf), order


def _rp_structure(blocks, nw, nz):
    """mussv ``blk`` and the channel counts of each block on the z and w sides."""
    blk, zsizes, wsizes = [], [], []
    for name, kind, reps, shape in blocks:
        if kind in ("ultidyn", "ltidyn"):
            if reps != 1:
                raise DimensionError(f"ultidyn {name!r} appears {reps} times; musyn needs 1")
            r, c = shape
            blk.append((r, c))
            zsizes.append(c)
            wsizes.append(r)
        else:  # ucomplex and ureal: a repeated complex scalar (conservative for ureal)
            blk.append((reps, 0))
            zsizes.append(reps)
            wsizes.append(reps)
    blk.append((nw, nz))
    return blk, zsizes, wsizes


def _scaled_plant(M, ds, zsizes, wsizes, nrest_out, nrest_in):
    """``diag(D, I) M diag(D^-1, I)`` as a ``control.StateSpace``."""
    left = [d for d, c in zip(ds, zsizes, strict=True) for _ in range(c)]
    right = [1 / d for d, r in zip(ds, wsizes, strict=True) for _ in range(r)]
    one = control.ss([], [], [], [[1.0]])
    left += [one] * nrest_out
    right += [one] * nrest_in
    L = control.append(*left)
    R = control.append(*right)
    return L * M * R


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
):
    """Robust-performance controller by D-K iteration.

    Parameters
    ----------
    P : uncertain system
        Plant with uncertain elements; its last ``nmeas`` outputs are measurements and
        last ``ncon`` inputs are controls.  Alternatively a ``control.StateSpace`` ``M``
        with the Delta channels first, together with ``blk`` (uncertainty blocks only,
        MATLAB ``mussv`` convention, complex blocks).
    nmeas, ncon : int
    omega : array_like, optional
        Frequency grid of the D-step (default: 60 points around the plant's poles).
    max_iter : int
        Number of D-K iterations.
    max_order : int
        Largest order of each fitted scaling.
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

    Notes
    -----
    Real parameters (``ureal``) are treated as complex scalars: one D scaling per block
    and no G scalings (no D,G-K iteration), which is valid but conservative.

    Returns
    -------
    MusynResult

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
    uncertain = blk is None
    if uncertain:
        M, blocks = lftdata(simplify(P))
        nd_z = sum(
            (shape[1] if kind in ("ultidyn", "ltidyn") else reps) for _, kind, reps, shape in blocks
        )
        nd_w = sum(
            (shape[0] if kind in ("ultidyn", "ltidyn") else reps) for _, kind, reps, shape in blocks
        )
    else:
        M = P
        blocks = [
            (f"b{i}", "ultidyn" if c else "ucomplex", r if not c else 1, (r, c))
            for i, (r, c) in enumerate(blk)
        ]
        nd_z = sum(c if c else r for r, c in blk)
        nd_w = sum(r for r, c in blk)
    if not isinstance(M, control.StateSpace):
        M = control.ss([], [], [], np.atleast_2d(M))
    ny, nu = M.noutputs, M.ninputs
    nz, nw = ny - nd_z - nmeas, nu - nd_w - ncon
    if nz < 1 or nw < 1:
        raise DimensionError(
            f"nmeas = {nmeas}, ncon = {ncon} leave no performance channels "
            f"({nz} outputs, {nw} inputs)"
        )
    rp_blk, zsizes, wsizes = _rp_structure(blocks, nw, nz)
    if omega is None:
        poles = np.abs(np.linalg.eigvals(M.A)) if M.nstates else np.array([1.0])
        poles = poles[poles > 1e-8] if np.any(poles > 1e-8) else np.array([1.0])
        omega = np.logspace(np.log10(poles.min()) - 2, np.log10(poles.max()) + 2, 60)
    omega = np.asarray(omega, float)
    full = partition_plant(M, nmeas, ncon)
    if controller_order is not None and (
        not isinstance(controller_order, (int, np.integer)) or controller_order < 0
    ):
        raise DimensionError(
            f"controller_order must be a non-negative integer, got {controller_order!r}"
        )
    ds = [control.ss([], [], [], [[1.0]]) for _ in zsizes]
    history, best = [], None
    bar = ProgressBar(max_iter + 1, "musyn", enabled=bool(progress))
    for it in range(1, max_iter + 1):
        bar.start(f"D-K {it}: K-step")
        Ps = _scaled_plant(M, ds, zsizes, wsizes, nz + nmeas, nw + ncon)
        t0 = time.perf_counter()
        syn = hinfsyn(Ps, nmeas, ncon)
        K = syn.controller
        t1 = time.perf_counter()
        bar.note(f"D-K {it}: mu-step")
        N = closed_loop(full, (K.A, K.B, K.C, K.D))
        res = mussv(freqresp(N, omega), rp_blk, lower=False)
        peak = float(np.max(res.upper))
        t2 = time.perf_counter()
        entry = {
            "iteration": it,
            "mu_peak": peak,
            "gamma": float(syn.gamma),
            "order": int(K.nstates),
            "d_orders": [int(d.nstates) for d in ds],
        }
        cand, cand_peak, cand_N = K, peak, N
        if controller_order is not None:
            cand = reduce_controller(K, controller_order)
            cand_N = closed_loop(full, (cand.A, cand.B, cand.C, cand.D))
            stable = cand_N.nstates == 0 or np.max(np.linalg.eigvals(cand_N.A).real) < 0
            cand_peak = (
                float(np.max(mussv(freqresp(cand_N, omega), rp_blk, lower=False).upper))
                if stable
                else np.inf
            )
            entry.update(reduced_order=int(cand.nstates), reduced_mu_peak=cand_peak)
        history.append(entry)
        label = f"D-K {it}: peak mu {peak:.4f}, order {K.nstates}"
        if controller_order is not None:
            label += f" (reduced to {cand.nstates}: {cand_peak:.4f})"
        bar.advance(label=f"{label}; K {t1 - t0:.1f} s, mu {t2 - t1:.1f} s")
        if np.isfinite(cand_peak) and (best is None or cand_peak < best[0]):
            best = (cand_peak, cand, cand_N)
        # D-fit: scalar scaling of each block relative to the performance block.
        Dl = res.scalings()[0]
        idx = np.cumsum([0, *zsizes])
        ref = np.abs(Dl[:, idx[-1], idx[-1]])
        new = []
        for i in range(len(zsizes)):
            mag = np.abs(Dl[:, idx[i], idx[i]]) / ref
            d, _ = fit_magnitude(omega, mag, max_order=max_order, weight=res.upper / peak)
            new.append(d)
        ds = new
    if best is None:
        bar.close()
        raise IllPosedError(
            f"controller_order = {controller_order}: no reduced controller of any of the "
            f"{max_iter} iterations stabilises the nominal loop (raise the order)"
        )
    peak, K, N = best
    bar.start("certification")
    # Whole-axis certificate; a level 1 % above the grid peak keeps the interval cover
    # short.  When the cover cannot be closed, .mu is inf (the grid peaks stay in history).
    cert_mu = certified_mu_peak((N.A, N.B, N.C, N.D), rp_blk, lower=False, rel_gap=1e-2)
    certificate = None
    if uncertain:
        certificate = wcgain(lft_lower(P, K))
    bar.advance(label=f"certified mu {float(cert_mu.upper):.4f}")
    bar.close()
    return MusynResult(K, float(cert_mu.upper), history, certificate, rp_blk, cert_mu)
