"""The 2-layer LSTM(150, 150) of BeatNet (Heydari, Cwitkowitz & Duan, ISMIR 2021: beat, downbeat and meter
tracking), read from its ``BeatNet/models/model_1_weights.pt``.

BeatNet's network (``BeatNet/model.py``, class ``BDA``) reads 272 features per frame at 50 fps (a log
filtered spectrogram of 136 bands and its positive first difference), maps each frame through
``conv1`` (1 → 2 channels, width 10), ReLU, max-pooling by 2 and ``linear0`` (262 → 150), then runs
``nn.LSTM(150, 150, num_layers=2)`` and a linear head to 3 activations (beat, downbeat, none). The
weight file is a plain state dict, read with ``torch.load(weights_only=True)``
(:func:`rnnaudit.untrusted.load_torch_file`); the package's whole-model pickles (``model-1.pt``) are never
loaded. The package is imported only for :func:`package_forward` (``BeatNet.model`` needs torch alone;
``BeatNet/__init__.py`` is empty in 1.1.1, the release whose dependencies install on Python ≥ 3.10).

Licence of the weights: CC-BY-4.0 (the package's LICENSE, Creative Commons Attribution 4.0 International).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from rnnaudit.gallery.installed import GalleryModel, installed_file, weight_file
from rnnaudit.untrusted import InputError, load_torch_file

__all__ = ["DISTRIBUTION", "FEATURES", "FPS", "FrontEnd", "load", "click_track_features", "package_forward", "extract"]

DISTRIBUTION = "BeatNet"
WEIGHTS = "BeatNet/models/model_1_weights.pt"
#: features per frame (BeatNet/BeatNet.py: ``BDA(272, 150, 2, ...)``) and frames per second (20 ms hop)
FEATURES, FPS = 272, 50
_SHAPES = {"conv1.weight": (2, 1, 10), "conv1.bias": (2,), "linear0.weight": (150, 262), "linear0.bias": (150,),
           "linear.weight": (3, 150), "linear.bias": (3,),
           **{f"lstm.{k}_l{i}": s for i in (0, 1) for k, s in (("weight_ih", (600, 150)), ("weight_hh", (600, 150)),
                                                                ("bias_ih", (600,)), ("bias_hh", (600,)))}}


class FrontEnd(nn.Module):
    """BeatNet's per-frame front end: (m, T, 272) features → (m, T, 150), the LSTM's inputs (``BDA.forward``
    up to ``linear0``)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 2, 10)
        self.linear0 = nn.Linear(262, 150)

    def forward(self, x):
        m, T, n = x.shape
        z = nn.functional.max_pool1d(nn.functional.relu(self.conv1(x.reshape(m * T, 1, n))), 2)
        return self.linear0(z.reshape(m * T, -1)).reshape(m, T, 150)


def load(path=None) -> tuple[FrontEnd, nn.LSTM, nn.Linear]:
    """The front end, the ``nn.LSTM(150, 150, num_layers=2, batch_first=True)`` and the head (150 → 3), float64.

    Args:
        path: the state dict (default: the installed package's ``BeatNet/models/model_1_weights.pt``).

    Raises:
        rnnaudit.gallery.NotInstalled: no path given and BeatNet not installed.
        rnnaudit.untrusted.InputError: not a torch file of tensors only, larger than the gallery's limit, a tensor
            missing, of another shape or not finite, or a tensor the network does not have (names file and key).
    """
    path = installed_file(DISTRIBUTION, WEIGHTS) if path is None else weight_file(path, "BeatNet weights")
    state = load_torch_file(path, "BeatNet weights")
    if not isinstance(state, dict):
        raise InputError(f"{path}: expected a state dict, got {type(state).__name__}")
    for k, shape in _SHAPES.items():
        t = state.get(k)
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != shape or not t.is_floating_point():
            got = f"{t.dtype} {tuple(t.shape)}" if isinstance(t, torch.Tensor) else "nothing"
            raise InputError(f"{path}: {k} is {got}, expected a floating tensor {shape}")
        if not torch.isfinite(t).all():
            raise InputError(f"{path}: {k} has non-finite entries (NaN or inf); expected BeatNet's trained weights")
    extra = sorted(str(k) for k in set(state) - set(_SHAPES))
    if extra:
        raise InputError(f"{path}: unexpected tensor {extra[0]!r}; expected BeatNet's state dict of exactly "
                         f"{len(_SHAPES)} tensors ({', '.join(_SHAPES)})")
    front, lstm, head = FrontEnd().double(), nn.LSTM(150, 150, num_layers=2, batch_first=True).double(), \
        nn.Linear(150, 3).double()
    front.load_state_dict({k: state[k].double() for k in ("conv1.weight", "conv1.bias", "linear0.weight",
                                                          "linear0.bias")})
    lstm.load_state_dict({k[len("lstm."):]: v.double() for k, v in state.items() if k.startswith("lstm.")})
    head.load_state_dict({"weight": state["linear.weight"].double(), "bias": state["linear.bias"].double()})
    return front, lstm, head


def click_track_features(T: int = 400, bpm: float = 120.0, seed: int = 0) -> torch.Tensor:
    """A synthetic stand-in for BeatNet's features: a click track at ``bpm`` seen as a log filtered
    spectrogram (136 bands: a broadband onset on each beat decaying over ~80 ms, strongest on each bar's first
    beat, over a faint noise floor), log10(1 + S) as madmom's ``LogarithmicSpectrogramProcessor(mul=1, add=1)``,
    stacked with its positive first difference; shape (1, T, 272), float64, T frames at 50 fps.

    Raises:
        ValueError: T not a positive int; bpm not a finite positive number."""
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive int (frames at {FPS} fps), got {T!r}")
    if isinstance(bpm, bool) or not isinstance(bpm, (int, float)) or not math.isfinite(bpm) or bpm <= 0:
        raise ValueError(f"bpm must be a finite positive number of beats per minute, got {bpm!r}")
    gen = torch.Generator().manual_seed(seed)
    t = torch.arange(T, dtype=torch.float64)
    period = 60.0 * FPS / bpm
    since = torch.remainder(t, period)
    beat_index = torch.floor(t / period)
    accent = torch.where(torch.remainder(beat_index, 4) == 0, 2.0, 1.0)
    tilt = torch.exp(-torch.linspace(0.0, 3.0, 136, dtype=torch.float64))  # more energy in low bands
    onset = accent[:, None] * torch.exp(-since / 4.0)[:, None] * (0.5 + tilt)[None] * 20.0
    noise = 0.2 * torch.rand(T, 136, generator=gen, dtype=torch.float64)
    spec = torch.log10(1.0 + onset + noise)
    diff = torch.clamp(spec - torch.cat([spec[:1], spec[:-1]]), min=0.0)
    return torch.cat([spec, diff], dim=1)[None]


def package_forward(features: torch.Tensor) -> torch.Tensor:
    """BeatNet's own ``BDA.forward`` in float64 on ``features`` (1, T, 272), from zero states: (1, 3, T).

    Imports ``BeatNet.model`` (torch only) and loads the same state dict into the package's class.

    Raises:
        rnnaudit.gallery.NotInstalled: BeatNet not installed.
    """
    from BeatNet.model import BDA

    bda = BDA(FEATURES, 150, 2, "cpu")
    bda.load_state_dict(load_torch_file(installed_file(DISTRIBUTION, WEIGHTS), "BeatNet weights"))
    bda = bda.double()
    bda.hidden, bda.cell = bda.hidden.double(), bda.cell.double()  # plain attributes: .double() skips them
    with torch.no_grad():
        return bda(features)


def extract(T: int = 400) -> GalleryModel:
    """BeatNet's LSTM, its inputs for a click track of T frames (:func:`click_track_features` through
    :class:`FrontEnd`), and the max difference of the whole network's output from :func:`package_forward`."""
    import importlib.metadata

    front, lstm, head = load()
    feats = click_track_features(T)
    with torch.no_grad():
        x = front(feats)
        ours = head(lstm(x)[0]).transpose(1, 2)
    error = float((ours - package_forward(feats)).abs().max())
    return GalleryModel(DISTRIBUTION, importlib.metadata.version(DISTRIBUTION), lstm, x,
                        installed_file(DISTRIBUTION, WEIGHTS), "CC-BY-4.0", error,
                        f"the 3 activations of all {T} frames",
                        "beat/downbeat tracker, nn.LSTM(150, 150, num_layers=2), "
                        f"on a {T / FPS:g} s synthetic 120 bpm click track (features through its own front end)",
                        {"seconds": T / FPS})
