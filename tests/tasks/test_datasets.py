"""Real-data loaders (analysis/datasets.py) on miniature fixtures written in the real file formats:
idx binaries with LeCun's magic numbers, a UCI HAR directory tree, and Mikolov-style PTB text."""

import gzip
import struct

import numpy as np
import pytest
import torch

from rnnaudit.tasks.datasets import (HAR2_POSITIVE, HAR_ACTIVITIES, HAR_SIGNALS, MNIST_FILES, PTB_CHAR_FILES,
                                     PTB_WORD_FILES, batchify, bptt_windows, channel_stats, load_har, load_har_splits,
                                     load_mnist, load_ptb_char, load_ptb_word, mnist_permutation, read_idx,
                                     sequential_mnist)

# ------------------------------------------------------------------------------------------- idx


def write_idx(path, array, type_byte, *, gz=False):
    """idx layout: 0x00 0x00 type ndim, big-endian uint32 dims, big-endian data."""
    big = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}[type_byte]
    payload = struct.pack(">BBBB", 0, 0, type_byte, array.ndim)
    payload += struct.pack(">" + "I" * array.ndim, *array.shape) + array.astype(big).tobytes()
    path.write_bytes(gzip.compress(payload) if gz else payload)
    return path


def write_mnist(root, split, n, *, gz=False, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n, dtype=np.uint8)
    img_name, lbl_name = MNIST_FILES[split]
    suffix = ".gz" if gz else ""
    write_idx(root / (img_name + suffix), images, 0x08, gz=gz)
    write_idx(root / (lbl_name + suffix), labels, 0x08, gz=gz)
    return images, labels


def test_idx_magic_numbers_2051_and_2049(tmp_path):
    """LeCun's header: images start with 0x00000803 (2051), labels with 0x00000801 (2049)."""
    write_mnist(tmp_path, "train", 3)
    assert struct.unpack(">I", (tmp_path / "train-images-idx3-ubyte").read_bytes()[:4])[0] == 2051
    assert struct.unpack(">I", (tmp_path / "train-labels-idx1-ubyte").read_bytes()[:4])[0] == 2049


@pytest.mark.parametrize("type_byte, np_dtype, torch_dtype", [
    (0x08, np.uint8, torch.uint8), (0x09, np.int8, torch.int8), (0x0B, np.int16, torch.int16),
    (0x0C, np.int32, torch.int32), (0x0D, np.float32, torch.float32), (0x0E, np.float64, torch.float64)])
@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_roundtrip_all_types(tmp_path, type_byte, np_dtype, torch_dtype, gz):
    """Every idx type byte decodes to the stored values (big-endian on disk, native in memory)."""
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((2, 3, 4)) * 100).astype(np_dtype)
    t = read_idx(write_idx(tmp_path / "a.idx", a, type_byte, gz=gz))
    assert t.dtype == torch_dtype and t.shape == (2, 3, 4)
    np.testing.assert_array_equal(t.numpy(), a)


def test_read_idx_rejects_bad_magic_and_truncation(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x12\x34\x08\x01" + b"\x00" * 8)
    with pytest.raises(ValueError, match="not an idx file"):
        read_idx(bad)
    short = write_idx(tmp_path / "short", np.zeros((4, 2), np.uint8), 0x08)
    short.write_bytes(short.read_bytes()[:-1])
    with pytest.raises(ValueError, match="shape"):
        read_idx(short)


# ----------------------------------------------------------------------------------------- MNIST

@pytest.mark.parametrize("gz", [False, True])
def test_load_mnist_values_and_dtypes(tmp_path, gz):
    images, labels = write_mnist(tmp_path, "test", 5, gz=gz)
    x, y = load_mnist(tmp_path, "test")
    assert x.dtype == torch.uint8 and x.shape == (5, 28, 28) and y.dtype == torch.int64 and y.shape == (5,)
    np.testing.assert_array_equal(x.numpy(), images)
    np.testing.assert_array_equal(y.numpy(), labels)


def test_sequential_mnist_pixel_order_and_scaling(tmp_path):
    """srnn.md Sec. 4: each image becomes a 784-step sequence of one scalar, fed one pixel at a time
    (row-major), here scaled to [0, 1]."""
    images, labels = write_mnist(tmp_path, "train", 4)
    x, y = sequential_mnist(tmp_path, "train", dtype=torch.float64)
    assert x.shape == (4, 784, 1) and x.dtype == torch.float64
    np.testing.assert_allclose(x[..., 0].numpy(), images.reshape(4, 784) / 255.0, rtol=0, atol=0)
    np.testing.assert_array_equal(y.numpy(), labels)


def test_permuted_mnist_fixed_permutation_from_seed(tmp_path):
    """srnn.md Sec. 4: one fixed permutation for all images, train and test alike; it is a function
    of the seed only."""
    write_mnist(tmp_path, "train", 4, seed=2)
    write_mnist(tmp_path, "test", 3, seed=3)
    p1, p2, q = mnist_permutation(7), mnist_permutation(7), mnist_permutation(8)
    assert torch.equal(p1, p2) and not torch.equal(p1, q)
    assert torch.equal(p1.sort().values, torch.arange(784))
    for split in ("train", "test"):
        x, _ = sequential_mnist(tmp_path, split, dtype=torch.float64)
        xp, _ = sequential_mnist(tmp_path, split, permute=True, seed=7, dtype=torch.float64)
        assert torch.equal(xp, x[:, p1])
        assert torch.equal(xp, sequential_mnist(tmp_path, split, permutation=p1, dtype=torch.float64)[0])
    with pytest.raises(ValueError, match="permutation"):
        sequential_mnist(tmp_path, "test", permutation=torch.zeros(784, dtype=torch.int64))


def test_mnist_missing_files_named(tmp_path):
    write_idx(tmp_path / "train-images-idx3-ubyte", np.zeros((1, 28, 28), np.uint8), 0x08)
    with pytest.raises(FileNotFoundError, match="train-labels-idx1-ubyte") as err:
        load_mnist(tmp_path, "train")
    assert "train-images-idx3-ubyte" in str(err.value) and str(tmp_path) in str(err.value)
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte"):
        sequential_mnist(tmp_path / "nowhere", "test")


def test_mnist_inconsistent_files_rejected(tmp_path):
    write_idx(tmp_path / "train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8), 0x08)
    write_idx(tmp_path / "train-labels-idx1-ubyte", np.zeros(2, np.uint8), 0x08)
    with pytest.raises(ValueError, match="3 images but 2 labels"):
        load_mnist(tmp_path, "train")
    write_idx(tmp_path / "train-labels-idx1-ubyte", np.zeros((3, 1), np.uint8), 0x08)
    with pytest.raises(ValueError, match="2049"):
        load_mnist(tmp_path, "train")
    with pytest.raises(ValueError, match="split"):
        load_mnist(tmp_path, "valid")


# ------------------------------------------------------------------------------------------- HAR

def write_har(root, split, labels, *, seed=0):
    """Miniature UCI HAR tree in the official layout and number format (space-padded, 1e-3 style)."""
    rng = np.random.default_rng(seed)
    n = len(labels)
    data = rng.standard_normal((len(HAR_SIGNALS), n, 128))
    sig_dir = root / split / "Inertial Signals"
    sig_dir.mkdir(parents=True, exist_ok=True)
    for c, name in enumerate(HAR_SIGNALS):
        rows = ["".join(f" {v: .7e}" for v in data[c, i]) for i in range(n)]
        (sig_dir / f"{name}_{split}.txt").write_text("\n".join(rows) + "\n")
    (root / split / f"y_{split}.txt").write_text("".join(f"{l}\n" for l in labels))
    return data


def test_har_shapes_and_channel_order(tmp_path):
    """sgornn.md Sec. 3.2: 9-dimensional sequences of length T = 128; channel c at step t of window n
    is column t of row n of the c-th signal file."""
    data = write_har(tmp_path, "train", [1, 2, 3, 4, 5, 6, 1])
    x, y = load_har(tmp_path, "train", dtype=torch.float64)
    assert x.shape == (7, 128, 9) and x.dtype == torch.float64 and y.dtype == torch.int64
    # 8 significant digits were written, so values agree to 5e-8 relative.
    np.testing.assert_allclose(x.numpy(), data.transpose(1, 2, 0), rtol=5e-8, atol=0)


def test_har2_binarization_fastgrnn():
    """FastGRNN / EdgeML HAR-2: {Sitting, Laying, Walking_Upstairs} vs {Standing, Walking,
    Walking_Downstairs}, i.e. the even activity labels 2, 4, 6 form class 1."""
    assert set(HAR2_POSITIVE) == {HAR_ACTIVITIES[1], HAR_ACTIVITIES[3], HAR_ACTIVITIES[5]}


def test_har_label_modes(tmp_path):
    write_har(tmp_path, "test", [1, 2, 3, 4, 5, 6])
    assert load_har(tmp_path, "test")[1].tolist() == [0, 1, 0, 1, 0, 1]
    assert load_har(tmp_path, "test", labels="har6")[1].tolist() == [0, 1, 2, 3, 4, 5]
    assert load_har(tmp_path, "test", labels="dynamic")[1].tolist() == [1, 1, 1, 0, 0, 0]
    with pytest.raises(ValueError, match="labels"):
        load_har(tmp_path, "test", labels="binary")


def test_har_accepts_parent_of_uci_folder(tmp_path):
    write_har(tmp_path / "UCI HAR Dataset", "test", [5, 6])
    x, y = load_har(tmp_path, "test")
    assert x.shape == (2, 128, 9) and y.tolist() == [0, 1]


def test_har_missing_files_named(tmp_path):
    write_har(tmp_path, "train", [1, 2])
    (tmp_path / "train" / "Inertial Signals" / "body_gyro_y_train.txt").unlink()
    (tmp_path / "train" / "y_train.txt").unlink()
    with pytest.raises(FileNotFoundError) as err:
        load_har(tmp_path, "train")
    msg = str(err.value)
    assert "body_gyro_y_train.txt" in msg and "y_train.txt" in msg and "total_acc_z_train.txt" in msg
    with pytest.raises(FileNotFoundError, match="y_test.txt"):
        load_har(tmp_path, "test")


def test_har_malformed_files_rejected(tmp_path):
    write_har(tmp_path, "train", [1, 2])
    (tmp_path / "train" / "y_train.txt").write_text("1\n7\n")
    with pytest.raises(ValueError, match="1..6"):
        load_har(tmp_path, "train")
    (tmp_path / "train" / "y_train.txt").write_text("1\n2\n3\n")
    with pytest.raises(ValueError, match="3 labels"):
        load_har(tmp_path, "train")
    (tmp_path / "train" / "y_train.txt").write_text("1\n2\n")
    path = tmp_path / "train" / "Inertial Signals" / "total_acc_x_train.txt"
    path.write_text(" 1.0 2.0\n 3.0 4.0\n")
    with pytest.raises(ValueError, match="total_acc_x_train.txt"):
        load_har(tmp_path, "train")


def test_har_splits_standardized_with_training_statistics(tmp_path):
    """FastGRNN: zero mean, unit variance, with the statistics of the training set applied to both
    splits. Float64 sums over 4·128 values: 1e-12 covers rounding."""
    write_har(tmp_path, "train", [1, 2, 3, 4], seed=1)
    write_har(tmp_path, "test", [4, 5, 6], seed=2)
    raw_train, _ = load_har(tmp_path, "train", dtype=torch.float64)
    raw_test, _ = load_har(tmp_path, "test", dtype=torch.float64)
    sets = load_har_splits(tmp_path, dtype=torch.float64)
    mean, std = channel_stats(sets["train"][0])
    torch.testing.assert_close(mean, torch.zeros(9, dtype=torch.float64), rtol=0, atol=1e-12)
    torch.testing.assert_close(std, torch.ones(9, dtype=torch.float64), rtol=0, atol=1e-12)
    m, s = channel_stats(raw_train)
    torch.testing.assert_close(sets["test"][0], (raw_test - m) / s, rtol=0, atol=1e-12)
    assert sets["test"][1].tolist() == [1, 0, 1]


# ------------------------------------------------------------------------------------------- PTB

WORD_TRAIN = " the cat sat \n the <unk> ran \n"
WORD_VALID = " the dog sat \n"
WORD_TEST = " cat ran \n"


def write_files(root, names, texts):
    for key, text in texts.items():
        (root / names[key]).write_text(text)


def test_ptb_word_vocabulary_eos_and_unk(tmp_path):
    """sgornn.md Sec. 3.3: newlines become <eos>; words outside the vocabulary are <unk>."""
    write_files(tmp_path, PTB_WORD_FILES, {"train": WORD_TRAIN, "valid": WORD_VALID, "test": WORD_TEST})
    c = load_ptb_word(tmp_path)
    assert c.vocab == ["the", "cat", "sat", "<eos>", "<unk>", "ran"] and c.vocab_size == 6
    assert all(c.stoi[w] == i for i, w in enumerate(c.vocab))
    assert c.train.dtype == torch.int64 and c.train.tolist() == [0, 1, 2, 3, 0, 4, 5, 3]
    assert c.valid.tolist() == [0, 4, 2, 3]  # "dog" is not in the training vocabulary
    assert c.test.tolist() == [1, 5, 3]


def test_ptb_char_tokens(tmp_path):
    """Character files: space-separated characters, "_" between words, one sentence per line."""
    write_files(tmp_path, PTB_CHAR_FILES, {"train": "a b _ c\nc a\n", "valid": "b _ a\n", "test": "c\n"})
    c = load_ptb_char(tmp_path)
    assert c.vocab == ["a", "b", "_", "c", "<eos>"]
    assert c.train.tolist() == [0, 1, 2, 3, 4, 3, 0, 4]
    assert c.valid.tolist() == [1, 2, 0, 4] and c.test.tolist() == [3, 4]
    (tmp_path / PTB_CHAR_FILES["test"]).write_text("z\n")
    with pytest.raises(ValueError, match="'z'"):
        load_ptb_char(tmp_path)


def test_ptb_missing_files_named(tmp_path):
    (tmp_path / "ptb.train.txt").write_text(WORD_TRAIN)
    with pytest.raises(FileNotFoundError) as err:
        load_ptb_word(tmp_path)
    assert "ptb.valid.txt" in str(err.value) and "ptb.test.txt" in str(err.value)
    with pytest.raises(FileNotFoundError, match="ptb.char.train.txt"):
        load_ptb_char(tmp_path)


def test_batchify_contiguous_streams():
    """Row b is the b-th contiguous block of the token stream; the remainder is dropped."""
    s = batchify(torch.arange(23), 4)
    assert s.shape == (4, 5)
    assert torch.equal(s, torch.arange(20).reshape(4, 5))
    with pytest.raises(ValueError, match="at least"):
        batchify(torch.arange(3), 4)


def test_bptt_windows_shifted_targets_cover_stream():
    """Targets are inputs shifted by one step; windows tile the stream, the last one shorter."""
    s = torch.arange(30).reshape(3, 10)
    windows = bptt_windows(s, 4)
    assert [w[0].shape for w in windows] == [(3, 4), (3, 4), (3, 1)]
    for x, y in windows:
        assert torch.equal(y, x + 1)
    assert torch.equal(torch.cat([x for x, _ in windows], dim=1), s[:, :-1])
    with pytest.raises(ValueError, match="T must"):
        bptt_windows(s, 0)
