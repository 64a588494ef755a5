"""jitgrad on Dask (`pip install "jitgrad[distributed]"`): data-parallel training and
parameter sweeps on an existing dask.distributed cluster, one machine or many.

    from dask.distributed import Client
    from jitgrad.distributed import DataParallel, sweep
    client = Client()                       # or Client("tcp://scheduler:8786")
    trainer = DataParallel(client, make_model, make_optimizer, loss_fn)
    loss = trainer.step(x, y)               # the batch is split over the workers
    loss = trainer.step_from(load, step)    # or each worker loads load(step, rank, world)

Importing this module does not import Dask; the first DataParallel or sweep does (and says
how to install it when it is missing). See README "Distributed training on Dask".
"""

from . import fleet
from .data_parallel import DataParallel
from .sweep import SweepResult, sweep

__all__ = ["DataParallel", "SweepResult", "fleet", "sweep"]
