"""Sweeps of a function over many items: in-process, on any executor, or on Dask.

``sweep(fn, items)`` evaluates ``fn(item)`` for every item (a model grid, a
Monte Carlo sample, a model family) and returns the results keyed by item.
Items are grouped in chunks; each chunk is one task for the executor (any
``concurrent.futures.Executor``, or a Dask ``distributed.Client``) or runs in
the calling process when no executor is given.

With ``store=path`` the results are written to a SQLite file as chunks
finish.  Why SQLite: it ships with Python (no extra dependency), and one
transaction per chunk makes every write atomic -- a sweep killed at any
instant leaves only whole chunks in the file, never part of one, and a rerun
with the same store computes only the chunks that are missing.  Values are
pickled, so any picklable result (arrays, dataclasses, dicts, and a
``control.StateSpace``, which travels as its matrices) can be kept; a finished
store reopens with :func:`load_sweep` without recomputation.  Only
the calling process writes (workers return their chunk), so there is a single
writer whatever the executor.  A store also records what decides the results --
the function's code, the state it reads (closure, instance, globals, the code of
the user's helper functions) and a digest of every item -- and refuses to resume
a sweep of anything else (see :func:`sweep` for what is and is not tracked).

An item whose evaluation raises, or whose result cannot be pickled where it must
be, is recorded with its key and the error text; the other items carry on, and the
failures are listed in the result and in one :class:`~robustmb.errors.SweepItemWarning`
at the end.  The warnings an item raises are recorded with its key in every engine.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import hashlib
import importlib
import io
import json
import numbers
import os
import pickle
import site
import sqlite3
import sys
import sysconfig
import threading
import time
import traceback
import types
import warnings
from dataclasses import dataclass, field

from .._progress import ProgressBar
from ..errors import ArgumentError, SweepItemWarning, warn

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS results ("
    " key BLOB PRIMARY KEY, chunk INTEGER, ok INTEGER, value BLOB, error TEXT, seconds REAL,"
    " item TEXT, warnings TEXT)"
)
_COLUMNS = "key, chunk, ok, value, error, seconds, item, warnings"


@dataclass
class SweepResult:
    """Results of :func:`sweep`, keyed like the items.

    Attributes
    ----------
    values : dict
        ``key -> fn(item)`` for every item that succeeded.
    errors : dict
        ``key -> error text`` (exception type, message and traceback) for
        every item that raised.
    computed : int
        Number of items evaluated by this call (0 when everything came from
        the store).
    seconds : float
        Wall-clock time of this call.
    store : str or None
        Path of the result store.
    warnings : dict
        ``key -> [(category, message), ...]``: the warnings raised while evaluating
        the item (a value they qualify, e.g. a norm that is not certified), recorded
        in every engine and kept in the store.
    """

    values: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    computed: int = 0
    seconds: float = 0.0
    store: str | None = None
    warnings: dict = field(default_factory=dict)

    def __getitem__(self, key):
        if key in self.errors:
            raise KeyError(f"item {key!r} failed: {self.errors[key].splitlines()[0]}")
        return self.values[key]

    def __len__(self):
        return len(self.values) + len(self.errors)

    @property
    def ok(self) -> bool:
        """True when no item failed."""
        return not self.errors


# --- warnings of an item -------------------------------------------------------------
# ``warnings.catch_warnings`` swaps process-wide state, so two threads entering and
# leaving it in an interleaved order (a thread pool, a threaded Dask worker) would
# restore each other's hooks.  One process-wide hook is installed while any item runs and
# it files each warning under the thread that raised it.
_REC_LOCK = threading.Lock()
_REC = {"active": 0, "saved": None}
_REC_LOCAL = threading.local()


def _show_warning(previous, message, category, filename, lineno, file=None, line=None):
    log = getattr(_REC_LOCAL, "log", None)
    if log is None:  # a thread that is not evaluating an item
        previous(message, category, filename, lineno, file, line)
    else:
        log.append((category, str(message)))


@contextlib.contextmanager
def _recording_warnings():
    """Record the warnings this thread raises, every occurrence (the ``"default"``
    action would show a repeated warning of a later item only once per process); filters
    that ignore or raise a warning still apply."""
    with _REC_LOCK:
        if _REC["active"] == 0:
            saved = warnings.catch_warnings()
            saved.__enter__()
            warnings.filterwarnings("always", append=True)
            warnings.showwarning = functools.partial(_show_warning, warnings.showwarning)
            _REC["saved"] = saved
        _REC["active"] += 1
    outer = getattr(_REC_LOCAL, "log", None)
    log = _REC_LOCAL.log = []
    try:
        yield log
    finally:
        _REC_LOCAL.log = outer
        with _REC_LOCK:
            _REC["active"] -= 1
            if _REC["active"] == 0:
                _REC["saved"].__exit__(None, None, None)
                _REC["saved"] = None


def _category_path(category):
    return f"{category.__module__}:{category.__qualname__}"


def _category(path):
    """The warning class named by :func:`_category_path` (``UserWarning`` when it cannot be
    imported here)."""
    module, _, qualname = str(path).partition(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception:  # noqa: BLE001 - a class defined in a worker's __main__, say
        return UserWarning
    return obj if isinstance(obj, type) and issubclass(obj, Warning) else UserWarning


# --- moving items and results between processes ---------------------------------------
def _rebuild_statespace(A, B, C, D, dt, labels=None):
    """A ``control.StateSpace`` from its matrices (the inverse of the reductions below)."""
    import control

    if labels is None:
        return control.ss(A, B, C, D, dt)
    name, inputs, outputs, states = labels
    return control.ss(A, B, C, D, dt, name=name, inputs=inputs, outputs=outputs, states=states)


def _rebuild_transfer_function(num, den, dt):
    import control

    return control.tf(num, den, dt)


def _is_control_object(obj):
    return type(obj).__module__.split(".")[0] == "control"


class _TransportPickler(pickle.Pickler):
    """Pickler of items and results: a ``control.StateSpace`` (which python-control 0.10
    cannot pickle: it holds lambdas) travels as its matrices, sampling time and signal
    names and is rebuilt as an equal ``StateSpace``."""

    def reducer_override(self, obj):
        if _is_control_object(obj):
            import control

            if isinstance(obj, control.StateSpace):
                labels = (obj.name, obj.input_labels, obj.output_labels, obj.state_labels)
                return _rebuild_statespace, (obj.A, obj.B, obj.C, obj.D, obj.dt, labels)
        return NotImplemented


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:  # optional: the last resort for objects pickle cannot take
        return None
    return cloudpickle


def _dumps(obj):
    """Bytes that ``pickle.loads`` turns back into ``obj``: the transport pickle, or
    cloudpickle's (a lambda, a local class) when that fails and cloudpickle is installed."""
    buf = io.BytesIO()
    try:
        _TransportPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
        return buf.getvalue()
    except Exception as exc:  # noqa: BLE001 - any pickling failure: try cloudpickle
        cp = _cloudpickle()
        if cp is None:
            raise
        try:
            return cp.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001
            raise exc from None


def _error_text(exc):
    return f"{type(exc).__name__}: {exc}\n" + traceback.format_exc()


def _run_chunk(fn, chunk, packed_items=False, pack_results=False):
    """Evaluate one chunk of ``(label, item)``; every item's outcome is caught and
    returned as ``(ok, value, error, seconds, warnings)`` in the chunk's order.

    ``packed_items``: the items are :func:`_dumps` bytes; ``pack_results``: the values
    are returned as such bytes, and a value that cannot be pickled is that item's
    failure (it would otherwise abort the whole chunk when the executor or the store
    pickles it)."""
    out = []
    for label, item in chunk:
        t0 = time.perf_counter()
        value, err = None, None
        with _recording_warnings() as log:
            try:
                if packed_items:
                    item = pickle.loads(item)
                value = fn(item)
            except Exception as exc:  # recorded with the item's key, never aborts the chunk
                err = _error_text(exc)
        if err is None and pack_results:
            try:
                value = _dumps(value)
            except Exception as exc:  # noqa: BLE001 - any pickling failure
                err = (
                    f"PicklingError: the result of item {label} cannot be pickled "
                    f"({type(exc).__name__}: {exc}); return picklable data (numbers, arrays, "
                    "dicts, control.StateSpace) to use store= or an executor\n"
                )
                value = None
        found = [(_category_path(c), m) for c, m in log]
        out.append((err is None, value, err, time.perf_counter() - t0, found))
    return out


def _normalise_items(items, key):
    if items is None:
        raise ArgumentError(
            f"sweep: items must be an iterable or a dict of items, got {type(items).__name__}"
        )
    if key is not None and not callable(key):
        raise ArgumentError(f"sweep: key must be callable, got {type(key).__name__}")
    if isinstance(items, dict):
        pairs = list(items.items())
    else:
        try:
            seq = list(items)
        except TypeError:
            raise ArgumentError(
                f"sweep: items must be an iterable or a dict of items, got {type(items).__name__}"
            ) from None
        if key is None:
            pairs = list(enumerate(seq))
        else:
            pairs = [(key(it), it) for it in seq]
    keys = [k for k, _ in pairs]
    try:
        if len(set(keys)) != len(keys):
            raise ArgumentError("sweep: the item keys are not unique")
    except TypeError:
        raise ArgumentError("sweep: the item keys must be hashable") from None
    return pairs


class _CanonicalPickler(pickle.Pickler):
    """Pickler whose output does not depend on the per-process string hash: a set or
    frozenset is written as its elements' canonical pickles in sorted order (their
    iteration order follows ``PYTHONHASHSEED``).  A python-control model is written as
    its structure -- ``(A, B, C, D, dt)`` or ``(num, den, dt)`` -- without its name (a
    per-process counter, ``sys[12]``) and without the lambdas that make a ``StateSpace``
    unpicklable.  Anything else pickles to the same bytes as
    ``pickle.dumps(obj, protocol=4)``."""

    def persistent_id(self, obj):
        if isinstance(obj, (set, frozenset)):
            cls = type(obj)
            return ("set", cls.__module__, cls.__qualname__, tuple(sorted(map(_canonical, obj))))
        return None

    def reducer_override(self, obj):
        if _is_control_object(obj):
            import control

            dt = obj.dt if obj.dt is None or isinstance(obj.dt, bool) else float(obj.dt)
            if isinstance(obj, control.StateSpace):
                return _rebuild_statespace, (obj.A, obj.B, obj.C, obj.D, dt)
            if isinstance(obj, control.TransferFunction):
                return _rebuild_transfer_function, (obj.num, obj.den, dt)
        return NotImplemented


def _canonical(obj):
    buf = io.BytesIO()
    _CanonicalPickler(buf, protocol=4).dump(obj)
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


class _Store:
    """SQLite result file; one transaction per finished chunk."""

    def __init__(self, path, fn_name, state=None, caller="sweep"):
        self.path = os.fspath(path)
        if os.path.isdir(self.path):
            raise ArgumentError(
                f"{caller}: store {self.path!r} is a directory; give the path of a SQLite "
                "file (e.g. a new file name in that directory)"
            )
        try:
            self.db = sqlite3.connect(self.path)
        except sqlite3.Error as exc:
            raise ArgumentError(
                f"{caller}: store {self.path!r} cannot be opened as a SQLite file ({exc})"
            ) from None
        try:
            self.db.executescript(_SCHEMA)
            columns = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
            if "warnings" not in columns and fn_name is not None and "item" in columns:
                with self.db:  # a store written before warnings were kept
                    self.db.execute("ALTER TABLE results ADD COLUMN warnings TEXT")
                columns.add("warnings")
        except sqlite3.Error as exc:
            self.db.close()
            raise ArgumentError(
                f"{caller}: store {self.path!r} is not a sweep store ({exc}); give the path "
                "of a new file or of a store written by sweep"
            ) from None
        self.has_warnings = "warnings" in columns
        if fn_name is not None and "item" not in columns:
            self.db.close()
            raise ArgumentError(
                f"sweep: store {self.path!r} has no item fingerprints (an older format), so "
                "a resumed sweep could not check its items; read it with load_sweep, or "
                "use another store path"
            )
        row = self.db.execute("SELECT value FROM meta WHERE name='function'").fetchone()
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('function', ?)", (fn_name,))
        elif fn_name is not None and row[0] != fn_name:
            self.db.close()
            raise ArgumentError(
                f"sweep: store {self.path!r} holds results of {row[0]!r}, not {fn_name!r}; "
                "use another store path"
            )
        if state is not None:
            self._check_state(state)

    def _check_state(self, state):
        """Compare the function's state with the stored one; a store written before
        states were recorded takes this one."""
        row = self.db.execute("SELECT value FROM meta WHERE name='state'").fetchone()
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO meta VALUES ('state', ?)", (json.dumps(state),))
            return
        diff = _state_differences(json.loads(row[0]), state)
        if diff:
            self.db.close()
            shown = ", ".join(diff[:6]) + ("" if len(diff) <= 6 else f" (+{len(diff) - 6} more)")
            raise ArgumentError(
                f"sweep: store {self.path!r} holds results of the same function with other "
                f"values or code of: {shown}; use another store path, or pass version= to "
                "track the function's state by hand (a log or cache that changes between "
                "runs)"
            )

    @staticmethod
    def _match(blob, by_bytes, keys):
        """``(key, given)``: the given key a stored key stands for, by its bytes first (a
        NaN key is equal to nothing, not even itself), then by equality (a store written
        with another pickle protocol); ``given`` is False when it is not among ``keys``."""
        if blob in by_bytes:
            return by_bytes[blob], True
        key = pickle.loads(blob)
        try:
            return keys.get(key, key), key in keys
        except TypeError:
            return key, False

    def check_items(self, digests, items, key_bytes):
        """Raise if a stored key was computed from another item than the one given now."""
        keys = {k: k for k in items}
        by_bytes = {b: k for k, b in key_bytes.items()}
        for blob, stored in self.db.execute("SELECT key, item FROM results"):
            key, given = self._match(blob, by_bytes, keys)
            if not given:
                continue
            now = digests[key]
            if stored is None:
                raise ArgumentError(
                    f"sweep: store {self.path!r} holds a result for key {key!r} whose item "
                    "was not fingerprinted (it could not be pickled when stored), so it "
                    "cannot be checked against this item; use another store path"
                )
            if stored != now and stored != _legacy_digest(items[key]):  # before sets sorted
                raise ArgumentError(
                    f"sweep: store {self.path!r} holds a result for key {key!r} computed "
                    "from a different item; use another store path, or key the items by "
                    "their content (key=)"
                )

    def write_chunk(self, index, rows, digests, key_bytes):
        """Write one chunk's rows ``(key, ok, pickled value, error, seconds, warnings)``."""
        with self.db:  # one atomic transaction
            self.db.executemany(
                f"INSERT OR REPLACE INTO results ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        key_bytes[k],
                        index,
                        int(ok),
                        blob if ok else None,
                        err,
                        sec,
                        digests.get(k),
                        json.dumps(found) if found else None,
                    )
                    for k, ok, blob, err, sec, found in rows
                ],
            )

    def read(self, key_bytes=None, keys=None):
        """Stored ``values, errors, warnings``; only those of ``keys`` when given."""
        values, errors, found = {}, {}, {}
        column = "warnings" if self.has_warnings else "NULL"
        query = f"SELECT key, ok, value, error, {column} FROM results"
        index = {} if keys is None else {k: k for k in keys}
        by_bytes = {b: k for k, b in (key_bytes or {}).items()}
        for blob, ok, v, err, w in self.db.execute(query):
            if keys is None:
                key = pickle.loads(blob)
            else:
                key, given = self._match(blob, by_bytes, index)
                if not given:
                    continue
            if ok:
                values[key] = pickle.loads(v)
            else:
                errors[key] = err
            if w:
                found[key] = [(_category(c), m) for c, m in json.loads(w)]
        return values, errors, found

    def close(self):
        self.db.close()


def _is_dask(executor):
    return type(executor).__module__.split(".")[0] == "distributed"


def _check_executor(executor):
    if executor is None or isinstance(executor, cf.Executor):
        return
    if _is_dask(executor):
        import distributed

        if isinstance(executor, distributed.Client):
            return
        raise ArgumentError(
            f"sweep: executor must be a distributed.Client, got a {type(executor).__name__}; "
            "connect a client to it: executor=distributed.Client(cluster)"
        )
    if not callable(getattr(executor, "submit", None)):
        raise ArgumentError(
            "sweep: executor must be a concurrent.futures.Executor, a distributed.Client "
            "(distributed.Client(cluster) for a Dask cluster) or an object with a submit "
            f"method, got {type(executor).__name__}"
        )


def _submit_all(executor, fn, chunks):
    if _is_dask(executor):
        import distributed

        futs = {executor.submit(_run_chunk, fn, c, True, True, pure=False): i for i, c in chunks}
        return futs, distributed.as_completed(list(futs))
    futs = {executor.submit(_run_chunk, fn, c, True, True): i for i, c in chunks}
    return futs, cf.as_completed(futs)


def _emit(result):
    """Re-issue the warnings of the items once, in the calling process, each tagged with
    its item's key (the message keeps its start, so ``filterwarnings(message=...)``
    still matches) and attributed to the caller's line."""
    for key, found in result.warnings.items():
        for category, message in found:
            warn(f"{message} [sweep item {key!r}]", category)


def sweep(
    fn,
    items,
    *,
    executor=None,
    store=None,
    progress=True,
    chunk_size=16,
    key=None,
    retry_failed=False,
    version=None,
):
    """Evaluate ``fn`` on every item, in-process or on an executor, resumably.

    Parameters
    ----------
    fn : callable
        ``fn(item) -> result``.  With a process pool or Dask it must be
        picklable (a module-level function or a ``functools.partial`` of one).
    items : iterable or dict
        The items.  A dict maps keys to items; otherwise the key of an item
        is its position, or ``key(item)`` when ``key`` is given.
    executor : concurrent.futures.Executor or distributed.Client, optional
        Where chunks run; ``None`` runs them in the calling process.  Items and results
        travel as pickles, a ``control.StateSpace`` (which python-control cannot
        pickle) as its matrices, sampling time and signal names, rebuilt equal on the
        other side; an item or a result that still cannot be pickled (a generator) is
        that item's failure, and the other items carry on.
    store : str or path-like, optional
        SQLite file of finished results.  Existing keys are not recomputed, so
        rerunning an interrupted sweep with the same store resumes it.  The store
        records the function (name, code, default arguments, arguments of a
        ``partial``), the state it reads and a digest of every item's pickle; resuming
        with another function, another state, or a different item under a stored key,
        raises :class:`~robustmb.errors.ArgumentError` instead of returning results that
        belong to something else.

        The state is what the results depend on besides the item: the values of the
        closure variables, of the instance of a bound method or callable object, and
        of the globals the code names, digested by their pickle (sets in sorted order,
        so digests agree between processes); functions and classes of the user's own
        modules (``__main__`` and modules outside the standard library,
        site-packages and robustmb) are followed through their code (a class through
        its methods and class attributes), recursively.  A python-control model is
        digested by its structure (``A, B, C, D, dt`` or ``num, den, dt``; containers
        element by element), anything else pickle cannot take by its cloudpickle when
        cloudpickle is installed.  An item or a state value that still cannot be
        fingerprinted raises :class:`~robustmb.errors.ArgumentError` naming it (pass
        ``version=`` for the state).  Not tracked: library code (a new version of numpy
        or robustmb) and values reached in other ways (files, environment variables,
        attributes of library modules).
    version : str, optional
        Tracks the function's state by hand: the store records ``version`` instead
        of the state digests, and resuming with another ``version`` raises.  Use it
        when the function holds something that changes between runs without changing
        its results (a call log, a cache), and change it when a change that the
        digests cannot see alters the results.
    progress : bool, optional
        Draw a progress bar on stderr.
    chunk_size : int, optional
        Items per task (and per store transaction); a positive integer.
    key : callable, optional
        ``key(item)`` for items given as a sequence.
    retry_failed : bool, optional
        Recompute the items recorded as failed in the store.

    Returns
    -------
    SweepResult
        ``.values``, ``.errors`` and ``.warnings`` keyed by item key, ``.computed``.
        The warnings an item raises are recorded in every engine (and in the store)
        and issued once more in the calling process at the end, tagged
        ``[sweep item key]``.

    Raises
    ------
    ArgumentError
        Bad arguments, or a store that holds results of another function or items.
    concurrent.futures.BrokenExecutor, distributed errors
        When the executor itself fails (e.g. a worker process is killed):
        every chunk that finished before is already in the store, so a rerun
        resumes from there.

    Examples
    --------
    >>> import robustmb as rmb
    >>> res = rmb.sweep(lambda k: k**2, range(5), progress=False)
    >>> [res[i] for i in range(5)]
    [0, 1, 4, 9, 16]
    >>> res = rmb.sweep(lambda k: 1 / k, [1, 0, 2], progress=False, chunk_size=2)
    >>> sorted(res.values), list(res.errors)
    ([0, 2], [1])
    """
    t0 = time.perf_counter()
    if not callable(fn):
        raise ArgumentError(f"sweep: fn must be callable, got {type(fn).__name__}")
    if (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, numbers.Integral)
        or chunk_size < 1
    ):
        raise ArgumentError(f"sweep: chunk_size must be a positive integer, got {chunk_size!r}")
    chunk_size = int(chunk_size)
    _check_executor(executor)
    pairs = _normalise_items(items, key)
    st = None
    if store is not None:
        state = _fn_state(fn, version)
        blind = [label for label, d in state.items() if d == "?"]
        if blind:
            raise ArgumentError(
                f"sweep: with store= the state of fn is fingerprinted to refuse a resume "
                f"with other values, but {', '.join(blind[:4])} cannot be pickled; pass "
                "version='...' to track the state by hand (and change it when the results "
                "would change)"
            )
        st = _Store(store, _fn_name(fn), state)
    try:
        todo = pairs
        stored_values, stored_errors, stored_warnings = {}, {}, {}
        digests, key_bytes = {}, {}
        if st is not None:
            for k, it in pairs:
                try:
                    key_bytes[k] = _key_bytes(k)
                except Exception as exc:  # noqa: BLE001 - any pickling failure
                    raise ArgumentError(
                        f"sweep: with store= the item keys must be picklable; key {k!r} is "
                        f"not ({type(exc).__name__}: {exc})"
                    ) from None
                digests[k] = _digest(it)
                if digests[k] is None:
                    raise ArgumentError(
                        f"sweep: with store= every item is fingerprinted to refuse a resume "
                        f"with other items, but item {k!r} ({type(it).__name__}) cannot be "
                        "pickled; give the items as picklable data (numbers, arrays, tuples "
                        "(A, B, C, D, dt), control models) and build anything else in fn"
                    )
            st.check_items(digests, dict(pairs), key_bytes)
            stored_values, stored_errors, stored_warnings = st.read(
                key_bytes, [k for k, _ in pairs]
            )
            skip = set(stored_values) | (set() if retry_failed else set(stored_errors))
            todo = [(k, it) for k, it in pairs if k not in skip]
            if retry_failed:
                stored_errors = {}
        chunks = [
            (i, todo[s : s + chunk_size]) for i, s in enumerate(range(0, len(todo), chunk_size))
        ]
        values, errors, found = {}, {}, {}
        # results travel (and are stored) as pickles: with an executor or a store
        packed = executor is not None or st is not None

        def collect(rows, index):
            if st is not None:
                st.write_chunk(index, rows, digests, key_bytes)
            for k, ok, v, err, _, w in rows:
                if ok and packed:
                    try:
                        v = pickle.loads(v)
                    except Exception as exc:  # noqa: BLE001 - kept as this item's failure
                        ok, err = (
                            False,
                            f"the result of item {k!r} cannot be unpickled: " + (_error_text(exc)),
                        )
                if ok:
                    values[k] = v
                    errors.pop(k, None)
                else:
                    errors[k] = err
                if w:
                    found[k] = [(_category(c), m) for c, m in w]
                else:
                    found.pop(k, None)

        def rows_of(chunk, out):
            return [(k, *r) for (k, _), r in zip(chunk, out, strict=True)]

        with ProgressBar(len(todo), "sweep", enabled=progress and bool(todo)) as bar:
            if executor is None:
                for i, c in chunks:
                    labelled = [(repr(k), it) for k, it in c]
                    collect(rows_of(c, _run_chunk(fn, labelled, False, packed)), i)
                    bar.advance(len(c))
            else:
                sent = []
                for i, c in chunks:
                    # items travel as transport pickles (a control.StateSpace as its
                    # matrices); one that cannot be pickled fails alone, here
                    ok_items, labelled, failed = [], [], []
                    for k, it in c:
                        try:
                            labelled.append((repr(k), _dumps(it)))
                            ok_items.append((k, it))
                        except Exception as exc:  # noqa: BLE001 - any pickling failure
                            text = (
                                f"PicklingError: item {k!r} cannot be pickled for the "
                                f"executor ({type(exc).__name__}: {exc}); give it as (A, B, "
                                "C, D, dt) or other picklable data\n"
                            )
                            failed.append((k, False, None, text, 0.0, []))
                    if failed:
                        collect(failed, i)
                        bar.advance(len(failed))
                    if labelled:
                        sent.append((i, ok_items, labelled))
                futs, completed = _submit_all(executor, fn, [(i, lab) for i, _, lab in sent])
                parts = {i: c for i, c, _ in sent}
                try:
                    for f in completed:
                        i = futs[f]
                        collect(rows_of(parts[i], f.result()), i)
                        bar.advance(len(parts[i]))
                except BaseException:
                    for f in futs:
                        f.cancel()
                    raise
        all_values = {**stored_values, **values}
        all_errors = {k: e for k, e in {**stored_errors, **errors}.items() if k not in values}
        recomputed = {k for k, _ in todo}
        all_found = {k: w for k, w in stored_warnings.items() if k not in recomputed}
        all_found.update(found)
        order = [k for k, _ in pairs]
        result = SweepResult(
            values={k: all_values[k] for k in order if k in all_values},
            errors={k: all_errors[k] for k in order if k in all_errors},
            computed=len(todo),
            seconds=time.perf_counter() - t0,
            store=None if st is None else st.path,
            warnings={k: all_found[k] for k in order if k in all_found},
        )
    finally:
        if st is not None:
            st.close()
    _emit(result)
    if result.errors:
        shown = ", ".join(repr(k) for k in list(result.errors)[:5])
        more = "" if len(result.errors) <= 5 else f" (+{len(result.errors) - 5} more)"
        first = next(iter(result.errors.values())).splitlines()[0]
        warn(
            f"sweep: {len(result.errors)} of {len(pairs)} items failed: {shown}{more}; "
            f"first error: {first}",
            SweepItemWarning,
        )
    return result


def load_sweep(store):
    """Reopen a finished (or partial) sweep store without recomputing anything.

    Examples
    --------
    >>> import os, tempfile
    >>> import robustmb as rmb
    >>> from robustmb.analysis.sweep import load_sweep
    >>> path = os.path.join(tempfile.mkdtemp(), "sq.sqlite")
    >>> _ = rmb.sweep(abs, [-1, -2], store=path, progress=False)
    >>> load_sweep(path).values
    {0: 1, 1: 2}
    """
    path = os.fspath(store)
    if not os.path.exists(path):
        raise ArgumentError(f"load_sweep: no sweep store at {path!r}")
    st = _Store(path, None, caller="load_sweep")
    try:
        values, errors, found = st.read()
    finally:
        st.close()
    try:
        values = dict(sorted(values.items()))
        errors = dict(sorted(errors.items()))
        found = dict(sorted(found.items()))
    except TypeError:  # keys without an order: keep the store's order
        pass
    result = SweepResult(values=values, errors=errors, computed=0, store=path, warnings=found)
    _emit(result)
    return result
