"""The float32 pass: the accelerator default precision (x64 off, in a child process since
the flag is process-wide) keeps every state leaf in float32 and converges as float64 does."""

import json
import subprocess
import sys
import textwrap

import numpy as np

import jaxcfr
from jaxcfr import solvers
import helpers

_SCRIPT = textwrap.dedent("""
    import json
    import jax
    import jax.numpy as jnp
    import numpy as np
    import jaxcfr
    from jaxcfr import solvers
    assert not jax.config.jax_enable_x64
    out = {}
    for name in ("kuhn_poker", "leduc_poker"):
      game = jaxcfr.load(name)
      assert game.tensors.dtype == jnp.float32
      for algorithm, kwargs in (("cfr+", {}), ("dcfr", {}), ("pcfr+", {}), ("mccfr-os", {"seed": jnp.arange(64)}),
                                ("mccfr-es", {"seed": jnp.arange(64)}), ("rnr", {"model": jaxcfr.uniform_profile(game.tensors), "p": 0.5})):
        if name == "leduc_poker" and algorithm.startswith("mccfr"):  # the sampled ones on Kuhn only (CI time)
          continue
        solver = solvers.get(algorithm)
        state = solver.run(game.tensors, solver.init(game.tensors, **kwargs), 200)
        floats = {str(x.dtype) for x in jax.tree_util.tree_leaves(state) if jnp.issubdtype(x.dtype, jnp.floating)}
        assert floats == {"float32"}, (name, algorithm, floats)
        profile = solver.average_strategy(game.tensors, state)
        out[f"{name}/{algorithm}"] = float(jnp.mean(jaxcfr.exploitability(game.tensors, profile)))
    print(json.dumps(out))
""")


def test_core_solvers_in_float32_match_float64():
  done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=600)
  assert done.returncode == 0, done.stderr[-3000:]
  float32 = json.loads(done.stdout.strip().splitlines()[-1])
  for key, value in float32.items():
    name, algorithm = key.split("/")
    tensors = helpers.load(name).tensors
    solver = solvers.get(algorithm)
    kwargs = {"model": jaxcfr.uniform_profile(tensors), "p": 0.5} if algorithm == "rnr" else {}
    if solver.stochastic:  # the mean over 64 seeds
      kwargs["seed"] = np.arange(64)
    state = solver.run(tensors, solver.init(tensors, **kwargs), 200)
    float64 = float(np.mean(helpers.exploitability(tensors, solver.average_strategy(tensors, state))))
    assert np.isfinite(value), key
    if solver.stochastic:  # float32 uniforms use other bits: other samples, the same quality
      assert float64 / 1.3 < value < 1.3 * float64, (key, value, float64)
    elif algorithm == "dcfr":  # DCFR amplifies rounding (tests/test_cfr.py): the same quality
      assert abs(value - float64) <= 0.3 * float64, (key, value, float64)
    else:  # the same iterates up to float32 rounding
      assert abs(value - float64) <= 1e-4 + 0.01 * float64, (key, value, float64)
