"""Loaders for the real data sets of the experiments, read from files already on disk.

Nothing here downloads: every loader takes a directory, and a missing file is a
``FileNotFoundError`` that names the directory and every expected file. Malformed content is a
``ValueError`` that names the file.

- Sequential / permuted MNIST (srnn.md Sec. 4 "Permuted Sequential MNIST"): LeCun's idx files.
- UCI HAR, 9 inertial channels, T = 128, and its binary version HAR-2 (sgornn.md Sec. 3.2).
- Penn Treebank, word level (sgornn.md Sec. 3.3; nc_gru.md Sec. 4.6) and character level
  (enrnn.md Sec. 5.4; nc_gru.md Sec. 4.5), in Mikolov's text format.
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

__all__ = ["read_idx", "load_mnist", "mnist_permutation", "sequential_mnist", "MNIST_FILES",
           "HAR_SIGNALS", "HAR_ACTIVITIES", "HAR2_POSITIVE", "load_har", "load_har_splits", "channel_stats",
           "standardize", "TextCorpus", "load_ptb_word", "load_ptb_char", "PTB_WORD_FILES", "PTB_CHAR_FILES",
           "batchify", "bptt_windows"]


def _require_files(directory: str | Path, names: dict[str, str], what: str, *,
                   allow_gz: bool = False) -> dict[str, Path]:
    """Map each key of ``names`` to an existing file in ``directory`` (``name`` or ``name.gz``).

    Raises:
        FileNotFoundError: naming the directory and all expected files that are absent.
    """
    directory = Path(directory)
    found, missing = {}, []
    for key, name in names.items():
        candidates = [directory / name] + ([directory / (name + ".gz")] if allow_gz else [])
        hit = next((c for c in candidates if c.is_file()), None)
        if hit is None:
            missing.append(name + (" (or .gz)" if allow_gz else ""))
        else:
            found[key] = hit
    if missing:
        raise FileNotFoundError(f"{what}: {len(missing)} expected file(s) missing in {str(directory)!r}: "
                                f"{', '.join(missing)}. Expected: {', '.join(names.values())}. "
                                f"This package never downloads; place the files there first.")
    return found


# --------------------------------------------------------------------------------------------- MNIST

#: split -> (images file, labels file), the names on LeCun's page (optionally gzip-compressed).
MNIST_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}

# idx type byte -> big-endian numpy dtype (http://yann.lecun.com/exdb/mnist/, "THE IDX FILE FORMAT").
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | Path) -> Tensor:
    """Read one idx file (optionally gzip-compressed, detected from its first two bytes).

    Layout: two zero bytes, a type byte (0x08 ubyte, 0x09 byte, 0x0B short, 0x0C int, 0x0D float,
    0x0E double), the number of dimensions d, d big-endian uint32 sizes, then the data, big-endian,
    row-major. So MNIST images have magic 2051 = 0x00000803 and labels 2049 = 0x00000801.

    Returns:
        a tensor of the stored shape; dtype uint8, int8, int16, int32, float32 or float64.

    Raises:
        FileNotFoundError: no such file.
        ValueError: bad magic number, unknown type byte, a data size that does not match the header, or
            gzip data that is truncated, corrupt or decompresses to more than :data:`MAX_IDX_BYTES`.
    """
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(path, raw)
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an idx file (magic bytes {raw[:4].hex() or 'missing'}; expected "
                         f"00 00 <type in {sorted(hex(t) for t in _IDX_TYPES)}> <ndim>)")
    dtype, ndim = np.dtype(_IDX_TYPES[raw[2]]), raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: truncated idx header ({len(raw)} bytes, need {header})")
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    expected = header + math.prod(shape) * dtype.itemsize
    if len(raw) != expected:
        raise ValueError(f"{path}: idx header says shape {shape} ({expected} bytes) but the file has {len(raw)} bytes")
    data = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return torch.from_numpy(data.astype(dtype.newbyteorder("="), copy=True))


#: Largest decompressed idx file read (MNIST's training images are 47 MB): a small .gz cannot expand
#: into gigabytes.
MAX_IDX_BYTES = 2**30


def _gunzip(path: Path, raw: bytes) -> bytes:
    """The decompressed bytes of a .gz file, at most :data:`MAX_IDX_BYTES`.

    Raises:
        ValueError: truncated or corrupt data, or more than the limit (names the file).
    """
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as fh:
            out = fh.read(MAX_IDX_BYTES + 1)
    except (EOFError, OSError, zlib.error) as err:
        raise ValueError(f"{path}: truncated or corrupt gzip data ({type(err).__name__}: {err})") from None
    if len(out) > MAX_IDX_BYTES:
        raise ValueError(f"{path}: decompresses to more than {MAX_IDX_BYTES} bytes, far more than an idx file of "
                         "MNIST holds")
    return out


def load_mnist(root: str | Path, split: str = "train") -> tuple[Tensor, Tensor]:
    """MNIST images and labels from the standard idx files in ``root``.

    Args:
        root: directory holding the files of :data:`MNIST_FILES` (plain or ``.gz``).
        split: ``"train"`` (60,000 in the real data) or ``"test"`` (10,000).

    Returns:
        images (N, H, W) uint8 (28 × 28 for MNIST) and labels (N,) int64 in 0..9.

    Raises:
        ValueError: unknown split; wrong magic numbers (2051 images, 2049 labels); counts that differ;
            no images (or images of 0 pixels); labels outside 0..9; a truncated or corrupt .gz.
        FileNotFoundError: a file is missing (all expected names are listed).
    """
    if split not in MNIST_FILES:
        raise ValueError(f"split must be one of {sorted(MNIST_FILES)}, got {split!r}")
    img_name, lbl_name = MNIST_FILES[split]
    files = _require_files(root, {"images": img_name, "labels": lbl_name}, f"MNIST {split}", allow_gz=True)
    images, labels = read_idx(files["images"]), read_idx(files["labels"])
    if images.dtype != torch.uint8 or images.dim() != 3:
        raise ValueError(f"{files['images']}: expected unsigned-byte images with 3 dimensions (magic 2051), "
                         f"got dtype {images.dtype} and shape {tuple(images.shape)}")
    if labels.dtype != torch.uint8 or labels.dim() != 1:
        raise ValueError(f"{files['labels']}: expected unsigned-byte labels with 1 dimension (magic 2049), "
                         f"got dtype {labels.dtype} and shape {tuple(labels.shape)}")
    if images.shape[0] != labels.shape[0]:
        raise ValueError(f"MNIST {split}: {images.shape[0]} images but {labels.shape[0]} labels")
    if images.shape[0] == 0 or images.shape[1] == 0 or images.shape[2] == 0:
        raise ValueError(f"{files['images']}: holds no images (shape {tuple(images.shape)}); expected N ≥ 1 images "
                         "of H × W ≥ 1 pixels")
    if labels.numel() and int(labels.max()) > 9:
        raise ValueError(f"{files['labels']}: labels must be digits 0..9, found {int(labels.max())}")
    return images, labels.to(torch.int64)


def mnist_permutation(seed: int, length: int = 784) -> Tensor:
    """The fixed pixel permutation of permuted MNIST (srnn.md Sec. 4: "a fixed permutation matrix is
    applied on each of the vectors"), as ``torch.randperm(length)`` from a generator seeded with ``seed``.

    The same seed gives the same permutation (on the CPU generator of a given torch version).

    Returns:
        (length,) int64 permutation of 0..length−1.

    Raises:
        ValueError: length < 1.
    """
    if length < 1:
        raise ValueError(f"length must be >= 1, got {length}")
    return torch.randperm(length, generator=torch.Generator().manual_seed(int(seed)))


def sequential_mnist(root: str | Path, split: str = "train", *, permute: bool = False, seed: int = 0,
                     permutation: Tensor | None = None, dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """Pixel-by-pixel MNIST, optionally permuted (srnn.md Sec. 4; sequence length 784).

    Each image is flattened row-major into a sequence of H·W scalar inputs scaled to [0, 1]
    (pixel / 255); with ``permute`` the same permutation reorders the time steps of every image,
    x_perm[:, t] = x[:, perm[t]]. Train and test must use the same ``seed`` (or ``permutation``).

    Args:
        root: directory of the idx files. split: ``"train"`` or ``"test"``.
        permute: apply the fixed permutation. seed: seeds :func:`mnist_permutation`.
        permutation: an explicit (H·W,) permutation instead of the seeded one (implies ``permute``).
        dtype: float dtype of x (default dtype if None).

    Returns:
        x (N, H·W, 1) float, y (N,) int64.

    Raises:
        ValueError: as :func:`load_mnist`; a permutation of the wrong length or not a permutation.
        FileNotFoundError: missing idx files.
    """
    images, labels = load_mnist(root, split)
    dtype = dtype or torch.get_default_dtype()
    n, length = images.shape[0], images.shape[1] * images.shape[2]
    x = images.reshape(n, length).to(dtype).div_(255.0)
    if permutation is not None or permute:
        perm = mnist_permutation(seed, length) if permutation is None else permutation.to(torch.int64).cpu()
        if perm.shape != (length,) or not torch.equal(perm.sort().values, torch.arange(length)):
            raise ValueError(f"permutation must be a permutation of 0..{length - 1}, got shape {tuple(perm.shape)}")
        x = x[:, perm]
    return x.unsqueeze(-1), labels


# ----------------------------------------------------------------------------------------------- HAR

#: The 9 inertial channels, in the order of EdgeML's HAR reader (the FastRNN code base), each a file
#: ``<split>/Inertial Signals/<name>_<split>.txt`` of 128 readings per row.
HAR_SIGNALS = ("body_acc_x", "body_acc_y", "body_acc_z", "body_gyro_x", "body_gyro_y", "body_gyro_z",
               "total_acc_x", "total_acc_y", "total_acc_z")
#: The activities of ``activity_labels.txt``; label l in ``y_<split>.txt`` is HAR_ACTIVITIES[l − 1].
HAR_ACTIVITIES = ("WALKING", "WALKING_UPSTAIRS", "WALKING_DOWNSTAIRS", "SITTING", "STANDING", "LAYING")
#: HAR-2 class 1 (FastGRNN, Kusupati et al. 2018, dataset description, also on the EdgeML FastGRNN
#: page: "The classes {Sitting, Laying, Walking_Upstairs} and {Standing, Walking, Walking_Downstairs}
#: were merged to obtain the two classes"). These are the even labels 2, 4, 6, so the HAR-2 label
#: is (l − 1) mod 2 for the 1-based label l. Class 0 is {WALKING, WALKING_DOWNSTAIRS, STANDING}.
HAR2_POSITIVE = ("WALKING_UPSTAIRS", "SITTING", "LAYING")
_HAR_T = 128
_HAR_LABELS = ("har2", "har6", "dynamic")


def _har_dir(root: Path) -> Path:
    # Accept the "UCI HAR Dataset" folder itself or the folder the zip was extracted into.
    nested = root / "UCI HAR Dataset"
    return nested if not (root / "train").is_dir() and nested.is_dir() else root


def _read_table(path: Path, width: int | None) -> np.ndarray:
    """Whitespace-separated numbers, one row per non-empty line, as float64 (rows, width)."""
    lines = [ln for ln in path.read_text().splitlines() if ln.strip()]
    try:
        values = np.array(" ".join(lines).split(), dtype=np.float64)
    except ValueError as err:
        raise ValueError(f"{path}: non-numeric entry ({err})") from None
    cols = width if width is not None else 1
    if values.size != len(lines) * cols:
        raise ValueError(f"{path}: expected {cols} value(s) on each of its {len(lines)} rows, "
                         f"found {values.size} values in total")
    return values.reshape(len(lines), cols)


def load_har(root: str | Path, split: str = "train", *, labels: str = "har2",
             dtype: torch.dtype | None = None) -> tuple[Tensor, Tensor]:
    """UCI HAR raw inertial windows (sgornn.md Sec. 3.2: 9-dimensional sequences of length T = 128,
    7,352 training and 2,947 test instances in the real data).

    Expected layout (the official zip): ``root/[UCI HAR Dataset/]<split>/Inertial Signals/<signal>_<split>.txt``
    for each of :data:`HAR_SIGNALS` and ``<split>/y_<split>.txt`` with labels 1..6.

    Args:
        root: the ``UCI HAR Dataset`` directory or its parent.
        split: ``"train"`` or ``"test"``.
        labels: ``"har2"`` (default): HAR-2 as FastGRNN/EdgeML binarize it, 1 for
            :data:`HAR2_POSITIVE`, 0 otherwise; ``"har6"``: the activity index 0..5;
            ``"dynamic"``: 1 for the three walking activities, 0 for sitting/standing/laying (a
            different, motion-vs-posture split; not the one FastGRNN used).
        dtype: float dtype of x (default dtype if None). Raw values, not standardized; see
            :func:`load_har_splits`.

    Returns:
        x (N, 128, 9) float with channels in :data:`HAR_SIGNALS` order, y (N,) int64.

    Raises:
        ValueError: unknown split/labels, rows that are not 128 wide, row counts that differ
            between files, labels outside 1..6.
        FileNotFoundError: missing files (all expected names are listed).
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if labels not in _HAR_LABELS:
        raise ValueError(f"labels must be one of {_HAR_LABELS}, got {labels!r}")
    base = _har_dir(Path(root))
    names = {s: f"Inertial Signals/{s}_{split}.txt" for s in HAR_SIGNALS}
    names["y"] = f"y_{split}.txt"
    files = _require_files(base / split, names, f"UCI HAR {split} (root {str(root)!r})")
    y = _read_table(files["y"], None)[:, 0]
    if y.size and (np.any(y != np.round(y)) or y.min() < 1 or y.max() > 6):
        raise ValueError(f"{files['y']}: labels must be integers 1..6, found values in [{y.min()}, {y.max()}]")
    channels = []
    for s in HAR_SIGNALS:
        table = _read_table(files[s], _HAR_T)
        if table.shape[0] != y.size:
            raise ValueError(f"{files[s]}: {table.shape[0]} rows but {files['y']} has {y.size} labels")
        channels.append(table)
    x = torch.from_numpy(np.stack(channels, axis=-1)).to(dtype or torch.get_default_dtype())
    y6 = torch.from_numpy(y.astype(np.int64) - 1)
    if labels == "har6":
        return x, y6
    if labels == "har2":
        return x, y6 % 2
    return x, (y6 <= 2).to(torch.int64)


def channel_stats(x: Tensor) -> tuple[Tensor, Tensor]:
    """Per-channel mean and (population) standard deviation over all sequences and time steps.

    Args:
        x: (N, T, C).

    Returns:
        mean (C,), std (C,), dtype of x.

    Raises:
        ValueError: x not 3-D or empty.
    """
    if x.dim() != 3 or x.shape[0] * x.shape[1] == 0:
        raise ValueError(f"x must be a non-empty (N, T, C) tensor, got shape {tuple(x.shape)}")
    flat = x.reshape(-1, x.shape[-1])
    return flat.mean(dim=0), flat.std(dim=0, correction=0)


def standardize(x: Tensor, mean: Tensor, std: Tensor) -> Tensor:
    """(x − mean) / std per channel (last dimension); a zero std leaves that channel centred only.

    Raises:
        ValueError: mean/std not of shape (C,) for x of width C.
    """
    c = x.shape[-1]
    if mean.shape != (c,) or std.shape != (c,):
        raise ValueError(f"mean and std must have shape ({c},), got {tuple(mean.shape)} and {tuple(std.shape)}")
    return (x - mean) / torch.where(std > 0, std, torch.ones_like(std))


def load_har_splits(root: str | Path, *, labels: str = "har2", normalize: bool = True,
                    dtype: torch.dtype | None = None) -> dict[str, tuple[Tensor, Tensor]]:
    """Train and test HAR sets, standardized with the training set's per-channel statistics
    (FastGRNN: "zero mean - unit variance normalized during training and prediction"; EdgeML's
    HAR reader computes one mean and std per channel over all training windows and steps).

    Returns:
        {"train": (x, y), "test": (x, y)} as :func:`load_har`.

    Raises:
        as :func:`load_har`.
    """
    train, test = (load_har(root, s, labels=labels, dtype=dtype) for s in ("train", "test"))
    if normalize:
        mean, std = channel_stats(train[0])
        train, test = ((standardize(x, mean, std), y) for x, y in (train, test))
    return {"train": train, "test": test}


# ----------------------------------------------------------------------------------------------- PTB

#: Mikolov's word-level PTB files (10k vocabulary, rare words already <unk>).
PTB_WORD_FILES = {"train": "ptb.train.txt", "valid": "ptb.valid.txt", "test": "ptb.test.txt"}
#: The character-level files: one sentence per line, characters separated by spaces, "_" between words.
PTB_CHAR_FILES = {"train": "ptb.char.train.txt", "valid": "ptb.char.valid.txt", "test": "ptb.char.test.txt"}
EOS = "<eos>"
UNK = "<unk>"


@dataclass
class TextCorpus:
    """A tokenized corpus.

    Attributes:
        train, valid, test: 1-D int64 token-id streams.
        vocab: id -> token. stoi: token -> id.
    """

    train: Tensor
    valid: Tensor
    test: Tensor
    vocab: list[str]
    stoi: dict[str, int]

    @property
    def vocab_size(self) -> int:
        """Number of distinct tokens."""
        return len(self.vocab)


def _tokenize(path: Path) -> list[str]:
    # Each line is split on whitespace and closed by <eos> (sgornn.md Sec. 3.3: "Newline characters
    # are replaced with <eos> tokens"); the same rule as PyTorch's word_language_model example.
    tokens = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            tokens.extend(line.split())
            tokens.append(EOS)
    return tokens


def _load_ptb(root: str | Path, names: dict[str, str], what: str) -> TextCorpus:
    files = _require_files(root, names, what)
    train_tokens = _tokenize(files["train"])
    stoi: dict[str, int] = {}
    for tok in train_tokens:
        stoi.setdefault(tok, len(stoi))
    vocab = list(stoi)

    def encode(tokens: list[str], path: Path) -> Tensor:
        unk = stoi.get(UNK)
        ids = []
        for tok in tokens:
            idx = stoi.get(tok, unk)
            if idx is None:
                raise ValueError(f"{path}: token {tok!r} is not in the training vocabulary and the "
                                 f"vocabulary has no {UNK!r} to map it to")
            ids.append(idx)
        return torch.tensor(ids, dtype=torch.int64)

    return TextCorpus(encode(train_tokens, files["train"]), encode(_tokenize(files["valid"]), files["valid"]),
                      encode(_tokenize(files["test"]), files["test"]), vocab, stoi)


def load_ptb_word(root: str | Path) -> TextCorpus:
    """Word-level Penn Treebank (sgornn.md Sec. 3.3: ~929k/74k/83k tokens, 10k vocabulary,
    newlines as <eos>).

    Tokens are whitespace-separated words; every line ends with ``<eos>``. The vocabulary is built
    from the training file in order of first occurrence; a valid/test word missing from it maps to
    ``<unk>`` (the released files have none).

    Args:
        root: directory with :data:`PTB_WORD_FILES`.

    Returns:
        a :class:`TextCorpus`.

    Raises:
        FileNotFoundError: missing files (all listed). ValueError: an out-of-vocabulary token with
        no ``<unk>`` in the vocabulary.
    """
    return _load_ptb(root, PTB_WORD_FILES, "PTB word level")


def load_ptb_char(root: str | Path) -> TextCorpus:
    """Character-level Penn Treebank (enrnn.md Sec. 5.4, nc_gru.md Sec. 4.5: ~5.1M/400k/450k
    characters, alphabet of about 50).

    The files hold one sentence per line with characters separated by spaces and ``_`` for the
    space between words; tokens are those characters (``_`` included) and every line ends with
    ``<eos>``, as for the word level. Vocabulary order: first occurrence in the training file.

    Args:
        root: directory with :data:`PTB_CHAR_FILES`.

    Returns:
        a :class:`TextCorpus`.

    Raises:
        FileNotFoundError: missing files (all listed). ValueError: a valid/test character not seen
        in training.
    """
    return _load_ptb(root, PTB_CHAR_FILES, "PTB character level")


def batchify(tokens: Tensor, batch: int) -> Tensor:
    """Cut a 1-D token stream into ``batch`` contiguous streams, batch-first.

    Row b is tokens[b·L : (b+1)·L] with L = N // batch; the last N mod batch tokens are dropped
    (the transpose of PyTorch's word_language_model ``batchify``).

    Returns:
        (batch, L) tensor, same dtype and device as ``tokens``.

    Raises:
        ValueError: tokens not 1-D, batch < 1, or fewer tokens than ``batch``.
    """
    if tokens.dim() != 1:
        raise ValueError(f"tokens must be 1-D, got shape {tuple(tokens.shape)}")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    length = tokens.numel() // batch
    if length == 0:
        raise ValueError(f"need at least batch = {batch} tokens, got {tokens.numel()}")
    return tokens[: batch * length].reshape(batch, length)


def bptt_windows(streams: Tensor, T: int) -> list[tuple[Tensor, Tensor]]:
    """Truncated-BPTT windows over batch-first streams for next-token prediction.

    Window i covers columns [i·T, i·T + T') with T' = min(T, L − 1 − i·T): inputs
    x = streams[:, s : s + T'] and targets y = streams[:, s + 1 : s + 1 + T'] (the input shifted
    by one step). Consecutive windows continue each other, so a hidden state may be carried
    across them (enrnn.md Sec. 5.4).

    Returns:
        list of (x, y) pairs, each (batch, T') views of ``streams``.

    Raises:
        ValueError: streams not 2-D, T < 1, or fewer than 2 columns.
    """
    if streams.dim() != 2:
        raise ValueError(f"streams must be (batch, L), got shape {tuple(streams.shape)}")
    if T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    L = streams.shape[1]
    if L < 2:
        raise ValueError(f"streams need at least 2 columns for one (input, target) step, got {L}")
    return [(streams[:, s: s + min(T, L - 1 - s)], streams[:, s + 1: s + 1 + min(T, L - 1 - s)])
            for s in range(0, L - 1, T)]
