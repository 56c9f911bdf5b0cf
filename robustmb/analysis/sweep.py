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
import json
import numbers
import os
import pickle
import sqlite3
import time
from dataclasses import dataclass, field

import numpy as np

from .._progress import ProgressBar
from ..errors import ArgumentError, SweepItemWarning, warn
from ._sweep_identity import (
    _digest,
    _fn_name,
    _fn_state,
    _key_bytes,
    _legacy_digest,
    _state_differences,
    _v1_digest,
)
from ._sweep_transport import _category, _dumps, _error_text, _run_chunk

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


def _normalise_items(items, key):
    if items is None:
        raise ArgumentError(
            f"sweep: items must be an iterable or a dict of items, got {type(items).__name__}"
        )
    if key is not None and not callable(key):
        raise ArgumentError(f"sweep: key must be callable, got {type(key).__name__}")
    if isinstance(items, dict):
        if key is not None:
            raise ArgumentError(
                "sweep: key= applies to items given as a sequence; the keys of a dict of "
                "items are its own keys (give the items as a list to key them by key=)"
            )
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
            pairs = []
            for position, it in enumerate(seq):
                try:
                    pairs.append((key(it), it))
                except Exception as exc:
                    raise ArgumentError(
                        f"sweep: key raised on item {position} ({type(exc).__name__}: {exc})"
                    ) from exc
    seen = {}
    for position, (k, _) in enumerate(pairs):
        try:
            first = seen.setdefault(k, position)
        except TypeError:
            raise ArgumentError(
                f"sweep: the item keys must be hashable; the key of item {position} is a "
                f"{type(k).__name__} ({k!r})"
            ) from None
        if first != position:
            raise ArgumentError(
                f"sweep: the item keys are not unique: items {first} and {position} both "
                f"have key {k!r}"
            )
    return pairs


def _store_path(store, caller):
    """The path of a store (``str`` or path-like), else an error naming ``store``.

    Examples
    --------
    >>> _store_path("results.sqlite", "sweep")
    'results.sqlite'
    """
    if not isinstance(store, str | bytes | os.PathLike):
        raise ArgumentError(
            f"{caller}: store must be the path of a SQLite file (str or path-like), got {store!r}"
        )
    path = os.fspath(store)
    if path in ("", ":memory:", b"", b":memory:"):
        # SQLite opens these as a temporary database: nothing would be kept
        raise ArgumentError(
            f"{caller}: store {path!r} is not a file path (SQLite keeps nothing of it); "
            "give the path of a file, or store=None"
        )
    return path


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
        """Raise if a stored key was computed from another item than the one given now.

        Returns ``{key: stored bytes}`` for the given keys stored under other bytes (an
        equal key pickled differently: ``numpy.float64(0.5)`` and ``0.5``), so that a
        recomputed item replaces its row instead of adding a second one."""
        keys = {k: k for k in items}
        by_bytes = {b: k for k, b in key_bytes.items()}
        renamed = {}
        for blob, stored in self.db.execute("SELECT key, item FROM results"):
            key, given = self._match(blob, by_bytes, keys)
            if not given:
                continue
            if blob != key_bytes[key]:
                renamed[key] = blob
            now = digests[key]
            if stored is None:
                raise ArgumentError(
                    f"sweep: store {self.path!r} holds a result for key {key!r} whose item "
                    "was not fingerprinted (it could not be pickled when stored), so it "
                    "cannot be checked against this item; use another store path"
                )
            if stored == now or stored == _legacy_digest(items[key]):  # before sets sorted
                continue
            v1, has_control = _v1_digest(items[key])
            if stored == v1:
                if not has_control:  # an earlier digest, at least as strict as this one
                    continue
                raise ArgumentError(
                    f"sweep: store {self.path!r} holds a result for key {key!r} whose item "
                    "was fingerprinted without its signal names (a store of an earlier "
                    "version), so it cannot be checked against this item; use another "
                    "store path"
                )
            raise ArgumentError(
                f"sweep: store {self.path!r} holds a result for key {key!r} computed "
                "from a different item; use another store path, or key the items by "
                "their content (key=)"
            )
        return renamed

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
            elif key in values:  # a row of an earlier failure: the result replaces it
                continue
            else:
                errors[key] = err
            if w:
                found[key] = [(_category(c), m) for c, m in json.loads(w)]
            else:
                found.pop(key, None)
        return values, {k: e for k, e in errors.items() if k not in values}, found

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


def _killed_worker(exc):
    """True for Dask's verdict that a task killed every worker that ran it."""
    if type(exc).__module__.split(".")[0] != "distributed":
        return False
    import distributed

    return isinstance(exc, distributed.KilledWorker)


def _killed_text(key, exc):
    """Error text of an item that killed its Dask worker while running alone."""
    return (
        f"KilledWorker: the Dask worker evaluating item {key!r} alone died every time "
        "it ran it (a crash of the process: a segfault, os._exit, memory exhausted); "
        f"rerun with retry_failed=True to evaluate it again ({type(exc).__name__}: {exc})\n"
    )


def _gather(executor, fn, sent, collect, bar):
    """Run the chunks ``sent`` (``(index, (key, item) pairs, their pickles)``) on the
    executor and pass each finished chunk's rows to ``collect(rows, index)``.

    On Dask, a task that killed every worker it ran on (``KilledWorker``) may hold an
    item that crashes its process, or may have shared a dying worker with such a task:
    its items become suspects, run one at a time once nothing else is running, and a
    suspect that still kills its worker then is the one at fault and fails alone."""
    futs, completed = _submit_all(executor, fn, [(i, lab) for i, _, lab in sent])
    tasks = {i: (i, c, lab, False) for i, c, lab in sent}  # by chunk index, then suspect
    suspects, collected = [], set()
    try:
        for f in completed:
            i, part, lab, alone = tasks[futs[f]]
            try:
                out = f.result()
            except Exception as exc:
                if isinstance(exc, cf.BrokenExecutor):
                    exc.add_note(_unfinished_note(tasks, collected))
                if not _killed_worker(exc):
                    raise
                collected.add(futs[f])
                if alone:
                    collect([(part[0][0], False, None, _killed_text(part[0][0], exc), 0.0, [])], i)
                    bar.advance(1)
                else:
                    suspects.extend((i, [pair], [one]) for pair, one in zip(part, lab, strict=True))
            else:
                collect([(k, *r) for (k, _), r in zip(part, out, strict=True)], i)
                collected.add(futs[f])
                bar.advance(len(part))
            if suspects and completed.count() == 0:
                i, part, lab = suspects.pop(0)
                new = executor.submit(_run_chunk, fn, lab, True, True, pure=False)
                futs[new] = ("alone", len(tasks))
                tasks[futs[new]] = (i, part, lab, True)
                completed.add(new)
    except BaseException:
        for f in futs:
            f.cancel()
        raise


def _unfinished_note(tasks, collected):
    """Names the items of the chunks not collected when the executor broke."""
    keys = [k for t, task in tasks.items() if t not in collected for k, _ in task[1]]
    shown = ", ".join(repr(k) for k in keys[:8]) + ("" if len(keys) <= 8 else ", ...")
    return (
        f"sweep: the executor broke (a worker process died) with {len(keys)} items "
        f"unfinished: {shown}; the chunks that finished are in the store (store=), and "
        "a rerun with the same store resumes from them"
    )


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
        ``key(item)`` for items given as a sequence.  With ``store=`` the keys are
        stored by their pickle: an equal key of another type (``0.5`` for
        ``numpy.float64(0.5)``) finds its stored result, and two keys that pickle alike
        without being equal (two NaN) raise :class:`~robustmb.errors.ArgumentError`.
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
        When the executor itself fails (e.g. a worker process of a process pool is
        killed; a note on the error names the items left unfinished): every chunk
        that finished before is already in the store, so a rerun resumes from there.
        On Dask a chunk whose worker dies is run again by Dask (``allowed-failures``
        times, a setting of ``distributed.scheduler``); the items of a chunk that Dask
        gives up on (``KilledWorker``) are run again one at a time once nothing else
        runs, and an item whose worker still dies is recorded as failed (a
        ``KilledWorker`` error under its key) while the others carry on.

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
    if not isinstance(progress, bool | np.bool_):
        raise ArgumentError(f"sweep: progress must be True or False, got {progress!r}")
    if not isinstance(retry_failed, bool | np.bool_):
        raise ArgumentError(f"sweep: retry_failed must be True or False, got {retry_failed!r}")
    if store is not None:
        store = _store_path(store, "sweep")
    if (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, numbers.Integral)
        or chunk_size < 1
    ):
        raise ArgumentError(f"sweep: chunk_size must be a positive integer, got {chunk_size!r}")
    chunk_size = int(chunk_size)
    _check_executor(executor)
    if isinstance(executor, cf.ProcessPoolExecutor):
        try:  # the pool pickles fn with every chunk: refuse it here, named
            pickle.dumps(fn)
        except Exception as exc:  # noqa: BLE001 - any pickling failure
            raise ArgumentError(
                "sweep: with a process pool fn must be picklable, and "
                f"{getattr(fn, '__qualname__', type(fn).__name__)!r} is not "
                f"({type(exc).__name__}: {exc}); define it at module level (or as a "
                "functools.partial of a module-level function)"
            ) from None
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
            by_bytes = {}
            for k, it in pairs:
                try:
                    key_bytes[k] = _key_bytes(k)
                except Exception as exc:  # noqa: BLE001 - any pickling failure
                    raise ArgumentError(
                        f"sweep: with store= the item keys must be picklable; key {k!r} is "
                        f"not ({type(exc).__name__}: {exc})"
                    ) from None
                other = by_bytes.setdefault(key_bytes[k], k)
                if other is not k:  # unequal keys of one pickle: two NaN, say
                    raise ArgumentError(
                        f"sweep: with store= the items are stored by the pickle of their "
                        f"key, and keys {other!r} and {k!r} pickle alike (a NaN equals no "
                        "other NaN, yet they are one key in the store); key the items by "
                        "something else (key=)"
                    )
                digests[k] = _digest(it)
                if digests[k] is None:
                    raise ArgumentError(
                        f"sweep: with store= every item is fingerprinted to refuse a resume "
                        f"with other items, but item {k!r} ({type(it).__name__}) cannot be "
                        "pickled; give the items as picklable data (numbers, arrays, tuples "
                        "(A, B, C, D, dt), control models) and build anything else in fn"
                    )
            # a recomputed item is written under the bytes its key is stored with
            key_bytes.update(st.check_items(digests, dict(pairs), key_bytes))
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
                _gather(executor, fn, sent, collect, bar)
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

    Parameters
    ----------
    store : str or path-like
        Path of a store written by :func:`sweep`.

    Returns
    -------
    SweepResult
        The stored ``values``, ``errors`` and ``warnings`` (``computed = 0``).  The
        store does not record the order of the items: the keys come in sorted order
        (in the store's order when they cannot be sorted); rerun :func:`sweep` with
        the same items and store to get them in the items' order.

    Raises
    ------
    ArgumentError
        No store at ``store``, or a file that is not a sweep store.

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
    path = _store_path(store, "load_sweep")
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
