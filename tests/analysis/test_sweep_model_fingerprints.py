"""A sweep store fingerprints models by what the function sees: a python-control model by
its matrices and its input, output and state labels; a robustmb uncertain model by its
realisation, elements, signal names and sampling time -- never by the automatic name
(``sys[12]``) that a per-process counter gives an unnamed model.

A relabelled or otherwise different item must be refused (not answered with the stored
result of another item), and the same family built in a new process (a shifted counter,
another ``PYTHONHASHSEED``) must resume.  The references are the plain evaluation of the
function and the closed-form DC gain ``1 / (i + 1)`` of ``k / (s + i + 1)`` at ``k = 1``.
"""

import functools
import os
import subprocess
import sys
import textwrap

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIFFERENT = "computed from a different item"


def labels_and_pole(item):
    return item.input_labels[0], item.output_labels[0], list(item.state_labels), item.A[0, 0]


def first_order(i, **labels):
    return control.ss([[-(i + 1.0)]], [[1.0]], [[1.0]], [[0.0]], **labels)


@pytest.mark.parametrize(
    "relabel",
    [{"inputs": ["zz"]}, {"outputs": ["w"]}, {"states": ["q"]}],
    ids=["inputs", "outputs", "states"],
)
def test_relabelled_statespace_items_are_refused(tmp_path, relabel):
    path = tmp_path / "ss.sqlite"
    items = [first_order(i, inputs=[f"u{i}"]) for i in range(4)]
    done = rmb.sweep(labels_and_pole, items, store=path, progress=False)
    assert done.values == {i: labels_and_pole(it) for i, it in enumerate(items)}
    # the same matrices and labels built again (new automatic names): resumed
    same = [first_order(i, inputs=[f"u{i}"]) for i in range(4)]
    assert same[0].name != items[0].name
    again = rmb.sweep(labels_and_pole, same, store=path, progress=False)
    assert again.computed == 0 and again.values == done.values
    renamed = [first_order(i, **{"inputs": [f"u{i}"], **relabel}) for i in range(4)]
    with pytest.raises(ArgumentError, match=DIFFERENT):
        rmb.sweep(labels_and_pole, renamed, store=path, progress=False)
    fresh = rmb.sweep(labels_and_pole, renamed, store=tmp_path / "new.sqlite", progress=False)
    assert fresh.values == {i: labels_and_pole(it) for i, it in enumerate(renamed)}
    assert fresh.values != done.values


def tf_labels(item):
    return item.input_labels[0], item.output_labels[0], float(item.den[0][0][-1])


def test_relabelled_transfer_functions_are_refused(tmp_path):
    path = tmp_path / "tf.sqlite"
    items = [control.tf([1.0], [1.0, i + 1.0], inputs="u", outputs="y") for i in range(3)]
    done = rmb.sweep(tf_labels, items, store=path, progress=False)
    assert done.values == {i: ("u", "y", i + 1.0) for i in range(3)}
    same = [control.tf([1.0], [1.0, i + 1.0], inputs="u", outputs="y") for i in range(3)]
    assert rmb.sweep(tf_labels, same, store=path, progress=False).computed == 0
    for labels in ({"inputs": "f", "outputs": "y"}, {"inputs": "u", "outputs": "x"}):
        other = [control.tf([1.0], [1.0, i + 1.0], **labels) for i in range(3)]
        with pytest.raises(ArgumentError, match=DIFFERENT):
            rmb.sweep(tf_labels, other, store=path, progress=False)


def frd_summary(item):
    return item.input_labels[0], float(abs(item.frdata[0, 0, 0]))


def test_frequency_responses_resume_by_content_and_relabelled_ones_are_refused(tmp_path):
    w = np.logspace(-1, 1, 5)
    path = tmp_path / "frd.sqlite"

    def family(**labels):
        return [control.frd(control.tf([1.0], [1.0, i + 1.0]), w, **labels) for i in range(2)]

    done = rmb.sweep(frd_summary, family(inputs="u"), store=path, progress=False)
    # |1 / (j 0.1 + i + 1)| at the first frequency
    assert [v[1] for v in done.values.values()] == pytest.approx(
        [1 / abs(0.1j + 1), 1 / abs(0.1j + 2)], rel=1e-12
    )
    again = rmb.sweep(frd_summary, family(inputs="u"), store=path, progress=False)
    assert again.computed == 0
    with pytest.raises(ArgumentError, match=DIFFERENT):
        rmb.sweep(frd_summary, family(inputs="f"), store=path, progress=False)


def name_of(item):
    return item.name


def test_a_given_model_name_is_part_of_the_fingerprint(tmp_path):
    path = tmp_path / "named.sqlite"
    named = [first_order(i, name=f"plant{i}") for i in range(2)]
    assert rmb.sweep(name_of, named, store=path, progress=False).values == {
        0: "plant0",
        1: "plant1",
    }
    again = [first_order(i, name=f"plant{i}") for i in range(2)]
    assert rmb.sweep(name_of, again, store=path, progress=False).computed == 0
    other = [first_order(0, name="other"), named[1]]
    with pytest.raises(ArgumentError, match=DIFFERENT):
        rmb.sweep(name_of, other, store=path, progress=False)


def _run(script, *args, **env):
    """``script`` in a new python process (its own counters and string hash)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        env=dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


# A family of uncertain systems: ``shift`` unnamed models built first move the counter
# that names them; ``variant`` changes one thing of the family's content.
FAMILY = """
    import sys
    import control
    import robustmb as rmb

    shift, variant, store = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    junk = [rmb.uss(rmb.ureal(f"j{{i}}", 1.0) * control.tf([1], [1, 1])) for i in range(shift)]
    junk += [control.ss(-1.0, 1.0, 1.0, 0.0) for _ in range(shift)]
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, percent=20 if variant == "range" else 10)
    family = [rmb.uss(k / (s + i + 1)) for i in range(3)]
    # an uncertain matrix, and a system named after python-control's automatic name
    family.append(rmb.umat([[k, 2.0 * k]]))
    family.append(rmb.uss(control.ss([[-1.0, 0.0], [0.0, -2.0]], [[1.0], [1.0]],
                                    [[1.0, 0.0], [0.0, 1.0]], [[0.0], [0.0]])[1, 0]))
    if variant == "inputs":
        family[0].input_names = ["force"]

    def summary(G):
        return sorted(G.blocks.items()), G.input_names, G.output_names, {PAYLOAD}

    try:
        r = rmb.sweep(summary, family, store=store, progress=False)
        print("OK", r.computed, r.values == {{i: summary(G) for i, G in enumerate(family)}})
        print(family[-1].name)
        print(*[summary(G)[-1] for G in family])
    except Exception as exc:
        print("ERR", type(exc).__name__, exc)
"""
DC = "float(control.dcgain(G.nominal())) if G.nstates else float(G.nominal()[0, 0])"


def test_uncertain_items_resume_in_another_process_and_other_families_are_refused(tmp_path):
    store = str(tmp_path / "uss.sqlite")
    script = FAMILY.format(PAYLOAD=DC)
    first = _run(script, "0", "none", store)
    assert first.returncode == 0, first.stderr
    status, name, dcs = first.stdout.splitlines()[:3]
    assert status == "OK 5 True", first.stdout
    # closed forms at k = 1: 1 / (i + 1), the matrix entry k, and 1 / (s + 2) at s = 0
    dcs = [float(v) for v in dcs.split()]
    assert dcs == pytest.approx([1.0, 0.5, 1.0 / 3.0, 1.0, 0.5], rel=1e-12)
    assert name.endswith("$indexed")  # the automatic name of a python-control subsystem

    def again(shift, variant, seed):
        out = _run(script, str(shift), variant, store, PYTHONHASHSEED=seed)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()[0]

    # the same family with other automatic names and another string hash: resumed
    assert again(7, "none", "123") == "OK 0 True"
    assert again(3, "none", "0") == "OK 0 True"
    # another element range, another signal name: refused
    assert DIFFERENT in again(7, "range", "123")
    assert DIFFERENT in again(0, "inputs", "1")


def describe(G):
    """What a function may read of a model besides its automatic name."""
    blocks = sorted((n, repr(e)) for n, e in G.uncertainty.items()) if hasattr(G, "blocks") else []
    return blocks, list(G.input_labels if hasattr(G, "A") else G.input_names), G.dt


def _content_variants():
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, percent=10)
    base = rmb.uss(k / (s + 1))
    variants = {
        "nominal": rmb.uss(rmb.ureal("k", 1.05, range=(0.9, 1.1)) / (s + 1)),
        "range": rmb.uss(rmb.ureal("k", 1.0, range=(0.9, 1.2)) / (s + 1)),
        "element name": rmb.uss(rmb.ureal("m", 1.0, percent=10) / (s + 1)),
        "kind": rmb.uss(rmb.ucomplex("k", 1.0, radius=0.1) / (s + 1)),
        "realisation": rmb.uss(k / (s + 2)),
        "output name": rmb.uss(k / (s + 1)),
        "dt": rmb.uss(k * control.tf([1.0], [1.0, -0.5], 0.1)),
        "given name": rmb.uss(k / (s + 1)),
    }
    variants["output name"].output_names = ["z"]
    variants["given name"].name = "plant"
    dyn = rmb.uss(rmb.ultidyn("d", (1, 1), bound=0.5))
    lti = [rmb.uss(rmb.ultidyn("d", (1, 1), bound=0.6)), rmb.uss(rmb.ultidyn("d", (1, 2)))]
    return base, variants, dyn, lti, s


def test_uncertain_models_differing_in_one_part_of_their_content_are_refused(tmp_path):
    base, variants, dyn, lti, s = _content_variants()
    path = tmp_path / "u.sqlite"
    rmb.sweep(describe, [base], store=path, progress=False)
    # the same content built again (a new automatic name): resumed
    k = rmb.ureal("k", 1.0, percent=10)
    twin = rmb.uss(k / (s + 1))
    assert twin.name != base.name
    assert rmb.sweep(describe, [twin], store=path, progress=False).computed == 0
    for what, other in variants.items():
        with pytest.raises(ArgumentError, match=DIFFERENT):
            rmb.sweep(describe, [other], store=path, progress=False)
        # and a fresh store takes it: the refusal is about the item, not the function
        fresh = rmb.sweep(describe, [other], store=tmp_path / f"{what}.sqlite", progress=False)
        assert fresh.computed == 1, what
    path2 = tmp_path / "d.sqlite"
    rmb.sweep(describe, [dyn], store=path2, progress=False)
    twin = rmb.uss(rmb.ultidyn("d", (1, 1), bound=0.5))
    assert rmb.sweep(describe, [twin], store=path2, progress=False).computed == 0
    for other in lti:  # another bound, another shape
        with pytest.raises(ArgumentError, match=DIFFERENT):
            rmb.sweep(describe, [other], store=path2, progress=False)


PARTIAL = """
    import functools, sys
    import control
    import robustmb as rmb

    shift, percent, store = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    junk = [rmb.uss(rmb.ureal(f"j{i}", 1.0) * control.tf([1], [1, 1])) for i in range(shift)]
    k = rmb.ureal("k", 1.0, percent=percent)
    G = rmb.uss(k / (control.tf("s") + 1))

    def g(sysm, x):
        return sysm.uncertainty["k"].range[1] * x

    try:
        r = rmb.sweep(functools.partial(g, G), [1.0, 2.0], store=store, progress=False)
        print("OK", r.computed, r.values)
    except Exception as exc:
        print("ERR", type(exc).__name__, exc)
"""


def test_a_partial_holding_an_uncertain_model_resumes_in_another_process(tmp_path):
    store = str(tmp_path / "p.sqlite")

    def run(shift, percent, seed="0"):
        out = _run(PARTIAL, str(shift), str(percent), store, PYTHONHASHSEED=seed)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    # k in [0.9, 1.1]: g = 1.1 x
    assert run(0, 10) == f"OK 2 {{0: {1.1 * 1.0!r}, 1: {1.1 * 2.0!r}}}"
    assert run(2, 10, "7") == f"OK 0 {{0: {1.1 * 1.0!r}, 1: {1.1 * 2.0!r}}}"
    refused = run(2, 20, "7")
    # the partial's arguments are part of the function's identity
    assert refused.startswith("ERR ArgumentError") and "partial(__main__.g" in refused


def test_the_same_uncertain_model_in_a_closure_resumes_in_process(tmp_path):
    s = control.tf("s")
    k = rmb.ureal("k", 1.0, percent=10)

    def make(G):
        return functools.partial(lambda G, x: len(G.blocks) * x, G)

    path = tmp_path / "c.sqlite"
    rmb.sweep(make(rmb.uss(k / (s + 1))), [1.0], store=path, progress=False)
    res = rmb.sweep(make(rmb.uss(k / (s + 1))), [1.0], store=path, progress=False)
    assert res.computed == 0 and res.values == {0: 1.0}


def test_stores_of_the_earlier_digests(tmp_path):
    import pickle
    import sqlite3

    from robustmb.analysis._sweep_identity import _v1_digest

    k = rmb.ureal("k", 1.0, percent=10)
    s = control.tf("s")
    cases = {
        "uss": ([rmb.uss(k / (s + 1)), rmb.umat([[k]])], None),
        "ss": ([first_order(0), first_order(1)], "fingerprinted without its signal names"),
    }
    for what, (items, refusal) in cases.items():
        path = tmp_path / f"{what}.sqlite"
        done = rmb.sweep(describe, items, store=path, progress=False)
        # rewrite the item digests as the earlier format wrote them
        db = sqlite3.connect(path)
        with db:
            for i, it in enumerate(items):
                old, _ = _v1_digest(it)
                db.execute("UPDATE results SET item=? WHERE key=?", (old, pickle.dumps(i)))
        db.close()
        if refusal is None:  # that digest held the model's automatic name: as strict
            res = rmb.sweep(describe, items, store=path, progress=False)
            assert res.computed == 0 and res.values == done.values
        else:  # it could not tell labels apart: not checkable
            with pytest.raises(ArgumentError, match=refusal):
                rmb.sweep(describe, items, store=path, progress=False)
