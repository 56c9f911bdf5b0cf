"""The record of one tuning run and the stopping rules shared by its phases
(:class:`robustmb.tuning.tuning_problem.TuningProblem`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# run(zero_tol=) stops only once the value, below the absolute level, has also fallen by
# this factor from the first value it had below it: the level alone comes from the
# initial loop, and a barely stable one (COMPleib HE1 with a pole at -2e-7) puts it
# above the optimum; a fall by 1e3 after the crossing is the geometric decay towards 0
# that the rule is for (COMPleib AC1: 1e-2 to 1e-7 in 40 iterations).
ZERO_FALL = 1e3


def _unpolished(near, best):
    """The message a run left unpolished by :meth:`TuningProblem.solve` ends with."""
    return f"; not polished (above the polish window {near:g} of the best value {best:.9g})"


def _first_below(hist, level):
    """The first soft-phase value of a run's history below ``level`` (``inf``: none)."""
    return next((v for ph, v in hist if ph in ("soft", "sampling") and v < level), np.inf)


def zero_met(value, first, level):
    """Whether ``value`` meets the ``zero_tol`` rule: below ``level`` and ``ZERO_FALL``
    times below ``first``, the first value the run had below ``level``.

    Examples
    --------
    >>> zero_met(1e-9, 1e-5, 1e-4), zero_met(1e-6, 1e-5, 1e-4), zero_met(1e-9, 1e-5, -np.inf)
    (True, False, False)
    """
    return bool(value < level and value * ZERO_FALL <= first)


@dataclass
class RunRecord:
    """History of one optimisation run (start point, phases, final value, time)."""

    start: np.ndarray
    x: np.ndarray
    value: float
    history: list = field(default_factory=list)
    time: float = 0.0
    feasible: bool = True
    message: str = ""
    below_limit: float = np.inf  # worst soft value below a high-frequency limit (ties)
    gradient: np.ndarray | None = None  # the (sub)gradient the run ended with
    zero_level: float = -np.inf  # run(zero_tol=) absolute level
    zero_done: bool = False  # the value met the zero_tol rule (zero_met): nothing to polish
    polished: bool = False  # the polish (_polish) was run where BFGS stopped
    # The terms' evaluation state (peak-frequency hints, last multi-peak set) where the
    # run stopped: a polish made later (solve's "deferred") starts from it, as one made
    # at once would.
    terms_state: list | None = field(default=None, repr=False)
    # ``value`` is at least every soft term's Term.verified value at ``x`` (False only
    # between run(verify=False) and the polish_run that follows it)
    verified: bool = True
