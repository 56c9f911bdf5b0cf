"""Mechanisms as plain dicts, random generators, and the adapter to robustmb.

A spec names its uncertain parameters in ``spec["params"] = {name: (nominal, lo, hi)}``;
any scalar field may be such a name.  The references read the dict directly;
``build_mechanism`` turns the same dict into a ``robustmb.multibody.Mechanism``
with ``ureal`` elements.
"""

from __future__ import annotations

import numpy as np

from robustmb import lft as rmb
from robustmb.multibody import Mechanism, PrismaticJoint, RevoluteJoint, RigidBody, WeldJoint


def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q @ np.diag(np.sign(np.diag(r)))
    return q if np.linalg.det(q) > 0 else -q


def random_inertia(rng):
    a = rng.normal(size=(3, 3))
    return a @ a.T + 0.5 * np.eye(3)


def random_chain(
    rng, n_joints=3, *, prismatic=(), floating=False, weld_tip=False, uncertain=True, rotor=True
):
    """A 3-D serial chain with non-parallel axes, frame offsets and full inertias.

    ``prismatic`` lists the joint indices that slide; with ``uncertain`` the
    masses of bodies 0 and 1, one port coordinate and the first joint angle
    (through t = tan(theta/2)) are ureals.
    """
    spec = {
        "acceleration": [0.3, -0.8, 9.81],
        "bodies": {},
        "joints": [],
        "params": {},
        "wrench_inputs": {},
    }
    names = [f"B{k}" for k in range(n_joints)]
    parent = ("ground", "O")
    if floating:
        spec["floating_base"] = "base"
        spec["base_orientation"] = random_rotation(rng)
        spec["base_position"] = list(rng.normal(size=3))
        spec["bodies"]["base"] = {
            "mass": 6.0,
            "inertia": random_inertia(rng),
            "cog": list(0.3 * rng.normal(size=3)),
            "ports": {"mount": list(rng.normal(size=3)), "side": list(rng.normal(size=3))},
        }
        spec["wrench_inputs"]["thrust"] = ("base", "side")
        parent = ("base", "mount")
    for k, b in enumerate(names):
        spec["bodies"][b] = {
            "mass": float(rng.uniform(1, 4)),
            "inertia": random_inertia(rng),
            "cog": list(rng.normal(size=3)),
            "ports": {"P": list(rng.normal(size=3)), "C": list(rng.normal(size=3))},
        }
        kind = "prismatic" if k in prismatic else "revolute"
        j = {
            "name": f"J{k}",
            "type": kind,
            "parent": parent,
            "child": (b, "P"),
            "axis": list(rng.normal(size=3)),
            "orientation": random_rotation(rng),
            "stiffness": float(rng.uniform(0, 2)),
            "damping": float(rng.uniform(0, 0.5)),
            "input": f"u{k}",
            "output": f"q{k}",
        }
        if kind == "revolute":
            j["angle"] = float(rng.uniform(-2.5, 2.5))
            j["inertia"] = float(rng.uniform(0.01, 0.1)) if rotor else 0.0
        else:
            j["displacement"] = float(rng.uniform(-0.5, 0.5))
        spec["joints"].append(j)
        parent = (b, "C")
    if weld_tip:
        spec["bodies"]["tip"] = {
            "mass": 1.5,
            "inertia": random_inertia(rng),
            "cog": list(rng.normal(size=3)),
            "ports": {"P": list(rng.normal(size=3)), "tool": list(rng.normal(size=3))},
        }
        spec["joints"].append(
            {
                "name": "W",
                "type": "weld",
                "parent": parent,
                "child": ("tip", "P"),
                "orientation": random_rotation(rng),
            }
        )
        spec["wrench_inputs"]["tool"] = ("tip", "tool")
    if uncertain:
        b0, b1 = names[0], names[min(1, n_joints - 1)]
        for key, body in (("m_a", b0), ("m_b", b1)):
            nom = spec["bodies"][body]["mass"]
            spec["params"][key] = (nom, 0.7 * nom, 1.4 * nom)
            spec["bodies"][body]["mass"] = key
        c = spec["bodies"][b1]["ports"]["C"]
        spec["params"]["cx"] = (c[1], c[1] - 0.3, c[1] + 0.3)
        c[1] = "cx"
        j0 = spec["joints"][0]
        if j0["type"] == "revolute":
            th = j0["angle"]
            t = np.tan(th / 2)
            spec["params"]["t0"] = (t, t - 0.4, t + 0.4)
            j0["angle_param"] = "t0"
    return spec


def spec_values(spec, values):
    """Resolve t-parameters into angles for the references."""
    out = dict(values)
    for j in spec["joints"]:
        name = j.get("angle_param")
        if name:
            t = values.get(name, spec["params"][name][0])
            j_angle_key = f"__angle_{j['name']}"
            out[j_angle_key] = 2 * np.arctan(t)
    return out


def reference_spec(spec, values):
    """A copy of ``spec`` whose t-parameterised angles point to resolved values."""
    import copy

    ref = copy.deepcopy(spec)
    vals = spec_values(spec, values)
    for j in ref["joints"]:
        if j.get("angle_param"):
            key = f"__angle_{j['name']}"
            ref["params"][key] = (vals[key], vals[key], vals[key])
            j["angle"] = key
    return ref, vals


def build_mechanism(spec):
    """The robustmb Mechanism of a spec, with its parameters as ureals."""
    elems = {k: rmb.ureal(k, v[0], range=(v[1], v[2])) for k, v in spec["params"].items()}

    def p(x):
        return elems[x] if isinstance(x, str) else x

    def v3(v):
        return [p(e) for e in v]

    mech = Mechanism(
        acceleration=spec["acceleration"],
        floating_base=spec.get("floating_base"),
        base_orientation=spec.get("base_orientation"),
        base_position=spec.get("base_position", (0, 0, 0)),
        ground_ports=spec.get("ground_ports"),
    )
    for name, b in spec["bodies"].items():
        inertia = b.get("inertia", 0.0)
        arr = np.asarray(inertia, dtype=object)
        if arr.ndim == 2:
            inertia = [[p(e) for e in row] for row in arr]
        mech.add_body(
            RigidBody(
                name,
                mass=p(b["mass"]),
                inertia=inertia,
                cog=v3(b["cog"]),
                ports={k: v3(v) for k, v in b["ports"].items()},
                # random test tensors are semidefinite, not always those of a real body
                allow_nonphysical_inertia=True,
            )
        )
    for j in spec["joints"]:
        common = {"orientation": j.get("orientation")}
        if j["type"] == "weld":
            mech.add_joint(WeldJoint(j["name"], j["parent"], j["child"], **common))
            continue
        common.update(
            stiffness=p(j.get("stiffness", 0.0)),
            damping=p(j.get("damping", 0.0)),
            input_name=j["input"],
            output_name=j["output"],
        )
        if j["type"] == "revolute":
            ang = (
                {"tan_half": elems[j["angle_param"]]}
                if j.get("angle_param")
                else {"angle": j["angle"]}
            )
            mech.add_joint(
                RevoluteJoint(
                    j["name"],
                    j["parent"],
                    j["child"],
                    j["axis"],
                    inertia=p(j.get("inertia", 0.0)),
                    **ang,
                    **common,
                )
            )
        else:
            mech.add_joint(
                PrismaticJoint(
                    j["name"],
                    j["parent"],
                    j["child"],
                    j["axis"],
                    displacement=p(j["displacement"]),
                    **common,
                )
            )
    for name, (b, port) in spec.get("wrench_inputs", {}).items():
        mech.add_wrench_input(name, b, port)
    return mech


def sample_values(spec, rng):
    return {k: float(rng.uniform(lo, hi)) for k, (_, lo, hi) in spec["params"].items()}


def frequency_response(sys, s):
    """C (sI - A)^-1 B + D of a control.StateSpace at complex s."""
    a, b, c, d = (np.asarray(x) for x in (sys.A, sys.B, sys.C, sys.D))
    return c @ np.linalg.solve(s * np.eye(a.shape[0]) - a, b) + d
