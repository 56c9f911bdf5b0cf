"""Random branching trees as plain specs (see mechanism_specs) and Pinocchio state maps."""

from __future__ import annotations

import numpy as np
from mechanism_specs import random_inertia, random_rotation


def random_tree(rng, n_bodies=6, *, floating=False, p_prismatic=0.3, p_weld=0.15):
    """A branching tree of ``n_bodies`` with revolute, prismatic and weld joints.

    Joints are listed depth first (Pinocchio's derivative routines need that order);
    springs and dampers are zero so that Pinocchio's rigid dynamics compare directly.
    """
    spec = {
        "acceleration": list(rng.normal(size=3) * 4.0),
        "bodies": {},
        "joints": [],
        "params": {},
        "wrench_inputs": {},
    }
    parents = {}
    names = [f"B{k}" for k in range(n_bodies)]
    roots = []
    if floating:
        spec["floating_base"] = "base"
        spec["base_orientation"] = random_rotation(rng)
        spec["bodies"]["base"] = {
            "mass": 5.0,
            "inertia": random_inertia(rng),
            "cog": list(0.3 * rng.normal(size=3)),
            "ports": {f"C{k}": list(rng.normal(size=3)) for k in range(n_bodies)},
        }
        roots = ["base"]
    for k, b in enumerate(names):
        choices = (["ground"] if not floating else []) + roots + names[:k]
        # bias towards recent bodies: deep branches, but some branching
        weights = np.array([1.0 + i for i in range(len(choices))])
        parents[b] = choices[rng.choice(len(choices), p=weights / weights.sum())]
        spec["bodies"][b] = {
            "mass": float(rng.uniform(0.5, 3)),
            "inertia": random_inertia(rng) * rng.uniform(0.1, 1.0),
            "cog": list(rng.normal(size=3)),
            "ports": {
                "P": list(rng.normal(size=3)),
                **{f"C{m}": list(rng.normal(size=3)) for m in range(n_bodies)},
            },
        }
    children = {}
    for b, p in parents.items():
        children.setdefault(p, []).append(b)
    ground_ports = {}

    def visit(p):
        for b in children.get(p, []):
            k = names.index(b)
            if p == "ground":
                ground_ports[f"G{k}"] = list(rng.normal(size=3))
                parent = ("ground", f"G{k}")
            else:
                parent = (p, f"C{k}")
            u = rng.uniform()
            kind = (
                "weld" if u < p_weld else ("prismatic" if u < p_weld + p_prismatic else "revolute")
            )
            j = {
                "name": f"J{k}",
                "type": kind,
                "parent": parent,
                "child": (b, "P"),
                "orientation": random_rotation(rng),
                "input": f"u{k}",
                "output": f"q{k}",
            }
            if kind != "weld":
                j["axis"] = list(rng.normal(size=3))
            if kind == "revolute":
                j["angle"] = float(rng.uniform(-2, 2))
            elif kind == "prismatic":
                j["displacement"] = float(rng.uniform(-0.5, 0.5))
            spec["joints"].append(j)
            visit(b)

    visit("base" if floating else "ground")
    if ground_ports:
        spec["ground_ports"] = ground_ports
    return spec


def pin_maps(model, tree):
    """Index maps: for each robustmb q / v entry, the Pinocchio q / v entry."""
    qmap, vmap = np.zeros(tree.nq, int), np.zeros(tree.nv, int)
    for i in range(tree.n):
        jid = model.getJointId(tree.names[i] if tree.kind[i] != 0 else "base")
        nq = 7 if tree.kind[i] == 0 else 1
        nv = 6 if tree.kind[i] == 0 else 1
        qmap[tree.qi[i] : tree.qi[i] + nq] = model.idx_qs[jid] + np.arange(nq)
        vmap[tree.vi[i] : tree.vi[i] + nv] = model.idx_vs[jid] + np.arange(nv)
    return qmap, vmap


def random_state(rng, tree):
    q = np.zeros(tree.nq)
    for i in range(tree.n):
        k = tree.qi[i]
        if tree.kind[i] == 0:
            quat = rng.normal(size=4)
            q[k : k + 7] = np.r_[rng.normal(size=3), quat / np.linalg.norm(quat)]
        else:
            q[k] = rng.uniform(-2, 2)
    return q, rng.normal(size=tree.nv), rng.normal(size=tree.nv)
