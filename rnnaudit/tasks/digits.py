"""The UCI handwritten digits that scikit-learn ships inside its package, as pixel-by-pixel sequences:
the sequential- and permuted-MNIST protocols (srnn.md Sec. 4 "Permuted Sequential MNIST") at a small
scale, on real data, with nothing to download.

``sklearn.datasets.load_digits`` holds 1,797 images of 8 × 8 pixels with values 0..16 (Alpaydin &
Kaynak, UCI "Optical Recognition of Handwritten Digits", the test part), 174–183 per class. Each
image becomes a sequence of T = 64 scalar inputs, row-major, scaled to [0, 1] (value / 16), as
:func:`rnnaudit.tasks.datasets.sequential_mnist` does for MNIST's 28 × 28; the permuted version
reorders the 64 time steps of every image by one fixed permutation (the same seeded
``torch.randperm`` as :func:`rnnaudit.tasks.datasets.mnist_permutation`). The train/test split is a
seeded random one (the data set has no official split).

scikit-learn is an optional dependency: ``pip install "rnnaudit[data]"``.
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor

from rnnaudit.tasks.datasets import mnist_permutation

__all__ = ["DIGITS_T", "DIGITS_CLASSES", "DIGITS_N", "load_digits_images", "digits_splits"]

#: sequence length (8 × 8 pixels), number of classes, number of images in scikit-learn's copy
DIGITS_T, DIGITS_CLASSES, DIGITS_N = 64, 10, 1797
#: largest pixel value of the data set (4 × 4 blocks of a 32 × 32 bitmap, counted: 0..16)
_MAX_PIXEL = 16.0


@functools.lru_cache(maxsize=1)
def load_digits_images() -> tuple[Tensor, Tensor]:
    """The 1,797 digit images in scikit-learn's order.

    Returns:
        images (1797, 8, 8) float64 with values 0..16, labels (1797,) int64 in 0..9. Cached: treat
        them as read-only.

    Raises:
        ImportError: scikit-learn is not installed (the message says how to install it).
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise ImportError("the digits tasks read scikit-learn's bundled copy of the UCI digits: install it with "
                          "pip install \"rnnaudit[data]\" (or pip install scikit-learn)") from err
    data = load_digits()
    return torch.from_numpy(data.images.copy()), torch.from_numpy(data.target.astype("int64"))


def digits_splits(*, permute: bool = False, permutation_seed: int = 0, test_fraction: float = 0.2,
                  split_seed: int = 0, dtype: torch.dtype = torch.float32) -> dict[str, tuple[Tensor, Tensor]]:
    """Train and test sequences of the digits, pixel by pixel, optionally permuted.

    Args:
        permute: apply one fixed permutation to the 64 time steps of every image (permuted MNIST's
            protocol); ``x_perm[:, t] = x[:, perm[t]]`` with ``perm = mnist_permutation(permutation_seed, 64)``.
        permutation_seed: seeds the permutation (the same for train and test).
        test_fraction: share of the images held out, in (0, 1): ``round(test_fraction · 1797)`` images
            (359 at the default 0.2), chosen by ``torch.randperm`` seeded with ``split_seed``.
        split_seed: seeds the split (fixed, so every run of a task sees the same test set).
        dtype: floating dtype of x.

    Returns:
        {"train": (x, y), "test": (x, y)}: x (N, 64, 1) in [0, 1], y (N,) int64 in 0..9
        (1,438 and 359 sequences at the defaults).

    Raises:
        ValueError: test_fraction not in (0, 1) or leaving an empty split; dtype not floating.
        ImportError: scikit-learn missing (:func:`load_digits_images`).
    """
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be a number in (0, 1), got {test_fraction!r}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating torch dtype, got {dtype!r}")
    images, labels = load_digits_images()
    n = images.shape[0]
    n_test = round(test_fraction * n)
    if not 0 < n_test < n:
        raise ValueError(f"test_fraction = {test_fraction} leaves an empty split of the {n} images")
    x = (images.reshape(n, DIGITS_T) / _MAX_PIXEL).to(dtype)
    if permute:
        x = x[:, mnist_permutation(permutation_seed, DIGITS_T)]
    order = torch.randperm(n, generator=torch.Generator().manual_seed(int(split_seed)))
    test, train = order[:n_test], order[n_test:]
    x = x.unsqueeze(-1)
    return {"train": (x[train], labels[train]), "test": (x[test], labels[test])}
