"""A 2-layer LSTM trained here on the bundled digits: the gallery's control, a stacked LSTM whose training
is known (:mod:`rnnaudit.tasks.digits`: scikit-learn's 8 × 8 UCI digits, one pixel per step, T = 64).

The recipe is the one of docs/auditing-an-lstm.md with ``num_layers=2``: ``nn.LSTM(1, 32, num_layers=2)``
and a linear head on the last step, Adam (lr 1e-2), batches of 64, cross-entropy, seed 0, in float32.

Licence: the weights are rnnaudit's own (MIT); the data are scikit-learn's copy of the UCI digits
(BSD-3-Clause as shipped with scikit-learn; UCI lists the data set under CC-BY-4.0).
"""

from __future__ import annotations

import torch
from torch import nn

from rnnaudit.gallery.installed import GalleryModel

__all__ = ["HIDDEN", "LAYERS", "train", "extract"]

HIDDEN, LAYERS = 32, 2


class _Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(1, HIDDEN, num_layers=LAYERS, batch_first=True)
        self.head = nn.Linear(HIDDEN, 10)

    def forward(self, x):
        return self.head(self.rnn(x)[0][:, -1])


def train(steps: int = 300, seed: int = 0) -> tuple[nn.LSTM, float, dict]:
    """Train the classifier for ``steps`` Adam steps from ``seed``.

    Returns:
        the trained ``nn.LSTM(1, 32, num_layers=2, batch_first=True)`` (float32, as trained), its test accuracy,
        and the digits splits {"train": (x, y), "test": (x, y)} (x (N, 64, 1) float32).

    Raises:
        ImportError: scikit-learn not installed (``pip install "rnnaudit[data]"``).
    """
    from rnnaudit.tasks.digits import digits_splits

    torch.manual_seed(seed)
    data = digits_splits()
    (x, y), (x_test, y_test) = data["train"], data["test"]
    model = _Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        idx = torch.randint(0, len(x), (64,))
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        accuracy = (model(x_test).argmax(1) == y_test).double().mean().item()
    return model.rnn, accuracy, data


def extract(steps: int = 300, seed: int = 0, n_sequences: int = 8) -> GalleryModel:
    """The trained LSTM as a float64 copy, on the first ``n_sequences`` test digits (n, 64, 1)."""
    import copy

    rnn, accuracy, data = train(steps, seed)
    x = data["test"][0][:n_sequences].double()
    return GalleryModel("digits-lstm", f"{steps} steps, seed {seed}", copy.deepcopy(rnn).double(), x, None,
                        "MIT (weights trained here); data BSD-3-Clause", None, "trained here: nothing to compare",
                        "digits classifier, nn.LSTM(1, 32, num_layers=2), "
                        f"trained here (test accuracy {accuracy:.3f}), "
                        f"on {n_sequences} test digits", {"test_accuracy": accuracy})
