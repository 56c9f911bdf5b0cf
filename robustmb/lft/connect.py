"""Name-based interconnection of uncertain and certain systems.

Conventions follow ``control.interconnect``: a signal is referred to as
``"sys.sig"`` or ``"sig"`` (every system with that signal), a leading ``-``
negates it, and a vector signal ``y`` stands for ``y[0], y[1], ...``.
Algebraic loops are eliminated exactly; an ill-posed loop raises an error
naming its signals.
"""

from __future__ import annotations

import difflib
import re

import control
import numpy as np

from ..errors import ArgumentError, SignalError, UnusedSignalWarning, warn
from . import realization as rz
from .delta import check_nominal_well_posed
from .elements import UncertainElement
from .model import UncertainModel, as_model, common_dt


def _parse(spec):
    """``(system or None, signal, gain)`` from a string or tuple spec."""
    gain = 1.0
    if isinstance(spec, tuple):
        if len(spec) == 3:
            sysname, sig, gain = spec
        elif len(spec) == 2:
            sysname, sig = spec
        else:
            raise SignalError(f"a signal spec tuple is (system, signal[, gain]), got {spec!r}")
        return sysname, sig, float(gain)
    if not isinstance(spec, str):
        raise SignalError(f"a signal spec is a string or tuple, got {spec!r}")
    s = spec.strip()
    if s.startswith("-"):
        gain, s = -1.0, s[1:].strip()
    if "." in s:
        sysname, sig = s.split(".", 1)
        return sysname, sig, gain
    return None, s, gain


class _Catalogue:
    """Positions of every system's inputs and outputs in the appended system."""

    def __init__(self, systems):
        self.systems = systems
        names = [s.name for s in systems]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SignalError(f"connect: system names must be unique, repeated: {sorted(dup)}")
        self.inputs, self.outputs = [], []
        for s in systems:
            self.inputs += [(s.name, n) for n in s.input_names]
            self.outputs += [(s.name, n) for n in s.output_names]

    def find(self, spec, side, allow_many):
        sysname, sig, gain = _parse(spec)
        table = self.inputs if side == "input" else self.outputs
        if sysname is not None and sysname not in {s.name for s in self.systems}:
            raise SignalError(f"connect: unknown system '{sysname}' in {spec!r}")

        def matches(name):
            return [
                i
                for i, (sn, n) in enumerate(table)
                if n == name and (sysname is None or sn == sysname)
            ]

        idx = matches(sig)
        if not idx:
            # A vector signal: 'y' stands for y[0], y[1], ...
            pat = re.compile(re.escape(sig) + r"\[\d+\]$")
            idx = [
                i
                for i, (sn, n) in enumerate(table)
                if pat.match(n) and (sysname is None or sn == sysname)
            ]
        if not idx:
            known = [f"{sn}.{n}" for sn, n in table]
            close = _near_names(sig, [n for _, n in table])
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise SignalError(f"connect: unknown {side} signal {spec!r}{hint} Known: {known}")
        systems = {table[i][0] for i in idx}
        if not allow_many and len(systems) > 1:
            raise SignalError(
                f"connect: {side} signal {spec!r} is ambiguous, it belongs to {sorted(systems)}; "
                "write 'system.signal'"
            )
        return idx, gain


def _near_names(name, candidates):
    """Signal names that look like a misspelling of ``name`` (``y_m`` for ``ym``)."""
    base = re.sub(r"\[\d+\]$", "", name)
    uniq = sorted({re.sub(r"\[\d+\]$", "", c) for c in candidates} - {base})
    return difflib.get_close_matches(base, uniq, n=2, cutoff=0.6)


def _spec_list(specs, name):
    """``specs`` as a list: one string is one signal name (as in ``control.interconnect``).

    Iterating a string would split ``"ref"`` into the signals ``r``, ``e``, ``f``.
    """
    if specs is None:
        return []
    if isinstance(specs, str):
        return [specs]
    if not isinstance(specs, list | tuple):
        raise ArgumentError(
            f"connect: {name} must be a signal name or a list of signal names, got {specs!r}"
        )
    return list(specs)


def _system_list(systems):
    """The systems to connect as a list; a single system or a non-sequence is refused."""
    if isinstance(systems, UncertainModel | UncertainElement | control.LTI):
        raise ArgumentError(
            "connect: systems must be a list of systems, got a single "
            f"{type(systems).__name__}; write connect([sys], ...)"
        )
    if not isinstance(systems, list | tuple):
        raise ArgumentError(f"connect: systems must be a list of systems, got {systems!r}")
    if not systems:
        raise ArgumentError("connect: systems is empty; give at least one system")
    return list(systems)


def _ignored(cat, specs, side):
    """Positions named by ``ignore_inputs`` / ``ignore_outputs`` (names or ``sys.sig``)."""
    out = set()
    for spec in _spec_list(specs, f"ignore_{side}s"):
        idx, _ = cat.find(spec, side, allow_many=True)
        out.update(idx)
    return out


def _warn_unused(cat, used_in, used_out, ignore_inputs, ignore_outputs):
    """Warn, as ``control.interconnect`` does, about inputs left at zero and outputs dropped."""
    skip_in = _ignored(cat, ignore_inputs, "input")
    skip_out = _ignored(cat, ignore_outputs, "output")
    unused_in = [i for i in np.flatnonzero(~used_in) if i not in skip_in]
    unused_out = [j for j in np.flatnonzero(~used_out) if j not in skip_out]
    # A misspelling leaves both ends dangling: suggest among the other side's unused names.
    out_names = [cat.outputs[j][1] for j in unused_out]
    in_names = [cat.inputs[i][1] for i in unused_in]
    for side, unused, table, others, effect in (
        ("input", unused_in, cat.inputs, out_names, "held at zero, so the loop is open there"),
        ("output", unused_out, cat.outputs, in_names, "which feed nothing"),
    ):
        if not unused:
            continue
        items = []
        for i in unused:
            sn, n = table[i]
            close = _near_names(n, others)
            other = "an output" if side == "input" else "an input"
            names = " or ".join(map(repr, close))
            items.append(f"{sn}.{n}" + (f" ({other} is named {names}: misspelt?)" if close else ""))
        warn(
            f"connect: unused {side}(s) ({effect}): {'; '.join(items)}. Pass them in "
            f"ignore_{side}s=[...] if this is intended.",
            UnusedSignalWarning,
        )


def connect(
    systems,
    connections=None,
    inputs=None,
    outputs=None,
    *,
    check_unused=True,
    ignore_inputs=None,
    ignore_outputs=None,
):
    """Interconnect systems by signal names (``control.interconnect`` conventions).

    Parameters
    ----------
    systems : list
        Uncertain objects or python-control systems, each with a unique
        ``name`` and named signals.
    connections : list of list, optional
        Each entry ``[input_spec, output_spec, ...]`` drives a system input by
        the sum of the listed outputs.  ``None`` connects every system input to
        the outputs of the same name (summed).
    inputs : str or list
        External inputs, each a signal name (driving every system input of
        that name), a spec, or a list of specs driven together.  A single
        string is one signal.
    outputs : str or list
        External outputs, each an output spec or a list of specs summed.  A
        single string is one signal.
    check_unused : bool, optional
        Warn (:class:`~robustmb.errors.UnusedSignalWarning`) about system
        inputs driven by nothing (they are held at zero, so a misspelt signal
        name would silently open a loop) and system outputs that feed nothing,
        as ``control.interconnect`` does.  The warning suggests the signal a
        misspelt name probably meant.
    ignore_inputs, ignore_outputs : str or list, optional
        Signals known to be unused (names or ``"sys.sig"``): no warning for them.

    Returns
    -------
    UncertainSystem or UncertainMatrix

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=10)
    >>> G = rmb.uss(control.tf([1], [1, 1]) * k)
    >>> G.name, G.input_names, G.output_names = "G", ["u"], ["y"]
    >>> C = rmb.uss(control.ss([], [], [], [[3.0]]))
    >>> C.name, C.input_names, C.output_names = "C", ["e"], ["u"]
    >>> S = rmb.uss(control.ss([], [], [], [[1.0, -1.0]]))
    >>> S.name, S.input_names, S.output_names = "S", ["r", "y"], ["e"]
    >>> T = rmb.connect([G, C, S], inputs=["r"], outputs=["y"])
    >>> T.shape, T.blocks
    ((1, 1), {'k': 1})
    """
    models = [as_model(s) for s in _system_list(systems)]
    if inputs is None or outputs is None:
        raise SignalError("connect: give the external inputs and outputs by name")
    inputs, outputs = _spec_list(inputs, "inputs"), _spec_list(outputs, "outputs")
    cat = _Catalogue(models)
    real, nus, nys = rz.append([m._real for m in models])
    nu, ny = sum(nus), sum(nys)
    fb = np.zeros((nu, ny))
    # Signals named anywhere (even with a zero gain) count as used.
    used_in, used_out = np.zeros(nu, bool), np.zeros(ny, bool)
    if connections is None:
        for i, (_, name) in enumerate(cat.inputs):
            for j, (_, name2) in enumerate(cat.outputs):
                if name2 == name:
                    fb[i, j] += 1.0
                    used_in[i] = used_out[j] = True
    else:
        for conn in connections:
            if isinstance(conn, str | tuple) or len(conn) < 2:
                raise SignalError(f"connect: each connection is [input, output, ...], got {conn!r}")
            ins, g_in = cat.find(conn[0], "input", allow_many=False)
            for ospec in conn[1:]:
                outs, g = cat.find(ospec, "output", allow_many=False)
                if len(outs) != len(ins):
                    raise SignalError(
                        f"connect: {conn[0]!r} has {len(ins)} channels but {ospec!r} has "
                        f"{len(outs)}"
                    )
                for i, j in zip(ins, outs, strict=True):
                    fb[i, j] += g * g_in
                used_in[ins] = used_out[outs] = True
    in_cols, in_names = [], []
    for spec in inputs:
        specs = spec if isinstance(spec, list) else [spec]
        cols = None
        for sp in specs:
            idx, g = cat.find(sp, "input", allow_many=True)
            used_in[idx] = True
            # one external channel per signal name: 'r' matching r[0], r[1] in two
            # systems is two channels, each driving both systems
            names = list(dict.fromkeys(cat.inputs[i][1] for i in idx))
            if cols is None:
                cols = np.zeros((nu, len(names)))
                in_names += names if len(names) > 1 else [_parse(sp)[1]]
            elif len(names) != cols.shape[1]:
                raise SignalError(
                    f"connect: summed inputs {specs} have different widths "
                    f"({cols.shape[1]} and {len(names)} channels)"
                )
            cols[idx, [names.index(cat.inputs[i][1]) for i in idx]] += g
        in_cols.append(cols)
    rin = np.hstack(in_cols) if in_cols else np.zeros((nu, 0))
    out_rows, out_names = [], []
    for spec in outputs:
        specs = spec if isinstance(spec, list) else [spec]
        rows = None
        for sp in specs:
            idx, g = cat.find(sp, "output", allow_many=False)
            used_out[idx] = True
            if rows is None:
                rows = np.zeros((len(idx), ny))
                out_names += [cat.outputs[i][1] for i in idx]
            if rows.shape[0] != len(idx):
                raise SignalError(f"connect: summed outputs {specs} have different widths")
            rows[np.arange(len(idx)), idx] += g
        out_rows.append(rows)
    lout = np.vstack(out_rows) if out_rows else np.zeros((0, ny))
    if check_unused:
        _warn_unused(cat, used_in, used_out, ignore_inputs, ignore_outputs)
    elif ignore_inputs or ignore_outputs:
        raise SignalError("connect: ignore_inputs/ignore_outputs need check_unused=True")
    loop_names = [f"{sn}.{n}" for sn, n in cat.outputs]
    closed = rz.close(real, rin, fb, lout, loop_names=loop_names)
    is_system = any(m.is_system for m in models)
    dt = common_dt([m.dt for m in models])
    out = models[0]._like(
        closed, is_system=is_system, dt=dt, input_names=in_names, output_names=out_names
    )
    check_nominal_well_posed(out, "the interconnection")
    return out
