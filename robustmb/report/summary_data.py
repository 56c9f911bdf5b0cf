"""Plain data of a worst-case report: JSON conversion, parameter descriptions, grids, margins."""

from __future__ import annotations

import control
import numpy as np


def _disk_numbers(alpha, skew):
    from ..analysis.disk_geometry import Disk

    d = Disk(float(alpha), float(skew))
    gmin, gmax = d.gain_margin
    with np.errstate(divide="ignore"):
        db = [20 * np.log10(gmin) if gmin > 0 else -np.inf, 20 * np.log10(gmax)]
    return {
        "disk_margin": float(alpha),
        "gain_margin": [gmin, gmax],
        "gain_margin_db": db,
        "phase_margin_deg": d.phase_margin,
    }


def loop_margins_summary(wm, description=""):
    """Nominal and worst-case multiloop margins of a ``wcdiskmargin`` result as plain data.

    ``nominal``: the loop at nominal values (``diskmargin``); ``worst_case``: the
    certified guarantee over the declared ranges (``wm.lower``) with the gain and
    phase margins of that disk; ``at_worst_values``: the margins of the loop at
    the worst values found (``wm.upper``, an upper bound of the worst case).

    Examples
    --------
    >>> import control, robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    >>> s = control.tf("s")
    >>> d = loop_margins_summary(rmb.wcdiskmargin(k * 2 / (s + 1) ** 2))
    >>> d["worst_case"]["disk_margin"] <= d["at_worst_values"]["disk_margin"]
    True
    """
    nom = wm.nominal.multiloop if wm.nominal is not None else None
    out = {"loop": description, "channels": list(wm.channels), "skew": wm.skew}
    out["nominal"] = (
        None
        if nom is None
        else _disk_numbers(nom.alpha, wm.skew)
        | {"lower": nom.lower, "upper": nom.upper, "frequency": nom.frequency}
    )
    out["worst_case"] = _disk_numbers(wm.lower, wm.skew) | {"certified": wm.certified}
    out["at_worst_values"] = _disk_numbers(wm.upper, wm.skew) | {
        "frequency": wm.frequency,
        "values": wm.worst,
    }
    return out


def jsonable(x):
    """Plain JSON-ready data from numbers, arrays, dicts, lists and LTI systems.

    Examples
    --------
    >>> import numpy as np
    >>> jsonable({"a": np.array([1.0, np.inf]), "b": 1 + 2j, "c": (np.float64(0.5), None)})
    {'a': [1.0, 'inf'], 'b': {'re': 1.0, 'im': 2.0}, 'c': [0.5, None]}
    """
    if x is None or isinstance(x, bool | str):
        return x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, float | np.floating):
        v = float(x)
        if np.isfinite(v):
            return v
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(x, complex | np.complexfloating):
        return {"re": jsonable(x.real), "im": jsonable(x.imag)}
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()] if x.ndim else jsonable(x.item())
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, control.StateSpace):
        return {
            "A": jsonable(np.asarray(x.A)),
            "B": jsonable(np.asarray(x.B)),
            "C": jsonable(np.asarray(x.C)),
            "D": jsonable(np.asarray(x.D)),
            "dt": jsonable(float(x.dt or 0)),
        }
    raise TypeError(f"jsonable: cannot convert {type(x).__name__}")


def describe_parameters(system) -> dict:
    """``{name: description}`` of the uncertain elements of ``system``.

    Each description holds the kind, the occurrences, the nominal value and the
    range (real), radius (complex) or shape and bound (dynamic), and the
    ``unit`` and ``description`` when the model gave the element any.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=10)
    >>> describe_parameters(rmb.uss(k * control.tf([1], [1, 1])))["k"]["range"]
    [1.8, 2.2]
    """
    out = {}
    for name, el in system.uncertainty.items():
        desc = {"kind": el.kind, "occurrences": int(system.blocks[name])}
        # the unit and meaning only when the model gave them
        desc |= {k: getattr(el, k) for k in ("unit", "description") if getattr(el, k, "")}
        if el.kind == "real":
            desc |= {"nominal": float(el.nominal), "range": [float(v) for v in el.range]}
        elif el.kind == "complex":
            desc |= {"nominal": jsonable(el.nominal), "radius": float(el.radius)}
        else:
            desc |= {"shape": list(el.shape), "bound": float(el.bound)}
        out[name] = desc
    return out
