"""Canonical models used by the documentation, the case studies and the tests.

One file per model family:

- :mod:`~robustmb.examples.arm`: the two-link arm of the LFT-multibody paper (seed 000)
  and Lin & Yae's two-link arm (seed 002);
- :mod:`~robustmb.examples.arm_lpv`: the arm's robust LPV control problem (27) (seed 000);
- :mod:`~robustmb.examples.balloon`: the balloon and gondola (seed 001);
- :mod:`~robustmb.examples.two_carts`: the two-cart loop with three real parameters;
- :mod:`~robustmb.examples.assembly`: the on-orbit assembly spacecraft (seed 003), and
  :mod:`~robustmb.examples.assembly_edges`: its planning edges posed and their mu cost;
- :mod:`~robustmb.examples.plate`: flexible rectangular panels from a Kirchhoff plate
  finite-element model (clamped-free modes into a TITOP body);
- :mod:`~robustmb.examples.gravimeter`: the gravimeter of the decoupling study, its
  collocated test model and spurious-resonance variant, and its uncertain version (seed 004);
- :mod:`~robustmb.examples.stewart_platform`: the Stewart platform of the decoupling
  study (seed 004).
"""

from . import assembly, assembly_edges, plate
from .arm import (
    LIN_YAE_GRAVITY,
    TWO_LINK_ARM_ANGLE_RANGES,
    TWO_LINK_ARM_TABLE1,
    decoupling_pd_gains,
    lin_yae_two_link,
    two_link_arm,
    two_link_arm_mechanism,
)
from .arm_lpv import (
    PAPER_GAMMA1,
    PAPER_GAMMA2,
    ArmLPVProblem,
    ArmLPVResult,
    arm_lpv_synthesis,
    arm_lpv_tuning_problem,
    scheduling_corners,
)
from .arm_nonlinear import ArmStepCheck, arm_step_check, two_link_arm_schedule
from .balloon import BALLOON_GONDOLA_TABLE1, balloon_gondola
from .gravimeter import (
    collocated_manipulator,
    gravimeter,
    suspended_mass_variant,
    uncertain_gravimeter,
)
from .stewart_platform import stewart_platform
from .two_carts import two_carts_loop

__all__ = [
    "ArmStepCheck",
    "PAPER_GAMMA1",
    "PAPER_GAMMA2",
    "ArmLPVProblem",
    "ArmLPVResult",
    "arm_lpv_synthesis",
    "arm_lpv_tuning_problem",
    "scheduling_corners",
    "BALLOON_GONDOLA_TABLE1",
    "LIN_YAE_GRAVITY",
    "TWO_LINK_ARM_ANGLE_RANGES",
    "TWO_LINK_ARM_TABLE1",
    "arm_step_check",
    "assembly",
    "assembly_edges",
    "plate",
    "balloon_gondola",
    "collocated_manipulator",
    "decoupling_pd_gains",
    "gravimeter",
    "lin_yae_two_link",
    "stewart_platform",
    "suspended_mass_variant",
    "two_carts_loop",
    "two_link_arm",
    "two_link_arm_mechanism",
    "two_link_arm_schedule",
    "uncertain_gravimeter",
]
