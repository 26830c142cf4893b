"""A batch of any solver family split over several (host) devices gives the runs of the
unsplit batch, and the compiled sharded loops (the library's and a user-written one) hold
no collective."""

import os
import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent("""
    import jax
    jax.config.update("jax_enable_x64", True)
    import numpy as np
    import jaxcfr
    assert len(jax.devices()) == 2, jax.devices()
    game = jaxcfr.load("kuhn_poker", dtype="float64")
    solver = jaxcfr.solvers.get("dcfr")
    state = solver.init(game.tensors, alpha=np.array([1.0, 1.5, 2.0, 3.0]))
    sharded = jaxcfr.run.sharding.shard_trailing_batch(state, 4)
    assert len(sharded.regrets[0].sharding.device_set) == 2
    user_loop = jax.jit(lambda s: jax.lax.fori_loop(0, 3, lambda _, x: solver.step(game.tensors, x), s))
    out = user_loop(sharded)  # outputs keep the inputs' shardings: feeding them back does not recompile
    assert jax.tree_util.tree_map(lambda x: x.sharding, out) == jax.tree_util.tree_map(lambda x: x.sharding, sharded)
    user_loop(out)
    assert user_loop._cache_size() == 1
    everywhere = jaxcfr.run.sharding.replicate(game.tensors)  # the tensors on both devices, once
    assert all(len(x.sharding.device_set) == 2 for x in jax.tree_util.tree_leaves(everywhere))
    a, b = solver.run(game.tensors, state, 30), solver.run(everywhere, sharded, 30)
    # XLA's CPU code for another batch width may round a multiply-add differently (one unit
    # in the last place, which regret matching amplifies over the iterations)
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
      np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-10, atol=1e-12)
    assert [len(jaxcfr.run.sharding.devices_dividing(b)) for b in (1, 3, 4, 6)] == [1, 1, 2, 2]
    result = jaxcfr.solve(game, "dcfr", 30, batch={"alpha": [1.0, 1.5, 2.0, 3.0]})
    assert len(result.state.regrets[0].sharding.device_set) == 2  # the driver splits batches
    np.testing.assert_allclose(result.summary()["exploitability"],
                               np.asarray(jaxcfr.exploitability(game.tensors, solver.average_strategy(game.tensors, a))),
                               rtol=1e-10)
    sampled = jaxcfr.solve(game, "mccfr-es", 30, batch={"seed": [0, 1, 2, 3]})  # seeds: a batch like any other
    assert len(sampled.state.regrets[0].sharding.device_set) == 2
    es = jaxcfr.solvers.get("mccfr-es")
    alone = es.run(game.tensors, es.init(game.tensors, seed=2), 30)
    np.testing.assert_allclose(np.asarray(sampled.state.regrets[0])[..., 2], np.asarray(alone.regrets[0]), rtol=1e-12)
    collectives = ("all-reduce", "all-gather", "all-to-all", "collective-permute", "reduce-scatter")
    cases = (("dcfr", {"alpha": np.array([1.0, 1.5, 2.0, 3.0])}), ("mccfr-os", {"seed": np.arange(4)}),
             ("dcfr", {"alpha": np.linspace(1.0, 3.0, 128)}))  # a larger batch as well
    for name, kwargs in cases:
      solver = jaxcfr.solvers.get(name)
      size = len(next(iter(kwargs.values())))
      split = jaxcfr.run.sharding.shard_trailing_batch(solver.init(game.tensors, **kwargs), size)
      where = jaxcfr.solvers.registry._batch_split(split)
      assert where is not None and where[0].size == 2
      library = jaxcfr.solvers.registry._run.lower(solver, where, game.tensors, split, np.int32(5)).compile().as_text()
      user = jax.jit(lambda s: jax.lax.fori_loop(0, 5, lambda _, x: solver.step(game.tensors, x), s))
      for text in (library, user.lower(split).compile().as_text()):  # the library's loop and a user's own
        assert not [c for c in collectives if c in text], (name, [c for c in collectives if c in text])
    print("ok")
""")


def test_batch_sharded_over_two_host_devices_equals_one_device():
  env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
  done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, timeout=300)
  assert done.returncode == 0, done.stderr[-3000:]
  assert done.stdout.strip().endswith("ok")
