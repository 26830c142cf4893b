"""jaxcfr.xla_setup: XLA:CPU's size limit for loops compiled into one kernel, raised at import;
and jaxcfr.base.light_jit's lighter compilation of rarely run programs."""

import doctest
import json
import os
import subprocess
import sys
import warnings
from unittest import mock

import jax
import jax.numpy as jnp
import pytest

from jaxcfr import solvers, xla_setup
from jaxcfr.base import light_jit
from tests import helpers


def test_the_flag_is_added_unless_the_user_chose():
  assert (
    xla_setup.small_loop_flag({})
    == "--xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=4611686018427387904"
  )
  assert xla_setup.small_loop_flag({"JAXCFR_SMALL_LOOP_BYTES": "4096"}).endswith("=4096")
  assert xla_setup.small_loop_flag({"JAXCFR_SMALL_LOOP_BYTES": "0"}) is None
  assert xla_setup.small_loop_flag({"XLA_FLAGS": "--xla_backend_extra_options=x=1"}) is None
  environ = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
  with warnings.catch_warnings():  # JAX may have started already in this process: the warning is tested below
    warnings.simplefilter("ignore")
    xla_setup.configure(environ)
  assert environ["XLA_FLAGS"] == (
    "--xla_force_host_platform_device_count=2 "
    "--xla_backend_extra_options=xla_cpu_small_while_loop_byte_threshold=4611686018427387904"
  )
  with pytest.raises(ValueError, match="JAXCFR_SMALL_LOOP_BYTES must be a whole number"):
    xla_setup.small_loop_flag({"JAXCFR_SMALL_LOOP_BYTES": "1e6"})


def test_the_command_line_shows_one_cpu_device_per_core():
  """A batch compiles into one kernel per device, so the command line (its own process)
  exposes one CPU device per core, unless the user's XLA_FLAGS set a count."""
  assert xla_setup.cpu_devices_flag({}, cores=4) == "--xla_force_host_platform_device_count=4"
  assert xla_setup.cpu_devices_flag({"XLA_FLAGS": "--xla_force_host_platform_device_count=1"}, cores=4) is None
  assert xla_setup.cpu_devices_flag({}, cores=1) is None


def test_the_command_line_process_has_one_cpu_device_per_core(tmp_path):
  """``jaxcfr solve`` in its own process: one CPU device per usable core, or the count the
  user's XLA_FLAGS set."""
  flags = " ".join(f for f in os.environ.get("XLA_FLAGS", "").split() if xla_setup.DEVICE_COUNT not in f)
  for extra, expected in (("", xla_setup.usable_cores()), (f" --{xla_setup.DEVICE_COUNT}=1", 1)):
    out = tmp_path / "r.json"
    subprocess.run(
      [
        sys.executable,
        "-m",
        "jaxcfr.run.cli",
        "solve",
        "kuhn_poker",
        "--alpha",
        "1,2",
        "--iters",
        "5",
        "--no-progress",
        "--json",
        str(out),
      ],
      check=True,
      capture_output=True,
      env={**os.environ, "XLA_FLAGS": flags + extra, "JAX_PLATFORMS": "cpu"},
      timeout=300,
    )
    assert len(json.loads(out.read_text())["hardware"]["jax_devices"]) == expected


def test_the_sampled_walk_compiles_into_one_kernel():
  """Importing jaxcfr (before JAX started, as here) set the flag: every loop of an outcome-
  sampling step with four trajectories (the walks, the key splits, the row updates) is one
  kernel, a "small call" (with XLA's default limit only one of them is). The whole ``run``
  of the sampled solvers is one kernel too (tests/test_mccfr.py)."""
  if jax.default_backend() != "cpu":
    pytest.skip("an XLA:CPU option")
  tensors = helpers.load("kuhn_poker").tensors
  solver = solvers.get("mccfr-os", trajectories=4)
  compiled = jax.jit(solver.step).lower(tensors, solver.init(tensors)).compile().as_text()
  assert compiled.count('xla_cpu_small_call="true"') == compiled.count(" while(") >= 5


def test_a_warning_when_jax_started_first():
  """The flag is read when JAX starts its backend: importing jaxcfr later says so."""
  script = "import jax; jax.devices(); import jaxcfr"
  env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAXCFR_SMALL_LOOP_BYTES")}
  done = subprocess.run(
    [sys.executable, "-W", "always", "-c", script], env=env, capture_output=True, text=True, check=True
  )
  assert "JAX started before jaxcfr was imported" in done.stderr
  quiet = subprocess.run(
    [sys.executable, "-W", "always", "-c", "import jaxcfr, jax; jax.devices()"],
    env=env,
    capture_output=True,
    text=True,
    check=True,
  )
  assert "JAX started before" not in quiet.stderr


def test_light_jit_lowers_llvms_level_on_a_cpu_unless_the_flags_set_one():
  """Rarely run programs (evaluations) compile with LLVM at level 1 and XLA's older fusion
  emitters on a CPU; an option XLA_FLAGS sets (as tests/conftest.py sets the level) stands,
  and other backends keep XLA's settings."""
  both = {"xla_backend_optimization_level": 1, "xla_cpu_use_fusion_emitters": False}
  assert light_jit.light_options("cpu", {}) == both
  level = {"XLA_FLAGS": "--xla_backend_optimization_level=3"}
  assert light_jit.light_options("cpu", level) == {"xla_cpu_use_fusion_emitters": False}
  flags = "--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=true"
  assert light_jit.light_options("cpu", {"XLA_FLAGS": flags}) is None
  assert light_jit.light_options("gpu", {}) is None
  square = light_jit.light_jit(lambda x, power: x**power, static_argnums=1)
  assert float(square(jnp.float32(3.0), 2)) == 9.0
  assert doctest.testmod(light_jit).failed == 0
  unknown = {"LIGHT_OPTIONS": {"xla_no_such_option": True}}
  with mock.patch.multiple(light_jit, **unknown):  # an XLA without the option: XLA's settings
    assert float(light_jit.light_jit(lambda x: x + 1)(jnp.float32(1.0))) == 2.0
