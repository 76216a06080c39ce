"""Where an installed package keeps a file, found from its distribution's metadata (the package is not
imported), and the record every gallery extraction returns."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from pathlib import Path

import torch

from rnnaudit.untrusted import InputError, require_file

__all__ = ["NotInstalled", "installed_file", "weight_file", "GalleryModel", "MAX_WEIGHT_FILE_BYTES"]

#: Largest weight file a gallery extraction reads: the gallery's files are 1.2–3.4 MB; 64 MiB leaves room for a
#: newer release and refuses a file that claims far more before anything is read.
MAX_WEIGHT_FILE_BYTES = 64 * 2**20


class NotInstalled(LookupError):
    """The package (a distribution of PyPI) that holds a gallery model is not installed."""


def installed_file(distribution: str, relative: str) -> Path:
    """The path of ``relative`` (e.g. ``"g2p_en/checkpoint20.npz"``) inside the installed ``distribution``.

    Found through :mod:`importlib.metadata` only: the package's import (which for g2p-en tries to download
    nltk data) never runs.

    Raises:
        NotInstalled: the distribution is not installed, or does not list the file.
        rnnaudit.untrusted.InputError: the file is listed but missing, not a regular file, or larger than
            :data:`MAX_WEIGHT_FILE_BYTES`.
    """
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise NotInstalled(f"{distribution} is not installed (pip install \"rnnaudit[gallery]\")") from None
    if not any(str(f) == relative for f in (dist.files or ())):
        raise NotInstalled(f"{distribution} {dist.version} does not ship {relative}")
    return weight_file(Path(dist.locate_file(relative)), f"{distribution} weight file")


def weight_file(path, what: str) -> Path:
    """``path`` as a Path if it is a regular file of at most :data:`MAX_WEIGHT_FILE_BYTES`: the check every gallery
    reader makes, on the installed file or on a path given to it, before reading anything.

    Raises:
        rnnaudit.untrusted.InputError: missing, not a regular file, or larger (names the file and both sizes).
    """
    path = require_file(path, what)
    size = path.stat().st_size
    if size > MAX_WEIGHT_FILE_BYTES:
        raise InputError(f"{path}: {size} bytes, above the {MAX_WEIGHT_FILE_BYTES} a gallery weight file may have")
    return path


@dataclass
class GalleryModel:
    """One trained recurrence of the gallery, as torch modules in float64.

    Attributes:
        name: the distribution (``"g2p-en"``) or ``"digits-lstm"``. version: its installed version.
        rnn: the recurrence, an ``nn.GRU``/``nn.LSTM`` (batch_first, float64), the module the audit reads.
        inputs: its inputs for the synthetic signal, (m, T, input_size), float64: the package's own
            features (letter embeddings, a spectrogram's front end), what the recurrence sees when deployed.
        weight_file: the file read. licence: the licence the package states for it (SPDX id where one exists).
        reference_error: max |ours − the package's own forward| over the compared outputs, both in float64
            (None where the package's forward cannot run offline). compared: what was compared.
        description: one line for the docs.
    """

    name: str
    version: str
    rnn: torch.nn.Module
    inputs: torch.Tensor
    weight_file: Path | None
    licence: str
    reference_error: float | None
    compared: str
    description: str
    extra: dict = field(default_factory=dict)
