"""Running solvers: the driver (``driver.solve``), checkpoints, sharding over devices,
the hardware record of results, and the ``jaxcfr`` command line (``cli``)."""

from jaxcfr.run import checkpoint, driver, hardware, sharding

__all__ = ["checkpoint", "driver", "hardware", "sharding"]
