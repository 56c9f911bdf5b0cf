"""The warning a tuning function gives when its best run is infeasible."""

from __future__ import annotations

import warnings


def warn_infeasible(where, problem, rec, hard_names=()):
    """``RuntimeWarning`` when the best run ``rec`` is infeasible: no run stabilised the
    loop (naming the spectral abscissa reached) or met the hard goals (naming them and
    their values); its values are then those of an unstable or infeasible design.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from robustmb.tuning.tuning_problem import RunRecord
    >>> class P:
    ...     loops = []
    >>> rec = RunRecord(np.zeros(1), np.zeros(1), np.inf, feasible=False,
    ...                 message="could not stabilise")
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_infeasible("systune", P(), rec)
    >>> "no run could stabilise" in str(w[0].message)
    True
    """
    if rec.feasible:
        return
    if rec.message == "could not stabilise" and problem.loops:
        alpha = problem.abscissa(rec.x)[0]
        what = (
            f"no run could stabilise the closed loop (best spectral abscissa {alpha:.6g}"
            f"{' of the discrete loop, radius - 1' if problem.loops[0].dt else ''}, "
            f"needed <= {-problem.min_decay:g})"
        )
    elif rec.message == "could not stabilise":
        what = "no run could stabilise the closed loop"
    else:
        vals = [t.evaluate(rec.x, gradient=False)[0] for t in problem.hard]
        bad = [
            f"{name} = {v:.6g}"
            for name, v in zip(hard_names or [t.label for t in problem.hard], vals, strict=False)
            if not v < 1.0
        ]
        if bad:
            what = "no run met the hard goals (" + ", ".join(bad) + " >= 1)"
        else:
            # Stable, hard goals met (or none): the soft objective itself was not finite
            # (a soft goal infinite on the stable loop, or the point outside the bounds).
            soft = [t.evaluate(rec.x, gradient=False)[0] for t in problem.soft]
            what = (
                "no run reached a finite soft objective (soft goal values "
                + ", ".join(f"{v:.6g}" for v in soft)
                + f" at the best point; the run ended with: {rec.message})"
            )
    warnings.warn(
        f"{where}: {what}; the result is infeasible (its values are those of the best "
        "point found, not a design meeting the requirements)",
        RuntimeWarning,
        stacklevel=3,
    )
