"""Time of ``rnnaudit.audit`` per model at h = 64, T = 100 (the done-when models: nn.LSTM, nn.LSTMCell,
nn.GRU with 1 and 2 layers, nn.RNN tanh and relu, a wrapped IndRNN), split into the claims and the
diagnostics, and the ratio of the diagnostics to the claims measured in the same run.

    python benchmarks/bench_audit_models.py [--hidden 64] [--T 100] [--sequences 4] [--repeats 1]

Absolute times depend on the machine and its load (printed); the ratios are the result.
"""

from __future__ import annotations

import argparse
import os
import time

import torch
from torch import nn

import rnnaudit


class IndRNN(nn.Module):
    """h' = relu(W_x x + b + u ⊙ h) (Li et al. 2018)."""

    def __init__(self, n: int, h: int):
        super().__init__()
        self.inp = nn.Linear(n, h)
        self.u = nn.Parameter(torch.rand(h))

    def step(self, x_t, h):
        return torch.relu(self.inp(x_t) + self.u * h)


def models(n: int, h: int) -> dict:
    return {"LSTM": nn.LSTM(n, h, batch_first=True), "LSTMCell": nn.LSTMCell(n, h),
            "GRU": nn.GRU(n, h, batch_first=True), "GRU 2 layers": nn.GRU(n, h, num_layers=2, batch_first=True),
            "RNN tanh": nn.RNN(n, h, batch_first=True), "RNN relu": nn.RNN(n, h, nonlinearity="relu", batch_first=True),
            "IndRNN (wrapped)": rnnaudit.wrap(IndRNN(n, h), input_size=n, state_size=h)}


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--T", type=int, default=100)
    parser.add_argument("--sequences", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.sequences, args.T, 2)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':<18} {'claims s':>9} {'diagnostics s':>14} {'ratio':>6}")
    rnnaudit.audit(nn.RNN(2, 4), x[:, :5], measure_bounds=False)  # imports and first-call costs out of the timings
    for name, m in models(2, args.hidden).items():
        claims = best(lambda: rnnaudit.audit(m, x, diagnostics=False), args.repeats)
        whole = best(lambda: rnnaudit.audit(m, x), args.repeats)
        diag = max(whole - claims, 0.0)
        print(f"{name:<18} {claims:9.2f} {diag:14.2f} {diag / claims:6.2f}")


if __name__ == "__main__":
    main()
