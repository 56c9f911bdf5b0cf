"""The demo's scheduled arm loop against the same loop closed by python-control at frozen points."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.report.arm_lpv import arm_lpv_loop, scheduled_pid, surface_controller


@pytest.fixture(scope="module")
def built():
    K, values = scheduled_pid()
    loop, channels = arm_lpv_loop(K)
    return K, values, loop, channels


def test_loop_equals_python_control_closed_loop(built):
    K, _, loop, channels = built
    rng = np.random.default_rng(5)
    we = control.tf([1.0, 1.0], [2.0, 0.02])
    omega = np.logspace(-3, 3, 40)
    for _ in range(3):
        th = np.radians(rng.uniform([45, 45], [90, 135]))
        phys = {
            n: rng.uniform(*loop.uncertainty[n].range) for n in ("m1", "J1", "rho1", "L2", "m3")
        }
        sched = {"t1": np.tan(th[0] / 2), "t2": np.tan(th[1] / 2)}
        g = rmb.examples.two_link_arm(*th).usubs(phys)  # plant at the frozen configuration
        k = K.usubs(sched)
        s_ref = control.feedback(control.ss([], [], [], np.eye(2)), g * k)  # S = (I + G K)^-1
        refs = {
            "tracking W_e S": control.append(control.ss(we), control.ss(we)) * s_ref,
            "effort W_T K S": (1 / 1500) * k * s_ref,
        }
        for name, (outs, ins, spec) in channels.items():
            assert spec == 1.0
            got = loop[outs, ins].usubs({**sched, **phys})
            np.testing.assert_allclose(
                got(1j * omega), refs[name](1j * omega), rtol=1e-7, atol=1e-12
            )


def test_surface_controller_round_trip(built):
    K, values, _, _ = built
    again = surface_controller(values)
    for t1, t2 in ((0.5, 0.5), (1.0, 2.0), (0.45, 0.9)):
        a, b = K.usubs({"t1": t1, "t2": t2}), again.usubs({"t1": t1, "t2": t2})
        np.testing.assert_allclose(a.C, b.C, atol=1e-12)
        np.testing.assert_allclose(a.D, b.D, atol=1e-12)
