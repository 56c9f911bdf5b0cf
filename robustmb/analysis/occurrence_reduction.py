"""Fewer occurrences before an analysis: the exact Delta-reduction of ``simplify``.

A model written entry by entry (``A0[i, j] + A1[i, j] * a + A2[i, j] * b * b``) repeats
every element once per entry, and the mu problems of robstab / wcgain / robgain grow
with the number of repetitions much faster than linearly (a 3-state example goes from
36 + 36 repetitions and minutes to 2 + 6 and under a second).  MATLAB simplifies during
the arithmetic; here the analyses reduce the realisation themselves.

The reduction treats the states and every non-scalar block as external channels, so the
map ``(x, u) -> (dx, y)`` is the same for every value of the elements: the state matrices
``A(Delta), B(Delta), C(Delta), D(Delta)``, hence the poles, the gains and the
well-posedness where the model is defined, are unchanged.  Only directions whose part of
the map is at rounding level on both sides (the input side below ``_RTOL``, the product
with what the channel feeds at the rounding of that product) are dropped, and
:func:`~robustmb.lft.simplify.reduce_realization` accepts the reduced map only if it
equals the original at the corners of the box and at random points to within the
rounding of the original's evaluation; otherwise the model is analysed as written.
"""

from __future__ import annotations

from ..lft.model import as_model
from ..lft.simplify import reduce_realization
from .uncertain_problem import uncertain_problem

# rank decisions of the reduction: only directions at rounding level are dropped, so the
# analysed map is the user's map to the accuracy the arithmetic built it with
_RTOL = 1e-13


def reduce_occurrences(usys):
    """The model with redundant occurrences removed, and the elements it no longer has.

    Parameters
    ----------
    usys : uncertain object

    Returns
    -------
    model : UncertainModel
        ``usys`` itself when nothing can be removed.
    dropped : dict
        ``{name: nominal value}`` of the elements the map does not depend on at all, to
        rounding (``b - b``; they take their nominal values in the worst-case and
        destabilising values reported).

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> b = rmb.ureal("b", 2.0)
    >>> model, dropped = reduce_occurrences(a * a + 0 * b - a * a + 3 * a)
    >>> model.blocks, dropped
    ({'a': 1}, {'b': 2.0})
    """
    m = as_model(usys)
    real = reduce_realization(m._real, "full", _RTOL, drop_absent=True)
    if real is m._real:
        return m, {}
    out = m._like(
        real, dt=m.dt, input_names=m.input_names, output_names=m.output_names, name=m.name
    )
    if sum(out.blocks.values()) >= sum(m.blocks.values()):
        return m, {}
    dropped = {k: m.uncertainty[k].nominal for k in m.blocks if k not in out.blocks}
    return out, dropped


def complete_values(values, dropped):
    """``values`` with the dropped elements added at their nominal values.

    Examples
    --------
    >>> complete_values({"a": 1.5}, {"b": 2.0})
    {'b': 2.0, 'a': 1.5}
    """
    if not dropped or values is None:
        return values
    return {**dropped, **values}


def reduced_problem(usys, what):
    """:func:`~.uncertain_problem.uncertain_problem` of ``usys`` with its redundant
    occurrences removed, and the elements dropped (see :func:`reduce_occurrences`).

    The input checks are those of ``uncertain_problem`` on ``usys`` itself.  A model
    that depends on none of its elements keeps its realisation (the analyses answer it
    as they are).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 2.0, range=(1.0, 3.0))
    >>> s = control.tf("s")
    >>> loop = rmb.uss([[-a * a + a * a - a]], [[1.0]], [[1.0]], [[0.0]])
    >>> loop.blocks
    {'a': 5}
    >>> problem, dropped = reduced_problem(loop, "robstab")
    >>> [(b.name, b.reps) for b in problem.blocks], dropped
    ([('a', 1)], {})
    """
    problem = uncertain_problem(usys, what=what)
    if all(bi.reps == 1 for bi in problem.blocks):
        return problem, {}
    model, dropped = reduce_occurrences(problem.model)
    if model is problem.model or not model.blocks:
        return problem, {}
    return uncertain_problem(model, what=what), dropped
