"""Test configuration: float64 everywhere, a private, throw-away game cache, and one
persistent cache of compiled programs for the session.

These settings must happen before jaxcfr (or anything that imports JAX arrays) is used, so
they run at import time of this file, which pytest imports before any test module. The
compilation cache is shared (through the environment) by the pytest-xdist workers, the
command-line subprocesses and the notebooks' kernels: a program compiled once, e.g. Leduc's
CFR+ step, is read back instead of compiled again after each module's ``clear_caches``
and in every other process. It changes what is compiled nowhere, only how often.
"""

import os
import tempfile

os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-xla-cache-"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.1")

import jax  # noqa: E402

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
