"""The case-study script's full-study H-inf run (case_studies/orbital_assembly/run.py).

Checks the claims the recorded figures rest on: the edges are real edges of the 56
planning graphs, a smaller sample is a prefix of a larger one with the same seed (so a
budget-limited run is a uniform sample), and a rerun with a larger sample computes only
the new edges, reusing the store.
"""

import sqlite3

import pytest
from _scripts import load_script

from robustmb.examples import assembly as a


def load_run():
    return load_script("case_studies", "orbital_assembly", "run.py", name="orbital_assembly_run")


def stored_keys(path):
    import pickle

    with sqlite3.connect(path) as db:
        return [pickle.loads(k) for (k,) in db.execute("SELECT key FROM results WHERE ok = 1")]


@pytest.mark.slow
def test_full_hinf_sample_is_a_resumable_prefix_of_the_edges(tmp_path):
    run = load_run()
    edges = run.all_edges()
    graph_edges = {(kind, n, u, v) for kind, n, g in a.planning_graphs() for u, v in g.edges}
    assert len(edges) == 8672 == len(graph_edges)
    first = run.full_hinf(tmp_path, 2, 3, 5, None)
    store = tmp_path / "full_hinf_z2_seed5.sqlite"
    three = set(stored_keys(store))
    assert len(three) == 3 and "3 of 8672 edges" in first[1]
    assert "This call: 3 edges (12 loops)" in first[2]
    second = run.full_hinf(tmp_path, 2, 5, 5, None)
    five = set(stored_keys(store))
    assert three < five and len(five) == 5
    assert "This call: 2 edges (8 loops)" in second[2]  # only the new edges are computed
    for key in five:
        n, u, v, carrying = edges[key]
        kind = key.split()[0]
        assert (kind, n, u, v) in graph_edges and carrying == (kind == "assembly")
    again = run.full_hinf(tmp_path, 2, 5, 5, None)
    assert again[2].startswith("Every edge came from the store")
