"""Canonical models used by the documentation, the case studies and the tests.

One file per model family:

- :mod:`~robustmb.examples.arm`: the two-link arm of the LFT-multibody paper (seed 000)
  and Lin & Yae's two-link arm (seed 002);
- :mod:`~robustmb.examples.balloon`: the balloon and gondola (seed 001);
- :mod:`~robustmb.examples.two_carts`: the two-cart loop with three real parameters;
- :mod:`~robustmb.examples.assembly`: the on-orbit assembly spacecraft (seed 003).
"""

from . import assembly
from .arm import (
    LIN_YAE_GRAVITY,
    TWO_LINK_ARM_ANGLE_RANGES,
    TWO_LINK_ARM_TABLE1,
    decoupling_pd_gains,
    lin_yae_two_link,
    two_link_arm,
    two_link_arm_mechanism,
)
from .arm_nonlinear import ArmStepCheck, arm_step_check, two_link_arm_schedule
from .balloon import BALLOON_GONDOLA_TABLE1, balloon_gondola
from .two_carts import two_carts_loop

__all__ = [
    "ArmStepCheck",
    "BALLOON_GONDOLA_TABLE1",
    "LIN_YAE_GRAVITY",
    "TWO_LINK_ARM_ANGLE_RANGES",
    "TWO_LINK_ARM_TABLE1",
    "arm_step_check",
    "assembly",
    "balloon_gondola",
    "decoupling_pd_gains",
    "lin_yae_two_link",
    "two_carts_loop",
    "two_link_arm",
    "two_link_arm_mechanism",
    "two_link_arm_schedule",
]
