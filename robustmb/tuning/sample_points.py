"""Checked parameter samples for multi-model and robust tuning (``samples=``)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ..errors import ArgumentError

__all__ = ["check_samples"]


def _in_range(value, lo, hi):
    # A value computed from a normalised point in [-1, 1] may land one rounding step
    # outside the range; anything further is a different model.
    tol = 1e-12 * max(1.0, abs(lo), abs(hi))
    return lo - tol <= value <= hi + tol


def _check_value(who, k, name, el, value):
    """Refuse a value that is not a model of ``el`` (``samples[k]``'s entry ``name``)."""
    where = f"{who}: samples[{k}] gives {name} = {value!r}"
    kind = getattr(el, "kind", None)
    if kind == "real":
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise ArgumentError(f"{where}, not a real number")
        v = float(value)
        lo, hi = el.range
        if not np.isfinite(v) or not _in_range(v, lo, hi):
            # a tuned model outside the box is not a model of the uncertain loop (and
            # the certificates over the box would not cover it)
            raise ArgumentError(f"{where}, outside its range [{lo:g}, {hi:g}]")
    elif kind == "complex":
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Number):
            raise ArgumentError(f"{where}, not a number")
        dist = abs(complex(value) - complex(el.nominal))
        if not np.isfinite(dist) or dist > el.radius * (1 + 1e-12) + 1e-300:
            raise ArgumentError(
                f"{where}, outside its disc (centre {el.nominal!r}, radius {el.radius:g})"
            )


def check_samples(uncertainty, samples, who, owner="the loop"):
    """The samples of an uncertain loop, checked: a count or complete ``{name: value}`` points.

    Parameters
    ----------
    uncertainty : dict
        ``{name: element}`` of the loop (or of the plants) being sampled.
    samples : None, int or sequence of mapping
        A number of random samples (>= 0) or the points themselves.  A point need not
        give every element: the others take their nominal value.
    who : str
        The function named in the errors.
    owner : str
        What ``uncertainty`` belongs to, in the errors.

    Returns
    -------
    int or list of dict
        The count, or each point with every element of ``uncertainty`` (physical values).

    Raises
    ------
    ArgumentError
        When ``samples`` is a negative count or not a sequence of mappings, or a point
        names an element that ``uncertainty`` lacks, gives a real parameter a value that
        is not a real number in its range, or a complex one a value outside its disc
        (names the sample, the element and the value).

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    >>> b = rmb.ureal("b", 0.0, range=(-1.0, 1.0))
    >>> check_samples({"a": a, "b": b}, [{"a": 1.5}], "systune")
    [{'a': 1.5, 'b': 0.0}]
    >>> check_samples({"a": a}, [{"a": 1.8}], "systune")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: systune: samples[0] gives a = 1.8, outside its range [0.5, 1.5]
    """
    if samples is None:
        return []
    if isinstance(samples, numbers.Integral) and not isinstance(samples, bool | np.bool_):
        if samples < 0:
            raise ArgumentError(f"{who}: samples must be >= 0 or a list of dicts; got {samples}")
        return int(samples)
    bad = ArgumentError(
        f"{who}: samples must be an int or a list of {{name: value}} dicts; got {samples!r}"
    )
    if isinstance(samples, str | bytes | Mapping):
        raise bad
    try:
        given = list(samples)
    except TypeError:
        raise bad from None
    out = []
    for k, point in enumerate(given):
        if not isinstance(point, Mapping):
            raise bad
        for name, value in point.items():
            if name not in uncertainty:
                raise ArgumentError(
                    f"{who}: samples[{k}] names {name!r}, which is not an uncertain element "
                    f"of {owner} (it has {sorted(uncertainty)})"
                )
            _check_value(who, k, name, uncertainty[name], value)
        out.append({n: point.get(n, el.nominal) for n, el in uncertainty.items()})
    return out


def hold_complex_at_nominal(uncertainty, given, who, why):
    """Refuse a given sample that moves a ``ucomplex`` or ``ultidyn`` element.

    Sampled tuning (``systune``, ``hinfstruct``) works on real models, so those elements
    stay at their nominal value in every sample; ``given`` is the list returned by
    :func:`check_samples` (a count is accepted and ignored), ``why`` ends the message.

    Examples
    --------
    >>> import robustmb as rmb
    >>> c = rmb.ucomplex("c", 1.0, radius=0.5)
    >>> hold_complex_at_nominal({"c": c}, [{"c": 1.0}], "systune", "real models")
    >>> hold_complex_at_nominal({"c": c}, [{"c": 1.2j}], "systune", "real models")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: systune: samples[0] sets the complex element 'c'; \
sampled tuning holds ucomplex and ultidyn elements at their nominal value (real models)
    """
    if isinstance(given, int):
        return
    for k, point in enumerate(given):  # (elements left out are at their nominal)
        for name, value in point.items():
            el = uncertainty[name]
            if el.kind != "real" and not _is_nominal(value, el.nominal):
                raise ArgumentError(
                    f"{who}: samples[{k}] sets the {el.kind} element {name!r}; sampled "
                    f"tuning holds ucomplex and ultidyn elements at their nominal value ({why})"
                )


def _is_nominal(value, nominal):
    try:
        return bool(np.array_equal(np.asarray(value), np.asarray(nominal)))
    except (TypeError, ValueError):
        return False
