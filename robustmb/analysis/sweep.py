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
pickled, so any picklable result (arrays, dataclasses, dicts) can be kept; a
finished store reopens with :func:`load_sweep` without recomputation.  Only
the calling process writes (workers return their chunk), so there is a single
writer whatever the executor.

An item whose evaluation raises is recorded with its key and the error text;
the other items carry on, and the failures are listed in the result and in one
:class:`~robustmb.errors.SweepItemWarning` at the end.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import os
import pickle
import sqlite3
import time
import traceback
import types
from dataclasses import dataclass, field

from .._progress import ProgressBar
from ..errors import ArgumentError, SweepItemWarning, warn

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS results ("
    " key BLOB PRIMARY KEY, chunk INTEGER, ok INTEGER, value BLOB, error TEXT, seconds REAL,"
    " item TEXT)"
)


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
    """

    values: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    computed: int = 0
    seconds: float = 0.0
    store: str | None = None

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


def _run_chunk(fn, chunk):
    """Evaluate one chunk; every item's outcome is caught and returned."""
    out = []
    for key, item in chunk:
        t0 = time.perf_counter()
        try:
            value = fn(item)
            out.append((key, True, value, None, time.perf_counter() - t0))
        except Exception as exc:  # recorded with the item's key, never aborts the chunk
            text = f"{type(exc).__name__}: {exc}\n" + traceback.format_exc()
            out.append((key, False, None, text, time.perf_counter() - t0))
    return out


def _normalise_items(items, key):
    if isinstance(items, dict):
        pairs = list(items.items())
    else:
        seq = list(items)
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


def _digest(obj):
    """SHA-256 of ``obj``'s pickle (first 24 hex digits), or None when it cannot be
    pickled."""
    try:
        return hashlib.sha256(pickle.dumps(obj, protocol=4)).hexdigest()[:24]
    except Exception:  # noqa: BLE001 - an unpicklable object is not fingerprinted
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
    different functions).  The values of its closure and global variables are not
    part of it (a closure often holds mutable state, such as a log).  Parts that cannot
    be pickled are marked ``?`` and are not compared.
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


class _Store:
    """SQLite result file; one transaction per finished chunk."""

    def __init__(self, path, fn_name):
        self.path = os.fspath(path)
        self.db = sqlite3.connect(self.path)
        self.db.executescript(_SCHEMA)
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(results)")}
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

    def check_items(self, digests):
        """Raise if a stored key was computed from another item than the one given now."""
        for k, stored in self.db.execute("SELECT key, item FROM results"):
            key = pickle.loads(k)
            now = digests.get(key)
            if stored is not None and now is not None and stored != now:
                raise ArgumentError(
                    f"sweep: store {self.path!r} holds a result for key {key!r} computed "
                    "from a different item; use another store path, or key the items by "
                    "their content (key=)"
                )

    def write_chunk(self, index, rows, digests):
        with self.db:  # one atomic transaction
            self.db.executemany(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        pickle.dumps(k),
                        index,
                        int(ok),
                        pickle.dumps(v) if ok else None,
                        err,
                        sec,
                        digests.get(k),
                    )
                    for k, ok, v, err, sec in rows
                ],
            )

    def read(self, keys=None):
        values, errors = {}, {}
        for k, ok, v, err in self.db.execute("SELECT key, ok, value, error FROM results"):
            key = pickle.loads(k)
            if keys is not None and key not in keys:
                continue
            if ok:
                values[key] = pickle.loads(v)
            else:
                errors[key] = err
        return values, errors

    def close(self):
        self.db.close()


def _is_dask(executor):
    return type(executor).__module__.split(".")[0] == "distributed"


def _submit_all(executor, fn, chunks):
    if _is_dask(executor):
        import distributed

        futs = {executor.submit(_run_chunk, fn, c, pure=False): i for i, c in chunks}
        return futs, distributed.as_completed(list(futs))
    futs = {executor.submit(_run_chunk, fn, c): i for i, c in chunks}
    return futs, cf.as_completed(futs)


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
        Where chunks run; ``None`` runs them in the calling process.
    store : str or path-like, optional
        SQLite file of finished results.  Existing keys are not recomputed, so
        rerunning an interrupted sweep with the same store resumes it.  The store
        records the function (name, code, default arguments, arguments of a
        ``partial``) and a digest of every item's pickle; resuming with another function, or with a
        different item under a stored key, raises :class:`~robustmb.errors.ArgumentError`
        instead of returning results that belong to something else (items that cannot
        be pickled are not checked).
    progress : bool, optional
        Draw a progress bar on stderr.
    chunk_size : int, optional
        Items per task (and per store transaction).
    key : callable, optional
        ``key(item)`` for items given as a sequence.
    retry_failed : bool, optional
        Recompute the items recorded as failed in the store.

    Returns
    -------
    SweepResult
        ``.values`` and ``.errors`` keyed by item key, ``.computed``.

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
    if int(chunk_size) < 1:
        raise ArgumentError(f"sweep: chunk_size must be >= 1, got {chunk_size}")
    chunk_size = int(chunk_size)
    if executor is not None and not (
        isinstance(executor, cf.Executor) or _is_dask(executor) or hasattr(executor, "submit")
    ):
        raise ArgumentError(
            f"sweep: executor must be a concurrent.futures.Executor or a Dask Client, "
            f"got {type(executor).__name__}"
        )
    pairs = _normalise_items(items, key)
    st = _Store(store, _fn_name(fn)) if store is not None else None
    try:
        todo = pairs
        stored_values, stored_errors = {}, {}
        digests = {}
        if st is not None:
            digests = {k: _digest(it) for k, it in pairs}
            st.check_items(digests)
            keys = {k for k, _ in pairs}
            stored_values, stored_errors = st.read(keys)
            skip = set(stored_values) | (set() if retry_failed else set(stored_errors))
            todo = [(k, it) for k, it in pairs if k not in skip]
            if retry_failed:
                stored_errors = {}
        chunks = [
            (i, todo[s : s + chunk_size]) for i, s in enumerate(range(0, len(todo), chunk_size))
        ]
        values, errors = {}, {}

        def collect(rows, index):
            if st is not None:
                st.write_chunk(index, rows, digests)
            for k, ok, v, err, _ in rows:
                if ok:
                    values[k] = v
                    errors.pop(k, None)
                else:
                    errors[k] = err

        with ProgressBar(len(todo), "sweep", enabled=progress and bool(todo)) as bar:
            if executor is None:
                for i, c in chunks:
                    collect(_run_chunk(fn, c), i)
                    bar.advance(len(c))
            else:
                futs, completed = _submit_all(executor, fn, chunks)
                sizes = dict((i, len(c)) for i, c in chunks)
                try:
                    for f in completed:
                        i = futs[f]
                        collect(f.result(), i)
                        bar.advance(sizes[i])
                except BaseException:
                    for f in futs:
                        f.cancel()
                    raise
        all_values = {**stored_values, **values}
        all_errors = {k: e for k, e in {**stored_errors, **errors}.items() if k not in values}
        order = [k for k, _ in pairs]
        result = SweepResult(
            values={k: all_values[k] for k in order if k in all_values},
            errors={k: all_errors[k] for k in order if k in all_errors},
            computed=len(todo),
            seconds=time.perf_counter() - t0,
            store=None if st is None else st.path,
        )
    finally:
        if st is not None:
            st.close()
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
    st = _Store(path, None)
    try:
        values, errors = st.read()
    finally:
        st.close()
    try:
        values = dict(sorted(values.items()))
        errors = dict(sorted(errors.items()))
    except TypeError:  # keys without an order: keep the store's order
        pass
    return SweepResult(values=values, errors=errors, computed=0, store=path)
