"""Tests run in float64 with a private cache of built games."""

import os
import tempfile

import jax

jax.config.update("jax_enable_x64", True)
os.environ.setdefault("JAXCFR_CACHE_DIR", tempfile.mkdtemp(prefix="jaxcfr-test-cache-"))
