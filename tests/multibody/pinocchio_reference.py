"""Independent reference built on Pinocchio (``pin``): crba and analytic gravity derivatives.

Shares no code with ``robustmb.multibody``.  Each moving body of a spec becomes
a Pinocchio joint whose frame sits at the body's parent port with the body's
axes; welded bodies are appended to their parent's joint.  The linearised
stiffness is ``d g / d q`` (local tangent coordinates; a floating base is held
by a body-fixed wrench, constant in those coordinates) plus the joint springs.
"""

from __future__ import annotations

import numpy as np

pin = __import__("pytest").importorskip("pinocchio")


def build_model(ref):
    """Pinocchio model, configuration and coordinate map from a LagrangeReference."""
    spec = ref.spec
    model = pin.Model()
    model.gravity = pin.Motion(-ref.a, np.zeros(3))
    frame_of = {"ground": (0, pin.SE3.Identity())}  # body -> (joint id, placement of body)
    q0 = []
    idx = {}
    if ref.base:
        rbar = np.asarray(spec["base_orientation"], float)
        pbar = np.asarray(spec.get("base_position", [0, 0, 0]), float)
        jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
        frame_of[ref.base] = (jid, pin.SE3.Identity())
        quat = pin.Quaternion(rbar)
        q0 += list(pbar) + [quat.x, quat.y, quat.z, quat.w]
        idx[ref.base] = jid
    pending = list(spec["joints"])
    while pending:
        rest = []
        for j in pending:
            pb, cb = j["parent"][0], j["child"][0]
            if pb not in frame_of:
                rest.append(j)
                continue
            pjid, pplace = frame_of[pb]
            r0 = np.asarray(j.get("orientation", np.eye(3)), float)
            c = ref.port(*j["parent"])
            pa = ref.port(*j["child"])
            joint_place = pplace * pin.SE3(r0 if j["type"] != "revolute" else np.eye(3), c)
            if j["type"] == "weld":
                body_place = joint_place * pin.SE3(np.eye(3), -pa)
                frame_of[cb] = (pjid, body_place)
                continue
            axis = np.asarray(j["axis"], float) / np.linalg.norm(j["axis"])
            if j["type"] == "revolute":
                jm = pin.JointModelRevoluteUnaligned(axis)
                # rotation about the parent axis first, then the fixed offset r0
                body_place = pin.SE3(r0, np.zeros(3))
                q0.append(ref.val(j["angle"]))
            else:
                jm = pin.JointModelPrismaticUnaligned(r0.T @ axis)
                body_place = pin.SE3.Identity()
                q0.append(ref.val(j["displacement"]))
            jid = model.addJoint(pjid, jm, joint_place, j["name"])
            idx[j["name"]] = jid
            # body frame relative to the joint frame: origin at -P_a (child port at joint point)
            frame_of[cb] = (jid, body_place * pin.SE3(np.eye(3), -pa))
        pending = rest
    for b, data in spec["bodies"].items():
        jid, place = frame_of[b]
        inertia = pin.Inertia(
            ref.val(data["mass"]), ref.vec(data.get("cog", [0, 0, 0])), ref.body_inertia(b)
        )
        model.appendBodyToJoint(jid, place.act(inertia), pin.SE3.Identity())
    for j in spec["joints"]:
        if j["type"] == "revolute" and j.get("inertia", 0.0):
            jid = idx[j["name"]]
            axis = np.asarray(j["axis"], float) / np.linalg.norm(j["axis"])
            r0 = np.asarray(j.get("orientation", np.eye(3)), float)
            ra = r0.T @ axis
            rotor = pin.Inertia(0.0, np.zeros(3), ref.val(j["inertia"]) * np.outer(ra, ra))
            model.appendBodyToJoint(jid, pin.SE3(r0, np.zeros(3)).act(rotor), pin.SE3.Identity())
    return model, np.array(q0)


def linearisation(ref):
    """(M, K, trim efforts, base wrench) from Pinocchio at the equilibrium of ``ref``."""
    model, q0 = build_model(ref)
    data = model.createData()
    m = pin.crba(model, data, q0)
    m = np.triu(m) + np.triu(m, 1).T
    grav = pin.computeGeneralizedGravity(model, data, q0).copy()
    dg = pin.computeGeneralizedGravityDerivatives(model, data, q0).copy()
    k = dg + np.diag(
        [0.0] * (6 if ref.base else 0)
        + [ref.val(j.get("stiffness", 0.0)) for j in ref.spec["joints"] if j["type"] != "weld"]
    )
    return m, k, grav
