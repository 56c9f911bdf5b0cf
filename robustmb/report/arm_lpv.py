"""The two-link arm's gain-scheduled (LPV) tracking loop, over its whole scheduling range.

The plant is :func:`robustmb.examples.two_link_arm` with both joint angles
scheduling (``t1 = tan(theta1/2)``, ``t2 = tan(theta2/2)`` over
theta1 in [45, 90] deg, theta2 in [45, 135] deg) and m1, J1, rho1, L2, m3 at
+-20 %.  The controller ``K(s, tau)`` is an LFT in the *same* ``t1, t2``
elements: the state-space matrices of a :func:`robustmb.tunable_surface`
``M0 + M1 s1 + M2 s2`` (``s_i`` the normalised ``t_i``) closed on ``I/s``.
Any such controller plugs into :func:`arm_lpv_loop`; this module also
designs one without optimisation (:func:`scheduled_pid`), the baseline a
robust tuning starts from and is compared with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .arm_demo import EFFORT_WEIGHT, TRACKING_WEIGHT, baseline_pid, close_arm_loop

#: Normalised scheduling corners (s1, s2) in {-1, 1}^2, with the centre.
_FIT_LEVELS = (-1.0, -0.5, 0.0, 0.5, 1.0)


def scheduling_elements():
    """The ``ureal`` scheduling elements ``t1, t2`` of the arm (shared with the plant).

    Examples
    --------
    >>> t1, t2 = scheduling_elements()
    >>> t1.name, round(t1.range[1], 6)       # tan(45 deg)
    ('t1', 1.0)
    """
    from ..examples import two_link_arm

    unc = two_link_arm(uncertain=False).uncertainty
    return unc["t1"], unc["t2"]


def surface_controller(values, *, name="K"):
    """The scheduled controller ``Fu(M0 + M1 s1 + M2 s2, I/s)`` of given coefficients.

    Parameters
    ----------
    values : dict
        ``{"K.M0": ..., "K.M1": ..., "K.M2": ...}`` (the tuned values of a
        ``tunable_surface(name, (2, 2), [t1, t2], states=n)``, e.g. a systune
        result's ``.values``), each ``(n + 2) x (n + 2)``.

    Returns
    -------
    UncertainSystem
        Inputs ``e1, e2`` (joint errors), outputs ``u1, u2`` (torques);
        uncertain elements ``t1, t2`` only.

    Examples
    --------
    >>> import numpy as np
    >>> m0 = np.zeros((3, 3)); m0[0, 0] = -1.0; m0[1:, 1:] = np.eye(2)
    >>> K = surface_controller({"K.M0": m0, "K.M1": 0 * m0, "K.M2": 0 * m0})
    >>> sorted(K.blocks), K.input_names, K.output_names
    (['t1', 't2'], ['e1', 'e2'], ['u1', 'u2'])
    """
    from ..errors import DimensionError
    from ..tuning import tunable_surface

    m0 = np.asarray(values[f"{name}.M0"], dtype=float)
    n = m0.shape[0] - 2
    if n < 0 or m0.shape != (n + 2, n + 2):
        raise DimensionError(f"values[{name}.M0]: expected a square (n+2) x (n+2) matrix")
    surf = tunable_surface(name, (2, 2), list(scheduling_elements()), states=n)
    sub = {k: np.asarray(values[k], dtype=float) for k in surf.tunables}
    k = surf.usubs(sub)
    k.name = name
    k.input_names = ["e1", "e2"]
    k.output_names = ["u1", "u2"]
    return k


def scheduled_pid(*, bandwidth=4.0, damping=0.7, filter_ratio=5.0):
    """Gain-scheduled joint PID: pole placement at each configuration, fitted affinely.

    At each configuration of a 5 x 5 grid of the normalised scheduling square,
    :func:`~robustmb.report.arm_demo.baseline_pid` places the nominal arm's poles
    (inertia and gravity stiffness of that configuration); the output matrices
    ``[C, D]`` (the dynamics are the same everywhere) are then fitted by least
    squares as ``N0 + N1 s1 + N2 s2``.  No optimisation: this is the baseline.

    Returns
    -------
    controller : UncertainSystem
        See :func:`surface_controller` (4 states).
    values : dict
        Its ``{"K.M0", "K.M1", "K.M2"}`` coefficients.

    Examples
    --------
    >>> K, values = scheduled_pid()
    >>> K.nstates, sorted(K.blocks)
    (4, ['t1', 't2'])
    """
    from ..examples import two_link_arm

    t1, t2 = scheduling_elements()
    rows, targets = [], []
    for s1 in _FIT_LEVELS:
        for s2 in _FIT_LEVELS:
            th1 = 2 * np.arctan(t1.center + s1 * t1.half_width)
            th2 = 2 * np.arctan(t2.center + s2 * t2.half_width)
            pid = baseline_pid(
                two_link_arm(th1, th2, uncertain=False),
                bandwidth=bandwidth,
                damping=damping,
                filter_ratio=filter_ratio,
            )
            rows.append([1.0, s1, s2])
            targets.append(np.hstack([pid.C, pid.D]).ravel())
    coef, *_ = np.linalg.lstsq(np.array(rows), np.array(targets), rcond=None)
    n = pid.nstates
    mats = []
    for j in range(3):
        m = np.zeros((n + 2, n + 2))
        m[n:, :] = coef[j].reshape(2, n + 2)
        mats.append(m)
    mats[0][:n, :n], mats[0][:n, n:] = pid.A, pid.B
    values = {f"K.M{j}": m for j, m in enumerate(mats)}
    return surface_controller(values), values


def arm_lpv_loop(controller):
    """The uncertain, scheduled tracking loop of the arm under ``controller``.

    Parameters
    ----------
    controller : UncertainSystem or control.StateSpace
        ``K(s, tau)`` from joint errors ``e1, e2`` to torques ``u1, u2``, scheduled
        by the arm's ``t1, t2`` (see :func:`surface_controller`).

    Returns
    -------
    loop : UncertainSystem
        Inputs ``r1, r2``; outputs ``we1, we2`` (``W_e e``), ``wu1, wu2``
        (``W_T u``), ``theta1, theta2``; elements t1, t2, m1, J1, rho1, L2, m3.
    channels : dict
        ``{name: (outputs, inputs, spec)}``: tracking ``W_e S`` and effort
        ``W_T K S`` with the paper's weights ``W_e = (s + 1)/(2 s + 0.02)``,
        ``W_T = 1/1500``, each with specification peak gain <= 1.

    Examples
    --------
    >>> K, _ = scheduled_pid()
    >>> loop, channels = arm_lpv_loop(K)
    >>> sorted(loop.blocks)
    ['J1', 'L2', 'm1', 'm3', 'rho1', 't1', 't2']
    >>> channels["tracking W_e S"]
    (['we1', 'we2'], ['r1', 'r2'], 1.0)
    """
    from ..examples import two_link_arm

    plant = two_link_arm()
    loop, channels = close_arm_loop(plant, controller)
    return loop, {k: (*v, 1.0) for k, v in channels.items()}


def arm_lpv_loop_at_plant_inputs(controller):
    """Uncertain, scheduled loop transfer ``L = K G`` broken at the arm's torques.

    Examples
    --------
    >>> K, _ = scheduled_pid()
    >>> arm_lpv_loop_at_plant_inputs(K).shape
    (2, 2)
    """
    from ..examples import two_link_arm
    from ..lft import uss

    k = uss(controller) if not hasattr(controller, "blocks") else controller
    return k * two_link_arm()


WEIGHTS_DESCRIPTION = (
    f"W_e = ({TRACKING_WEIGHT[0][0]:g} s + {TRACKING_WEIGHT[0][1]:g})/"
    f"({TRACKING_WEIGHT[1][0]:g} s + {TRACKING_WEIGHT[1][1]:g}) I2, "
    f"W_T = I2/{1 / EFFORT_WEIGHT:g}"
)


@dataclass
class ArmDesign:
    """A gain-scheduled controller of the arm and how it was obtained.

    Attributes
    ----------
    controller : UncertainSystem
        ``K(s, tau)`` (errors -> torques), scheduled by ``t1, t2``.
    method : str
        One sentence: how the controller was designed.
    seconds : float
        Wall time of the design.
    values : dict
        Coefficients ``{"K.M0", "K.M1", "K.M2"}`` of the scheduled surface.
    tuning : object, optional
        The tuning result when the controller was tuned.
    certificates : dict
        ``{channel name: wcgain result}`` over the whole box computed during the
        design, on the channels of :func:`arm_lpv_loop` (reused by the report).
    """

    controller: object
    method: str
    seconds: float
    values: dict
    tuning: object = None
    certificates: dict = field(default_factory=dict)


#: Budgets of the robust LPV tuning: (random starts, active-set rounds).
DESIGN_BUDGET = {"full": (2, 12), "quick": (1, 2)}


def _renamed_controller(k):
    """A copy of ``k`` with the report's signal names (inputs e1, e2; outputs u1, u2)."""
    import copy

    k = copy.copy(k)
    k.input_names, k.output_names = ["e1", "e2"], ["u1", "u2"]
    return k


def arm_lpv_design(*, quick=False, seed=0, progress=False):
    """Robust LPV design of the arm (problem (27)): the seam between design and report.

    Runs :func:`robustmb.examples.arm_lpv_synthesis` (active-set robust
    ``systune`` over the scheduling and physical parameters, then ``wcgain``
    certificates of both goals over the whole box) with the budget
    :data:`DESIGN_BUDGET` (``quick`` selects the smaller one of
    ``robustmb demo --lpv --quick``).  The certificates are handed to the report, whose
    channels are the same transfers (tracking ``W_e S`` = the hard goal,
    effort ``W_T K S`` = the soft goal).

    Returns
    -------
    ArmDesign

    Examples
    --------
    >>> d = arm_lpv_design(quick=True)  # doctest: +SKIP
    >>> sorted(d.controller.blocks), d.certificates["tracking W_e S"].certified  # doctest: +SKIP
    (['t1', 't2'], True)
    """
    from ..examples import arm_lpv_synthesis

    starts, rounds = DESIGN_BUDGET["quick" if quick else "full"]
    t0 = time.perf_counter()
    res = arm_lpv_synthesis(seed=seed, random_start=starts, max_rounds=rounds, progress=progress)
    tun = res.tuning
    soft_cert, hard_cert = tun.certified[0], tun.certified[1]
    certificates = {}
    for name, cert in (("tracking W_e S", hard_cert), ("effort W_T K S", soft_cert)):
        if cert is not None and not isinstance(cert, Exception):
            certificates[name] = cert
    method = (
        f"robust LPV tuning (active-set systune on {len(tun.active_set)} samples of "
        f"(t1, t2, m1, J1, rho1, L2, m3), {starts} random starts, at most {rounds} rounds): "
        f"active set gamma1 = {res.gamma1:.4f}, gamma2 = {res.gamma2:.4f}; "
        f"certified over the whole box gamma1 <= {res.gamma1_certified:.4f}, "
        f"gamma2 <= {res.gamma2_certified:.4f} (paper, sampled: 0.97 / 0.69)"
    )
    return ArmDesign(
        _renamed_controller(res.controller),
        method,
        time.perf_counter() - t0,
        res.values,
        tuning=res,
        certificates=certificates,
    )


def load_arm_design(path):
    """A stored gain-scheduled design of the arm (JSON) as an :class:`ArmDesign`, no tuning.

    The file holds ``values`` with the coefficients ``K.M0, K.M1, K.M2`` of the
    scheduled surface (the format of ``systune(checkpoint=...)`` and of the designs in
    ``case_studies/robotic_arm/checkpoints/``); its ``provenance`` text, when present,
    starts the method.  As in :func:`robustmb.examples.arm_lpv_tuning_problem`, the
    torques are ``OUTPUT_SCALE Fu(M0 + M1 s1 + M2 s2, I/s)`` applied to the errors
    (``OUTPUT_SCALE`` of :mod:`robustmb.examples.arm_lpv`); ``.values`` keeps the file's
    coefficients.  Nothing is certified by loading: the returned design carries no
    certificates (the report computes them).

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file.

    Returns
    -------
    ArmDesign

    Raises
    ------
    ArgumentError
        No such file, not JSON, or no ``values`` with ``K.M0, K.M1, K.M2`` (names the file
        and the missing key).
    DimensionError
        Coefficients that are not square ``(n + 2) x (n + 2)`` matrices of one size, or
        not finite.

    Examples
    --------
    >>> import json, os, tempfile
    >>> import numpy as np
    >>> m0 = np.zeros((3, 3)); m0[0, 0] = -1.0; m0[1:, 1:] = np.eye(2)
    >>> path = os.path.join(tempfile.mkdtemp(), "k.json")
    >>> with open(path, "w") as fh:
    ...     json.dump({"values": {"K.M0": m0.tolist(), "K.M1": (0 * m0).tolist(),
    ...                           "K.M2": (0 * m0).tolist()}}, fh)
    >>> d = load_arm_design(path)
    >>> d.controller.nstates, sorted(d.controller.blocks), d.certificates
    (1, ['t1', 't2'], {})
    >>> load_arm_design(path + ".missing")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: design: no file '...k.json.missing'
    """
    import json
    import os

    from ..errors import ArgumentError, DimensionError
    from ..examples.arm_lpv import OUTPUT_SCALE

    t0 = time.perf_counter()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ArgumentError(f"design: no file '{path}'")
    try:
        with open(path) as fh:
            record = json.load(fh)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArgumentError(f"design: '{path}' is not a JSON file ({exc})") from None
    values = record.get("values") if isinstance(record, dict) else None
    if not isinstance(values, dict):
        raise ArgumentError(f"design: '{path}' has no 'values' object (the tuned coefficients)")
    mats = {}
    for key in ("K.M0", "K.M1", "K.M2"):
        if key not in values:
            raise ArgumentError(f"design: '{path}' has no values['{key}']")
        try:
            m = np.asarray(values[key], dtype=float)
        except (TypeError, ValueError):
            raise DimensionError(f"design: values['{key}'] in '{path}' is not a matrix") from None
        shape0 = mats["K.M0"].shape if mats else None
        if (
            m.ndim != 2
            or m.shape[0] != m.shape[1]
            or m.shape[0] < 2
            or (shape0 is not None and m.shape != shape0)
        ):
            raise DimensionError(
                f"design: values['{key}'] in '{path}' has shape {m.shape}; expected one square "
                "(n + 2) x (n + 2) size for K.M0, K.M1, K.M2"
            )
        if not np.all(np.isfinite(m)):
            raise DimensionError(f"design: values['{key}'] in '{path}' is not finite")
        mats[key] = m
    # The tuned surface drives the torques through the problem's output scaling
    # (robustmb.examples.arm_lpv.OUTPUT_SCALE): u = OUTPUT_SCALE Fu(M, I/s) e.
    n = mats["K.M0"].shape[0] - 2
    scaled = {k: np.vstack([m[:n], OUTPUT_SCALE * m[n:]]) for k, m in mats.items()}
    controller = _renamed_controller(surface_controller(scaled))
    method = f"stored design {os.path.basename(path)}"
    if record.get("provenance"):
        method += ": " + str(record["provenance"]).split(". ")[0]
    return ArmDesign(controller, method, time.perf_counter() - t0, mats)


def arm_baseline_design():
    """The scheduled pole-placement PID (:func:`scheduled_pid`) as an :class:`ArmDesign`.

    Examples
    --------
    >>> d = arm_baseline_design()
    >>> sorted(d.controller.blocks), d.certificates
    (['t1', 't2'], {})
    """
    t0 = time.perf_counter()
    controller, values = scheduled_pid()
    method = (
        "joint PID placing the nominal poles at each configuration (s + 4)(s^2 + 5.6 s + 16), "
        "its gains fitted affinely in the normalised t1, t2 (no optimisation)"
    )
    return ArmDesign(controller, method, time.perf_counter() - t0, values)
