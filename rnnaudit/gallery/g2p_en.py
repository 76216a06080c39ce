"""The encoder GRU of g2p-en (Park & Kim, English grapheme-to-phoneme), read from its ``checkpoint20.npz``.

g2p-en runs its seq2seq model in NumPy (``g2p_en/g2p.py``: ``G2p.grucell``, ``G2p.gru``); the encoder is a
GRU(256, 256) over the embeddings (29, 256) of a word's letters followed by ``</s>``. Its weights use
torch's GRU layout (rows [r | z | n], ``n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))``), so they load into
``torch.nn.GRU`` unchanged. The package's import runs ``nltk.download`` when nltk's data is missing, so it
is never imported: the file is found through the package metadata, read with
``numpy.load(allow_pickle=False)``, and the package's own ``grucell`` is taken from its installed source
(:func:`package_grucell`) to check ours against.

Licence of the weights: Apache-2.0 (the package's LICENSE.txt and its metadata).
"""

from __future__ import annotations

import ast
import math
import warnings
import zipfile

import numpy as np
import torch

from rnnaudit.gallery.installed import GalleryModel, installed_file, weight_file
from rnnaudit.untrusted import InputError

__all__ = ["DISTRIBUTION", "GRAPHEMES", "WORD", "load_encoder", "letter_inputs", "package_grucell",
           "package_encoder", "extract"]

DISTRIBUTION = "g2p-en"
#: the package's grapheme table (g2p_en/g2p.py, ``G2p.__init__``): index 2 is ``</s>``, 1 is ``<unk>``
GRAPHEMES = ["<pad>", "<unk>", "</s>"] + list("abcdefghijklmnopqrstuvwxyz")
#: the default word: 45 letters and ``</s>``, T = 46, the length the first audit of this GRU used
WORD = "pneumonoultramicroscopicsilicovolcanoconiosis"
_SHAPES = {"enc_emb": (29, 256), "enc_w_ih": (768, 256), "enc_w_hh": (768, 256), "enc_b_ih": (768,),
           "enc_b_hh": (768,)}


def _check_headers(path) -> None:
    """Each encoder array's ``.npy`` header (shape, dtype) checked against the package's shapes, and the bytes it
    claims against the archive member's size, before numpy allocates anything: a header may claim 2⁴⁰ elements.

    Raises:
        InputError: a member missing, a header of another shape or dtype, or claiming more bytes than it holds.
        ValueError, OSError, zipfile.BadZipFile, EOFError: not a zip of ``.npy`` files (the caller words them).
    """
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: info for info in archive.infolist()}
        for k, shape in _SHAPES.items():
            info = members.get(f"{k}.npy")
            if info is None:
                continue  # named by the caller, with the list of expected arrays
            with archive.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version not in ((1, 0), (2, 0)):
                    raise InputError(f"{path}: {k} is an .npy file of version {version}, expected 1.0 or 2.0")
                read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                claimed, _, dtype = read(fh)
            if tuple(claimed) != shape or dtype.kind != "f":
                raise InputError(f"{path}: {k} is {dtype} {tuple(claimed)}, expected floating {shape}")
            if math.prod(shape) * dtype.itemsize > info.file_size:
                raise InputError(f"{path}: {k} claims {math.prod(shape) * dtype.itemsize} bytes, but its member of "
                                 f"the archive holds {info.file_size}")


def _arrays(path) -> dict[str, np.ndarray]:
    """The encoder's arrays of the npz file as float64, each shape checked against the package's (from the ``.npy``
    headers, before anything is allocated), the file's size against the gallery's limit."""
    path = weight_file(path, "g2p-en checkpoint")
    try:
        _check_headers(path)
        with np.load(path, allow_pickle=False) as npz:
            missing = sorted(set(_SHAPES) - set(npz.files))
            if missing:
                raise InputError(f"{path}: no array {missing[0]!r}; expected g2p-en's checkpoint with "
                                 f"{sorted(_SHAPES)}")
            out = {k: npz[k] for k in _SHAPES}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as err:
        if isinstance(err, InputError):
            raise
        raise InputError(f"{path}: not a readable npz of plain arrays ({err})") from None
    for k, shape in _SHAPES.items():
        if out[k].shape != shape or out[k].dtype.kind != "f":
            raise InputError(f"{path}: {k} is {out[k].dtype} {out[k].shape}, expected floating {shape}")
        if not np.isfinite(out[k]).all():
            raise InputError(f"{path}: {k} has non-finite entries (NaN or inf); expected g2p-en's trained weights")
    return {k: v.astype(np.float64) for k, v in out.items()}


def load_encoder(path=None) -> tuple[torch.nn.GRU, torch.Tensor]:
    """The encoder as ``nn.GRU(256, 256, batch_first=True)`` in float64, and the letter embedding (29, 256).

    Args:
        path: the npz file (default: the installed package's ``g2p_en/checkpoint20.npz``).

    Raises:
        rnnaudit.gallery.NotInstalled: no path given and g2p-en not installed.
        rnnaudit.untrusted.InputError: not an npz of plain arrays, or an array missing or of another shape.
    """
    arrays = _arrays(installed_file(DISTRIBUTION, "g2p_en/checkpoint20.npz") if path is None else path)
    gru = torch.nn.GRU(256, 256, batch_first=True).double()
    with torch.no_grad():
        for ours, theirs in (("weight_ih_l0", "enc_w_ih"), ("weight_hh_l0", "enc_w_hh"), ("bias_ih_l0", "enc_b_ih"),
                             ("bias_hh_l0", "enc_b_hh")):
            getattr(gru, ours).copy_(torch.from_numpy(arrays[theirs]))
    return gru, torch.from_numpy(arrays["enc_emb"])


def letter_inputs(embedding: torch.Tensor, word: str = WORD) -> torch.Tensor:
    """The encoder's input for ``word``: the embedding rows of its letters, then ``</s>`` (g2p_en/g2p.py,
    ``G2p.encode``; a character outside a–z is ``<unk>``), shape (1, len(word) + 1, 256)."""
    index = {g: i for i, g in enumerate(GRAPHEMES)}
    ids = [index.get(ch, index["<unk>"]) for ch in word] + [index["</s>"]]
    return embedding[torch.tensor(ids)][None]


def package_grucell():
    """g2p-en's own ``G2p.grucell``, compiled from its installed ``g2p_en/g2p.py`` alone.

    The module's top level (the nltk import and download) is not run: the two methods ``sigmoid`` and
    ``grucell`` are taken out of the class by :mod:`ast` and compiled with only NumPy in scope. They are
    dtype-generic, so they run in float64 (``G2p.gru`` is not used: it stores its outputs in float32).

    Returns:
        grucell(x (b, 256), h (b, 256), w_ih, w_hh, b_ih, b_hh) -> h' (b, 256), NumPy.

    Raises:
        rnnaudit.gallery.NotInstalled: g2p-en not installed. LookupError: its source no longer defines them.
    """
    source = installed_file(DISTRIBUTION, "g2p_en/g2p.py").read_text(encoding="utf-8")
    with warnings.catch_warnings():  # its regular expressions hold "\-" in plain strings: not ours to warn about
        warnings.simplefilter("ignore", (DeprecationWarning, SyntaxWarning))
        tree = ast.parse(source)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "G2p"] or [None]
    methods = {n.name: n for n in getattr(cls, "body", ()) if isinstance(n, ast.FunctionDef)}
    if not {"sigmoid", "grucell"} <= set(methods):
        raise LookupError("g2p_en/g2p.py no longer defines G2p.sigmoid and G2p.grucell")
    holder = ast.ClassDef(name="G2pForward", bases=[], keywords=[], decorator_list=[],
                          body=[methods["sigmoid"], methods["grucell"]])
    module = ast.fix_missing_locations(ast.Module(body=[holder], type_ignores=[]))
    namespace = {"np": np}
    exec(compile(module, "g2p_en/g2p.py", "exec"), namespace)  # the installed package's code, not a data file
    return namespace["G2pForward"]().grucell


def package_encoder(gru: torch.nn.GRU, x: torch.Tensor) -> np.ndarray:
    """The encoder's states (T, 256) for x (1, T, 256) by the package's own ``grucell`` in float64, from h_0 = 0."""
    cell = package_grucell()
    w = [getattr(gru, k).detach().numpy() for k in ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")]
    h = np.zeros((1, gru.hidden_size))
    states = []
    for t in range(x.shape[1]):
        h = cell(x[:, t].numpy(), h, *w)
        states.append(h[0])
    return np.stack(states)


def extract(word: str = WORD) -> GalleryModel:
    """g2p-en's encoder GRU, its inputs for ``word``, and the max difference of its states from the package's
    own ``grucell`` in float64 (:func:`package_encoder`)."""
    import importlib.metadata

    gru, embedding = load_encoder()
    x = letter_inputs(embedding, word)
    with torch.no_grad():
        ours = gru(x)[0][0].numpy()
    error = float(np.abs(ours - package_encoder(gru, x)).max())
    return GalleryModel(DISTRIBUTION, importlib.metadata.version(DISTRIBUTION), gru, x,
                        installed_file(DISTRIBUTION, "g2p_en/checkpoint20.npz"), "Apache-2.0", error,
                        f"encoder states h_1..h_{x.shape[1]}", "English grapheme-to-phoneme encoder, nn.GRU(256, 256), "
                        f"on the letter embeddings of {word!r}")
