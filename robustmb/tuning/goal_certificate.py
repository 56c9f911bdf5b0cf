"""Certificates of one tuning goal over the whole uncertainty box, optionally on sub-boxes.

:func:`certify_goal` bounds a goal's transfer with :func:`robustmb.wcgain` over the whole
box and frequency axis; with ``splits`` the ranges of chosen real parameters are cut into
equal pieces and each sub-box is certified on its own (the bound is the largest sub-box
bound, each certified), which sharpens the bound where one box is too coarse for the
mu upper bound.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

from ..analysis import wcgain
from ..errors import ArgumentError, DimensionError
from ..lft.elements import ureal
from ..lft.model import as_model

__all__ = ["certify_goal", "check_splits"]


def _split_elements(elements, splits):
    """Sub-boxes: ``{name: (lo, hi)}`` for every combination of the split ranges."""
    names = [n for n in splits if splits[n] > 1]
    for n in names:
        if n not in elements or elements[n].kind != "real":
            raise DimensionError(f"certify_splits: '{n}' is not a real parameter of the loop")
    edges = {n: np.linspace(*elements[n].range, int(splits[n]) + 1) for n in names}
    for idx in itertools.product(*[range(int(splits[n])) for n in names]):
        yield {n: (edges[n][i], edges[n][i + 1]) for n, i in zip(names, idx, strict=True)}


def check_splits(splits, real):
    """``certify_splits``: ``{name of a real parameter of the loop: integer >= 1}``."""
    if splits is None:
        return
    if not isinstance(splits, dict):
        raise ArgumentError(
            f"certify_splits must be a dict {{parameter name: pieces}}, got {splits!r}"
        )
    for n, k in splits.items():
        if n not in real:
            raise ArgumentError(
                f"certify_splits: {n!r} is not a real parameter of the loop (it has {sorted(real)})"
            )
        if isinstance(k, bool | np.bool_) or not isinstance(k, int | np.integer) or k < 1:
            raise ArgumentError(
                f"certify_splits: the pieces of {n!r} must be an integer >= 1, got {k!r}"
            )


def certify_goal(model, *, splits=None, progress=False, budget=None):
    """``wcgain`` upper bound of a goal's transfer over the whole box.

    With ``splits`` (``{name: pieces}``), each range is cut into equal pieces and every
    sub-box is certified separately (the element is replaced by a ``ureal`` of the
    sub-range); the result's ``upper`` is the largest sub-box bound, ``lower`` the
    largest realised worst case, and ``certified`` holds only if every sub-box is.

    Sub-boxes stop at the first one without a certificate (the whole box then has
    none), or once ``budget`` seconds have been spent (checked between sub-boxes);
    ``upper`` is then ``inf`` and ``reason`` says how far it got.

    Returns
    -------
    WcgainResult

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> s = control.tf("s")
    >>> res = certify_goal(rmb.uss(1 / (s + a)), splits={"a": 2})
    >>> res.certified and res.lower <= res.upper and abs(res.lower - 2.0) < 1e-9
    True
    """
    model = as_model(model)
    if budget is not None and (
        isinstance(budget, bool) or not (isinstance(budget, int | float) and budget > 0)
    ):
        raise ArgumentError(
            f"certify_goal: budget must be a positive number of seconds, got {budget!r}"
        )
    if not splits:
        return wcgain(model, progress=progress)
    check_splits(splits, {n: el for n, el in model.uncertainty.items() if el.kind == "real"})
    best = None
    worst_lower = None
    all_certified = True
    boxes = list(_split_elements(model.uncertainty, splits))
    t0 = time.perf_counter()
    done, stop = 0, ""
    for box in boxes:
        if budget is not None and done and time.perf_counter() - t0 > budget:
            all_certified, stop = False, f"the budget of {budget} s was spent"
            break
        sub = {n: ureal(n, 0.5 * (lo + hi), range=(lo, hi)) for n, (lo, hi) in box.items()}
        res = wcgain(model.usubs(sub))
        done += 1
        if progress:
            print(
                f"certificate: sub-box {done}/{len(boxes)} {box}: [{res.lower:.6g}, "
                f"{res.upper:.6g}] {'certified' if res.certified else 'NOT certified'} "
                f"({time.perf_counter() - t0:.1f} s)",
                file=sys.stderr,
                flush=True,
            )
        all_certified &= bool(res.certified)
        if best is None or res.upper > best.upper:
            best = res
        if worst_lower is None or res.lower > worst_lower.lower:
            worst_lower = res
        if not res.certified and done < len(boxes):
            # One sub-box without a certificate: the whole box has none.
            stop = f"sub-box {box} has no certificate"
            break
    from ..analysis.worst_case_gain import WcgainResult

    reason = (
        f"wcgain over {done} of {len(boxes)} sub-boxes of {sorted(splits)}: upper is the "
        "largest certified sub-box bound"
    )
    if stop:
        reason += f"; stopped: {stop}, so no certificate for the whole box"
    return WcgainResult(
        worst_lower.lower,
        best.upper if all_certified else np.inf,
        worst_lower.critical_frequency,
        worst_lower.worst,
        all_certified,
        None,
        reason,
    )
