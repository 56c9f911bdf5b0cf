"""Loading a case-study or benchmark script as a module in the tests."""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(*parts, name):
    """The script at ``ROOT/parts...`` imported as the module ``name``.

    Its folder is on ``sys.path`` while it loads, so that it can import its sibling
    scripts (as it does when run from the command line).
    """
    path = os.path.join(ROOT, *parts)
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(folder)
    return mod


ARM_STUDY = os.path.join(ROOT, "case_studies", "robotic_arm")


def arm_script(name):
    """A script of the robotic-arm case study (``case_studies/robotic_arm/name``)."""
    return load_script("case_studies", "robotic_arm", name, name=f"arm_{name[:-3]}_script")
