"""How the items of a sweep are evaluated and how items and results travel.

:func:`_run_chunk` is the task a worker runs: it evaluates ``fn`` on every item of a
chunk, catches each item's exception and records each item's warnings, and returns
the values as pickles when they must cross a process boundary or go to a store.
python-control 0.10 cannot pickle a ``control.StateSpace`` (its ``__init__`` stores
lambdas), so the transport pickler writes one as its matrices, sampling time and
signal names (rebuilt equal by :func:`_rebuild_statespace`); cloudpickle, when
installed, is the fallback for other objects pickle cannot take.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import pickle
import threading
import time
import traceback
import warnings

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


def _rebuild_transfer_function(num, den, dt, labels=None):
    import control

    if labels is None:
        return control.tf(num, den, dt)
    name, inputs, outputs = labels
    return control.tf(num, den, dt, name=name, inputs=inputs, outputs=outputs)


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
