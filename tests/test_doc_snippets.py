"""Every Python block of the guides (docs/*.md) runs as written, the blocks of one page in
order in one namespace (a page's later blocks may use its earlier ones), in a scratch folder."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p for p in sorted((ROOT / "docs").glob("*.md")) if "```python" in p.read_text()]
# Blocks that show a protocol's shape, not a program (they say so in their first line).
SHAPE = "# the protocol's shape"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_python_blocks_of_a_page_run(page, tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  namespace = {}
  blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
  ran = 0
  for block in blocks:
    if block.lstrip().startswith(SHAPE):
      continue
    exec(compile(block, str(page), "exec"), namespace)  # pylint: disable=exec-used
    ran += 1
  assert ran or len(blocks) == sum(b.lstrip().startswith(SHAPE) for b in blocks)
