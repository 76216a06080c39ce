"""Bounds on the work a file or a flag can ask for, checked before anything is allocated.

A tiny file can describe an enormous job (a 2 KB counterexample with T = 10¹², a checkpoint whose
config says h = 10⁶). Every size read from a file or a flag passes :func:`check_sizes` first; the
command line's ``--allow-large`` lifts the limits for a user who means it. A leaf module.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits", "LIMITS", "check_sizes", "check_tensor_sizes", "TooLargeError"]


class TooLargeError(ValueError):
    """A size above its limit (the message names it, the limit and how to lift it)."""


@dataclass(frozen=True)
class Limits:
    """The largest sizes accepted without ``--allow-large``.

    Attributes:
        T: sequence length (the papers go to 5,000; the Jacobian map at T = 10⁵ already needs 80 GB).
        hidden: state width (1,024 in the papers' largest runs; one h × h float64 matrix at 8,192 is 0.5 GB).
        batch: sequences per batch.
        steps: training steps.
        elements: T·h and any other product of sizes a job allocates at once (10⁸ float64 = 0.8 GB); also
            the largest tensor a file may hold.
        file_elements: all the tensors of one file together (4·10⁸ float64 = 3.2 GB: an LSTM of h = 4,096
            with its optimizer state).
        vocabulary: tokens of a one-hot input (PTB's word level has 10,000; every step of every sequence
            is a vector this wide).
    """

    T: int = 100_000
    hidden: int = 8_192
    batch: int = 65_536
    steps: int = 10_000_000
    elements: int = 100_000_000
    file_elements: int = 400_000_000
    vocabulary: int = 10_000


LIMITS = Limits()


def check_sizes(where: str, *, allow_large: bool = False, limits: Limits = LIMITS, **sizes) -> None:
    """Raise unless every given size is a positive integer within its limit.

    Args:
        where: what the sizes come from, for the message (a file, ``--T``, ...).
        allow_large: skip the upper limits (still reject non-integers and values < 1).
        **sizes: name → value, among ``T``, ``hidden``, ``batch``, ``steps``, ``elements``,
            ``file_elements``, ``vocabulary``.

    Raises:
        TooLargeError: a size above its limit.
        ValueError: a size that is not a positive integer.
    """
    for name, value in sizes.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{where}: {name} must be a positive integer, got {value!r}")
        limit = getattr(limits, name)
        if not allow_large and value > limit:
            raise TooLargeError(f"{where}: {name} = {value} is above the limit {limit} (pass --allow-large to lift "
                                "the limits if you mean it)")


def check_tensor_sizes(obj, where: str, *, allow_large: bool = False, limits: Limits = LIMITS) -> None:
    """Raise if a loaded object (a tensor, or dicts/lists/tuples of them) describes more elements than the
    limits allow, judged from the tensors' shapes alone.

    A file can hold an expanded (zero-stride) tensor: a few bytes of storage describing a shape of 10¹¹
    elements, which ``torch.load(weights_only=True)`` returns as a view without allocating. Anything that
    makes it contiguous (``.double()``, ``.clone()``, ``isfinite``) allocates the whole shape, so the
    shapes are checked first, here.

    Args:
        obj: what the file held. where: the file, for the message.
        allow_large: skip the limits (``--allow-large``).

    Raises:
        TooLargeError: a tensor above ``limits.elements`` elements, or all together above
            ``limits.file_elements`` (names the tensor's path in the object, its shape and the limit).
    """
    import math

    import torch

    total = 0
    stack = [(obj, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, torch.Tensor):
            n = math.prod(value.shape)
            total += n
            if not allow_large and n > limits.elements:
                raise TooLargeError(f"{where}: tensor {path or '(the file)'} of shape {tuple(value.shape)} has {n} "
                                    f"elements, above the limit {limits.elements} (pass --allow-large to lift the "
                                    "limits if you mean it)")
        elif isinstance(value, dict):
            stack.extend((v, f"{path}[{k!r}]") for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    if not allow_large and total > limits.file_elements:
        raise TooLargeError(f"{where}: its tensors hold {total} elements together, above the limit "
                            f"{limits.file_elements} (pass --allow-large to lift the limits if you mean it)")
