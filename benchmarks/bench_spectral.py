"""Forward+backward time per sequence of SpectralRNN (m1 = m2 = 16) against torch.nn.RNN (dense W, ReLU) of the
same width, measured in the same run (the aim: Spectral-RNN with m1 = m2 = 16 no slower than a dense-W
vanilla RNN at h = 1024 on a GPU).

    python benchmarks/bench_spectral.py [--T 1000] [--batch 64] [--sizes 128 1024] [--device cpu|cuda]
                                        [--repeats 3] [--methods wy wy_autograd reflectors dense]
                                        [--clock wall|cpu] [--threads N]

Rows: torch.nn.RNN (cuDNN on GPU, ATen's loop on CPU), then SpectralRNN.forward with each ``method``
("wy": compact-WY fast path with hand-written BPTT, the default; "wy_autograd": the same recorded op by op;
"reflectors": eq. 8 one reflector at a time; "dense": W formed once from the reflectors), and oRNN m = 16 with
the default method. Timings are interleaved (every model once per round, best of ``--repeats`` rounds) so that
the ratios compare models under the same machine load; absolute times depend on the machine, the ratios are
the result. ``--clock cpu`` measures this process's CPU time instead of wall time, which is steadier on a
shared, oversubscribed CPU machine (meaningless on GPU, where the default wall clock is the measure).
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time

# as the CLI does (figures/__init__.py): OpenMP spin-waits make small ops crawl on a loaded machine
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch
from torch import nn

from rnnaudit.cells.spectral import ORNN, SpectralRNN
from rnnaudit.cli.argtypes import count


class _TorchRNN(nn.Module):
    def __init__(self, n: int, h: int):
        super().__init__()
        self.rnn = nn.RNN(n, h, batch_first=True, nonlinearity="relu")

    def forward(self, x):
        return self.rnn(x)[0]


class _Method(nn.Module):
    """A cell whose forward is ``cell.forward(x, method=method)``."""

    def __init__(self, cell, method: str):
        super().__init__()
        self.cell, self.method = cell, method

    def forward(self, x):
        return self.cell(x, method=self.method)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _once(model: nn.Module, x: torch.Tensor, clock) -> float:
    model.zero_grad(set_to_none=True)
    _sync(x.device)
    start = clock()
    model(x).sum().backward()
    _sync(x.device)
    return clock() - start


def time_models(models: dict, x: torch.Tensor, repeats: int, clock=time.perf_counter) -> dict:
    """Best-of-``repeats`` forward+backward seconds per sequence for each model, rounds interleaved."""
    for model in models.values():
        _once(model, x[:, : min(10, x.shape[1])], clock)  # warm-up: allocator, cuDNN plans, lazy init
    best = {name: math.inf for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            best[name] = min(best[name], _once(model, x, clock))
    return {name: sec / x.shape[0] for name, sec in best.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=count, default=1000)
    parser.add_argument("--batch", type=count, default=64)
    parser.add_argument("--input-size", type=count, default=2)
    parser.add_argument("--sizes", type=count, nargs="+", default=[128, 1024])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=count, default=3)
    parser.add_argument("--methods", nargs="+", default=["wy", "wy_autograd", "reflectors"],
                        choices=SpectralRNN.METHODS)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--threads", type=count, default=None, help="torch.set_num_threads (CPU)")
    args = parser.parse_args(argv)
    if args.device.split(":")[0] not in ("cpu", "cuda") or (args.device != "cpu" and not torch.cuda.is_available()):
        parser.error(f"--device: {args.device!r} is not cpu or an available cuda device")
    if min(args.sizes) < 16:
        parser.error(f"--sizes: the cells use 16 reflectors, so every width must be at least 16, got {min(args.sizes)}")
    device = torch.device(args.device)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    print(f"machine: {platform.platform()}, {torch.get_num_threads()} threads, torch {torch.__version__}, "
          f"device {device}" + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else ""))
    print(f"T = {args.T}, batch = {args.batch}, n_i = {args.input_size}, float32, forward + backward, "
          f"best of {args.repeats} interleaved rounds, {args.clock} clock")
    for h in args.sizes:
        x = torch.randn(args.batch, args.T, args.input_size, device=device)
        models = {"torch.nn.RNN (dense W, relu)": _TorchRNN(args.input_size, h)}
        for method in args.methods:
            cell = SpectralRNN(args.input_size, h, 16, 16)
            models[f"SpectralRNN m1=m2=16, method={method}"] = _Method(cell, method)
        models["oRNN m=16, method=wy"] = _Method(ORNN(args.input_size, h, 16), "wy")
        models = {name: model.to(device) for name, model in models.items()}
        results = time_models(models, x, args.repeats, CLOCKS[args.clock])
        base = results["torch.nn.RNN (dense W, relu)"]
        print(f"\nh = {h}\n| model | ms / sequence | ratio to torch.nn.RNN (< 1 is faster) |\n|---|---|---|")
        for name, sec in results.items():
            print(f"| {name} | {1e3 * sec:.3f} | {sec / base:.2f} |")


if __name__ == "__main__":
    main()
