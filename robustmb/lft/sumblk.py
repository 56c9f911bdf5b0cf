"""``sumblk``: a summing junction written as an equation of signal names (MATLAB ``sumblk``)."""

from __future__ import annotations

import numbers
import re

import numpy as np

from ..errors import DimensionError, SignalError
from .model import UncertainMatrix, static_model

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TERM = re.compile(r"\s*([+-])?\s*(" + _NAME + r")\s*")


def sumblk(expr, n=1):
    """Summing junction ``"e = r - y"`` as a static block for :func:`connect`.

    Parameters
    ----------
    expr : str
        ``"out = [+|-] in1 (+|-) in2 ..."``; names are identifiers.
    n : int, optional
        Width of each signal: with ``n > 1`` the signals are vectors
        ``e[0], ..., e[n-1]`` (``connect`` accepts the base name for all of them).

    Returns
    -------
    UncertainMatrix
        Certain static gain named ``"sum_<out>"`` with the given signal names.

    Examples
    --------
    >>> import robustmb as rmb
    >>> S = rmb.sumblk("e = r - y")
    >>> S.input_names, S.output_names, S.nominal()
    (['r', 'y'], ['e'], array([[ 1., -1.]]))
    >>> rmb.sumblk("e = r - y", 2).input_names
    ['r[0]', 'r[1]', 'y[0]', 'y[1]']
    """
    if not isinstance(expr, str):
        raise SignalError(f"sumblk: expr must be a string such as 'e = r - y', got {expr!r}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise DimensionError(f"sumblk: the signal width n must be a positive integer, got {n!r}")
    n = int(n)
    if expr.count("=") != 1:
        raise SignalError(f"sumblk: expr must have one '=' (as in 'e = r - y'), got {expr!r}")
    lhs, rhs = (part.strip() for part in expr.split("="))
    if not re.fullmatch(_NAME, lhs):
        raise SignalError(f"sumblk: the output {lhs!r} in {expr!r} is not a signal name")
    names, signs, pos = [], [], 0
    while pos < len(rhs):
        m = _TERM.match(rhs, pos)
        if m is None or (names and m.group(1) is None):
            raise SignalError(
                f"sumblk: cannot read {rhs[pos:]!r} in {expr!r}; write terms as '+ name' or "
                "'- name'"
            )
        names.append(m.group(2))
        signs.append(-1.0 if m.group(1) == "-" else 1.0)
        pos = m.end()
    if not names:
        raise SignalError(f"sumblk: no input signals on the right of '=' in {expr!r}")
    dup = sorted({nm for nm in names if names.count(nm) > 1})
    if dup:
        raise SignalError(f"sumblk: input signal(s) {dup} appear twice in {expr!r}")
    d = np.hstack([sg * np.eye(n) for sg in signs])
    blk = static_model(d)

    def vec(nm):
        return [nm] if n == 1 else [f"{nm}[{i}]" for i in range(n)]

    out = UncertainMatrix(
        blk._real,
        input_names=[v for nm in names for v in vec(nm)],
        output_names=vec(lhs),
        name=f"sum_{lhs}",
    )
    return out
