"""16-bit storage (jaxcfr.base.packing) and the CFR family's ``storage`` option."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxcfr
from jaxcfr.base import packing


@pytest.mark.parametrize("signed", [True, False])
def test_a_packed_table_is_within_half_a_step_of_each_rows_scale(signed):
  x = jax.random.normal(jax.random.key(0), (7, 3, 5, 2)) * jnp.array([1e-6, 1.0])  # [R, A, H, B]
  x = x if signed else jnp.abs(x)
  x = x.at[2].set(0.0)  # a row of zeros stays exactly zero
  packed = packing.pack(x, batch_ndim=1, signed=signed)
  assert packed.codes.dtype == (jnp.int16 if signed else jnp.uint16)
  assert packed.scale.shape == (7, 1, 1, 2)  # one scale per row and batch element
  top = 32767 if signed else 65535
  step = np.asarray(packed.scale) / top
  error = np.abs(np.asarray(packing.unpack(packed, jnp.float32)) - np.asarray(x))
  assert np.all(error <= step / 2 * (1 + 1e-5) + 1e-12)
  assert np.all(np.asarray(packing.unpack(packed, jnp.float32))[2] == 0)
  np.testing.assert_allclose(np.abs(np.asarray(packing.unpack(packed, jnp.float32))).max((1, 2)), packed.scale[:, 0, 0])


def test_an_array_passes_unpack_and_repack_like_unchanged():
  x = jnp.ones((2, 3))
  assert packing.unpack(x, jnp.float32) is x
  assert packing.repack_like(x, x, 0) is x


@pytest.mark.parametrize("name, representation", [("leduc_poker", "sequence_form"), ("kuhn_poker", "public_tree")])
def test_16bit_storage_halves_the_tables_and_converges_like_float(name, representation):
  game = jaxcfr.load(name, representation=representation)
  tensors = game.tensors
  runs = {}
  for storage in ("float", "16bit"):
    solver = jaxcfr.solvers.get("dcfr", representation, storage=storage)
    state = solver.run(tensors, solver.init(tensors), 300)
    runs[storage] = (state, float(jaxcfr.exploitability(tensors, solver.average_strategy(tensors, state))))
  packed, float_state = runs["16bit"][0], runs["float"][0]
  assert isinstance(packed.regrets[0], packing.Packed) and packed.regrets[0].codes.dtype == jnp.int16
  assert packed.average[1].codes.dtype == jnp.uint16
  assert packed.regrets[0].codes.nbytes == float_state.regrets[0].size * 2  # 2 bytes an entry
  # both well converged (uniform: 0.46 chips on Kuhn, 4.7 on Leduc); the rounding costs a little
  assert runs["float"][1] < 0.01 and runs["16bit"][1] < 0.01, runs


def test_a_batch_in_16bit_equals_each_run_alone():
  # a few iterations: later, a rounding difference between the two programs (1e-9 in
  # float) can move a code by one step, and regret matching amplifies it near zero
  game = jaxcfr.load("kuhn_poker")
  solver = jaxcfr.solvers.get("dcfr", "sequence_form", storage="16bit")
  alphas = [1.0, 2.0]  # different discounts: different scales per batch element
  batch = solver.run(game.tensors, solver.init(game.tensors, alpha=jnp.array(alphas)), 3)
  assert not np.allclose(batch.regrets[0].scale[..., 0], batch.regrets[0].scale[..., 1])
  for b, alpha in enumerate(alphas):
    alone = solver.run(game.tensors, solver.init(game.tensors, alpha=alpha), 3)
    for p in (0, 1):
      np.testing.assert_array_equal(batch.regrets[p].codes[..., b], alone.regrets[p].codes)
      np.testing.assert_allclose(batch.average[p].scale[..., b], alone.average[p].scale, rtol=1e-6)


def test_the_storage_option_is_checked_and_reaches_the_command_line(tmp_path):
  with pytest.raises(ValueError, match="storage"):
    jaxcfr.solvers.get("cfr+", "sequence_form", storage="8bit")
  result = jaxcfr.solve("kuhn_poker", "cfr+", 100, storage="16bit")
  assert result.history[-1]["exploitability"] < 0.01 and result.options["storage"] == "16bit"
  assert isinstance(result.state.regrets[0], packing.Packed)


def test_a_16bit_run_resumes_from_its_checkpoint_as_if_uninterrupted(tmp_path):
  path = tmp_path / "run.npz"
  whole = jaxcfr.solve("kuhn_poker", "dcfr", 40, storage="16bit")
  jaxcfr.solve("kuhn_poker", "dcfr", 20, storage="16bit", checkpoint=path)
  resumed = jaxcfr.solve("kuhn_poker", "dcfr", 40, storage="16bit", checkpoint=path, resume=True)
  for p in (0, 1):
    np.testing.assert_array_equal(resumed.state.regrets[p].codes, whole.state.regrets[p].codes)
    np.testing.assert_array_equal(resumed.state.average[p].scale, whole.state.average[p].scale)


def test_jaxcfr_spot_solves_in_16bit_and_refuses_it_with_a_lock(tmp_path, capsys):
  from jaxcfr.poker import solutions
  from jaxcfr.run import cli

  spot = ["--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop", "QQ+,AK", "--ip", "TT+,AQ+"]
  out = tmp_path / "packed.npz"
  assert (
    cli.main(["spot", *spot, "--storage", "16bit", "--iters", "100", "--check-every", "100", "--out", str(out)]) == 0
  )
  assert solutions.load(out).exploitability_pot_percent < 1.0
  capsys.readouterr()
  argv = ["spot", *spot, "--storage", "16bit", "--lock", "root -> check", "--out", str(tmp_path / "x.npz")]
  assert cli.main(argv) == 2
  err = capsys.readouterr().err.strip()
  assert len(err.splitlines()) == 1 and "--storage 16bit is not available with --lock" in err
