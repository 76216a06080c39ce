"""Real data as trainer tasks: the UCI digits bundled with scikit-learn (sequential and permuted, the
MNIST protocols at T = 64), and the MNIST, HAR-2 and PTB-char loaders on miniature fixtures in their
real file formats; held-out validation, accuracy, the chance baseline, and the errors for absent data."""

import math

import pytest
import torch

from rnnaudit import names
from rnnaudit.tasks.datasets import PTB_CHAR_FILES, mnist_permutation
from rnnaudit.training import TASK_SPECS, TrainConfig, train
from rnnaudit.training.dataset_tasks import accuracy, classification_splits, validation_batches
from tests.conftest import cli_status
from tests.tasks.test_datasets import write_files, write_har, write_mnist

sklearn = pytest.importorskip("sklearn", reason="the digits tasks need scikit-learn (the 'data' extra)")

TINY = dict(hidden_size=8, batch=16, steps=6, lr=1e-2, record_every=3, checkpoint_every=6, val_batches=2)


def test_names_tasks_match_task_specs():
    """The CLI's choices (rnnaudit.names, light to import) list exactly the trainer's tasks."""
    assert names.TASKS == tuple(TASK_SPECS)
    assert names.DATA_DIR_TASKS == tuple(t for t, s in TASK_SPECS.items() if s.needs_data)


def test_digits_are_the_1797_uci_images_pixel_by_pixel():
    """1,797 images of 8 × 8 = 64 pixels (values 0..16 scaled to [0, 1]), 174–183 per class, split
    1,438/359 by a fixed seed: the same split every time, no image in both."""
    from sklearn.datasets import load_digits

    splits = classification_splits("digits")
    (x, y), (xt, yt) = splits["train"], splits["test"]
    assert x.shape == (1438, 64, 1) and xt.shape == (359, 64, 1) and x.dtype == torch.float32
    assert float(x.min()) == 0.0 and float(x.max()) == 1.0
    counts = torch.bincount(torch.cat([y, yt]), minlength=10)
    assert counts.tolist() == torch.bincount(torch.from_numpy(load_digits().target)).tolist()
    images = load_digits().images.reshape(1797, 64) / 16.0
    every = torch.cat([x, xt])[:, :, 0].double()
    # each sequence is one image, row-major, and every image appears exactly once
    assert sorted(map(tuple, every.tolist())) == sorted(map(tuple, images.tolist()))


def test_permuted_digits_apply_one_fixed_permutation_to_train_and_test():
    plain, permuted = classification_splits("digits"), classification_splits("permuted-digits")
    perm = mnist_permutation(0, 64)
    assert not torch.equal(perm, torch.arange(64))
    for split in ("train", "test"):
        assert torch.equal(permuted[split][0], plain[split][0][:, perm])
        assert torch.equal(permuted[split][1], plain[split][1])
    other = classification_splits("permuted-digits", permutation_seed=1)["train"][0]
    assert not torch.equal(other, permuted["train"][0])


def test_digits_baseline_is_chance():
    """The best constant predictor's cross-entropy is the label entropy, ≈ ln 10 for ten nearly equal
    classes (178 ± 5 images each), and its accuracy the largest class share, ≈ 10 %."""
    spec = TASK_SPECS["digits"]
    assert spec.baseline(64) == pytest.approx(math.log(10), abs=2e-3) and spec.baseline(64) < math.log(10)
    assert spec.chance_accuracy() == pytest.approx(0.1, abs=0.01)


def test_accuracy_counts_argmax_hits_and_can_fail():
    logits = torch.tensor([[2.0, 0.0], [0.0, 1.0], [3.0, 1.0], [0.0, 5.0]])
    assert float(accuracy(logits, torch.tensor([0, 1, 0, 1]))) == 1.0
    assert float(accuracy(logits, torch.tensor([1, 1, 0, 0]))) == 0.5


def test_validation_is_the_held_out_split_capped_at_val_batches():
    batches = validation_batches("digits", 100, 64, 10)
    assert sum(b[0].shape[0] for b in batches) == 359 and batches[-1][0].shape[0] == 59
    assert torch.equal(torch.cat([b[0] for b in batches]), classification_splits("digits")["test"][0])
    assert sum(b[0].shape[0] for b in validation_batches("digits", 16, 64, 2)) == 32


def test_fixed_length_task_refuses_another_T():
    with pytest.raises(ValueError, match="T = 64"):
        TrainConfig(task="digits", T=100).validate()
    TrainConfig(task="digits", T=64).validate()


@pytest.mark.parametrize("task", ["digits", "permuted-digits"])
def test_trainer_records_validation_accuracy_on_the_digits(tmp_path, task):
    result = train(TrainConfig(cell="gru", task=task, T=64, **TINY), tmp_path, progress=False, tensorboard=False)
    assert result["baseline"] == pytest.approx(math.log(10), abs=2e-3)
    assert 0 <= result["final_val_accuracy"] <= 1 and result["chance_accuracy"] == pytest.approx(0.1, abs=0.01)
    from rnnaudit.training import read_trajectory

    t = read_trajectory(tmp_path)
    assert list(t["step"]) == [3, 6] and "val_accuracy" in t
    assert t["val_accuracy"][-1] == pytest.approx(result["final_val_accuracy"])


def test_cli_trains_digits_with_the_tasks_own_T(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli_status(["train", "--task", "permuted-digits", "--cell", "gru", "--hidden", "8", "--steps", "4",
                       "--batch", "8", "--record-every", "2", "--checkpoint-every", "4", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "(T = 64)" in printed and "validation accuracy" in printed and "chance" in printed
    assert cli_status(["train", "--task", "digits", "--data-dir", str(tmp_path), "--steps", "2"]) == 2
    assert "reads no files" in capsys.readouterr().err


def test_cli_names_the_missing_mnist_files(tmp_path, capsys):
    assert cli_status(["train", "--task", "pmnist", "--steps", "2", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "--data-dir" in err and "train-images-idx3-ubyte" in err and "t10k-labels-idx1-ubyte" in err
    assert cli_status(["train", "--task", "pmnist", "--data-dir", str(tmp_path), "--steps", "2",
                       "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "train-images-idx3-ubyte" in err and "missing" in err


def test_pmnist_trains_on_idx_files(tmp_path):
    """T = 784 pixels of 28 × 28 idx images, one fixed permutation; the test split validates."""
    data = tmp_path / "mnist"
    data.mkdir()
    write_mnist(data, "train", 12)
    write_mnist(data, "test", 5, seed=1)
    config = TrainConfig(cell="fastrnn", task="pmnist", T=784, hidden_size=4, batch=4, steps=2, record_every=2,
                         checkpoint_every=2, val_batches=1, task_kwargs={"data_dir": str(data)})
    result = train(config, tmp_path / "run", progress=False, tensorboard=False)
    assert result["final_val_accuracy"] in (0.0, 0.25, 0.5, 0.75, 1.0)  # 4 validation sequences
    x, _ = TASK_SPECS["pmnist"].generate(3, 784, torch.Generator().manual_seed(0), data_dir=str(data))
    assert x.shape == (3, 784, 1)


def test_har2_trains_on_the_uci_tree(tmp_path):
    write_har(tmp_path / "UCI HAR Dataset", "train", [1, 2, 3, 4, 5, 6, 2, 4])
    write_har(tmp_path / "UCI HAR Dataset", "test", [1, 2, 3, 6], seed=1)
    spec = TASK_SPECS["har2"]
    assert spec.dims({"data_dir": str(tmp_path)}) == (9, 2)
    # HAR-2 labels of the training rows: (l − 1) mod 2 → [0, 1, 0, 1, 0, 1, 1, 1]: 5 of 8 are class 1
    assert spec.chance_accuracy(data_dir=str(tmp_path)) == pytest.approx(5 / 8)
    assert spec.baseline(128, data_dir=str(tmp_path)) == pytest.approx(-(5 / 8 * math.log(5 / 8) +
                                                                          3 / 8 * math.log(3 / 8)))
    config = TrainConfig(cell="gru", task="har2", T=128, hidden_size=4, batch=4, steps=2, record_every=2,
                         checkpoint_every=2, val_batches=1, task_kwargs={"data_dir": str(tmp_path)})
    assert train(config, tmp_path / "run", progress=False, tensorboard=False)["final_val_accuracy"] is not None


def test_ptb_char_predicts_the_next_character(tmp_path):
    text = "a b _ c a b\nc a _ b\n" * 20
    write_files(tmp_path, PTB_CHAR_FILES, {"train": text, "valid": text[:80], "test": "c\n"})
    spec = TASK_SPECS["ptb-char"]
    kw = {"data_dir": str(tmp_path)}
    assert spec.dims(kw) == (5, 5)  # a, b, _, c, <eos>
    x, y = spec.generate(2, 6, torch.Generator().manual_seed(0), **kw)
    assert x.shape == (2, 6, 5) and y.shape == (2, 6)
    assert torch.equal(x.argmax(-1)[:, 1:], y[:, :-1])  # the target is the next input
    config = TrainConfig(cell="gru", task="ptb-char", T=6, hidden_size=4, batch=4, steps=2, record_every=2,
                         checkpoint_every=2, val_batches=2, task_kwargs=kw)
    result = train(config, tmp_path / "run", progress=False, tensorboard=False)
    assert result["final_val_accuracy"] is not None and 0 < result["baseline"] < math.log(5)
    with pytest.raises(ValueError, match="ptb.char.train.txt"):
        TrainConfig(cell="gru", task="ptb-char", T=6).validate()


#: Cases the full suite runs (python -m pytest --full); the fast suite keeps the family's other cases.
SLOW_CASES = {
    "test_trainer_records_validation_accuracy_on_the_digits": {"digits"},
}
