"""Running solvers and jobs, and the ``jaxcfr`` command line.

- ``driver``: ``solve`` (any registered solver on any representation) in three steps, ``plan``,
  ``loop`` and ``record``, configured by one ``RunSettings``; ``guards`` (Ctrl-C held while a
  chunk donates its state, the finiteness check) and ``records`` (``SolveResult``, the one
  record of every run; ``Interrupted``, ``NonFiniteError``) beside it;
- ``jobs``: the driver of jobs done in parts on the host, and ``resolving_jobs``, depth-limited
  solving's jobs (the continual re-solving agent, value-network data and training);
- ``checkpoint``, ``sharding``, ``hardware``: checkpoints, batches over devices and processes,
  the hardware of a record;
- the command line: ``cli`` (the parser and ``main``), ``flags`` (settings declared once per
  subcommand, made into flags), ``common_flags`` (the shared declarations), ``outputs`` (files,
  the JSON record, the summary table), and the subcommands by purpose: ``solve_cli`` (info,
  solve, rnr), ``match_cli`` (match), ``resolving_cli`` (value-data, value-train, resolve).
"""

from jaxcfr.run import checkpoint, driver, hardware, sharding

__all__ = ["checkpoint", "driver", "hardware", "sharding"]
