"""Sphinx configuration of the documentation: the guides in this folder, the notebooks with
their committed outputs (not executed), and the API reference from the docstrings.

Build: ``pip install -e '.[docs]' && sphinx-build -W -b html docs docs/_build``
(tests/test_docs.py builds it with warnings as errors)."""

import re

import jaxcfr

project = "jaxcfr"
author = "the jaxcfr developers"
release = jaxcfr.__version__
extensions = [
  "myst_nb",  # Markdown guides and the notebooks
  "sphinx.ext.autodoc",
  "sphinx.ext.autosummary",  # one page per module, generated
  "sphinx.ext.napoleon",  # the docstrings' Args:/Returns:/Raises: sections
]
exclude_patterns = ["_build", "notebooks/README.md", "api/generated/*.rst.tmp"]
nb_execution_mode = "off"  # the notebooks are rendered with their committed outputs
myst_heading_anchors = 3
autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# Each object on its home page: a package's re-exports are not described twice.
autodoc_default_options = {"members": True, "show-inheritance": True, "ignore-module-all": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_custom_sections = [("Options", "params_style")]  # the solvers' static options
napoleon_use_ivar = True  # a class's Attributes: section as fields, not a second description of each
html_theme = "alabaster"
html_title = f"jaxcfr {release}"
suppress_warnings = ["myst.header"]


def _plain(app, what, name, obj, options, lines):
  """The docstrings are plain text with ``code`` spans, not reST: stars that would start
  emphasis (``*B``, ``**settings``; not a list's bullet) and a trailing underscore
  (``round_``) are escaped outside the code spans."""
  parts = "\n".join(lines).split("``")  # a span may cross a line break
  for j in range(0, len(parts), 2):  # outside the spans
    parts[j] = re.sub(r"(?<!\\)\*(?=\S)", r"\\*", parts[j])  # a bullet's star is followed by a space
    parts[j] = re.sub(r"(\w)_\b", r"\1\\_", parts[j])
  lines[:] = "``".join(parts).split("\n")


def _skip_tuple_fields(app, what, name, obj, skip, options):
  """A NamedTuple's fields are described by its Attributes: section."""
  doc = getattr(obj, "__doc__", None) or ""
  return True if doc.startswith("Alias for field number") else None


def setup(app):
  app.connect("autodoc-process-docstring", _plain)
  app.connect("autodoc-skip-member", _skip_tuple_fields)
