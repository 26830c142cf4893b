"""Test configuration: float64 everywhere and a private, throw-away game cache.

Both settings must happen before jaxcfr (or anything that imports JAX arrays) is used, so
they run at import time of this file, which pytest imports before any test module.
"""

import os
import tempfile

import jax

jax.config.update("jax_enable_x64", True)
os.environ.setdefault("JAXCFR_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-cache-"))
