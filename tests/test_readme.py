"""The README's Python example runs as written."""

import re
from pathlib import Path


def test_readme_python_example_runs():
  readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
  code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
  namespace = {}
  exec(compile(code, "README.md", "exec"), namespace)  # pylint: disable=exec-used
  assert float(namespace["result"].summary()["exploitability"]) < 1e-3
  assert namespace["batch"].alpha.shape == (3,)
