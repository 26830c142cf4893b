"""The driver of jobs in parts (jaxcfr.run.jobs) and the depth-limited jobs on it
(jaxcfr.run.resolving_jobs): a checkpoint after every part and on Ctrl-C, a resumed job equal
to one that ran through, a checkpoint of another job refused, and the one record."""

import jax
import numpy as np
import pytest

from jaxcfr.run import jobs
from jaxcfr.run.records import Interrupted


class Counting:
  """A job of three parts whose state is the running sum of the parts' indices squared."""

  name, game, representation, algorithm, dtype = "counting", "none", "none", "sum", "float64"
  parts, total, unit, iterations = 3, 30, "unit", 3

  def __init__(self, options=None, stop_at=None):
    self.options, self.stop_at, self.calls = options or {"power": 2}, stop_at, []

  def identity(self):
    return dict(self.options)

  def start(self):
    return {"sum": np.zeros(2)}

  def part(self, state, k, advance):
    self.calls.append(k)
    if k == self.stop_at:
      advance(5)  # some units counted before the interrupt: not kept
      raise KeyboardInterrupt
    advance(10)
    return {"sum": state["sum"] + k ** self.options["power"]}

  def evaluate(self, state):
    return {"total": float(state["sum"][0])}

  def strategy(self, state):
    return None


def test_a_job_interrupted_and_resumed_equals_one_that_ran_through(tmp_path):
  path = str(tmp_path / "c.npz")
  straight = jobs.run_job(Counting(), jobs.JobSettings(progress=False))
  assert straight.history[-1]["total"] == 0 + 1 + 4 and straight.summary()["job"] == "counting"
  with pytest.raises(Interrupted) as stopped:
    jobs.run_job(Counting(stop_at=2), jobs.JobSettings(checkpoint=path, progress=False))
  assert (stopped.value.done, stopped.value.total, stopped.value.checkpoint) == (2, 3, path)
  assert "interrupted at part 2 of 3; checkpoint saved to" in str(stopped.value)
  resumed_job = Counting()
  resumed = jobs.run_job(resumed_job, jobs.JobSettings(checkpoint=path, resume=True, progress=False))
  assert resumed_job.calls == [2] and resumed.history[-1]["total"] == straight.history[-1]["total"]
  with pytest.raises(ValueError, match="is of another job"):
    jobs.run_job(Counting({"power": 3}), jobs.JobSettings(checkpoint=path, resume=True, progress=False))
  with pytest.raises(ValueError, match="resume needs a checkpoint"):
    jobs.run_job(Counting(), jobs.JobSettings(resume=True))


@pytest.mark.slow
def test_value_training_resumed_from_a_checkpoint_gives_the_same_network(tmp_path):
  import jaxcfr
  from jaxcfr.run.resolving_jobs import ValueTrain
  from jaxcfr.solvers import value_data

  game = jaxcfr.load("no_limit_leduc_poker(betting=deepstack,stack=300,ante=100)", representation="public_tree")
  data = value_data.generate(game.tree.rules, 32, iterations=20, seed=1, batch=32)
  settings = dict(files=["d"], hidden=[8], steps=250, batch_size=16, learning_rate=1e-3, cosine=True, seed=1)
  settings |= {"suit_permutations": False, "validation": data}
  path = str(tmp_path / "c.npz")
  straight_job = ValueTrain(game, data, **settings)
  straight = jobs.run_job(straight_job, jobs.JobSettings(progress=False))
  stopping = ValueTrain(game, data, **settings)
  real = stopping.part
  stopping.part = lambda state, k, advance: (
    (_ for _ in ()).throw(KeyboardInterrupt) if k == 2 else real(state, k, advance)
  )
  with pytest.raises(Interrupted):
    jobs.run_job(stopping, jobs.JobSettings(checkpoint=path, progress=False))
  resumed_job = ValueTrain(game, data, **settings)
  resumed = jobs.run_job(resumed_job, jobs.JobSettings(checkpoint=path, resume=True, progress=False))
  for a, b in zip(
    jax.tree_util.tree_leaves(straight_job.network(straight.state)),
    jax.tree_util.tree_leaves(resumed_job.network(resumed.state)),
  ):
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
  assert resumed.history[-1] == {**straight.history[-1], "seconds": resumed.history[-1]["seconds"]}
