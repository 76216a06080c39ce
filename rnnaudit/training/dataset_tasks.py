"""Real data sets as trainer tasks: a fixed training split to draw batches from, a held-out split to
validate on, accuracy, and the trivial predictor's loss and accuracy.

================ ======= ===== ======= ============================================== ===================
task             T       input classes data                                           ``task_kwargs``
================ ======= ===== ======= ============================================== ===================
digits           64      1     10      scikit-learn's UCI digits, pixel by pixel      –
permuted-digits  64      1     10      the same, one fixed pixel permutation          permutation_seed
smnist           784     1     10      MNIST idx files, pixel by pixel                data_dir
pmnist           784     1     10      MNIST, one fixed permutation (srnn.md Sec. 4)  data_dir, permutation_seed
har2             128     9     2       UCI HAR, HAR-2 labels (sgornn.md Sec. 3.2)     data_dir
ptb-char         any     V     V       PTB characters, next-character prediction      data_dir
================ ======= ===== ======= ============================================== ===================

The classification tasks read the label from h_T (cross-entropy); ``ptb-char`` predicts the next
character at every step (per-step cross-entropy, V = the training vocabulary, inputs one-hot).
Batches are drawn uniformly with replacement from the training split by the run's data generator;
validation uses the first ``val_batches · batch`` sequences of the test split (of ``ptb-char``'s
valid stream, cut into windows of T + 1), all of it when it is smaller. The baseline is the
cross-entropy of the best constant predictor, the entropy of the training labels (≈ ln 10 for the
digits and MNIST), and the chance accuracy that predictor's, the frequency of the most common
training label (≈ 10 %).

``ptb-word`` is left out: the trainer feeds tokens one-hot and has no embedding, so its 10,000-word
vocabulary would make every batch 10⁴ floats wide per step. Nothing is downloaded: a task that reads
files needs ``data_dir`` (``rnnaudit train --data-dir DIR``), and missing files are a
FileNotFoundError naming each of them (:mod:`rnnaudit.tasks.datasets`).
"""

from __future__ import annotations

import functools
from pathlib import Path

import torch
from torch import Tensor, nn

from rnnaudit.tasks.datasets import MNIST_FILES, PTB_CHAR_FILES, load_har_splits, load_ptb_char, sequential_mnist
from rnnaudit.tasks.digits import DIGITS_T, digits_splits

__all__ = ["CLASSIFICATION_TASKS", "FILES_NEEDED", "classification_splits", "text_corpus", "draw_batch",
           "validation_batches", "class_baseline", "chance_accuracy", "accuracy", "ptb_windows",
           "ptb_validation", "token_baseline", "token_chance_accuracy", "ptb_sizes"]

#: classification task → (sequence length T, input width, number of classes)
CLASSIFICATION_TASKS = {"digits": (DIGITS_T, 1, 10), "permuted-digits": (DIGITS_T, 1, 10), "smnist": (784, 1, 10),
                        "pmnist": (784, 1, 10), "har2": (128, 9, 2)}
#: task → what its data_dir must hold, for the message when none is given
FILES_NEEDED = {"smnist": "MNIST's idx files (" + ", ".join(n for pair in MNIST_FILES.values() for n in pair) + ")",
                "pmnist": "MNIST's idx files (" + ", ".join(n for pair in MNIST_FILES.values() for n in pair) + ")",
                "har2": "the 'UCI HAR Dataset' folder (train/ and test/ with 'Inertial Signals')",
                "ptb-char": "the character-level PTB files (" + ", ".join(PTB_CHAR_FILES.values()) + ")"}


def _directory(task: str, data_dir) -> str:
    if data_dir is None:
        raise ValueError(f"task {task!r} reads {FILES_NEEDED[task]} from disk and never downloads: give their "
                         "directory (rnnaudit train --data-dir DIR, or task_kwargs={'data_dir': DIR})")
    if not isinstance(data_dir, (str, Path)):
        raise ValueError(f"data_dir must be a directory path, got {type(data_dir).__name__}")
    return str(Path(data_dir).expanduser().resolve())


@functools.lru_cache(maxsize=4)
def _cached_splits(task: str, data_dir: str | None, permutation_seed: int) -> dict[str, tuple[Tensor, Tensor]]:
    if task in ("digits", "permuted-digits"):
        return digits_splits(permute=task == "permuted-digits", permutation_seed=permutation_seed)
    if task in ("smnist", "pmnist"):
        permute = task == "pmnist"
        splits = {split: sequential_mnist(data_dir, split, permute=permute, seed=permutation_seed, dtype=torch.float32)
                  for split in ("train", "test")}
        length = CLASSIFICATION_TASKS[task][0]
        for split, (x, _) in splits.items():
            if x.shape[1] != length:  # else the run would say T = 784 and train on other lengths
                raise ValueError(f"{data_dir}: the MNIST {split} images have {x.shape[1]} pixels, task {task!r} "
                                 f"reads 28 × 28 images (T = {length})")
        return splits
    return load_har_splits(data_dir, labels="har2", dtype=torch.float32)


def classification_splits(task: str, data_dir=None, permutation_seed: int = 0) -> dict[str, tuple[Tensor, Tensor]]:
    """{"train": (x, y), "test": (x, y)} of a classification task, x (N, T, n) float32, y (N,) int64
    (cached; treat as read-only).

    Raises:
        ValueError: unknown task; a task that reads files without ``data_dir``; a bad permutation seed.
        FileNotFoundError: files missing in ``data_dir`` (each named). ImportError: scikit-learn
            missing for the digits.
    """
    if task not in CLASSIFICATION_TASKS:
        raise ValueError(f"task must be one of {sorted(CLASSIFICATION_TASKS)}, got {task!r}")
    if isinstance(permutation_seed, bool) or not isinstance(permutation_seed, int) or permutation_seed < 0:
        raise ValueError(f"permutation_seed must be a non-negative integer, got {permutation_seed!r}")
    directory = _directory(task, data_dir) if task in FILES_NEEDED else None
    return _cached_splits(task, directory, permutation_seed)


@functools.lru_cache(maxsize=2)
def _cached_corpus(data_dir: str):
    return load_ptb_char(data_dir)


def text_corpus(data_dir):
    """The character-level PTB corpus of ``data_dir`` (cached).

    Raises:
        ValueError: no data_dir. FileNotFoundError: files missing (named).
    """
    return _cached_corpus(_directory("ptb-char", data_dir))


def _check_length(task: str, T: int) -> None:
    length = CLASSIFICATION_TASKS[task][0]
    if T != length:
        raise ValueError(f"task {task!r} has sequences of T = {length} steps, got T = {T}")


def draw_batch(task: str, batch: int, T: int, generator: torch.Generator, *, data_dir=None,
               permutation_seed: int = 0) -> tuple[Tensor, Tensor]:
    """``batch`` training sequences of a classification task, drawn uniformly with replacement.

    Returns:
        x (batch, T, n) float32, y (batch,) int64.

    Raises:
        ValueError: T not the task's length; see :func:`classification_splits`.
    """
    _check_length(task, T)
    x, y = classification_splits(task, data_dir, permutation_seed)["train"]
    idx = torch.randint(x.shape[0], (batch,), generator=generator)
    return x[idx], y[idx]


def validation_batches(task: str, batch: int, T: int, n_batches: int, *, data_dir=None,
                       permutation_seed: int = 0) -> list[tuple[Tensor, Tensor]]:
    """The first ``n_batches · batch`` test sequences (all of them when fewer), in batches of ``batch``.

    Raises:
        ValueError: as :func:`draw_batch`.
    """
    _check_length(task, T)
    x, y = classification_splits(task, data_dir, permutation_seed)["test"]
    n = min(x.shape[0], batch * n_batches)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, n, batch)]


def _train_labels(task: str, data_dir, permutation_seed: int) -> Tensor:
    return classification_splits(task, data_dir, permutation_seed)["train"][1]


def class_baseline(task: str, *, data_dir=None, permutation_seed: int = 0) -> float:
    """Cross-entropy (nats) of the best constant predictor: the entropy of the training labels."""
    counts = torch.bincount(_train_labels(task, data_dir, permutation_seed)).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())


def chance_accuracy(task: str, *, data_dir=None, permutation_seed: int = 0) -> float:
    """Accuracy of the best constant predictor: the share of the most common training label."""
    labels = _train_labels(task, data_dir, permutation_seed)
    return float(torch.bincount(labels).max()) / labels.numel()


def accuracy(pred: Tensor, y: Tensor) -> Tensor:
    """Share of argmax predictions equal to the labels (0-d float64): pred (..., C) logits, y (...)
    int64 (a class per sequence, or per step for ``ptb-char``)."""
    return (pred.argmax(-1) == y).double().mean()


# ------------------------------------------------------------------------------------------ ptb-char

def ptb_sizes(data_dir=None) -> tuple[int, int]:
    """(input width, output width) of ``ptb-char``: both the training vocabulary size V."""
    v = text_corpus(data_dir).vocab_size
    return v, v


def _one_hot_windows(stream: Tensor, starts: Tensor, T: int, vocab: int) -> tuple[Tensor, Tensor]:
    idx = starts[:, None] + torch.arange(T + 1)
    tokens = stream[idx]
    return nn.functional.one_hot(tokens[:, :T], vocab).to(torch.float32), tokens[:, 1:]


def ptb_windows(batch: int, T: int, generator: torch.Generator, *, data_dir=None) -> tuple[Tensor, Tensor]:
    """``batch`` windows of T + 1 consecutive characters of the training stream, at uniform random
    starts: inputs the first T one-hot (batch, T, V) float32, targets the next characters (batch, T).

    Raises:
        ValueError: no data_dir; a training stream shorter than T + 1.
    """
    corpus = text_corpus(data_dir)
    n = corpus.train.numel() - T
    if n < 1:
        raise ValueError(f"ptb-char: the training stream has {corpus.train.numel()} characters, fewer than T + 1 = "
                         f"{T + 1}")
    starts = torch.randint(n, (batch,), generator=generator)
    return _one_hot_windows(corpus.train, starts, T, corpus.vocab_size)


def ptb_validation(batch: int, T: int, n_batches: int, *, data_dir=None) -> list[tuple[Tensor, Tensor]]:
    """Consecutive non-overlapping windows of T + 1 characters of the valid stream, the first
    ``n_batches · batch`` of them (all when fewer), in batches of ``batch``.

    Raises:
        ValueError: a valid stream shorter than T + 1.
    """
    corpus = text_corpus(data_dir)
    count = min((corpus.valid.numel() - 1) // T, batch * n_batches)
    if count < 1:
        raise ValueError(f"ptb-char: the valid stream has {corpus.valid.numel()} characters, fewer than T + 1 = "
                         f"{T + 1}")
    starts = torch.arange(count) * T
    x, y = _one_hot_windows(corpus.valid, starts, T, corpus.vocab_size)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, count, batch)]


def token_baseline(T: int = 0, *, data_dir=None) -> float:
    """Cross-entropy (nats per character) of the best constant predictor: the unigram entropy of
    the training stream."""
    counts = torch.bincount(text_corpus(data_dir).train).double()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * p.log()).sum())


def token_chance_accuracy(*, data_dir=None) -> float:
    """Share of the most common training character (the constant predictor's accuracy)."""
    train = text_corpus(data_dir).train
    return float(torch.bincount(train).max()) / train.numel()

