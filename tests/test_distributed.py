"""A sweep over two processes on localhost (jax.distributed, CPU collectives) gives exactly
the results of one process running the whole batch."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest


def _free_port() -> int:
  with socket.socket() as sock:
    sock.bind(("127.0.0.1", 0))
    return sock.getsockname()[1]


@pytest.mark.parametrize(
  "argv",
  [
    ["solve", "kuhn_poker", "--algo", "mccfr-es", "--iters", "60", "--eval-every", "30", "--seed", "0,1,2,3"],
    ["solve", "kuhn_poker", "--algo", "dcfr", "--iters", "60", "--eval-every", "30", "--alpha", "1,1.5,2,3"],
  ],
  ids=["seeds", "grid"],
)
def test_two_processes_equal_one(argv, tmp_path):
  env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=1", "JAX_PLATFORMS": "cpu"}
  command = [sys.executable, "-m", "jaxcfr.run.cli", *argv, "--no-progress", "--dtype", "float64"]
  port = _free_port()
  processes = [
    subprocess.Popen(
      command
      + [
        "--json",
        str(tmp_path / f"two{k}.json"),
        "--coordinator",
        f"127.0.0.1:{port}",
        "--num-processes",
        "2",
        "--process-id",
        str(k),
        "--checkpoint",
        str(tmp_path / "two.npz"),
      ],
      stdout=subprocess.PIPE,
      stderr=subprocess.PIPE,
      text=True,
      env=env,
    )
    for k in (0, 1)
  ]
  outputs = [p.communicate(timeout=300) for p in processes]
  assert [p.returncode for p in processes] == [0, 0], [o[1][-2000:] for o in outputs]
  assert not (tmp_path / "two1.json").exists()  # only process 0 writes
  one = subprocess.run(
    command + ["--json", str(tmp_path / "one.json")], capture_output=True, text=True, env=env, timeout=300
  )
  assert one.returncode == 0, one.stderr[-2000:]
  two, single = (json.loads((tmp_path / name).read_text()) for name in ("two0.json", "one.json"))
  assert two["batch_size"] == single["batch_size"] == 4
  for a, b in zip(two["history"], single["history"]):
    assert a["iteration"] == b["iteration"]
    for key in ("exploitability", "value", "current_exploitability") + (
      ("nodes_touched",) if "nodes_touched" in b else ()
    ):
      np.testing.assert_allclose(a[key], b[key], rtol=1e-12, atol=1e-15, err_msg=key)
  assert two["hardware"]["jax_devices"] != single["hardware"]["jax_devices"]  # two devices, one per process
  assert (tmp_path / "two.npz").exists()


def test_a_process_whose_peers_never_come_gives_up_with_one_line():
  """It says what it waits for, and after --join-timeout one error line and exit status 2
  (JAX alone would abort with a C++ stack trace after 300 s)."""
  env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=1", "JAX_PLATFORMS": "cpu"}
  command = [sys.executable, "-m", "jaxcfr.run.cli", "solve", "kuhn_poker", "--iters", "10", "--no-progress"]
  command += ["--coordinator", f"127.0.0.1:{_free_port()}", "--num-processes", "2", "--process-id", "0"]
  done = subprocess.run(command + ["--join-timeout", "2"], capture_output=True, text=True, env=env, timeout=120)
  assert done.returncode == 2
  lines = done.stderr.strip().splitlines()
  assert lines[0].startswith("jaxcfr: process 0 of 2 waits for the others at the coordinator 127.0.0.1:")
  assert len(lines) == 2 and "did not join the coordinator" in lines[1] and "within 2 s (--join-timeout)" in lines[1]
