"""A sweep store recognises the state its function reads (closure, instance, globals,
helper code), and item digests that do not depend on the per-process string hash.

The reference is the plain evaluation of the function in the resumed run: a resumed
sweep either returns exactly those values or refuses the store.
"""

import json
import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import ArgumentError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ITEMS = [1.0, 2.0, 3.0]


def _resume(first, second, path, match, **kw):
    """``first`` fills the store; ``second`` must be refused, and a fresh store gives
    ``second``'s own values."""
    done = rmb.sweep(first, ITEMS, store=path, progress=False, **kw)
    assert done.values == {i: first(x) for i, x in enumerate(ITEMS)}
    with pytest.raises(ArgumentError, match=match):
        rmb.sweep(second, ITEMS, store=path, progress=False, **kw)
    again = rmb.sweep(first, ITEMS, store=path, progress=False, **kw)
    assert again.computed == 0 and again.values == done.values


class Gain:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return self.k * x

    def shifted(self, x):
        return self.k + x


class Scaled:
    factor = 2.0

    def __call__(self, x):
        return self.factor * x


def test_a_changed_class_attribute_is_refused(tmp_path):
    path = tmp_path / "k.sqlite"
    assert rmb.sweep(Scaled(), ITEMS, store=path, progress=False).values[2] == 6.0
    try:
        Scaled.factor = 3.0
        with pytest.raises(ArgumentError, match=r"Scaled\.factor"):
            rmb.sweep(Scaled(), ITEMS, store=path, progress=False)
    finally:
        Scaled.factor = 2.0
    assert rmb.sweep(Scaled(), ITEMS, store=path, progress=False).computed == 0


def _make(k):
    return lambda x: k * x


OFFSET = 1.0


def _with_global(x):
    return x + OFFSET


def test_callable_objects_bound_methods_and_closures_with_other_state_are_refused(tmp_path):
    _resume(Gain(2.0), Gain(3.0), tmp_path / "a.sqlite", "Gain instance")
    _resume(Gain(2.0).shifted, Gain(100.0).shifted, tmp_path / "b.sqlite", "Gain.shifted self")
    _resume(_make(2.0), _make(3.0), tmp_path / "c.sqlite", "closure k")


def test_a_changed_global_is_refused(tmp_path):
    global OFFSET
    path = tmp_path / "g.sqlite"
    first = rmb.sweep(_with_global, ITEMS, store=path, progress=False)
    assert first.values == {0: 2.0, 1: 3.0, 2: 4.0}
    try:
        OFFSET = 5.0
        with pytest.raises(ArgumentError, match=r"\.OFFSET"):
            rmb.sweep(_with_global, ITEMS, store=path, progress=False)
    finally:
        OFFSET = 1.0
    assert rmb.sweep(_with_global, ITEMS, store=path, progress=False).computed == 0


def test_version_overrides_the_state_digests(tmp_path):
    path = tmp_path / "v.sqlite"
    log = []

    def logged(x):
        log.append(x)
        return 2 * x

    rmb.sweep(logged, ITEMS[:2], store=path, progress=False, version="v1")
    res = rmb.sweep(logged, ITEMS, store=path, progress=False, version="v1")  # log grew
    assert res.computed == 1 and res.values == {0: 2.0, 1: 4.0, 2: 6.0}
    with pytest.raises(ArgumentError, match="version 'v1' -> 'v2'"):
        rmb.sweep(logged, ITEMS, store=path, progress=False, version="v2")
    # without version= the log is part of the state, and it changed
    rmb.sweep(logged, ITEMS, store=tmp_path / "w.sqlite", progress=False)
    log.append(0.0)
    with pytest.raises(ArgumentError, match="closure log"):
        rmb.sweep(logged, ITEMS, store=tmp_path / "w.sqlite", progress=False)


def _run(script, **env):
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=dict(os.environ, PYTHONPATH=ROOT, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out


def test_an_edited_helper_module_is_refused_across_processes(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    store = tmp_path / "h.sqlite"
    script = f"""
        import sys
        sys.path.insert(0, {str(lib)!r})
        import robustmb as rmb, peaks
        def run(z):
            return peaks.peak(z)
        r = rmb.sweep(run, [0.1, 0.2], store={str(store)!r}, progress=False)
        print(r.computed, r.values)
    """
    (lib / "peaks.py").write_text("def peak(z):\n    return 1 / (2 * z)\n")
    first = _run(script)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[0] == "2"
    again = _run(script)  # unchanged helper: resumes without computing
    assert again.returncode == 0 and again.stdout.split()[0] == "0", again.stderr
    (lib / "peaks.py").write_text("def peak(z):\n    return 1 / (2 * z * (1 - z**2) ** 0.5)\n")
    edited = _run(script)
    assert edited.returncode != 0
    assert "ArgumentError" in edited.stderr and "code peaks.peak" in edited.stderr


def test_set_items_resume_under_another_hash_seed(tmp_path):
    store = tmp_path / "s.sqlite"
    script = f"""
        import robustmb as rmb
        items = {{"a": frozenset({{"alpha", "beta", "gamma", "delta", "eps"}}),
                 "b": {{"x1", "y2", "z3", "w4"}}, "c": ({{"p", "q"}}, 1)}}
        CHOICES = frozenset({{"beta", "x1", "p"}})
        def n(s):
            s = s[0] if isinstance(s, tuple) else s
            return len(s) + len(s & CHOICES)
        r = rmb.sweep(n, items, store={str(store)!r}, progress=False)
        print(r.computed, sorted(r.values.items()))
    """
    outs = [_run(script, PYTHONHASHSEED=seed) for seed in ("1", "2", "3")]
    for o in outs:
        assert o.returncode == 0, o.stderr
    assert [o.stdout.split()[0] for o in outs] == ["3", "0", "0"]
    expected = "[('a', 6), ('b', 5), ('c', 3)]"
    assert all(o.stdout.strip().endswith(expected) for o in outs)


def test_stores_written_before_state_and_set_digests_still_resume(tmp_path):
    path = tmp_path / "old.sqlite"
    items = {"a": frozenset({"u", "v", "w"}), "b": frozenset({"x"})}
    rmb.sweep(len, items, store=path, progress=False)
    # rewrite it as the previous format wrote it: no state row, plain-pickle item digests
    import hashlib
    import pickle

    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM meta WHERE name='state'")
        for k, it in items.items():
            legacy = hashlib.sha256(pickle.dumps(it, protocol=4)).hexdigest()[:24]
            db.execute("UPDATE results SET item=? WHERE key=?", (legacy, pickle.dumps(k)))
    db.close()
    res = rmb.sweep(len, items, store=path, progress=False)
    assert res.computed == 0 and res.values == {"a": 3, "b": 1}
    db = sqlite3.connect(path)
    (state,) = db.execute("SELECT value FROM meta WHERE name='state'").fetchone()
    db.close()
    assert json.loads(state) == {}  # a builtin reads no state; recorded on resume
    assert load_sweep(path).values == {"a": 3, "b": 1}


@pytest.mark.parametrize(
    "items, key",
    [(None, None), (5, None), ([1, 2], "not callable")],
)
def test_bad_items_and_key_are_argument_errors(items, key):
    with pytest.raises(ArgumentError, match="items|key"):
        rmb.sweep(abs, items, key=key, progress=False)
