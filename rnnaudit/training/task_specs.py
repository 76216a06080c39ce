"""How the trainer uses each task: input and output widths, the loss, the baseline.

Tasks (:data:`TASK_SPECS`; generators and baselines in :mod:`rnnaudit.tasks.synthetic`). Token
inputs are fed one-hot (float); "per step" tasks apply the readout to every hidden state, the
others to h_T only.


=========== ======== ======= ============================== ============================ ====================
task        input    output  readout / loss                 baseline                     ``task_kwargs``
=========== ======== ======= ============================== ============================ ====================
adding      2        1       h_T / MSE                      1/6                          variant
copy        10       9       per step / cross-entropy       10 ln 8 / (T+20)             n_copy, n_symbols
denoise     11       10      per step / cross-entropy       10 ln 9 / (T+20)             n_data, n_symbols
parenthesis 7        18      per step / MSE vs one-hot(y)   Markov-chain formula (MSE)   n_types, max_count,
                                                                                         n_noise
=========== ======== ======= ============================== ============================ ====================

The real data sets (``digits``, ``permuted-digits``, ``smnist``, ``pmnist``, ``har2``, ``ptb-char``)
are described in :mod:`rnnaudit.training.dataset_tasks`: a training split to draw from, a test split
to validate on, accuracy and the chance baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from rnnaudit.tasks.synthetic import (ADDITION_BASELINE_MSE, COPY_N_CLASSES, COPY_N_TOKENS, DENOISE_N_CLASSES,
                                      DENOISE_N_TOKENS, PARENTHESIS_TOKENS, addition_problem, copy_task, denoise_task,
                                      parenthesis_task, task_baseline)
from rnnaudit.training.dataset_tasks import (CLASSIFICATION_TASKS, FILES_NEEDED, accuracy, chance_accuracy,
                                             class_baseline, draw_batch, ptb_sizes, ptb_validation, ptb_windows,
                                             token_baseline, token_chance_accuracy, validation_batches)

__all__ = ["TaskSpec", "TASK_SPECS"]


@dataclass(frozen=True)
class TaskSpec:
    """How the trainer uses a task.

    Attributes:
        input_size / output_size: widths with the default ``task_kwargs``.
        generate: ``(batch, T, generator, **task_kwargs) -> (x, y)``, x float (batch, L, input_size).
        loss: ``(prediction, y) -> scalar``.
        baseline: ``(T, **task_kwargs) ->`` loss of the trivial predictor
            (:func:`rnnaudit.tasks.synthetic.task_baseline`).
        per_step: the readout is applied to every hidden state, prediction (batch, L, output_size);
            otherwise to h_T only, prediction (batch, output_size).
        kwargs: names of generator arguments ``TrainConfig.task_kwargs`` may set.
        sizes: ``(**task_kwargs) -> (input_size, output_size)`` when those arguments change them.
        length: the one sequence length T the task has (a data set of fixed-length sequences), or None.
        validation: ``(batch, T, n_batches, **task_kwargs) -> [(x, y), ...]``, the held-out batches of a
            data set; None: the trainer draws ``n_batches`` fresh batches with its own generator.
        accuracy: ``(prediction, y) -> 0-d tensor``, share of correct argmax predictions, for
            classification tasks (the trainer records ``val_accuracy``); None otherwise.
        chance_accuracy: ``(**task_kwargs) -> float``, the accuracy of the best constant predictor.
        needs_data: the task reads files from ``task_kwargs["data_dir"]``.
    """

    input_size: int
    output_size: int
    generate: object
    loss: object
    baseline: object
    per_step: bool = False
    kwargs: tuple = ()
    sizes: object = None
    length: int | None = None
    validation: object = None
    accuracy: object = None
    chance_accuracy: object = None
    needs_data: bool = False

    def dims(self, task_kwargs: dict) -> tuple[int, int]:
        """(input_size, output_size) for these task_kwargs."""
        if self.sizes is None or not task_kwargs:
            return self.input_size, self.output_size
        return self.sizes(**task_kwargs)

    def check_kwargs(self, task: str, T: int, task_kwargs: dict) -> None:
        """ValueError for a name the task does not admit, a T other than the task's fixed length, or a
        value its generator rejects (one length-T sequence is drawn to find out, when task_kwargs is
        not empty or the task reads files; missing files raise FileNotFoundError naming them)."""
        unknown = sorted(set(task_kwargs) - set(self.kwargs))
        if unknown:
            raise ValueError(f"task_kwargs {unknown} not accepted by task {task!r}; it accepts {list(self.kwargs)}")
        if self.length is not None and T != self.length:
            raise ValueError(f"task {task!r} has sequences of T = {self.length} steps; got T = {T}")
        if task_kwargs or self.needs_data:
            try:
                self.dims(task_kwargs)
                self.generate(1, T, torch.Generator().manual_seed(0), **task_kwargs)
            except (TypeError, ValueError) as err:
                if not task_kwargs:  # a task that reads files, with none named: its own message says so
                    raise ValueError(str(err)) from None
                raise ValueError(f"task_kwargs {task_kwargs!r} rejected by task {task!r}: {err}") from None


def _sequence_ce(pred: Tensor, y: Tensor) -> Tensor:
    """Cross-entropy averaged over batch and all L steps (the convention of the copy baseline
    10 ln 8/(T+20), srnn.md Sec. 4): pred (B, L, C) logits, y (B, L) int64 classes."""
    return nn.functional.cross_entropy(pred.flatten(0, 1), y.flatten())


def _parenthesis_mse(pred: Tensor, y: Tensor) -> Tensor:
    """Squared error against one_hot(y) averaged over batch, steps, types and count classes
    (rnnaudit.tasks.synthetic.parenthesis_task, the loss task_baseline's "mse" form assumes): pred
    (B, T, n_types·K), y (B, T, n_types) int64 counts, K = max_count + 1 read off the widths."""
    K = pred.shape[-1] // y.shape[-1]
    return nn.functional.mse_loss(pred, nn.functional.one_hot(y, K).flatten(-2).to(pred.dtype))


def _token(task_fn):
    """Generator adapter: one-hot float32 inputs (the papers feed one-hot vectors, nc_gru.md Sec. 4.1)."""
    return lambda b, T, g, **kw: task_fn(b, T, generator=g, one_hot=True, dtype=torch.float32, **kw)


TASK_SPECS = {
    "adding": TaskSpec(2, 1, lambda b, T, g, **kw: addition_problem(b, T, generator=g, dtype=torch.float32, **kw),
                       lambda pred, y: nn.functional.mse_loss(pred[:, 0], y), lambda T, **kw: ADDITION_BASELINE_MSE,
                       kwargs=("variant",)),
    "copy": TaskSpec(COPY_N_TOKENS, COPY_N_CLASSES, _token(copy_task), _sequence_ce,
                     lambda T, **kw: task_baseline("copy", T, **kw), per_step=True, kwargs=("n_copy", "n_symbols"),
                     sizes=lambda n_copy=10, n_symbols=8: (n_symbols + 2, n_symbols + 1)),
    "denoise": TaskSpec(DENOISE_N_TOKENS, DENOISE_N_CLASSES, _token(denoise_task), _sequence_ce,
                        lambda T, **kw: task_baseline("denoise", T, **kw), per_step=True,
                        kwargs=("n_data", "n_symbols"),
                        sizes=lambda n_data=10, n_symbols=9: (n_symbols + 2, n_symbols + 1)),
    "parenthesis": TaskSpec(len(PARENTHESIS_TOKENS), 3 * (5 + 1), _token(parenthesis_task), _parenthesis_mse,
                            lambda T, **kw: task_baseline("parenthesis", T, loss="mse", **kw), per_step=True,
                            kwargs=("n_types", "max_count", "n_noise"),
                            sizes=lambda n_types=3, max_count=5, n_noise=1: (2 * n_types + n_noise,
                                                                              n_types * (max_count + 1))),
}


def _classification(task: str) -> TaskSpec:
    """A data set of labelled sequences (:data:`rnnaudit.training.dataset_tasks.CLASSIFICATION_TASKS`):
    the label is read from h_T, cross-entropy loss."""
    length, width, classes = CLASSIFICATION_TASKS[task]
    kwargs = (("data_dir",) if task in FILES_NEEDED else ()) + (("permutation_seed",) if task in
                                                                ("permuted-digits", "pmnist") else ())
    return TaskSpec(width, classes, lambda b, T, g, **kw: draw_batch(task, b, T, g, **kw), nn.functional.cross_entropy,
                    lambda T, **kw: class_baseline(task, **kw), kwargs=kwargs, length=length,
                    validation=lambda b, T, n, **kw: validation_batches(task, b, T, n, **kw), accuracy=accuracy,
                    chance_accuracy=lambda **kw: chance_accuracy(task, **kw), needs_data=task in FILES_NEEDED)


TASK_SPECS.update({task: _classification(task) for task in CLASSIFICATION_TASKS})
# next-character prediction; the widths are the vocabulary of the files, so 0 until task_kwargs name them
TASK_SPECS["ptb-char"] = TaskSpec(0, 0, ptb_windows, _sequence_ce, token_baseline, per_step=True, kwargs=("data_dir",),
                                  sizes=ptb_sizes, validation=ptb_validation, accuracy=accuracy,
                                  chance_accuracy=token_chance_accuracy, needs_data=True)
