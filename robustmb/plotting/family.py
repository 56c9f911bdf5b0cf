"""The systems an uncertain plot draws: nominal, random samples, grid points, worst case.

Every plotting function evaluates the same :class:`Family`, so the curves of
``bode``, ``step`` or ``pzmap`` of one call always belong to the same systems.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import control
import numpy as np

from ..analysis.robust_stability import RobstabResult
from ..errors import ArgumentError, SignalError, UncertainTypeError
from ..lft.model import UncertainModel, as_model
from ._style import fmt_upper


@dataclass
class Family:
    """Certain systems standing for an uncertain one.

    Attributes
    ----------
    nominal : control.StateSpace
        The system at the nominal values.
    samples : list of control.StateSpace
        Random samples (``usample``) or the points of a grid.
    values : list of dict
        ``{name: value}`` of each sample, in physical units.
    worst : control.StateSpace or None
        The system at the worst-case values of an analysis result.
    worst_values : dict or None
        Those values.
    grid : tuple of str
        The names of the grid's parameters when ``samples`` are grid points (drawn
        with a colour map); empty for random samples.
    worst_label : str
        Legend label of the worst case: ``"worst case"``, or for a robstab result
        ``"destabilising values (x % of ranges)"`` (``x = 100 result.upper``: they
        lie outside the declared ranges when the margin exceeds 1).
    """

    nominal: control.StateSpace
    samples: list = field(default_factory=list)
    values: list = field(default_factory=list)
    worst: control.StateSpace | None = None
    worst_values: dict | None = None
    grid: tuple = ()
    worst_label: str = "worst case"

    def systems(self):
        """``[(kind, index, system)]`` in drawing order: samples, nominal, worst."""
        out = [("sample", k, s) for k, s in enumerate(self.samples)]
        out.append(("nominal", 0, self.nominal))
        if self.worst is not None:
            out.append(("worst", 0, self.worst))
        return out


def worst_values(worst) -> dict:
    """The ``{name: value}`` of an analysis result given as ``worst=``.

    Accepts the results of :func:`~robustmb.wcgain` and :func:`~robustmb.robgain`
    (``.worst``), :func:`~robustmb.robstab` (``.destabilizing``), or a dict.

    Examples
    --------
    >>> worst_values({"k": 2.0})
    {'k': 2.0}
    """
    if isinstance(worst, dict):
        return dict(worst)
    for attr in ("worst", "destabilizing"):
        vals = getattr(worst, attr, None)
        if isinstance(vals, dict):
            return dict(vals)
    raise UncertainTypeError(
        "worst= takes a wcgain, robgain or robstab result or a {name: value} dict, "
        f"got {type(worst).__name__}"
    )


def _certain(sys, what):
    if isinstance(sys, control.TransferFunction):
        sys = control.ss(sys)
    if not isinstance(sys, control.StateSpace):
        raise UncertainTypeError(f"{what} did not substitute to a state-space system")
    return sys


def _complete(model: UncertainModel, values: dict, what: str) -> dict:
    """``values`` with every element of ``model`` not named in it at its nominal value."""
    unknown = [name for name in values if name not in model.uncertainty]
    if unknown:
        raise SignalError(
            f"{what} names {unknown}, which {model.name!r} does not contain; "
            f"its uncertain elements are {list(model.uncertainty)}"
        )
    full = {name: el.nominal for name, el in model.uncertainty.items()}
    full.update(values)
    return full


def grid_points(grid: dict) -> list[dict]:
    """Cartesian product of ``{name: values}`` as a list of ``{name: value}``.

    Examples
    --------
    >>> grid_points({"a": [1, 2], "b": [0.5]})
    [{'a': 1.0, 'b': 0.5}, {'a': 2.0, 'b': 0.5}]
    """
    names = list(grid)
    axes = [np.atleast_1d(np.asarray(grid[n], dtype=float)).ravel().tolist() for n in names]
    empty = [n for n, ax in zip(names, axes, strict=True) if not ax]
    if empty:
        raise ArgumentError(f"grid: no values given for {empty}")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]


def family(usys, *, n=20, worst=None, seed=None, grid=None) -> Family:
    """The nominal, ``n`` random samples (or the grid) and the worst case of ``usys``.

    Parameters
    ----------
    usys : UncertainSystem, control.StateSpace or control.TransferFunction
        A certain system gives a family of one (its nominal).
    n : int
        Number of random samples (ignored when ``grid`` is given).
    worst : result or dict, optional
        See :func:`worst_values`.
    seed : int or numpy.random.Generator, optional
        Seed of the samples.
    grid : dict, optional
        ``{name: values}``: substitute every point of this grid instead of random
        samples (other elements at their nominal values).

    Returns
    -------
    Family

    Examples
    --------
    >>> import control, robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=20)
    >>> fam = family(k / (control.tf("s") + 1), n=3, seed=0)
    >>> len(fam.samples), fam.nominal.dcgain()
    (3, np.float64(2.0))
    """
    model = as_model(usys)
    if not model.is_system:
        model = model._like(
            model._real,
            is_system=True,
            input_names=model.input_names,
            output_names=model.output_names,
            name=model.name,
        )
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"n must be a non-negative integer, got {n!r}")
    if not np.isfinite(n) or int(n) != n or n < 0:
        raise ArgumentError(f"n must be a non-negative integer, got {n!r}")
    nominal = _certain(model.nominal(), "the nominal system")
    samples, values = [], []
    is_grid = grid is not None
    if is_grid:
        if not isinstance(grid, dict) or not grid:
            raise UncertainTypeError("grid= takes a non-empty {name: values} dict")
        values = [_complete(model, p, "grid") for p in grid_points(grid)]
        samples = [_certain(model.usubs(v), "a grid point") for v in values]
    elif model.uncertainty and n > 0:
        samples, values = model.usample(int(n), seed=seed)
        samples = [_certain(s, "a sample") for s in samples]
    wsys = wvals = None
    label = "worst case"
    if worst is not None:
        wvals = _complete(model, worst_values(worst), "worst")
        wsys = _certain(model.usubs(wvals), "the worst case")
        if isinstance(worst, RobstabResult):
            label = f"destabilising values ({fmt_upper(worst.upper, 3, scale=100)} % of ranges)"
    return Family(
        nominal, samples, values, wsys, wvals, tuple(grid) if is_grid else (), worst_label=label
    )
