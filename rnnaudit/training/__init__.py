"""Training runs that record the quantities the theorems are about (the application layer).

``config`` (:class:`TrainConfig`, the papers' presets), ``task_specs`` (how each task is fed and
scored), ``model`` (cell + readout), ``trainer`` (:func:`train`), ``runs`` (run directories:
checkpoints and the trajectory) and ``sweep`` (grids of runs).
"""

from rnnaudit.training.config import OPTIMIZERS, PRESETS, TrainConfig, preset_config
from rnnaudit.training.model import SequenceModel, build_model
from rnnaudit.training.runs import CHECKPOINT_FORMAT, load_checkpoint, read_trajectory
from rnnaudit.training.task_specs import TASK_SPECS, TaskSpec
from rnnaudit.training.trainer import train

__all__ = ["TrainConfig", "PRESETS", "preset_config", "SequenceModel", "train", "read_trajectory",
           "load_checkpoint", "build_model", "TaskSpec", "TASK_SPECS", "OPTIMIZERS", "CHECKPOINT_FORMAT"]
