"""A PyTorch Lightning callback that records a ``Trainer.fit`` run with :class:`rnnaudit.Monitor`.

    from rnnaudit.lightning import MonitorCallback
    trainer = lightning.pytorch.Trainer(callbacks=[MonitorCallback("runs/mine", module="rnn", readout="head",
                                                                   every=10)])

A thin layer: at ``on_fit_start`` it opens a Monitor on ``pl_module.<module>``; Lightning calls
``on_before_backward(trainer, pl_module, loss)`` with the loss, and ``on_before_optimizer_step(trainer,
pl_module, optimizer)`` once the gradients of the step are complete (after every accumulated
backward), where it calls ``monitor.record(trainer.global_step, loss)``; ``on_fit_end`` closes the
monitor and ``on_exception`` releases it keeping the records so far. Only the global-rank-zero
process records. Hook names and arguments are those of Lightning 2.x's ``Callback`` (documented
at lightning.ai/docs/pytorch/stable/api/lightning.pytorch.callbacks.Callback.html).

Lightning is optional: where neither ``lightning`` nor ``pytorch_lightning`` is installed the class
still imports (on a plain base class), and :data:`LIGHTNING_AVAILABLE` is False.
"""

from __future__ import annotations

import os

try:  # Lightning 2.x's unified package, then the standalone one
    from lightning.pytorch.callbacks import Callback as _Base
except ImportError:
    try:
        from pytorch_lightning.callbacks import Callback as _Base
    except ImportError:
        _Base = object

__all__ = ["MonitorCallback", "LIGHTNING_AVAILABLE"]

#: whether a Lightning package is installed (the callback subclasses its ``Callback``)
LIGHTNING_AVAILABLE = _Base is not object


def _attribute(pl_module, path: str, name: str):
    obj = pl_module
    for part in path.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{name}={path!r}: {type(pl_module).__name__} has no attribute {path!r}")
        obj = getattr(obj, part)
    return obj


class MonitorCallback(_Base):
    """Records a Lightning fit into ``run_dir`` with :class:`rnnaudit.Monitor` (module docstring).

    Args:
        run_dir: the run directory.
        module: attribute path of the recurrent module on the LightningModule (default ``"rnn"``).
        readout: attribute path of the readout module, or None.
        **monitor_kwargs: the other arguments of :class:`rnnaudit.Monitor` (``every``, ``inputs``,
            ``targets``, ``loss_fn``, ...).

    Raises:
        TypeError: module or readout not a string (at construction); ValueError: no such attribute (at
            fit start), or anything :class:`rnnaudit.Monitor` refuses.
    """

    def __init__(self, run_dir: str | os.PathLike, *, module: str = "rnn", readout: str | None = None,
                 **monitor_kwargs):
        super().__init__()
        for name, value in (("module", module), ("readout", readout)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be an attribute path on the LightningModule (a str), got "
                                f"{type(value).__name__}")
        self.run_dir, self.module, self.readout, self.monitor_kwargs = run_dir, module, readout, monitor_kwargs
        self.monitor = None
        self._loss = None

    def on_fit_start(self, trainer, pl_module) -> None:
        from rnnaudit.monitoring import Monitor

        if not getattr(trainer, "is_global_zero", True):
            return
        readout = None if self.readout is None else _attribute(pl_module, self.readout, "readout")
        self.monitor = Monitor(_attribute(pl_module, self.module, "module"), self.run_dir, readout=readout,
                               **self.monitor_kwargs)

    def on_before_backward(self, trainer, pl_module, loss) -> None:
        self._loss = loss.detach()

    def on_before_optimizer_step(self, trainer, pl_module, optimizer) -> None:
        step = int(trainer.global_step)
        # several optimizers step at the same global step: the first one's call records it
        if self.monitor is not None and (self.monitor.last_step is None or step > self.monitor.last_step):
            self.monitor.record(step, self._loss)

    def on_fit_end(self, trainer, pl_module) -> None:
        if self.monitor is not None:
            self.monitor.close()

    def on_exception(self, trainer, pl_module, exception) -> None:
        if self.monitor is not None and not self.monitor.closed:
            self.monitor.__exit__(type(exception), exception, None)
