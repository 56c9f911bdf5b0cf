"""Sphinx configuration of the robustmb documentation.

Build with ``pip install -e ".[docs]"`` then ``sphinx-build -W docs docs/_build/html``.
"""

import importlib.util
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
# Document the source tree next to this file, not another installed copy.
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from api_pages import write_api_pages  # noqa: E402

import robustmb  # noqa: E402

write_api_pages(HERE / "api")

project = "robustmb"
author = "robustmb developers"
copyright = "robustmb developers, BSD-3-Clause"
version = release = robustmb.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
# MathJax from the build itself, so the maths renders without network access (an offline
# machine, a site opened from disk); without the package, MathJax comes from its CDN.
if importlib.util.find_spec("sphinx-mathjax-offline") is not None:
    extensions.append("sphinx-mathjax-offline")

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md", "examples/GALLERY_HEADER.rst", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"
autodoc_default_options = {"member-order": "bysource"}
# numpydoc lists methods itself; stub pages for each method would be noise.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
}

html_theme = "pydata_sphinx_theme"
html_title = f"robustmb {release}"
html_theme_options = {
    "navigation_with_keys": False,
    # the guide's titles are long: three in the header, the rest under "More" (one line)
    "header_links_before_dropdown": 3,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
