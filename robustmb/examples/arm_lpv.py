"""Robust LPV control of the two-link arm: problem (27) of the LFT-multibody paper (seed 000).

The plant is :func:`robustmb.examples.two_link_arm` scheduled by ``t1 = tan(theta1/2)``
and ``t2 = tan(theta2/2)`` over theta1 in [45, 90] deg and theta2 in [45, 135] deg, with
``m1, J1, rho1, L2, m3`` at +-20 %.  The controller is the affine surface
``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)`` (3 states, 2 inputs, 2 outputs), scheduled
by the *same* ``t1, t2`` elements as the plant (``s1, s2`` are ``t1, t2`` normalised to
[-1, 1], which spans the same affine family as ``t1, t2``), in error feedback
``dT = K de`` with ``de = dtheta_ref - dtheta``.  Goals, over every ``(t1, t2, Delta)``:

* hard: ``||W_e S||_inf < 1`` with ``W_e = (s + 1) / (2 s + 0.02) I2``;
* soft: minimise ``||W_T K S||_inf`` with ``W_T = I2 / 1500``.

The paper reports ``gamma1 = 0.97`` and ``gamma2 = 0.69`` (MATLAB ``systune``, sampled,
uncertified).  Guarantees here are frozen-parameter ones: they hold for every constant
``(t1, t2)`` in the ranges, with no bound on the rates of variation (as in the paper).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import control
import numpy as np

from ..errors import ArgumentError
from ..lft.connect import connect
from ..tuning.goals import WeightedGain
from ..tuning.tunable_surface import tunable_surface
from .arm import two_link_arm

#: Values of problem (27) reported by the paper (seed 000, Sec. 6.4).
PAPER_GAMMA1 = 0.97
PAPER_GAMMA2 = 0.69

#: Output scaling of the tuned surface: the torques are ``OUTPUT_SCALE * Fu(M, I/s) de``.
#: It balances the magnitudes of the tuned entries (the loop needs gains of order 1e3
#: from errors to torques); the controller family is unchanged.
OUTPUT_SCALE = 100.0

REFS = ["r[0]", "r[1]"]
ERRORS = ["e[0]", "e[1]"]
TORQUES = ["T1", "T2"]


@dataclass
class ArmLPVProblem:
    """The closed loop and goals of problem (27).

    Attributes
    ----------
    closed_loop : UncertainSystem
        Inputs ``r[0], r[1]`` (angle references); outputs ``e[0], e[1]`` (errors) and
        ``T1, T2`` (torques); tunables ``K.M0, K.M1, K.M2``.
    plant, controller : UncertainSystem
        The arm and the tunable scheduled controller (with its output scaling).
    soft, hard : list of Goal
        ``[WeightedGain(r -> T, W_T)]`` and ``[WeightedGain(r -> e, W_e)]``.
    We, WT : control.TransferFunction, float
        The weights.
    """

    closed_loop: object
    plant: object
    controller: object
    soft: list
    hard: list
    We: object
    WT: float


def arm_lpv_tuning_problem(*, states=3):
    """Plant, scheduled controller, closed loop and goals of the arm's problem (27).

    Parameters
    ----------
    states : int
        Controller order (3 in the paper).

    Returns
    -------
    ArmLPVProblem

    Examples
    --------
    >>> from robustmb.examples import arm_lpv_tuning_problem
    >>> prob = arm_lpv_tuning_problem()
    >>> sorted(prob.closed_loop.tunables)
    ['K.M0', 'K.M1', 'K.M2']
    >>> prob.closed_loop.uncertainty["t1"] is prob.plant.uncertainty["t1"]
    True
    """
    G = two_link_arm()
    G.name = "G"
    t1, t2 = G.uncertainty["t1"], G.uncertainty["t2"]
    K = tunable_surface("K", (2, 2), [t1, t2], states=states)
    K.input_names, K.output_names = list(ERRORS), ["v[0]", "v[1]"]
    scale = control.ss([], [], [], OUTPUT_SCALE * np.eye(2), inputs=["v[0]", "v[1]"],
                       outputs=TORQUES, name="Kscale")  # fmt: skip
    ctrl = connect([K, scale], None, ERRORS, TORQUES)
    ctrl.name = "Kout"
    sub = control.ss([], [], [], np.hstack([np.eye(2), -np.eye(2)]), name="sum",
                     inputs=REFS + ["theta1", "theta2"], outputs=ERRORS)  # fmt: skip
    CL = connect([G, ctrl, sub], None, REFS, ERRORS + TORQUES)
    We = control.tf([1.0, 1.0], [2.0, 0.02])
    WT = 1.0 / 1500.0
    hard = [WeightedGain(REFS, ERRORS, wl=We)]
    soft = [WeightedGain(REFS, TORQUES, wl=WT)]
    return ArmLPVProblem(CL, G, ctrl, soft, hard, We, WT)


@dataclass
class ArmLPVResult:
    """Result of :func:`arm_lpv_synthesis`.

    Attributes
    ----------
    problem : ArmLPVProblem
    tuning : RobustSystuneResult
        The ``systune`` result (active set, worst cases found, certificates, history).
    gamma1, gamma2 : float
        Worst values over the active set of ``||W_e S||`` and ``||W_T K S||``.
    gamma1_found, gamma2_found : float
        Worst cases found over the whole box (lower bounds of the worst values).
    gamma1_certified, gamma2_certified : float
        ``wcgain`` upper bounds over the whole box and frequency axis.
    controller : UncertainSystem
        ``K(s, tau)`` with the tuned values, scheduled by ``t1, t2``.
    values : dict
        Tuned ``K.M0, K.M1, K.M2`` (entries of ``[[A, B], [C, D]]`` before the output
        scaling ``OUTPUT_SCALE`` of ``C`` and ``D``).
    time : float
        Wall time (seconds).
    """

    problem: ArmLPVProblem
    tuning: object
    gamma1: float
    gamma2: float
    gamma1_found: float
    gamma2_found: float
    gamma1_certified: float
    gamma2_certified: float
    controller: object
    values: dict
    time: float


def scheduling_corners(problem):
    """The four ``(t1, t2)`` corners of the scheduling box, physical parameters nominal.

    Examples
    --------
    >>> from robustmb.examples import arm_lpv_tuning_problem, scheduling_corners
    >>> pts = scheduling_corners(arm_lpv_tuning_problem())
    >>> len(pts), sorted(pts[0])
    (4, ['J1', 'L2', 'm1', 'm3', 'rho1', 't1', 't2'])
    """
    return scheduling_grid(problem, 2)


def scheduling_grid(problem, levels=2):
    """A ``levels x levels`` grid of ``(t1, t2)``, physical parameters nominal, centre left out.

    ``levels=2`` gives the four corners.  A scheduled controller tuned on the corners
    alone can lose stability inside the scheduling box (the affine surface interpolates
    between them): a finer grid holds it at interior configurations too.

    Examples
    --------
    >>> from robustmb.examples import arm_lpv_tuning_problem
    >>> from robustmb.examples.arm_lpv import scheduling_grid
    >>> pts = scheduling_grid(arm_lpv_tuning_problem(), 3)
    >>> len(pts)  # 3 x 3 without the centre (the nominal point of the active set)
    8
    """
    if isinstance(levels, bool) or not isinstance(levels, int) or levels < 2:
        raise ArgumentError(f"scheduling_grid: levels must be an integer >= 2, got {levels!r}")
    els = problem.closed_loop.uncertainty
    phys = {n: el.nominal for n, el in els.items() if n not in ("t1", "t2")}
    t1s, t2s = (np.linspace(*els[n].range, levels) for n in ("t1", "t2"))
    centre = (els["t1"].nominal, els["t2"].nominal)
    return [
        {"t1": float(a), "t2": float(b)} | phys
        for a in t1s
        for b in t2s
        if not (np.isclose(a, centre[0]) and np.isclose(b, centre[1]))
    ]


def arm_lpv_synthesis(
    *,
    seed=0,
    random_start=None,
    max_rounds=12,
    certify=True,
    certify_splits=None,
    hard_margin=PAPER_GAMMA1,
    scan_levels=3,
    start="hard",
    design=None,
    schedule_levels=2,
    **options,
):
    """Tune and certify the robust LPV controller of the arm (problem (27)).

    Parameters
    ----------
    seed : int
        Seed of the random starts and of the worst-case searches.
    random_start : int, optional
        Random starting points of the first round (the surface's default start,
        ``A = -I`` and zero gains, is a stationary point).  Default 2, or 0 when
        starting from a stored ``design``.
    max_rounds : int
        Tune-and-search rounds of the active-set loop at most.
    certify : bool
        Certify both goals with ``wcgain`` over the whole box.
    certify_splits : dict, optional
        ``{name: pieces}``: certify on sub-boxes (a tighter, still certified bound).
    hard_margin : float
        The hard goal is tuned below this level on the active set (the paper's 0.97),
        leaving slack for the parameter values between the samples.
    scan_levels : int
        Grid points per parameter axis of each worst-case search (3: ``3^7`` points).
    start : {"hard", "nominal"}
        The random starts first minimise ``||W_e S||`` over the five initial samples
        (``"hard"``: it reaches 0.87 there, while starts tuned on the nominal point
        alone lost the hard goal when continued on the corners), or are tuned on the
        nominal point (``"nominal"``).
    schedule_levels : int
        The initial samples are the nominal point and a ``schedule_levels`` square
        grid of ``(t1, t2)`` (:func:`scheduling_grid`; 2: the four corners).
    design : path-like, optional
        Start from a stored design instead of random starts: a JSON checkpoint written
        by ``systune(checkpoint=)`` (:func:`robustmb.tuning.checkpoint.read_checkpoint`);
        its values are the initial design and its active set the initial samples.
        The active-set loop, the worst-case searches and the certificates then run
        as usual from it.  Not together with ``initial=`` (``ArgumentError``).
    **options
        Further options of :func:`robustmb.systune` (``n_random``, ``rtol``,
        ``initial``, ``maxiter``, ``max_add``, ``certify_budget``, ``polish``,
        ``checkpoint``).

    The active set starts from the nominal point and the four ``(t1, t2)`` corners
    (:func:`scheduling_corners`): the scheduled controller must hold at all of them.

    Returns
    -------
    ArmLPVResult

    Raises
    ------
    ArgumentError
        When both ``design`` and ``initial`` are given.

    Examples
    --------
    >>> from robustmb.examples import arm_lpv_synthesis
    >>> res = arm_lpv_synthesis(max_rounds=1, certify=False)  # doctest: +SKIP
    >>> res.gamma1 < 1  # doctest: +SKIP
    True
    """
    from ..tuning.systune import systune

    if design is not None and options.get("initial") is not None:
        raise ArgumentError(
            "arm_lpv_synthesis: give either design= (a stored design, whose values are "
            "the initial design) or initial=, not both"
        )
    t0 = time.perf_counter()
    prob = arm_lpv_tuning_problem()
    samples = scheduling_grid(prob, schedule_levels)
    if design is not None:
        from ..tuning.checkpoint import read_checkpoint

        stored = read_checkpoint(design)
        options["initial"] = stored["values"]
        samples = stored["active_set"][1:]  # the nominal point comes first
    if random_start is None:
        random_start = 0 if design is not None else 2
    res = systune(
        prob.closed_loop,
        prob.soft,
        prob.hard,
        seed=seed,
        random_start=random_start,
        certify=certify,
        max_rounds=max_rounds,
        certify_splits=certify_splits,
        samples=samples,
        robust=True,
        hard_margin=hard_margin,
        scan_levels=scan_levels,
        start=start,
        **options,
    )
    cv = res.certified_values if certify else [np.nan, np.nan]
    return ArmLPVResult(
        prob,
        res,
        res.hard[0],
        res.soft[0],
        res.worst_found[1].value,
        res.worst_found[0].value,
        cv[1],
        cv[0],
        prob.controller.usubs(res.values),
        res.values,
        time.perf_counter() - t0,
    )
