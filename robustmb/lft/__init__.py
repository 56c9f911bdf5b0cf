"""Uncertain elements and LFT objects: the core of robustmb.

This layer imports nothing else from robustmb.  An uncertain object is one
LFT ``Fu(M, Delta)`` with a normalised block-diagonal ``Delta``; every
operation returns an exact LFT of the same map.
"""

from . import operators  # noqa: F401  (attaches the operators and methods to the classes)
from .algebra import block_diag, feedback, hstack, inv, lft_lower, lft_upper, star, vstack
from .arithmetic import parallel, series
from .connect import connect
from .data import lftdata
from .elements import UncertainElement, ucomplex, ultidyn, ureal
from .model import UncertainMatrix, UncertainModel, UncertainSystem, umat, uss
from .rational import UncertainRational
from .simplify import simplify
from .substitution import usample_of as usample
from .substitution import usubs_of as usubs
from .sumblk import sumblk

__all__ = [
    "UncertainElement",
    "UncertainMatrix",
    "UncertainModel",
    "UncertainRational",
    "UncertainSystem",
    "block_diag",
    "connect",
    "feedback",
    "hstack",
    "inv",
    "lft_lower",
    "lft_upper",
    "lftdata",
    "parallel",
    "series",
    "simplify",
    "star",
    "sumblk",
    "ucomplex",
    "ultidyn",
    "umat",
    "usample",
    "ureal",
    "uss",
    "usubs",
    "vstack",
]
