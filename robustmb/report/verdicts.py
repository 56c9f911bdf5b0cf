"""Pass/fail verdicts of a worst-case report: a channel against its specification, and combined.

A verdict is ``"pass"``, ``"inconclusive"`` or ``"fail"``; a combined verdict
(robust performance) is the least favourable of its parts.
"""

from __future__ import annotations

DEFAULT_SPEC = 1.0  # weighted channels: a peak gain at most 1 meets the specification

#: Verdicts from best to worst; a combined verdict is the worst of its parts.
VERDICT_ORDER = ("pass", "inconclusive", "fail")


def worst_verdict(verdicts) -> str:
    """The least favourable of ``"pass"``, ``"inconclusive"`` and ``"fail"`` (``"pass"`` if none).

    Examples
    --------
    >>> worst_verdict(["pass", "inconclusive", "pass"]), worst_verdict([])
    ('inconclusive', 'pass')
    """
    return max(verdicts, key=VERDICT_ORDER.index, default="pass")


def gain_verdict(lower, upper, certified, spec) -> str:
    """Pass/fail verdict of a worst-case peak gain against its specification ``gain <= spec``.

    ``lower`` is the largest peak gain realised by verified parameter values (the
    worst case found, the nominal values, Monte Carlo samples), ``upper`` a bound
    over the whole set, valid when ``certified``.  ``"pass"`` when the certified upper
    bound meets the specification (true for every parameter value), ``"fail"`` when
    ``lower`` exceeds it (parameter values that violate it were found),
    ``"inconclusive"`` otherwise.

    Examples
    --------
    >>> gain_verdict(0.8, 0.9, True, 1.0), gain_verdict(1.2, 1.3, True, 1.0)
    ('pass', 'fail')
    >>> gain_verdict(0.9, 1.1, True, 1.0), gain_verdict(0.8, 0.9, False, 1.0)
    ('inconclusive', 'inconclusive')
    """
    if lower > spec:
        return "fail"
    if certified and upper <= spec:
        return "pass"
    return "inconclusive"
