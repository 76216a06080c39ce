"""Weights files as users hold them, read as data with their sizes checked first.

- safetensors (named ``.safetensors`` in any case, or recognised by its first bytes): the header (an 8-byte little-endian length, then that many bytes of JSON naming each
  tensor's dtype, shape and byte range) is parsed as data and checked (length within the file, every
  range inside the data section and of the size its dtype and shape say) before a byte of tensor data is
  read; then :func:`safetensors.torch.load_file` reads it (a format that holds tensors only).
- torch files (``torch.save``): the zip directory's record sizes are checked, then the file is read with
  ``weights_only=True`` (:func:`rnnaudit.untrusted.load_torch_file`), memory-mapped where torch can, and
  the shapes are checked before any tensor is used.

:func:`layout_of` then says what a state dict is: a stacked ``torch.nn.RNN``/``GRU``/``LSTM`` (``weight_ih_l0``),
a ``*Cell`` (``weight_ih``), or parametrized (``parametrizations.<name>.original``), with the sizes read
from the shapes alone.
"""

from __future__ import annotations

import json
import os
import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

from rnnaudit.limits import LIMITS, check_sizes
from rnnaudit.untrusted import InputError, require_file

__all__ = ["SAFETENSORS_DTYPES", "MAX_HEADER_BYTES", "is_safetensors", "safetensors_header", "read_weights_file", "Layout", "layout_of"]

#: safetensors dtype name → bytes per element (the format's own list)
SAFETENSORS_DTYPES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1,
                      "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "U16": 2, "U32": 4, "U64": 8}
#: the largest header accepted: the format's reference implementation refuses headers above 100 MB
MAX_HEADER_BYTES = 100_000_000
#: The safetensors names of complex dtypes: refused with the complex line (cells._validate.complex_refusal), not as
#: an unknown dtype.
_COMPLEX_DTYPES = {"C64": "complex64", "C128": "complex128"}


class _DuplicateKey(Exception):
    """A JSON object naming one key twice (json keeps the last silently)."""


def _unique_keys(pairs: list) -> dict:
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def is_safetensors(path: Path) -> bool:
    """Whether ``path`` is a safetensors file: named ``.safetensors`` in any case (``W.SAFETENSORS``), or, under
    another name, not a zip archive (a torch file is one) and starting as the format does (an 8-byte header
    length, then a JSON object's ``{``)."""
    if path.suffix.lower() == ".safetensors":
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(9)
    except OSError:
        return False
    return len(head) == 9 and head[8:9] == b"{" and not zipfile.is_zipfile(path)


def safetensors_header(path: str | os.PathLike) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The tensors a ``.safetensors`` file declares, name → (dtype, shape), from its header only.

    Raises:
        InputError: a header length beyond the file or :data:`MAX_HEADER_BYTES`, a header that is not a
            JSON object of well-formed entries, a tensor name given twice, an unknown dtype, a byte range outside the data section or
            of the wrong size for its dtype and shape (each names the file and the tensor).
    """
    p = require_file(path, "weights file")
    size = p.stat().st_size
    with open(p, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise InputError(f"{p}: not a safetensors file (shorter than its 8-byte header length)")
        (n,) = struct.unpack("<Q", head)
        if n < 2 or n > MAX_HEADER_BYTES or n > size - 8:
            raise InputError(f"{p}: not a safetensors file (header length {n} for a file of {size} bytes)")
        raw = fh.read(n)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
    except _DuplicateKey as dup:
        raise InputError(f"{p}: the safetensors header names {dup.args[0]!r} twice; a tensor name must be unique "
                         "(the file is damaged or was not written by a safetensors library)") from None
    except UnicodeDecodeError as err:
        raise InputError(f"{p}: the safetensors header is not UTF-8 text (byte {err.start + 8})") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{p}: the safetensors header is not JSON ({err.msg} at byte {err.pos + 8})") from None
    except RecursionError:
        raise InputError(f"{p}: the safetensors header nests its arrays or objects too deeply to be read") from None
    except ValueError:  # an integer of more digits than Python converts (4300 by default): no size is that long
        raise InputError(f"{p}: the safetensors header holds a number too long to be a size or offset") from None
    if not isinstance(header, dict):
        raise InputError(f"{p}: the safetensors header must be a JSON object, got {type(header).__name__}")
    data_bytes = size - 8 - n
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if not (isinstance(entry, dict) and isinstance(entry.get("dtype"), str) and isinstance(entry.get("shape"), list)
                and isinstance(entry.get("data_offsets"), list) and len(entry["data_offsets"]) == 2):
            raise InputError(f"{p}: tensor {name!r}: a header entry needs dtype, shape and data_offsets [begin, end]")
        dtype, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype in _COMPLEX_DTYPES:
            from rnnaudit.cells._validate import complex_refusal

            raise InputError(f"{p}: {complex_refusal(f'tensor {name!r}', _COMPLEX_DTYPES[dtype], 'in weights files')}")
        if dtype not in SAFETENSORS_DTYPES:
            raise InputError(f"{p}: tensor {name!r} has dtype {dtype!r}, not one of {sorted(SAFETENSORS_DTYPES)}")
        ints = [*shape, begin, end]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ints):
            raise InputError(f"{p}: tensor {name!r}: shape and data_offsets must be non-negative integers")
        numel = 1
        for d in shape:
            numel *= d
        if not begin <= end <= data_bytes or end - begin != numel * SAFETENSORS_DTYPES[dtype]:
            raise InputError(f"{p}: tensor {name!r}: bytes [{begin}, {end}) do not hold a {dtype} tensor of shape "
                             f"{tuple(shape)} inside the {data_bytes} data bytes")
        out[name] = (dtype, tuple(shape))
    return out


def _check_shapes(where: str, shapes: dict[str, tuple[int, ...]], allow_large: bool) -> None:
    """Every tensor within the element limit, and the widths a recurrent module would get within the hidden limit."""
    for name, shape in shapes.items():
        numel = 1
        for d in shape:
            numel *= d
        if numel:
            check_sizes(f"{where}: tensor {name!r}", allow_large=allow_large, elements=numel)
        for d in shape:
            if d > LIMITS.elements and not allow_large:  # a zero-size tensor may still claim a huge width
                check_sizes(f"{where}: tensor {name!r}", allow_large=allow_large, elements=d)
    # every prefix holding a recurrent module (a whole model's state dict), the top level included
    prefixes = {k[: -len(suffix)] for k in shapes for suffix in ("weight_ih_l0", "weight_ih")
                if k.endswith(suffix) and (len(k) == len(suffix) or k[-len(suffix) - 1] == ".")}
    for prefix in sorted(prefixes):
        sub = {k[len(prefix):]: v for k, v in shapes.items() if k.startswith(prefix)}
        layout = layout_of(sub, None, strict=False)
        if layout is not None:
            check_sizes(where, allow_large=allow_large, hidden=layout.hidden_size or None,
                        elements=layout.hidden_size * max(layout.input_size, 1) or None)


def _torch_file_records(p: Path) -> None:
    """The zip directory of a torch file: its records' sizes against the element limit (8 bytes each)."""
    if not zipfile.is_zipfile(p):
        return
    try:
        with zipfile.ZipFile(p) as z:
            total = sum(info.file_size for info in z.infolist())
    except (zipfile.BadZipFile, OSError) as err:
        raise InputError(f"{p}: the weights file is not a readable torch file ({err})") from None
    if total > 8 * LIMITS.elements * 4:  # four tensors at the element limit in float64
        raise InputError(f"{p}: the weights file's records hold {total} bytes, more than a recurrent model within the "
                         "size limits needs (pass --allow-large to lift the limits if you mean it)")


def read_weights_file(path: str | os.PathLike, *, allow_large: bool = False) -> dict:
    """The tensors of a weights file (``.safetensors`` or a torch file), sizes checked before loading.

    Returns:
        what the file holds (a state dict, or a torch file's checkpoint dict), tensors on the CPU.

    A safetensors file is recognised by its name in any case (``W.SAFETENSORS``) or by its first bytes
    (:func:`is_safetensors`). A torch file that ``weights_only=True`` refuses is named as a Lightning checkpoint
    where its pickle's bytes (searched, never unpickled) hold Lightning's version key.

    Raises:
        InputError: as :func:`safetensors_header` and :func:`rnnaudit.untrusted.load_torch_file` (a refused
            Lightning checkpoint: one line saying so and how to save its weights alone).
        rnnaudit.limits.TooLargeError: a tensor or an inferred size above the limits (per recurrent prefix of a
            whole model's state dict).
    """
    p = require_file(path, "weights file")
    if is_safetensors(p):
        header = safetensors_header(p)
        _check_shapes(str(p), {k: v[1] for k, v in header.items()}, allow_large)
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        try:
            return load_file(str(p), device="cpu")
        except (SafetensorError, OSError, ValueError, RuntimeError) as err:
            raise InputError(f"{p}: the safetensors file cannot be read ({str(err)[:200]})") from None
    from rnnaudit.untrusted import load_torch_file

    if not allow_large:
        _torch_file_records(p)
    try:
        data = load_torch_file(p, "weights file", allow_large=allow_large)
    except InputError as err:
        if "refused" in str(err) and _lightning_pickle(p):
            found = re.search(r"\(it refers to ([^)]*)\)", str(err))
            what = f"{found.group(1)}, " if found else ""
            raise InputError(f"{p}: refused: a Lightning checkpoint holding Python objects other than tensors and "
                             f"plain values ({what}in its hyper-parameters or callbacks), which rnnaudit never "
                             "unpickles; save the weights alone, torch.save(lightning_module.state_dict(), "
                             "'weights.pt'), and pass that file") from None
        raise
    if isinstance(data, dict):
        import torch

        inner = next((data[k] for k in ("state_dict", "model_state_dict", "model") if isinstance(data.get(k), dict)),
                     data)
        shapes = {str(k): tuple(v.shape) for k, v in inner.items() if isinstance(v, torch.Tensor)}
        _check_shapes(str(p), shapes, allow_large)
    return data


#: the most bytes of a refused torch file's pickle searched for Lightning's version key (it is written first)
_PICKLE_SCAN_BYTES = 2**20


def _lightning_pickle(p: Path) -> bool:
    """Whether a torch file's pickle names Lightning's version key: its bytes are searched, never unpickled."""
    try:
        with zipfile.ZipFile(p) as z:
            name = next((n for n in z.namelist() if n.endswith("data.pkl")), None)
            if name is None:
                return False
            with z.open(name) as fh:
                head = fh.read(_PICKLE_SCAN_BYTES)
    except (zipfile.BadZipFile, OSError, RuntimeError):
        return False
    return b"pytorch-lightning_version" in head or b"lightning.fabric" in head or b"pytorch_lightning" in head


@dataclass(frozen=True)
class Layout:
    """What a state dict is, from its key names and shapes.

    Attributes:
        kind: "stacked" (``weight_ih_l0``, torch.nn.RNN/GRU/LSTM), "cell" (``weight_ih``, a ``*Cell``) or
            "parametrized" (a tensor under ``parametrizations.<name>.original``).
        arch: "rnn", "gru" or "lstm" where the shapes tell (weight_hh rows / columns = 1, 3 or 4 without a
            projection), else None. input_size, hidden_size: n and torch's H (0 when unknown).
        parametrized: the names under parametrizations.
    """

    kind: str
    arch: str | None
    input_size: int
    hidden_size: int
    parametrized: tuple[str, ...] = ()


_GATES = {1: "rnn", 3: "gru", 4: "lstm"}


def layout_of(shapes: dict[str, tuple[int, ...]], arch: str | None, *, strict: bool = True) -> Layout | None:
    """The layout of a state dict from its shapes (name → shape).

    Args:
        shapes: the state dict's tensor shapes. arch: the user's ``--arch`` (checked against the shapes), or None.
        strict: raise when nothing recurrent is recognised (else return None).

    Raises:
        InputError: (strict) keys of no torch recurrent module, with a hint naming ``--model``.
    """
    parametrized = tuple(sorted({k.split(".")[1] for k in shapes if k.startswith("parametrizations.")
                                 and k.endswith(".original") and k.count(".") == 2}))
    for kind, suffix in (("stacked", "_l0"), ("cell", "")):
        ih, hh = shapes.get(f"weight_ih{suffix}"), shapes.get(f"weight_hh{suffix}")
        if ih is None and parametrized and f"weight_ih{suffix}" in parametrized:
            ih = shapes.get(f"parametrizations.weight_ih{suffix}.original")
        if hh is None and f"weight_hh{suffix}" in parametrized:
            hh = shapes.get(f"parametrizations.weight_hh{suffix}.original")
        if ih is None or len(ih) != 2:
            continue
        cols = hh[1] if hh is not None and len(hh) == 2 else 0
        projected = f"weight_hr{suffix}" in shapes
        guess = _GATES.get(ih[0] // cols) if cols and not projected and ih[0] % cols == 0 else (
            "lstm" if projected else None)
        chosen = arch or guess
        gates = {"rnn": 1, "gru": 3, "lstm": 4}.get(chosen or "", 0)
        hidden = ih[0] // gates if gates and ih[0] % gates == 0 else 0
        return Layout("parametrized" if parametrized else kind, chosen, int(ih[1]), int(hidden), parametrized)
    if strict:
        raise InputError(f"the weights are no state dict of torch.nn.RNN, GRU, LSTM or their *Cell (keys "
                         f"{sorted(shapes)[:6]}); for another model pass --model MODULE:FACTORY, a function that "
                         "builds it, and --weights loads into it")
    return None
