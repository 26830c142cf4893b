"""Test configuration: float64 everywhere and a private, throw-away game cache.

Both settings must happen before jaxcfr (or anything that imports JAX arrays) is used, so
they run at import time of this file, which pytest imports before any test module.
"""

import os
import tempfile

import jax

jax.config.update("jax_enable_x64", True)
os.environ.setdefault("JAXCFR_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-cache-"))


import gc  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
  """Drops JAX's compiled programs after each test module. The suite compiles thousands of
  programs in one process; XLA:CPU keeps each one's machine code in its own memory mappings,
  and past the kernel's map-count limit (65,530 by default) a compilation aborts the process."""
  yield
  jax.clear_caches()
  gc.collect()
