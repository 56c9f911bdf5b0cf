"""The constraints that bound a tuning problem's domain, for the line search of
:func:`robustmb.tuning.nonsmooth_bfgs.bfgs` (``constraint``), and what a run stopped
against them says.

A :class:`robustmb.tuning.tuning_problem.TuningProblem` is ``inf`` where a closed loop
has a pole with ``Re(p) > -min_decay`` (discrete: ``|p| - 1``) or, in its soft phase,
where a hard goal is not below 1.  Where the optimiser's step is blocked there, it
projects the step with these constraints' gradients instead of stopping.
"""

from __future__ import annotations

import numpy as np

from .nonsmooth_bfgs import AT_BOUNDARY


def domain_constraints(problem, x, *, hard=True):
    """The domain's constraints at ``x``: ``(c, a)``, feasible where every ``c_i < 0``.

    ``c[0] = alpha + min_decay`` (stability; ``alpha`` the worst spectral abscissa of
    the closed loops, :meth:`TuningProblem.abscissa`; ``nan`` without loops) and, when
    ``hard`` and the problem has hard goals, ``c[1] = h - 1`` with ``h`` the worst hard
    goal (``nan`` where the loop is unstable); ``a``: their gradients, one a row.
    Outside the parameter bounds every value is ``nan`` (no constraint is taken as
    active there).

    Examples
    --------
    >>> import control, numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.lft.algebra import lft_lower
    >>> from robustmb.lft.model import as_model
    >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    >>> from robustmb.tuning.tuning_problem import TuningProblem
    >>> from robustmb.tuning.tuning_term import Term
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
    >>> km = as_model(rmb.tunable_gain("K", 1, 1))
    >>> params = ParameterVector(km.tunables)
    >>> lft = TunableLFT(lft_lower(as_model(P), km), params)  # pole at K - 1
    >>> problem = TuningProblem(params, [Term(lft)], loops=[lft])
    >>> c, a = domain_constraints(problem, np.array([0.5]))
    >>> float(c[0]) + 0.5 < 1e-6, a.round(6).tolist()
    (True, [[1.0]])
    """
    m = 2 if hard and problem.hard else 1
    c, a = np.full(m, np.nan), np.zeros((m, problem.params.size))
    if not problem.params.within_bounds(x):
        return c, a
    if problem.loops:
        alpha, a[0] = problem.abscissa(x)
        c[0] = alpha + problem.min_decay
    if m == 2 and not c[0] >= 0:
        h, gh = problem._worst(problem.hard, x)
        if np.isfinite(h) and gh is not None:
            c[1], a[1] = h - 1.0, gh
    return c, a


def boundary_message(problem, x, active):
    """What a run that ended against the constraints ``active`` (indices of
    :func:`domain_constraints`) says: the worst closed-loop pole's real part (discrete:
    modulus - 1) at ``x``, and the worst hard goal's value.

    Examples
    --------
    >>> import control, numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.lft.algebra import lft_lower
    >>> from robustmb.lft.model import as_model
    >>> from robustmb.tuning.parametrization import ParameterVector, TunableLFT
    >>> from robustmb.tuning.tuning_problem import TuningProblem
    >>> from robustmb.tuning.tuning_term import Term
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 0.0]])
    >>> km = as_model(rmb.tunable_gain("K", 1, 1))
    >>> params = ParameterVector(km.tunables)
    >>> lft = TunableLFT(lft_lower(as_model(P), km), params)  # pole at K - 1
    >>> problem = TuningProblem(params, [Term(lft)], loops=[lft])
    >>> boundary_message(problem, np.array([1.0 - 2e-7]), (0,))
    'stopped at the stability boundary: closed-loop pole at Re = -2e-07 (needed <= -1e-07)'
    """
    parts = []
    if 0 in active:
        alpha = problem.abscissa(x)[0]
        what = "pole modulus - 1" if problem.loops and problem.loops[0].dt else "pole at Re"
        parts.append(
            f"stopped at the stability boundary: closed-loop {what} = {alpha:.6g} "
            f"(needed <= {-problem.min_decay:g})"
        )
    if 1 in active:
        h = problem._worst(problem.hard, x)[0]
        parts.append(f"stopped at the hard goals' bound: worst hard goal {h:.12g} (needed < 1)")
    return "; ".join(parts) or AT_BOUNDARY
