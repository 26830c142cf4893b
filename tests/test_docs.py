"""The documentation builds with warnings as errors: the guides of docs/, the notebooks with
their committed outputs and the API reference of the public face, generated from its
docstrings (docs/conf.py). A docstring that is not valid reST once escaped, a broken cross-reference, a
guide or notebook missing from the table of contents fails here."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_documentation_builds_without_warnings(tmp_path):
  done = subprocess.run(
    [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "docs", str(tmp_path)],
    cwd=ROOT,
    capture_output=True,
    text=True,
    timeout=900,
  )
  assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
  pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
  guides = {f"{p.stem}.html" for p in (ROOT / "docs").glob("*.md") if p.stem != "index"}
  notebooks = {f"notebooks/{p.stem}.html" for p in (ROOT / "notebooks").glob("*.ipynb")}
  assert guides | notebooks <= pages, sorted((guides | notebooks) - pages)
  documented = {p.removesuffix(".html") for p in pages if p.startswith("api/generated/")}
  assert {
    "api/generated/jaxcfr.load",
    "api/generated/jaxcfr.solvers.get",
    "api/generated/jaxcfr.kits.Kit",
  } <= documented
  quickstart = (tmp_path / "notebooks" / "01_quickstart.html").read_text()
  assert "<img" in quickstart  # the committed plots are rendered
  load_page = (tmp_path / "api" / "generated" / "jaxcfr.load.html").read_text()
  assert "representation" in load_page and "&gt;&gt;&gt;" in load_page  # its doctested example
