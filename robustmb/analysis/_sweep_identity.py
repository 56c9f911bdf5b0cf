"""Fingerprints of what decides a sweep's results: its items and its function's state.

A store records them (:mod:`robustmb.analysis.sweep`) and refuses to resume with other
items or another state.  Items and state values are digested by a canonical pickle:
sets in sorted order (their iteration order follows ``PYTHONHASHSEED``), python-control
and robustmb uncertain models by their content and signal names, not their automatic
names; cloudpickle is the fallback for objects pickle cannot take.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import re
import site
import sys
import sysconfig
import types

from ..lft.elements import UncertainElement
from ..lft.model import UncertainMatrix, UncertainModel, UncertainSystem
from ._sweep_transport import (
    _cloudpickle,
    _is_control_object,
    _rebuild_statespace,
    _rebuild_transfer_function,
)


def _automatic_name(name):
    """True for a name the library made up: ``sys[12]`` (python-control's and robustmb's
    per-process counter) with python-control's prefixes and suffixes (``sys[3]$indexed``,
    ``sys[3]$sampled``: a subsystem, a discretisation, a conversion of an unnamed one)."""
    if not isinstance(name, str):
        return name is None
    import control

    fixes = control.config.defaults
    pre = {v for k, v in fixes.items() if k.endswith("_system_name_prefix") and v}
    suf = {v for k, v in fixes.items() if k.endswith("_system_name_suffix") and v}
    alt = "|".join(map(re.escape, sorted(pre))) or "(?!)"
    alt2 = "|".join(map(re.escape, sorted(suf))) or "(?!)"
    return re.fullmatch(rf"(?:{alt})*sys\[\d+\](?:{alt2})*", name) is not None


def _given_name(name):
    """A model's name as fingerprinted: None for an automatic one (see above)."""
    return None if _automatic_name(name) else name


def _rebuild_uncertain(kind, realization, dt, inputs, outputs, name):
    """An uncertain model from its content (the inverse of the canonical reduction)."""
    cls = UncertainSystem if kind == "UncertainSystem" else UncertainMatrix
    return cls(realization, dt=dt, input_names=inputs, output_names=outputs, name=name)


def _rebuild_element(cls, state):
    el = cls.__new__(cls)
    el.__dict__.update(state)
    return el


class _CanonicalPickler(pickle.Pickler):
    """Pickler whose output does not depend on the per-process state: a set or frozenset
    is written as its elements' canonical pickles in sorted order (their iteration order
    follows ``PYTHONHASHSEED``); a python-control model as its structure -- ``(A, B, C,
    D, dt)`` or ``(num, den, dt)`` -- and its input, output and state labels, without the
    lambdas that make a ``StateSpace`` unpicklable (another python-control system: its
    plain pickle); a robustmb uncertain model as its
    realisation, its elements (name, kind, nominal, range / radius / shape and bound),
    its signal names and ``dt``.  The name of a model is kept only when it was given:
    an automatic one is a per-process counter (``sys[12]``).  Anything else pickles to
    the same bytes as ``pickle.dumps(obj, protocol=4)``.

    ``v1=True`` writes the fingerprints of earlier stores (python-control models without
    their labels, uncertain models as plain pickles); ``saw_control`` then tells whether
    such a model was met (a digest that cannot tell labels apart)."""

    def __init__(self, *args, v1=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.v1 = v1
        self.saw_control = False

    def persistent_id(self, obj):
        if isinstance(obj, (set, frozenset)):
            cls = type(obj)
            canon = functools.partial(_canonical, v1=self.v1)
            return ("set", cls.__module__, cls.__qualname__, tuple(sorted(map(canon, obj))))
        return None

    def reducer_override(self, obj):
        if _is_control_object(obj):
            import control

            dt = obj.dt if obj.dt is None or isinstance(obj.dt, bool) else float(obj.dt)
            if isinstance(obj, control.StateSpace):
                if self.v1:
                    self.saw_control = True
                    return _rebuild_statespace, (obj.A, obj.B, obj.C, obj.D, dt)
                labels = (
                    _given_name(obj.name),
                    list(obj.input_labels),
                    list(obj.output_labels),
                    list(obj.state_labels),
                )
                return _rebuild_statespace, (obj.A, obj.B, obj.C, obj.D, dt, labels)
            if isinstance(obj, control.TransferFunction):
                if self.v1:
                    self.saw_control = True
                    return _rebuild_transfer_function, (obj.num, obj.den, dt)
                labels = (_given_name(obj.name), list(obj.input_labels), list(obj.output_labels))
                return _rebuild_transfer_function, (obj.num, obj.den, dt, labels)
            if self.v1:
                return NotImplemented
            # another python-control system (a FrequencyResponseData, say): its plain
            # pickle, labels included, without an automatic name
            rv = obj.__reduce_ex__(4)
            if isinstance(rv, tuple) and len(rv) >= 3 and isinstance(rv[2], dict):
                state = dict(rv[2])
                if "name" in state:
                    state["name"] = _given_name(state["name"])
                    return (*rv[:2], state, *rv[3:])
            return NotImplemented
        if self.v1:
            return NotImplemented
        if isinstance(obj, UncertainModel):
            dt = obj.dt if obj.dt is None or isinstance(obj.dt, bool) else float(obj.dt)
            kind = "UncertainSystem" if obj.is_system else "UncertainMatrix"
            content = (kind, obj._real, dt, obj.input_names, obj.output_names)
            return _rebuild_uncertain, (*content, _given_name(obj.name))
        if isinstance(obj, UncertainElement):
            # its attributes in sorted order: what defines it, whatever order they were set in
            return _rebuild_element, (type(obj), dict(sorted(vars(obj).items())))
        return NotImplemented


def _canonical(obj, v1=False):
    buf = io.BytesIO()
    _CanonicalPickler(buf, protocol=4, v1=v1).dump(obj)
    return buf.getvalue()


def _digest(obj):
    """SHA-256 of ``obj``'s canonical pickle (first 24 hex digits); of its cloudpickle
    when the canonical pickle fails (a lambda inside); None when neither can pickle it."""
    try:
        return hashlib.sha256(_canonical(obj)).hexdigest()[:24]
    except Exception:  # noqa: BLE001 - an unpicklable object: try cloudpickle
        pass
    cp = _cloudpickle()
    if cp is not None:
        try:
            data = cp.dumps(obj, protocol=4)
        except Exception:  # noqa: BLE001 - not fingerprinted
            return None
        return hashlib.sha256(b"cloudpickle:" + data).hexdigest()[:24]
    return None


def _v1_digest(obj):
    """``(digest, saw_control)``: the digest of stores written before models were
    fingerprinted with their labels (None when it fails), and whether ``obj`` holds a
    python-control model (whose labels that digest leaves out)."""
    buf = io.BytesIO()
    pickler = _CanonicalPickler(buf, protocol=4, v1=True)
    try:
        pickler.dump(obj)
    except Exception:  # noqa: BLE001 - the cloudpickle digests did not change
        return None, False
    return hashlib.sha256(buf.getvalue()).hexdigest()[:24], pickler.saw_control


def _key_bytes(key):
    """How a key is written in a store (``pickle.dumps(key)`` of the format's first
    version): stored keys are matched by these bytes, so a key equal to nothing, not even
    itself (a NaN inside), is still found."""
    return pickle.dumps(key, protocol=4)


def _legacy_digest(obj):
    """The digest of stores written before sets were canonicalised."""
    try:
        return hashlib.sha256(pickle.dumps(obj, protocol=4)).hexdigest()[:24]
    except Exception:  # noqa: BLE001
        return None


def _code_fingerprint(code):
    # The compiled body, its constants and names: not the line numbers, so editing a
    # script elsewhere does not disown its stored results.  Frozensets (``x in {...}``)
    # are sorted: their pickle order follows the per-process string hash.
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            c = _code_fingerprint(c)
        elif isinstance(c, frozenset):
            c = ("frozenset", tuple(sorted(map(repr, c))))
        consts.append(c)
    return (code.co_code, tuple(consts), code.co_names)


def _fn_name(fn):
    """Identity of ``fn`` for a store: its name, and digests of what decides its results.

    Stable across processes (no memory addresses), so that a resumed sweep recognises
    its function: a ``functools.partial`` adds its arguments, a Python function its
    compiled code and default arguments (``lambda x: x**2`` and ``lambda x: x**3`` are
    different functions).  The values it reads (closure, instance, globals) are
    recorded separately by :func:`_fn_state`.  Parts that cannot be pickled are marked
    ``?`` and are not compared.
    """
    if isinstance(fn, functools.partial):
        return f"partial({_fn_name(fn.func)}, {_digest((fn.args, fn.keywords)) or '?'})"
    code = getattr(fn, "__code__", None)
    if not hasattr(fn, "__qualname__"):
        fn = type(fn)
    name = f"{getattr(fn, '__module__', '?')}.{fn.__qualname__}"
    if not isinstance(code, types.CodeType):
        return name
    parts = (_code_fingerprint(code), fn.__defaults__, fn.__kwdefaults__)
    return f"{name} [{_digest(parts) or '?'}]"


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    try:
        dirs.update(site.getsitepackages())
        dirs.add(site.getusersitepackages())
    except AttributeError:  # a virtualenv's site module without these functions
        pass
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()


@functools.lru_cache(maxsize=1024)
def _is_user_module(name):
    """True for the user's own code: ``__main__`` and modules imported from outside the
    standard library, site-packages and robustmb (whose code is not tracked)."""
    if not name:
        return False
    if name == "__main__":
        return True
    top = name.split(".")[0]
    if top == "robustmb" or top in sys.stdlib_module_names:
        return False
    path = getattr(sys.modules.get(name), "__file__", None)
    if not path:
        return False
    return not os.path.realpath(path).startswith(_LIBRARY_DIRS)


def _code_names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


class _StateDigest:
    """Digests of everything a callable reads besides its arguments, one per label.

    * closure cells and the bound instance (``__self__``, or the callable object
      itself): their canonical pickle;
    * globals named by the code: a value by its canonical pickle; a function or class
      of the user's modules by its code (a class: its methods and class attributes),
      recursively; an attribute ``mod.name`` of a
      user module imported as ``mod`` likewise;
    * functions, classes and modules of libraries (standard library, site-packages,
      robustmb) are not followed: they are identified by their names in the code.

    A value that cannot be pickled is digested attribute by attribute when it has a
    ``__dict__`` (two levels deep), and marked ``?`` (not compared) otherwise.
    """

    def __init__(self):
        self.parts = {}
        self._seen = set()

    def callable(self, fn):
        if isinstance(fn, functools.partial):
            self.callable(fn.func)
            for i, a in enumerate(fn.args):
                self.value(f"partial arg {i}", a)
            for k, a in (fn.keywords or {}).items():
                self.value(f"partial arg {k}", a)
        elif isinstance(fn, types.MethodType):
            # library code is identified by its name and compiled code (_fn_name) only
            if _is_user_module(fn.__func__.__module__):
                self.function(_qualname(fn.__func__), fn.__func__)
            self.value(f"{_qualname(fn.__func__)} self", fn.__self__)
        elif isinstance(fn, types.FunctionType):
            if _is_user_module(fn.__module__):
                self.function(_qualname(fn), fn)
        elif not isinstance(fn, (types.BuiltinFunctionType, type)):
            # a callable object: its attributes and its class
            self.value(f"{_qualname(type(fn))} instance", fn)

    def function(self, label, f):
        if id(f) in self._seen:
            return
        self._seen.add(id(f))
        self.parts[f"code {label}"] = (
            _digest((_code_fingerprint(f.__code__), f.__defaults__, f.__kwdefaults__)) or "?"
        )
        code = f.__code__
        for name, cell in zip(code.co_freevars, f.__closure__ or (), strict=True):
            try:
                v = cell.cell_contents
            except ValueError:  # a cell not yet assigned
                continue
            self.value(f"{label} closure {name}", v)
        names = _code_names(code)
        g = f.__globals__
        modname = g.get("__name__", "?")
        for name in sorted(names):
            if name not in g:
                continue
            v = g[name]
            if isinstance(v, types.ModuleType):
                if _is_user_module(v.__name__):
                    for attr in sorted(names & set(vars(v))):
                        self.value(f"{v.__name__}.{attr}", getattr(v, attr))
            else:
                self.value(f"{modname}.{name}", v)

    def cls(self, c):
        for k in c.__mro__:
            if id(k) in self._seen or not _is_user_module(getattr(k, "__module__", None)):
                continue
            self._seen.add(id(k))
            for name, attr in sorted(vars(k).items()):
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                if isinstance(attr, property):
                    attrs = [a for a in (attr.fget, attr.fset) if a is not None]
                elif isinstance(attr, types.FunctionType):
                    attrs = [attr]
                else:
                    # a class attribute (a constant, a nested class); not the slots and
                    # the interpreter's own entries
                    if not (name.startswith("__") and name.endswith("__")) and not isinstance(
                        attr, types.MemberDescriptorType | types.GetSetDescriptorType
                    ):
                        self.value(f"{_qualname(k)}.{name}", attr)
                    attrs = []
                for a in attrs:
                    self.function(f"{_qualname(k)}.{name}", a)

    def value(self, label, v, depth=0):
        if isinstance(v, types.ModuleType):
            return
        if isinstance(v, (types.FunctionType, type)):
            if _is_user_module(getattr(v, "__module__", None)):
                if isinstance(v, type):
                    self.cls(v)
                else:
                    self.function(_qualname(v), v)
            return  # library code: named in the caller's code, not followed
        if isinstance(v, (types.BuiltinFunctionType, types.MethodType, functools.partial)):
            if id(v) not in self._seen:
                self._seen.add(id(v))
                self.callable(v)
            return
        # values are keyed by label, not identity: equal constants may share one object
        if label in self.parts:
            return
        d = _digest(v)
        # an unpicklable object: its attributes, two levels deep (not a whole object graph)
        if d is None and depth < 2 and isinstance(getattr(v, "__dict__", None), dict):
            for k, a in sorted(vars(v).items()):
                self.value(f"{label}.{k}", a, depth + 1)
        else:
            self.parts[label] = d or "?"
        if _is_user_module(type(v).__module__):
            self.cls(type(v))


def _qualname(obj):
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"


def _fn_state(fn, version):
    """What ``fn``'s results depend on besides its code: ``{"version": version}`` when
    given (it overrides the digests), otherwise the :class:`_StateDigest` parts."""
    if version is not None:
        return {"version": str(version)}
    st = _StateDigest()
    st.callable(fn)
    return st.parts


def _state_differences(stored, now):
    if ("version" in stored) != ("version" in now):
        given = "the store" if "version" in stored else "this call"
        return [f"version= was given only to {given}"]
    diff = []
    for label in sorted(set(stored) | set(now)):
        a, b = stored.get(label), now.get(label)
        if a == b or b == "?":
            continue
        if a == "?":  # unchecked when stored (an unpicklable value then): not the same
            diff.append(f"{label} (not fingerprinted in the store)")
            continue
        diff.append(label if label != "version" else f"version {a!r} -> {b!r}")
    return diff
