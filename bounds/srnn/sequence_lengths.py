"""srnn.md, Sec. 4, the sequence lengths the text derives from image sizes: pMNIST "each MNIST image is reshaped into
a 784-dimensional vector ... fed to the RNN one entry at a time", and the capacity experiment's "8 × 8 or 16 × 16
center patches, so the generated sequences are now 64 or 256 steps long".
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from rnnaudit.bounds.core import Assumption, CaseSpace, Claim, ExactVerdict
from rnnaudit.bounds.srnn.cases import f64

__all__ = ["ImageCase", "center_crop_sequence", "sequence_lengths", "STATED"]

#: (patch side, the sequence length the text states): the full 28 × 28 image, then the two crops.
STATED = ((28, 784), (8, 64), (16, 256))


@dataclass
class ImageCase:
    """A batch of 28 × 28 images (MNIST's size), random pixels.

    Attributes:
        images: (batch, 28, 28).
    """

    images: Tensor

    def size(self) -> tuple[int, int]:
        """(28, 28)."""
        return self.images.shape[1], self.images.shape[2]


def center_crop_sequence(images: Tensor, side: int) -> Tensor:
    """The centred side × side patch of each image, read pixel by pixel: (batch, side², 1).

    Raises:
        ValueError: ``side`` larger than the image.
    """
    H, W = images.shape[-2:]
    if side > min(H, W):
        raise ValueError(f"side must be at most {min(H, W)}, got {side}")
    top, left = (H - side) // 2, (W - side) // 2
    return images[:, top:top + side, left:left + side].reshape(images.shape[0], -1, 1)


def _measure(case: ImageCase) -> dict[str, tuple[Tensor, Tensor, Tensor]]:
    like = case.images
    return {f"{side} × {side} pixels, one per step → {n} steps": (
        f64(abs(center_crop_sequence(case.images, side).shape[1] - n), like), f64(0.5, like), f64(n, like))
        for side, n in STATED}


def _exact() -> ExactVerdict:
    import sympy as sp

    ok = all(sp.Integer(side) ** 2 == n for side, n in STATED)
    return ExactVerdict("proved" if ok else "violated", "28² = 784, 8² = 64, 16² = 256 (sympy integers).")


sequence_lengths = Claim(
    id="srnn.sequence_lengths",
    source="srnn.md, Sec. 4 ('Permuted Sequential MNIST': 784; 'Capacity': 64 or 256 steps)",
    statement="A 28 × 28 MNIST image fed one pixel per step is a sequence of 784 steps; its 8 × 8 and 16 × 16 center "
              "patches are 64 and 256 steps long",
    assumptions=(Assumption("MNIST-sized images (28 × 28)", lambda c: (tuple(c.images.shape[1:]) == (28, 28),
                                                                       f"{tuple(c.images.shape[1:])}")),),
    measure="the length of the pixel sequence of each patch",
    bound="the stated length (an integer: mismatch < 1/2)",
    evaluate=_measure,
    cases=CaseSpace(case_type=ImageCase, sizes={"quick": [(28, 28)], "full": [(28, 28)]},
                    sample=lambda gen, h, T, device="cpu", dtype=torch.float64: ImageCase(
                        torch.rand(2, 28, 28, generator=gen, dtype=torch.float64).to(device=device, dtype=dtype))),
    explanation="Would be an arithmetic slip.",
    notes="The bigger pMNIST's 'four times larger' image states no length (56 × 56 = 3136 steps if the area is "
          "quadrupled, 112 × 112 = 12544 if the side is): not checkable.",
    exact=_exact,
)
