"""Mixed forward/inverse dynamics of closed chains against the closed-form four-bar.

The crank's acceleration is imposed; the closed-form Lagrange equation of the
four-bar (``test_loop_constraints``) gives the torque it needs,
``tau = m(t) t'' + m'(t) t'^2 / 2 + V'(t) + k t``, and the forward dynamics
under that torque give back every acceleration.
"""

import numpy as np
import pytest
from test_loop_constraints import _cstep, four_bar, gen_mass, potential, tree_state
from test_rotational_constraints import spherical_four_bar, state


def closed_form_torque(t, td, tdd, spring=0.0):
    h = 1e-5
    dm = (gen_mass(t + h) - gen_mass(t - h)) / (2 * h)
    return gen_mass(t) * tdd + 0.5 * dm * td**2 + _cstep(potential, t) + spring * t


@pytest.mark.parametrize("t", [0.3, 1.2, 2.5, -1.0])
@pytest.mark.parametrize("spherical", [False, True])
def test_imposed_crank_needs_the_closed_form_torque(t, spherical):
    if spherical:  # the rocker on a spherical joint, the loop closed by a revolute
        mech = spherical_four_bar(spring=3.0)
        q, v, ic = state(mech, t, 0.8)
    else:
        mech = four_bar(spring=3.0)
        q, v, ic = tree_state(mech, t, 0.8)
    rng = np.random.default_rng(int(10 * abs(t)))
    tdd = rng.normal()
    # alone at the crank: the closed-form torque
    acc0, tau0 = mech.hybrid_dynamics(q, v, np.zeros(q.size), {"Jc": tdd})
    ref = closed_form_torque(t, 0.8, tdd, 3.0)
    assert abs(tau0[ic] - ref) < 1e-8 * max(1.0, abs(ref))
    # other joints loaded too (the entry at the crank is ignored): forward dynamics under
    # the returned efforts give back every acceleration
    tau_in = rng.normal(size=q.size)
    acc, tau = mech.hybrid_dynamics(q, v, tau_in, {"Jc": tdd})
    others = np.arange(q.size) != ic
    assert acc[ic] == tdd and np.array_equal(tau[others], tau_in[others])
    fwd = mech.forward_dynamics(q, v, tau)
    assert np.abs(fwd - acc).max() < 1e-10 * max(1.0, np.abs(acc).max())
