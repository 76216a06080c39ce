"""The LSTMCell(128, 128) of silero-vad (Silero Team, voice activity detection, 16 kHz model), read from the
initializers of its ``silero_vad/data/silero_vad_16k_op15.onnx``.

At 16 kHz the model reads chunks of 512 samples with the previous chunk's last 64 in front (576), pads them
by reflection to 640, takes a 129-bin STFT magnitude (a convolution with the stored basis, width 256,
stride 128: 4 frames), and runs four convolutions with ReLU (strides 1, 2, 2, 1) down to one 128-vector per
chunk: the input x_t of one step of ``LSTMCell(128, 128)``. A ReLU, a 1 × 1 convolution and a sigmoid
give the speech probability. The package runs the model through TorchScript (``silero_vad.jit``, code:
never loaded here) or ONNX Runtime (``load_silero_vad(onnx=True, opset_version=15)`` reads the file used
here; ``silero_vad.onnx`` holds the same 16 kHz weights). The ONNX file is protobuf, read as data by the
``onnx`` package, and the check is against that same graph evaluated by the ``onnx`` package's reference
interpreter in float64 (:func:`package_forward`). The wheel's ``silero_vad_16k.safetensors`` holds other
weights (its LSTM's W_ih differs from the ONNX models' by up to 1.01), and no loader of the package reads
it by default, so it is not the deployed model.

Licence of the weights: MIT (the package's LICENSE, Silero Team).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from rnnaudit.gallery.installed import GalleryModel, installed_file, weight_file
from rnnaudit.untrusted import InputError

__all__ = ["DISTRIBUTION", "SAMPLE_RATE", "CHUNK", "CONTEXT", "Encoder", "initializers", "load", "chunks",
           "voiced_signal",
           "package_forward", "extract"]

DISTRIBUTION = "silero-vad"
WEIGHTS = "silero_vad/data/silero_vad_16k_op15.onnx"
#: samples per second, new samples per chunk, samples of the previous chunk kept in front of each
SAMPLE_RATE, CHUNK, CONTEXT = 16000, 512, 64
_SHAPES = {"model.stft.forward_basis_buffer": (258, 1, 256),
           **{f"model.encoder.{i}.reparam_conv.{k}": s for i, (cout, cin) in enumerate(((128, 129), (64, 128), (64, 64),
                                                                                       (128, 64)))
              for k, s in (("weight", (cout, cin, 3)), ("bias", (cout,)))},
           "model.decoder.rnn.weight_ih": (512, 128), "model.decoder.rnn.weight_hh": (512, 128),
           "model.decoder.rnn.bias_ih": (512,), "model.decoder.rnn.bias_hh": (512,),
           "model.decoder.decoder.2.weight": (1, 128, 1), "model.decoder.decoder.2.bias": (1,)}
#: ONNX's FLOAT and DOUBLE element types (onnx.TensorProto), and its data location EXTERNAL
_FLOAT, _DOUBLE = 1, 11
_EXTERNAL = 1


class Encoder(nn.Module):
    """Chunks (m, T, 576) of 16 kHz audio → the LSTM's inputs (m, T, 128): STFT magnitude and four
    convolutions, as in the package's ONNX graph."""

    def __init__(self):
        super().__init__()
        self.stft_conv = nn.Conv1d(1, 258, 256, stride=128, bias=False)
        self.conv1 = nn.Conv1d(129, 128, 3, padding=1)
        self.conv2 = nn.Conv1d(128, 64, 3, stride=2, padding=1)
        self.conv3 = nn.Conv1d(64, 64, 3, stride=2, padding=1)
        self.conv4 = nn.Conv1d(64, 128, 3, padding=1)

    def forward(self, x):
        m, T, n = x.shape
        z = nn.functional.pad(x.reshape(m * T, 1, n), (0, CONTEXT), mode="reflect")
        spec = self.stft_conv(z)
        z = torch.sqrt(spec[:, :129] ** 2 + spec[:, 129:] ** 2)
        for conv in (self.conv1, self.conv2, self.conv3, self.conv4):
            z = nn.functional.relu(conv(z))
        if z.shape[-1] != 1:
            raise ValueError(f"chunks of {n} samples give {z.shape[-1]} encoder frames; expected {CHUNK + CONTEXT} "
                             "samples (one frame per chunk)")
        return z[..., 0].reshape(m, T, 128)


def _read_graph(path):
    """The ONNX model in ``path`` (protobuf, parsed as data; no external data files are followed)."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        return onnx.load(str(path), load_external_data=False)
    except (DecodeError, ValueError, OSError) as err:
        raise InputError(f"{path}: not a readable ONNX model ({err})") from None


def initializers(path=None) -> dict[str, torch.Tensor]:
    """The network's weights from the ONNX file's initializers, float64, each shape checked against the
    package's (the sizes are read from the protobuf's ``dims`` before any array is made).

    Raises:
        rnnaudit.gallery.NotInstalled: no path given and silero-vad not installed.
        rnnaudit.untrusted.InputError: not an ONNX model, larger than the gallery's limit, or an initializer missing,
            of another shape, stored as external data, shorter than its shape or not finite (names file and tensor).
    """
    from onnx import numpy_helper

    path = installed_file(DISTRIBUTION, WEIGHTS) if path is None else weight_file(path, "silero-vad ONNX model")
    found = {i.name: i for i in _read_graph(path).graph.initializer}
    state = {}
    for k, shape in _SHAPES.items():
        init = found.get(k)
        if init is None or tuple(init.dims) != shape or init.data_type not in (_FLOAT, _DOUBLE):
            got = f"type {init.data_type} {tuple(init.dims)}" if init is not None else "nothing"
            raise InputError(f"{path}: initializer {k} is {got}, expected a float tensor {shape}")
        if init.data_location == _EXTERNAL or len(init.external_data):
            # the file names another file to read its values from: never followed (a path may name any file)
            raise InputError(f"{path}: initializer {k} is stored as external data; expected its values inside the "
                             "file, as the package ships it")
        try:
            array = numpy_helper.to_array(init)
        except ValueError as err:  # raw_data shorter or longer than its dims
            raise InputError(f"{path}: initializer {k} holds data that does not fill its shape {shape} "
                             f"({' '.join(str(err).split())[:120]})") from None
        if not np.isfinite(array).all():
            raise InputError(f"{path}: initializer {k} has non-finite entries (NaN or inf); expected silero-vad's "
                             "trained weights")
        state[k] = torch.from_numpy(array.astype(np.float64))
    return state


def load(path=None) -> tuple[Encoder, nn.LSTM, nn.Conv1d]:
    """The encoder, the recurrence as ``nn.LSTM(128, 128, batch_first=True)`` (the cell's weights, unchanged:
    the ONNX file stores torch's LSTMCell layout, gates [i | f | g | o]) and the output convolution, float64.

    Args:
        path: the ONNX file (default: the installed package's ``silero_vad_16k_op15.onnx``).

    Raises:
        rnnaudit.gallery.NotInstalled: no path given and silero-vad not installed.
        rnnaudit.untrusted.InputError: not an ONNX model, or an initializer missing or of another shape.
    """
    state = initializers(path)
    encoder = Encoder().double()
    conv = {f"conv{i + 1}.{k}": state[f"model.encoder.{i}.reparam_conv.{k}"]
            for i in range(4) for k in ("weight", "bias")}
    encoder.load_state_dict({"stft_conv.weight": state["model.stft.forward_basis_buffer"], **conv})
    lstm = nn.LSTM(128, 128, batch_first=True).double()
    lstm.load_state_dict({f"{k}_l0": state[f"model.decoder.rnn.{k}"] for k in ("weight_ih", "weight_hh", "bias_ih",
                                                                              "bias_hh")})
    out = nn.Conv1d(128, 1, 1).double()
    out.load_state_dict({"weight": state["model.decoder.decoder.2.weight"],
                         "bias": state["model.decoder.decoder.2.bias"]})
    return encoder, lstm, out


def voiced_signal(seconds: float = 2.0, seed: int = 0) -> torch.Tensor:
    """A synthetic 16 kHz signal, float64 (samples,): noise, then a vowel-like harmonic tone (f0 = 140 Hz with
    formant-shaped harmonics, a 4 Hz syllable envelope) from 25 % to 75 % of the duration, then noise.

    Raises:
        ValueError: seconds not a finite number giving at least one sample."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or int(seconds * SAMPLE_RATE) < 1:
        raise ValueError(f"seconds must be a finite duration of at least one sample (1/{SAMPLE_RATE} s), "
                         f"got {seconds!r}")
    gen = torch.Generator().manual_seed(seed)
    n = int(seconds * SAMPLE_RATE)
    t = torch.arange(n, dtype=torch.float64) / SAMPLE_RATE
    f0 = 140.0
    tone = sum(math.exp(-((k * f0 - 700.0) / 400.0) ** 2) * torch.sin(2 * math.pi * k * f0 * t) / k
               for k in range(1, 30))
    envelope = (0.55 - 0.45 * torch.cos(2 * math.pi * 4.0 * t)) * ((t > 0.25 * seconds) & (t < 0.75 * seconds))
    return 0.3 * envelope * tone + 0.003 * torch.randn(n, generator=gen, dtype=torch.float64)


def chunks(signal: torch.Tensor) -> torch.Tensor:
    """The model's chunks of ``signal`` (samples,): (1, T, 576), each 512 new samples after the previous
    chunk's last 64 (zeros before the first), T = samples // 512."""
    T = signal.numel() // CHUNK
    padded = torch.cat([signal.new_zeros(CONTEXT), signal[: T * CHUNK]])
    return padded.unfold(0, CHUNK + CONTEXT, CHUNK)[None]


def _as_float64(graph) -> None:
    """Turn every float32 tensor of ``graph`` and its subgraphs into float64: initializers, constants,
    declared input/output types, and ``Cast`` to float32 (which would round the float64 values back)."""
    import onnx
    from onnx import numpy_helper

    def widened(t):
        return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name)

    for init in graph.initializer:
        if init.data_type == _FLOAT:
            init.CopyFrom(widened(init))
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.type.tensor_type.elem_type == _FLOAT:
            value.type.tensor_type.elem_type = _DOUBLE
    for node in graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == _FLOAT:
                a.t.CopyFrom(widened(a.t))
            elif a.type == onnx.AttributeProto.GRAPH:
                _as_float64(a.g)
            elif node.op_type == "Cast" and a.name == "to" and a.i == _FLOAT:
                a.i = _DOUBLE


def package_forward(x: torch.Tensor) -> dict[str, np.ndarray]:
    """silero-vad's own ONNX graph (the file :func:`load` reads) in float64 on chunks x (1, T, 576), one call per
    chunk as the package's ``OnnxWrapper`` makes them, from a zero state: {"speech_probs" (T,),
    "state" (2, 1, 128): the final (h, c)}.

    The graph is read with ``onnx.load`` (protobuf, data), set to float64 (:func:`_as_float64`), and evaluated
    by :class:`onnx.reference.ReferenceEvaluator` (NumPy implementations of the operators).

    Raises:
        rnnaudit.gallery.NotInstalled: silero-vad not installed. ImportError: onnx not installed.
    """
    from onnx.reference import ReferenceEvaluator

    model = _read_graph(installed_file(DISTRIBUTION, WEIGHTS))
    _as_float64(model.graph)
    run = ReferenceEvaluator(model)
    state, probs = np.zeros((2, 1, 128)), []
    for t in range(x.shape[1]):
        out, state = run.run(None, {"input": x[0, t:t + 1].numpy(), "state": state,
                                    "sr": np.array(SAMPLE_RATE, dtype=np.int64)})
        probs.append(np.asarray(out).reshape(-1)[0])
    return {"speech_probs": np.array(probs), "state": np.asarray(state)}


def extract(seconds: float = 2.0) -> GalleryModel:
    """silero-vad's LSTM, its inputs for :func:`voiced_signal` (T = 62 chunks for 2 s), and the max difference of
    the speech probabilities and final (h, c) from :func:`package_forward`."""
    import importlib.metadata

    encoder, lstm, out = load()
    x_audio = chunks(voiced_signal(seconds))
    with torch.no_grad():
        x = encoder(x_audio)
        states, (hn, cn) = lstm(x)
        probs = torch.sigmoid(out(torch.relu(states).transpose(1, 2)))[0, 0]
    theirs = package_forward(x_audio)
    error = max(float(np.abs(probs.numpy() - theirs["speech_probs"]).max()),
                float(np.abs(torch.cat([hn, cn]).numpy() - theirs["state"]).max()))
    return GalleryModel(DISTRIBUTION, importlib.metadata.version(DISTRIBUTION), lstm, x,
                        installed_file(DISTRIBUTION, WEIGHTS), "MIT", error,
                        f"the speech probabilities of all {x.shape[1]} chunks and the final (h, c)",
                        "voice activity detector, nn.LSTMCell(128, 128), "
                        f"on {seconds:g} s of a synthetic voiced signal "
                        "(chunks through its own encoder)", {"speech_probs": probs.numpy()})
