"""Structured H-infinity synthesis: ``hinfstruct(P, K)``."""

from __future__ import annotations

from dataclasses import dataclass, field

import control
import numpy as np
import scipy.linalg as sla

from ..analysis import hinfnorm
from ..errors import ArgumentError, DimensionError, UncertainTypeError
from ..lft.algebra import lft_lower
from ..lft.complex_statespace import ComplexStateSpace
from ..lft.model import UncertainModel, as_model
from .infeasible_run import warn_infeasible
from .parametrization import ParameterVector, TunableLFT
from .sample_points import check_samples, hold_complex_at_nominal
from .tuning_problem import TuningProblem
from .tuning_term import Term, check_multipeak, check_run_options, check_seed


@dataclass
class HinfstructResult:
    """Result of :func:`hinfstruct`.

    Attributes
    ----------
    controller : control.StateSpace
        The tuned controller (tunables substituted).
    gamma : float
        Achieved closed-loop H-infinity norm (worst over the models), recomputed by
        ``hinfnorm`` on the substituted closed loop(s).
    closed_loop : control.StateSpace or list
        The tuned closed loop (a list for several models).
    values : dict
        ``{name: value}`` of the tuned parameters.
    runs : list of RunRecord
        Every run (start point, history, value, time), the best first.
    """

    controller: object
    gamma: float
    closed_loop: object
    values: dict
    runs: list = field(default_factory=list)

    def verify(self):
        """Recompute gamma with ``hinfnorm`` on each closed loop.

        ``inf`` unless ``hinfnorm``'s stability test proves every loop stable (poles of
        the balanced ``A`` beyond their rounding bands, or a verified inclusion; see
        :func:`robustmb.tuning.stability.proved_stable`), never the sign of computed
        eigenvalues, which an ill-conditioned loop can put on the wrong side.

        Examples
        --------
        >>> import control
        >>> res = HinfstructResult(None, 0.5, control.ss([[-2.0]], [[1.0]], [[1.0]], [[0.0]]), {})
        >>> res.verify()
        0.5
        >>> HinfstructResult(None, 1.0, control.ss([[1.0]], [[1.0]], [[1.0]], [[0.0]]), {}).verify()
        inf
        """
        loops = self.closed_loop if isinstance(self.closed_loop, list) else [self.closed_loop]
        gam = 0.0
        for cl in loops:
            # hinfnorm is inf unless its test (proved_stable's) proves the loop stable
            gam = max(gam, hinfnorm(cl)[0])
            if not np.isfinite(gam):
                return np.inf
        return gam


# Defaults of hinfstruct's ``join`` and ``polish_window`` (TuningProblem.solve's join and
# near): heuristics that can change the result, see hinfstruct's Notes.
JOIN = 1e-6
NEAR = 0.01
# Default of hinfstruct's ``abandon`` (TuningProblem.solve's abandon), see its Notes.
ABANDON = 10.0
# Default of hinfstruct's ``zero_tol`` (TuningProblem.solve's zero_tol), see its Notes.
ZERO_TOL = 1e-6


def _balanced(p):
    """``p`` in diagonally balanced state coordinates (powers of two: exact) when that
    shrinks ``||A||_1`` more than tenfold, else ``p``.

    The closed-loop norm does not depend on the plant's state coordinates, but its
    evaluation does: COMPleib DLR2 (``||A||_1`` 1.9e4, balanced 148) tunes to 4006.6
    balanced and stalls at 4243 unbalanced.  Plants scaled reasonably already (every
    other COMPleib plant of the tests: at most 3.7 times) are left as they are.
    """
    if not isinstance(p, control.StateSpace) or not p.nstates:
        return p
    a = np.asarray(p.A)
    if not np.all(np.isfinite(a)):
        return p
    _, (scale, _) = sla.matrix_balance(a, permute=False, separate=True)
    ab = a * scale[None, :] / scale[:, None]
    if not np.linalg.norm(ab, 1) < 0.1 * np.linalg.norm(a, 1):
        return p
    b = np.asarray(p.B) / scale[:, None]
    c = np.asarray(p.C) * scale[None, :]
    return control.ss(
        ab, b, c, p.D, p.dt, inputs=p.input_labels, outputs=p.output_labels, name=p.name
    )


def _models(P, samples, seed):
    """The plants at their nominal values, then at each sample.

    ``ucomplex`` and ``ultidyn`` elements stay at their nominal value in every sample,
    as in :func:`~robustmb.tuning.systune` (the optimiser works on real models): drawn
    samples take their nominal, and a given sample that sets one elsewhere is an
    ``ArgumentError``.
    """
    plants = list(P) if isinstance(P, list | tuple) else [P]
    if not plants:
        raise ArgumentError("hinfstruct: P is an empty list (give a plant or a list of plants)")
    # samples name elements of any of the plants, inside their ranges (systune's checks)
    elements = {}
    for p in plants:
        if isinstance(p, UncertainModel):
            elements.update(p.uncertainty)
    given = check_samples(elements, samples, "hinfstruct", "the plants")
    hold_complex_at_nominal(elements, given, "hinfstruct", "the optimiser works on real models")
    out = []
    for i, p in enumerate(plants):
        if isinstance(p, UncertainModel) and p.uncertainty:
            nominal = p.nominal()
            _check_real(nominal, p, i)
            out.append(nominal)
            held = {n: el.nominal for n, el in p.uncertainty.items() if el.kind != "real"}
            if isinstance(given, int):
                points = p.usample(given, seed=seed)[1] if given else []
            else:
                points = [{n: v[n] for n in p.uncertainty} for v in given]
            out += [p.usubs(point | held) for point in points]
        else:
            out.append(p)
    return out


def _check_real(model, plant, i):
    """A plant's nominal model must be real: a ``ucomplex`` with a complex nominal makes
    it complex, which the optimiser (real parameters, real models) cannot tune."""
    if not isinstance(model, ComplexStateSpace):
        return
    names = sorted(n for n, el in plant.uncertainty.items() if el.kind != "real")
    raise ArgumentError(
        f"hinfstruct: P (plant {i}) is complex at its nominal values (elements {names}); "
        "hinfstruct tunes real models: give complex elements a real nominal"
    )


def hinfstruct(
    P,
    K,
    *,
    random_start=0,
    seed=None,
    samples=None,
    progress=False,
    maxiter=1000,
    multipeak=True,
    polish_window=NEAR,
    join=JOIN,
    abandon=ABANDON,
    zero_tol=ZERO_TOL,
):
    """Tune the parameters of a structured controller to minimise ``||Fl(P, K)||_inf``.

    Parameters
    ----------
    P : control.StateSpace, UncertainSystem or list of them
        Generalised plant: its last ``ny`` outputs are measurements and last ``nu``
        inputs are controls, where ``(nu, ny) = K.shape``.  Several plants are tuned
        jointly (the worst closed-loop norm is minimised).
    K : UncertainSystem
        A tunable block or any model built from tunable parameters (``K.tunables``).
    random_start : int
        Number of extra runs from random points (>= 0; the first run starts from the
        parameters' current values).
    seed : int, optional
        Seed of the random starts.
    samples : int or list of dict, optional
        For an uncertain ``P``: besides the nominal model, ``samples`` random samples
        (or the given ``{name: value}`` points) are tuned jointly.  A point names
        uncertain elements of the plants, with values inside their ranges (an
        ``ArgumentError`` otherwise); the elements it leaves out take their nominal.
        ``ucomplex`` and ``ultidyn`` elements stay at their nominal in every sample (a
        given point that sets one elsewhere is an ``ArgumentError``), as in ``systune``.
    progress : bool
        Show a progress bar over the runs.
    maxiter : int
        BFGS iterations per run (>= 1).  ``K`` needs a free entry (``realp(...,
        free=False)`` entries keep their value).
    multipeak : bool
        Take the multi-peak step of Apkarian and Noll (2006) where several peak
        frequencies (or models) are active at once
        (:func:`robustmb.tuning.multipeak.multipeak_direction`); ``False``: plain
        nonsmooth BFGS on the subgradient of one peak.
    polish_window : float
        Gradient sampling polishes the first run, and a random start only when its
        BFGS value is within this relative distance of the lowest value of the other
        runs once every start has run (``>= 0``; ``inf`` polishes every run).
    join : float
        A random start stops, unpolished, once its value is within
        ``[best, best (1 + join)]`` of the best polished run so far, and is not
        polished when the verified value it ends with is in that band (finite, ``>=
        0``; ``0`` never stops a run early).
    abandon : float
        A random start stops, unpolished, once its value minus ``abandon`` times its
        gain over the last 50 BFGS iterations is still above the polish window of the
        best run so far (``>= 0``; ``inf`` never abandons a run).
    zero_tol : float
        Absolute tolerance on gamma, relative to the closed-loop norm at the initial
        parameters (made stable): a run stops, unpolished, once gamma is below
        ``zero_tol`` times that norm and has fallen by 1e3 from its first value below
        it, and the remaining random starts are skipped once the best run's verified
        gamma is there (finite, ``>= 0``; ``0`` never stops on it).

    Returns
    -------
    HinfstructResult

    Notes
    -----
    Nonsmooth BFGS on the H-infinity norm with analytic subgradients at the peak
    frequency (see :mod:`robustmb.tuning.gradients`); each run first stabilises the
    loop by minimising its spectral abscissa.  A badly scaled state-space plant is first
    put in diagonally balanced state coordinates (same closed-loop norm for every
    controller; the returned closed loop is in those coordinates).  Two heuristics cut the
    search effort and can change the result (a different local optimum, or a run left
    short of stationarity); they are bounded in practice but not in theory.  Where BFGS
    stops, gradient sampling polishes the first run at once; the random starts' polish
    waits until every start has run its BFGS phase, and then goes to the runs in
    increasing order of their value, each only when within ``polish_window`` (1 %) of
    the lowest value of the other runs (the lowest run always): the polish gained up
    to 1.7 % on COMPleib HE1, so a run just outside the window could have won.  A
    later start that ends lower spares the polish of a run no longer within the window
    of it (on COMPleib, 13 plants and seeds 0, 1, 2: 2-5 % fewer evaluations, up to a
    third fewer on HF2D11, gamma within 2.5e-7 of polishing each run near the best as
    soon as it ends); a run left unpolished says so in its message.
    A random start stops as soon as its value is within ``[best, best (1 + join)]``
    (``join`` 1e-6) of a polished run, without any stationarity test, and a random
    start whose BFGS ended with its verified value in that band is not polished (its
    inner value, a lower bound of the norm, can end just below the band while
    ``hinfnorm`` puts it inside): it never stops below the best value, but a run
    passing through that band on its way to a lower optimum is cut off there
    (Rosenbrock's function plus one, minimum 1.0: a run joined to the value 1.705 of
    its own path stops there, far from stationary).
    A random start is abandoned when, checked every 25 BFGS iterations from the 50th,
    ``abandon`` (10) more fifty-iteration windows of its last one's gain (the same
    500-iteration horizon as 5 windows of 100, checked from half as far in) would still
    leave it above that polish window: it would not even be polished.  A run that speeds
    up after the check is cut (on COMPleib AC6 a random start 38 % above the best after
    200 iterations went on to tie it; it had gained 11.8 % of the best value in its last
    hundred, so a horizon of 300 iterations would have cut it, 500 did not; a factor 5
    on 50-iteration windows, a 250-iteration horizon, cut the winning run of HF2D11 with
    seed 1).
    A norm is never negative, so a gamma below ``zero_tol`` (1e-6) times the initial
    closed loop's norm is within that absolute distance of the best any controller can
    reach (a static gain that makes the performance channel vanish, as on COMPleib
    AC1, drives gamma geometrically towards 0).  That level depends on the initial
    gain (a barely stabilising one has a huge norm and puts it above the optimum), so
    a run stops only once gamma, below it, has also fallen by a factor 1e3 from the
    first value it had below it (the geometric decay towards 0; AC1 falls from 1e-2 to
    1e-7 in 40 iterations), and the remaining starts are skipped only when the best
    verified gamma met that same rule; ``runs`` may then hold fewer than ``1 +
    random_start`` records.  Still a heuristic: a run can stop above the optimum only
    if it crosses the level at least 1e3 times above it, which needs an initial norm
    above 1e9 times the optimum (a first-order plant whose gamma falls like ``1/|K|``
    towards its infimum ``rho``, from ``1e12 rho`` at the initial gain, stops at about
    ``500 rho``); ``zero_tol=0`` then.
    ``polish_window=inf, join=0, abandon=inf, zero_tol=0`` turn the four off.  Whatever the
    search, the returned ``gamma`` is ``hinfnorm``'s on the tuned closed loop.  The
    result is a local optimum; use ``random_start`` to explore.

    Examples
    --------
    >>> import numpy as np, control
    >>> import robustmb as rmb
    >>> # Unstable plant 1/(s - 1), disturbance w at its input, z = [x; 0.1 u], y = x + 0.1 n.
    >>> P = control.ss([[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]])
    >>> K = rmb.tunable_gain("K", 1, 1)
    >>> res = rmb.hinfstruct(P, K, random_start=2, seed=0)
    >>> bool(abs(res.gamma - res.verify()) < 1e-9 * res.gamma)
    True
    >>> bool(res.closed_loop.poles().real.max() < 0)
    True
    """
    check_multipeak(multipeak, "hinfstruct")
    for name, v, finite in (
        ("polish_window", polish_window, False),
        ("join", join, True),
        ("abandon", abandon, False),
        ("zero_tol", zero_tol, True),
    ):
        if (
            not isinstance(v, int | float | np.integer | np.floating)
            or isinstance(v, bool)
            or not v >= 0
            or (finite and not np.isfinite(v))
        ):
            kind = "a finite number >= 0" if finite else "a number >= 0 (inf allowed)"
            raise ArgumentError(f"hinfstruct: {name} must be {kind}, got {v!r}")
    km = as_model(K)
    if not km.tunables:
        raise UncertainTypeError(f"hinfstruct: K ({km.name!r}) has no tunable parameters")
    if km.uncertainty:
        raise UncertainTypeError(f"hinfstruct: K has uncertain elements {sorted(km.uncertainty)}")
    seed = check_seed("hinfstruct", seed)
    check_run_options("hinfstruct", random_start, maxiter, ParameterVector(km.tunables))
    nu, ny = km.shape
    plants = _models(P, samples, seed)
    loops = []
    for i, p in enumerate(plants):
        pm = as_model(_balanced(p))
        if pm.shape[0] <= ny or pm.shape[1] <= nu:
            raise DimensionError(
                f"hinfstruct: plant {i} has shape {pm.shape}; K of shape {km.shape} needs more "
                f"than {ny} outputs and {nu} inputs"
            )
        loops.append(lft_lower(pm, km))
    params = ParameterVector(km.tunables)
    lfts = [TunableLFT(cl, params) for cl in loops]
    problem = TuningProblem(params, [Term(lft) for lft in lfts], loops=lfts, multipeak=multipeak)
    runs, best = problem.solve(
        random_start=random_start,
        seed=seed,
        progress=progress,
        maxiter=maxiter,
        polish="deferred",
        near=float(polish_window),
        join=float(join),
        abandon=float(abandon),
        zero_tol=float(zero_tol),
    )
    runs = [runs[best]] + [r for i, r in enumerate(runs) if i != best]
    warn_infeasible("hinfstruct", problem, runs[0])
    x = runs[0].x
    values = params.values(x)
    controller = km.usubs(values)
    if not isinstance(controller, control.StateSpace):
        controller = control.ss([], [], [], controller)
    closed = [cl.usubs(values) for cl in loops]
    gamma = max(hinfnorm(c)[0] for c in closed)
    return HinfstructResult(
        controller, gamma, closed[0] if len(closed) == 1 else closed, values, runs
    )
