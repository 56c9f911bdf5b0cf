"""The central uncertain object: an LFT ``Fu(M, Delta)`` with named signals.

An :class:`UncertainMatrix` (static) and an :class:`UncertainSystem`
(dynamic) share one representation, a :class:`~.realization.Realization`
of the augmented system ``M`` with the Delta channels first.  A matrix is a
model with zero states.
"""

from __future__ import annotations

import itertools
import numbers

import control
import numpy as np

from ..errors import ArgumentError, DimensionError, SignalError, UncertainTypeError
from . import realization as rz
from .arguments import sample_time
from .elements import UncertainElement
from .realization import Realization, make_realization

_counter = itertools.count()


class _KeepSampleTime:
    """Default ``dt`` of :func:`uss`: one system's own sampling time, 0 for ``(A, B, C, D)``."""

    def __repr__(self):
        return "<the system's own>"


_KEEP = _KeepSampleTime()

# Attributes python-control reads from a system: looked up on an uncertain one, they
# raise an AttributeError saying what to pass instead.
_CONTROL_ATTRIBUTES = frozenset(
    {
        "A",
        "B",
        "C",
        "D",
        "ninputs",
        "noutputs",
        "isctime",
        "isdtime",
        "issiso",
        "poles",
        "zeros",
        "dcgain",
        "plot_phase",
        "frequency_response",
        "input_labels",
        "output_labels",
    }
)


def _default_names(prefix, n):
    return [f"{prefix}[{i}]" for i in range(n)]


def unique_names(names):
    """Signal names made unique: each repeated name ``x`` becomes ``x[0]``, ``x[1]``, ...

    Repeated names arise from concatenation (``hstack(G, G)``); python-control keeps
    one label per name, so a system crossing to python-control needs unique ones.

    Examples
    --------
    >>> unique_names(["u", "d", "u"])
    ['u[0]', 'd', 'u[1]']
    """
    names = list(names)
    counts = {}
    for nm in names:
        counts[nm] = counts.get(nm, 0) + 1
    taken = {nm for nm in names if counts[nm] == 1}
    nxt, out = {}, []
    for nm in names:
        if counts[nm] == 1:
            out.append(nm)
            continue
        k = nxt.get(nm, 0)
        while f"{nm}[{k}]" in taken:
            k += 1
        out.append(f"{nm}[{k}]")
        taken.add(out[-1])
        nxt[nm] = k + 1
    return out


def _control_labels(sys, n, kind):
    """Labels of a python-control system, which keeps one label per distinct name."""
    labels = list(sys.input_labels if kind == "input" else sys.output_labels)
    if len(labels) != n:
        raise SignalError(
            f"python-control system {sys.name!r} has {n} {kind}s but only {len(labels)} distinct "
            f"{kind} names {labels}: python-control merges repeated names, give each {kind} "
            "its own name"
        )
    return labels


def _check_names(names, n, what):
    """``n`` signal names: strings, not blank, without surrounding spaces.

    ``connect`` strips a spec before matching it, so a name that is blank or has
    surrounding spaces could never be referred to.  A repeated name is allowed
    (concatenation makes them; :func:`unique_names` separates them for python-control).
    """
    if isinstance(names, str):
        names = [names] if n == 1 else _default_names(names, n)
    if not isinstance(names, list | tuple):
        raise ArgumentError(f"{what} must be a list of {n} signal names, got {names!r}")
    names = list(names)
    if len(names) != n:
        raise DimensionError(f"{what}: expected {n} names, got {len(names)} ({names})")
    for i, nm in enumerate(names):
        if not isinstance(nm, str):
            raise SignalError(f"{what}: signal names must be strings, got {nm!r} at index {i}")
        if not nm.strip():
            raise SignalError(f"{what}: the signal name at index {i} is blank ({nm!r})")
        if nm != nm.strip():
            raise SignalError(f"{what}: the signal name {nm!r} at index {i} has surrounding spaces")
    return names


def common_dt(dts):
    """The common sampling time of operands, with python-control's conventions.

    ``None``: a static object (any sampling time), ``0``: continuous, ``True``: discrete
    with an unspecified sampling time, which takes that of a discrete operand.  The
    identity test keeps ``True`` apart from a sampling time of 1 (``True == 1``).

    Examples
    --------
    >>> common_dt([None, True, 0.1])
    0.1
    >>> common_dt([1, True])
    1
    """
    known = [dt for dt in dts if dt is not None]
    times = {dt for dt in known if dt is not True}
    unspecified = any(dt is True for dt in known)
    if len(times) > 1 or (unspecified and 0 in times):
        shown = sorted(times, key=float) + (["True (discrete)"] if unspecified else [])
        raise DimensionError(f"cannot combine systems with different sampling times {shown}")
    if times:
        return times.pop()
    return True if unspecified else None


class UncertainModel:
    """An uncertain matrix or state-space system stored as one normalised LFT.

    Use :func:`umat` and :func:`uss` (or arithmetic on uncertain elements) to
    build one.  See ``docs/`` for the conventions.

    This class holds the data (the realization, the signal names, the sampling
    time).  Its arithmetic operators and the methods that run an operation
    (``nominal``, ``usubs``, ``usample``, indexing) are attached by
    :mod:`robustmb.lft.operators`, which sits above the operations they call.
    """

    is_system = False
    # numpy must hand mixed operations to the operators instead of building object arrays.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(
        self, realization: Realization, *, dt=None, input_names=None, output_names=None, name=None
    ):
        self._real = realization
        self.dt = dt
        ny, nu = realization.ny, realization.nu
        self._input_names = _check_names(
            input_names if input_names is not None else "u", nu, "input_names"
        )
        self._output_names = _check_names(
            output_names if output_names is not None else "y", ny, "output_names"
        )
        self.name = name if name is not None else f"sys[{next(_counter)}]"

    # ----------------------------------------------------------------- basic data
    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nu)``: numbers of outputs and inputs."""
        return (self._real.ny, self._real.nu)

    @property
    def nstates(self) -> int:
        """Number of states (0 for a matrix)."""
        return self._real.nx

    @property
    def blocks(self) -> dict[str, int]:
        """Occurrences (repetitions in Delta) of each uncertain element."""
        return {name: r for name, (_, r) in self._real.blocks.items()}

    @property
    def uncertainty(self) -> dict[str, UncertainElement]:
        """The uncertain elements, by name (tunable parameters excluded)."""
        return {name: el for name, (el, _) in self._real.blocks.items() if not el.tunable}

    @property
    def tunables(self) -> dict:
        """The free tunable parameters (``robustmb.realp``), by name."""
        return {name: el for name, (el, _) in self._real.blocks.items() if el.tunable}

    @property
    def input_names(self) -> list[str]:
        return list(self._input_names)

    @input_names.setter
    def input_names(self, names):
        self._input_names = _check_names(names, self.shape[1], "input_names")

    @property
    def output_names(self) -> list[str]:
        return list(self._output_names)

    @output_names.setter
    def output_names(self, names):
        self._output_names = _check_names(names, self.shape[0], "output_names")

    def _like(
        self,
        realization,
        *,
        is_system=None,
        dt=None,
        input_names=None,
        output_names=None,
        name=None,
    ):
        """A new model from a realization; unspecified attributes are not inherited."""
        is_system = self.is_system if is_system is None else is_system
        cls = UncertainSystem if is_system else UncertainMatrix
        return cls(
            realization, dt=dt, input_names=input_names, output_names=output_names, name=name
        )

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        raise TypeError("uncertain objects are not iterable; index them with [rows, cols]")

    def __getattr__(self, name):
        if name in _CONTROL_ATTRIBUTES:
            raise AttributeError(
                f"{type(self).__name__} has no attribute {name!r}: python-control functions "
                "take a certain system, such as X.nominal() or the samples of X.usample(n); "
                "robustmb.plotting (bode, sigma, step, impulse, nyquist, pzmap) plots the "
                "uncertain system itself"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self):
        kind = "UncertainSystem" if self.is_system else "UncertainMatrix"
        blk = ", ".join(f"{n}: {r}" for n, r in self.blocks.items()) or "none"
        st = f", {self.nstates} states" if self.is_system else ""
        return f"<{kind} {self.name!r} {self.shape[0]}x{self.shape[1]}{st}; occurrences {blk}>"


def index_positions(key, n, what, names):
    """Turn an index (int, slice, list, name or names) into a list of positions."""
    if isinstance(key, slice):
        return list(range(n))[key]
    if isinstance(key, bool | np.bool_):
        raise DimensionError(f"invalid {what} index {key!r}: a boolean is not a position")
    if isinstance(key, str | numbers.Integral):
        key = [key]
    arr = np.asarray(key)
    if arr.dtype == bool:  # a mask, as in numpy: the positions where it is True
        if arr.shape != (n,):
            raise DimensionError(
                f"a boolean {what} mask must have one entry per {what} ({n}), got shape {arr.shape}"
            )
        return np.flatnonzero(arr).tolist()
    out = []
    for k in np.atleast_1d(np.asarray(key, dtype=object)):
        if isinstance(k, str):
            if k not in names:
                raise SignalError(f"unknown {what} signal '{k}'; known: {names}")
            at = [i for i, name in enumerate(names) if name == k]
            if len(at) > 1:
                # taking the first would silently pick one of several channels
                raise SignalError(
                    f"{what} signal '{k}' is the name of {what}s {at}: index them by position"
                )
            out.append(at[0])
        elif isinstance(k, numbers.Integral) and not isinstance(k, bool | np.bool_):
            kk = int(k)
            if not -n <= kk < n:
                raise DimensionError(f"{what} index {kk} is out of range for {n} {what}s")
            out.append(kk % n)
        else:
            raise DimensionError(f"invalid {what} index {k!r}")
    return out


class UncertainMatrix(UncertainModel):
    """Uncertain static matrix (an LFT with zero states). Build with :func:`umat`."""

    is_system = False


class UncertainSystem(UncertainModel):
    """Uncertain state-space system. Build with :func:`uss`."""

    is_system = True


# ----------------------------------------------------------- interconnection
def interconnect(
    models, rin, fb, lout, *, input_names, output_names, dvo=None, loop_names=None, is_system=None
):
    """Append the models' realizations and close a static interconnection of their channels.

    ``u_all = rin v + fb y_all`` feeds the appended inputs from the new inputs
    ``v`` and from the appended outputs; the new outputs are ``lout y_all``
    (see :func:`.realization.close`).  Every LFT operation is one such call,
    so the result is an exact LFT of the same map.
    """
    real, _, _ = rz.append([m._real for m in models])
    real = rz.close(real, rin, fb, lout, dvo, loop_names=loop_names)
    if is_system is None:
        is_system = any(m.is_system for m in models)
    dt = common_dt([m.dt for m in models])
    return models[0]._like(
        real, is_system=is_system, dt=dt, input_names=input_names, output_names=output_names
    )


def stack(xs, axis):
    """Concatenate operands side by side (``axis="h"``) or on top of each other (``"v"``)."""
    ms = [as_model(x) for x in xs]
    if not ms:
        raise DimensionError("nothing to stack")
    if len(ms) == 1:
        return ms[0]
    k = 0 if axis == "h" else 1
    ref = ms[0].shape[k]
    for i, m in enumerate(ms):
        if m.shape[k] != ref:
            what = "outputs" if axis == "h" else "inputs"
            raise DimensionError(
                f"cannot {'h' if axis == 'h' else 'v'}stack: operand {i} has {m.shape[k]} "
                f"{what}, operand 0 has {ref}"
            )
    if axis == "h":
        rin = np.eye(sum(m.shape[1] for m in ms))
        lout = np.hstack([np.eye(ref)] * len(ms))
        return interconnect(
            ms,
            rin,
            None,
            lout,
            input_names=unique_names(n for m in ms for n in m.input_names),
            output_names=ms[0].output_names,
        )
    rin = np.vstack([np.eye(ref)] * len(ms))
    lout = np.eye(sum(m.shape[0] for m in ms))
    return interconnect(
        ms,
        rin,
        None,
        lout,
        input_names=ms[0].input_names,
        output_names=unique_names(n for m in ms for n in m.output_names),
    )


# ------------------------------------------------------------------ conversions
def _finite_array(x, what="matrix"):
    arr = np.asarray(x)
    if arr.dtype == object:
        raise UncertainTypeError(f"{what}: cannot convert {type(x).__name__} to a numeric array")
    if not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
        raise UncertainTypeError(f"{what}: expected numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.result_type(float, arr.dtype))
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise DimensionError(f"{what} has a non-finite entry at position {bad}")
    return arr


def static_model(d, *, dt=None, is_system=False) -> UncertainModel:
    """A certain static gain as an uncertain object (no blocks, no states)."""
    d = _finite_array(d)
    if d.ndim == 0:
        d = d.reshape(1, 1)
    elif d.ndim == 1:
        d = d.reshape(1, -1)
    elif d.ndim != 2:
        raise DimensionError(f"a matrix must have at most 2 dimensions, got shape {d.shape}")
    ny, nu = d.shape
    real = make_realization(np.zeros((0, 0)), np.zeros((0, nu)), np.zeros((ny, 0)), d, {})
    cls = UncertainSystem if is_system else UncertainMatrix
    return cls(real, dt=dt)


def element_model(el: UncertainElement) -> UncertainModel:
    """The LFT of a single element: one occurrence, physical value on the output."""
    if el.kind == "real":
        center, scale = el.center, el.half_width
    elif el.kind == "complex":
        center, scale = el.nominal, el.radius
    else:
        p, m = el.shape
        d = np.block([[np.zeros((m, p)), np.eye(m)], [el.bound * np.eye(p), np.zeros((p, m))]])
        real = make_realization(
            np.zeros((0, 0)), np.zeros((0, p + m)), np.zeros((m + p, 0)), d, {el.name: (el, 1)}
        )
        return UncertainSystem(real, dt=None)
    d = np.array([[0.0, 1.0], [scale, center]])
    real = make_realization(
        np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)), d, {el.name: (el, 1)}
    )
    return UncertainMatrix(real, input_names=["u[0]"], output_names=[el.name])


def lti_model(sys) -> UncertainSystem:
    """A python-control ``StateSpace`` or ``TransferFunction`` as an uncertain system."""
    if isinstance(sys, control.TransferFunction):
        try:
            ss = control.ss(sys)
        except ValueError as exc:
            raise UncertainTypeError(
                f"cannot realise transfer function {sys.name!r} as a state-space model "
                f"(is it improper?): {exc}"
            ) from None
    elif isinstance(sys, control.StateSpace):
        ss = sys
    else:
        raise UncertainTypeError(f"expected a python-control system, got {type(sys).__name__}")
    a, b, c, d = (np.asarray(m) for m in (ss.A, ss.B, ss.C, ss.D))
    for nm, m in zip("ABCD", (a, b, c, d), strict=True):
        _finite_array(m, f"state-space matrix {nm} of {sys.name!r}")
    real = make_realization(a, b, c, d, {})
    return UncertainSystem(
        real,
        dt=ss.dt,
        input_names=_control_labels(ss, ss.ninputs, "input"),
        output_names=_control_labels(ss, ss.noutputs, "output"),
        name=sys.name,
    )


def as_model(x) -> UncertainModel:
    """Convert numbers, arrays, elements, python-control systems to an uncertain object.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.lft.model import as_model
    >>> as_model(3.0).shape
    (1, 1)
    """
    if isinstance(x, UncertainModel):
        return x
    if hasattr(x, "_to_model"):
        # Objects that know their own LFT: tunable parameters, uncertain rationals.
        return x._to_model()
    if isinstance(x, UncertainElement):
        return element_model(x)
    if isinstance(x, control.StateSpace | control.TransferFunction):
        return lti_model(x)
    if isinstance(x, numbers.Number) or isinstance(x, np.ndarray | np.generic):
        return static_model(x)
    if isinstance(x, list | tuple):
        return umat(x)
    raise UncertainTypeError(f"cannot use an object of type {type(x).__name__} in an LFT")


def umat(data) -> UncertainMatrix:
    """Uncertain matrix from an array-like of numbers, elements and expressions.

    Parameters
    ----------
    data : array_like
        A 2-D nested list (or a scalar / 1-D row) whose entries are numbers,
        uncertain elements or uncertain 1x1 (or conformable block) objects.
        An uncertain matrix gives a new object sharing its data (renaming it
        leaves ``data`` unchanged).

    Returns
    -------
    UncertainMatrix

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> b = rmb.ureal("b", 2.0, percent=10)
    >>> X = rmb.umat([[a, b], [b * b, a / b]])
    >>> X.shape, X.blocks
    ((2, 2), {'a': 2, 'b': 4})
    """
    return _umat(data, "umat()")


def _dynamic_entry(what, where, x):
    """The error for a dynamic object (an ultidyn, a system) given where a matrix goes."""
    if isinstance(x, UncertainElement):
        desc = f"the ultidyn '{x.name}'"
    else:
        desc = f"the {type(x).__name__} {getattr(x, 'name', '')!r}".replace(" ''", "")
    return UncertainTypeError(
        f"{what}: {desc}{where} is a dynamic system, and matrix entries must be static. "
        "Dynamic elements enter a model through arithmetic (e.g. G * (1 + W * d)) or through "
        "the input/output connections of an interconnection (connect, feedback, lft_upper)"
    )


def _static_entry(e, what, i, j):
    """The model of entry ``(i, j)`` of a matrix, refusing non-finite and dynamic entries."""
    if isinstance(e, float | complex | np.inexact) and not np.isfinite(e):
        raise DimensionError(f"{what}: entry ({i}, {j}) is {e!r}, not a finite number")
    m = as_model(e)
    if m.is_system:
        raise _dynamic_entry(what, f" in entry ({i}, {j})", e)
    return m


def _umat(data, what):
    """:func:`umat`, with errors that name the matrix as ``what``."""
    if isinstance(data, UncertainModel):
        if data.is_system:
            raise UncertainTypeError(f"{what} takes a static object; this one is a system")
        # A new object sharing the (immutable) realization: renaming it leaves data alone.
        return UncertainMatrix(
            data._real,
            dt=data.dt,
            input_names=data.input_names,
            output_names=data.output_names,
            name=data.name,
        )
    if isinstance(data, UncertainElement):
        if data.kind == "ltidyn":
            raise _dynamic_entry(what, "", data)
        return as_model(data)
    if isinstance(data, np.ndarray) and data.dtype != object:
        return static_model(data)
    if isinstance(data, numbers.Number):
        return static_model(data)
    rows = list(data) if isinstance(data, list | tuple | np.ndarray) else None
    if rows is None:
        raise UncertainTypeError(f"{what} cannot convert {type(data).__name__}")
    if not rows:
        raise DimensionError(f"{what} needs at least one row")
    if not isinstance(rows[0], list | tuple | np.ndarray):
        rows = [rows]
    _check_rectangular(rows, what)
    if all(isinstance(e, numbers.Number) for r in rows for e in r):
        return static_model(np.array(rows))
    return stack(
        [
            stack([_static_entry(e, what, i, j) for j, e in enumerate(r)], "h")
            for i, r in enumerate(rows)
        ],
        "v",
    )


def _check_rectangular(rows, what="umat()"):
    """Refuse ragged nested lists with the row at fault (numpy's message names none)."""
    lengths = [len(r) if isinstance(r, list | tuple | np.ndarray) else None for r in rows]
    if None in lengths:
        i = lengths.index(None)
        raise DimensionError(
            f"{what}: row {i} is {rows[i]!r}, not a list; give a 2-D nested list of entries"
        )
    for i, n in enumerate(lengths):
        if n != lengths[0]:
            raise DimensionError(
                f"{what}: ragged rows, row {i} has {n} entries but row 0 has {lengths[0]}"
            )


def uss(*args, dt=_KEEP):
    """Uncertain state-space system.

    ``uss(A, B, C, D)`` with entries that may be uncertain, or ``uss(sys)`` from
    a python-control ``StateSpace``/``TransferFunction``, an uncertain matrix
    (a static system) or an uncertain system.  ``uss(sys)`` of an uncertain
    object returns a new object sharing its data (as MATLAB's ``uss`` and
    ``control.ss`` do): renaming it or its signals leaves ``sys`` unchanged.

    Parameters
    ----------
    A, B, C, D : array_like
        State-space matrices; entries may be numbers, elements or expressions.
    dt : float, optional
        Sampling time (0 = continuous, ``None`` = unspecified).  With four
        matrices it defaults to 0.  With one system it defaults to the
        system's own sampling time; a given ``dt`` is applied to an object
        without one (a matrix, a constant) and must equal the sampling time of
        a system that has one (a system is not resampled: use
        ``control.sample_system`` first), otherwise ``ArgumentError``.

    Returns
    -------
    UncertainSystem

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=10)
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> G = rmb.uss([[-a]], [[1.0]], [[k]], [[0.0]])
    >>> G.nstates, G.blocks
    (1, {'a': 1, 'k': 1})
    >>> import control
    >>> s = control.tf("s")
    >>> (k / (s + a)).blocks
    {'k': 1, 'a': 1}
    """
    if len(args) == 1:
        m = as_model(args[0])
        if dt is not _KEEP:
            dt = sample_time(dt, "uss")
            if not (m.dt is None or dt is None or m.dt == dt):
                raise ArgumentError(
                    f"uss: dt={dt!r} differs from the sampling time {m.dt!r} of {m.name!r}; "
                    "a system is not resampled (discretise it with control.sample_system first)"
                )
        new_dt = m.dt if dt is _KEEP or dt is None else dt
        # A new object sharing the (immutable) realization: renaming it leaves the input alone.
        return UncertainSystem(
            m._real,
            dt=new_dt,
            input_names=m.input_names,
            output_names=m.output_names,
            name=m.name,
        )
    dt = 0 if dt is _KEEP else sample_time(dt, "uss")
    if len(args) != 4:
        raise UncertainTypeError("uss() takes (A, B, C, D) or a single system")
    mats = [
        _umat(m, f"uss(): matrix {nm}") if not _is_empty(m) else None
        for nm, m in zip("ABCD", args, strict=True)
    ]
    nx = _state_count(args, mats)
    sizes = {}
    for nm, m, (r_exp, c_exp) in zip(
        "ABCD", mats, [(nx, nx), (nx, None), (None, nx), (None, None)], strict=True
    ):
        if m is None:
            continue
        r, c = m.shape
        if r_exp is not None and r != r_exp:
            raise DimensionError(f"uss(): {nm} has {r} rows, expected {r_exp} (states)")
        if c_exp is not None and c != c_exp:
            raise DimensionError(f"uss(): {nm} has {c} columns, expected {c_exp} (states)")
        sizes[nm] = (r, c)
    nu = sizes.get("B", sizes.get("D", (0, 0)))[1]
    ny = sizes.get("C", sizes.get("D", (0, 0)))[0]
    if "D" in sizes and sizes["D"] != (ny, nu):
        raise DimensionError(f"uss(): D has shape {sizes['D']}, expected {(ny, nu)}")
    shapes = {"A": (nx, nx), "B": (nx, nu), "C": (ny, nx), "D": (ny, nu)}
    mats = [
        m if m is not None else static_model(np.zeros(shapes[nm]))
        for nm, m in zip("ABCD", mats, strict=True)
    ]
    top = stack([mats[0], mats[1]], "h") if nu else mats[0]
    bottom = stack([mats[2], mats[3]], "h") if nu else mats[2]
    big = stack([top, bottom], "v") if ny else top
    return integrate_states(big, nx, dt)


def integrate_states(big: UncertainModel, nx: int, dt) -> UncertainSystem:
    """The system whose first ``nx`` inputs and outputs of the static ``big`` are states.

    ``big`` maps ``[x; u]`` to ``[x'; y]`` (``x(k+1)`` in discrete time); closing ``x``
    with integrators (delays) gives the state-space realization directly, with the
    occurrences of ``big``'s elements unchanged.
    """
    real = big._real
    # The static LFT maps [w; x; u] -> [z; x'; y].
    nw, nz = real.nw, real.nz
    d = real.d
    a = d[nz : nz + nx, nw : nw + nx]
    b = np.hstack([d[nz : nz + nx, :nw], d[nz : nz + nx, nw + nx :]])
    c = np.vstack([d[:nz, nw : nw + nx], d[nz + nx :, nw : nw + nx]])
    dd = np.block([[d[:nz, :nw], d[:nz, nw + nx :]], [d[nz + nx :, :nw], d[nz + nx :, nw + nx :]]])
    return UncertainSystem(make_realization(a, b, c, dd, real.blocks), dt=dt)


def _is_empty(m):
    if isinstance(m, np.ndarray):
        return m.size == 0
    if isinstance(m, list | tuple):
        return len(m) == 0 or all(isinstance(r, list | tuple) and len(r) == 0 for r in m)
    return False


def _state_count(args, mats):
    if mats[0] is not None:
        r, c = mats[0].shape
        if r != c:
            raise DimensionError(f"uss(): A must be square, got shape {(r, c)}")
        return r
    return 0
