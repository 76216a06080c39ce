"""What rnnaudit.Monitor costs a training loop: the README walk-through loop (permuted-digits, T = 64,
batch 64, Adam, a torch.nn.GRU and an orthogonal torch.nn.RNN) run plain and monitored, interleaved,
and the ratio of the monitored time to the plain time measured in the same run. The loop is
examples/walkthrough.py's, with the monitor optional.

    python benchmarks/bench_monitor.py [--hidden 64] [--steps 300] [--every 10] [--repeats 3] [--threads 2]

Each repeat runs the plain loop and then the monitored loop from the same seed, for each model, after
one warm-up of each (imports and first-call allocations are not the loop's cost); the ratio is
median(monitored) / median(plain) over the repeats. The time spent inside the monitor (its
construction, ``record`` and ``close``) is reported too, split into the records with a
Jacobian/Lyapunov summary and those without, and as a second ratio, (plain + inside) / plain, which a
busy machine disturbs less than the difference of two wall times.
**At scale** (``--scale``): ``nn.LSTM(128, 1024)`` (state 2048) trained on batch 32, T = 256 (synthetic
N(0, 1) inputs, 10 classes, Adam), monitored with every = 10, summary_every = 100, summary_length = 64 and
``summary_method="sketch"``, on 4 probe sequences. ``--scale-steps`` monitored steps after
``--scale-plain`` timed plain steps; reported: one plain step, one record without a summary, one summary
record and one checkpoint, and the cost of the monitor over one cycle of 100 steps (10 records, one of them
with a summary, one checkpoint) as a fraction of those 100 training steps.

Absolute times depend on the machine and its load; the ratios are the result.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as rnnaudit does: spinning OpenMP threads distort timings

import torch
from torch import nn

import rnnaudit
from rnnaudit.tasks.digits import digits_splits
from rnnaudit.cli.argtypes import count


def models(h: int) -> dict:
    return {"torch.nn.GRU": lambda: nn.GRU(1, h, batch_first=True),
            "orthogonal torch.nn.RNN": lambda: nn.utils.parametrizations.orthogonal(
                nn.RNN(1, h, batch_first=True), "weight_hh_l0")}


class TimedMonitor(rnnaudit.Monitor):
    """The Monitor with the wall time of its record() calls accumulated (summary records apart)."""

    record_s = summary_s = close_s = open_s = 0.0
    records = 0  # records without a summary

    def __init__(self, *args, **kwargs):
        start = time.perf_counter()
        super().__init__(*args, **kwargs)
        self.open_s = time.perf_counter() - start

    def record(self, step, loss=None, **scalars):
        start = time.perf_counter()
        out = super().record(step, loss, **scalars)
        took = time.perf_counter() - start
        if out is not None and "lyapunov_max" in out:
            self.summary_s += took
        elif out is not None:
            self.record_s += took
            self.records += 1
        else:
            self.record_s += took
        return out

    def close(self):
        start = time.perf_counter()
        super().close()
        self.close_s += time.perf_counter() - start


def run(build, data, args, run_dir: Path | None) -> tuple[float, TimedMonitor | None]:
    """The walk-through loop (README) for args.steps steps; wall seconds, and the monitor."""
    (x, y), (x_test, y_test) = data["train"], data["test"]
    torch.manual_seed(0)
    rnn, head = build(), nn.Linear(args.hidden, 10)
    opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-2)
    start = time.perf_counter()
    mon = None if run_dir is None else TimedMonitor(
        rnn, run_dir, every=args.every, inputs=x_test[:8], targets=y_test[:8], loss_fn=nn.functional.cross_entropy,
        readout=head, tensorboard=not args.no_tensorboard)
    for step in range(args.steps):
        i = torch.randint(len(x), (args.batch,))
        loss = nn.functional.cross_entropy(head(rnn(x[i])[0][:, -1]), y[i])
        opt.zero_grad()
        loss.backward()
        if mon is not None:
            mon.record(step, loss)
        opt.step()
    if mon is not None:
        mon.close()
    return time.perf_counter() - start, mon


def scale(args) -> None:
    """nn.LSTM(128, 1024) at batch 32, T = 256: the monitor's cost per 100-step cycle over the training's."""
    torch.manual_seed(0)
    rnn, head = nn.LSTM(128, 1024, batch_first=True), nn.Linear(1024, 10)
    opt = torch.optim.Adam([*rnn.parameters(), *head.parameters()], lr=1e-3)
    x, y = torch.randn(32, 256, 128), torch.randint(10, (32,))

    def train_step() -> torch.Tensor:
        loss = nn.functional.cross_entropy(head(rnn(x)[0][:, -1]), y)
        opt.zero_grad()
        loss.backward()
        return loss

    train_step()
    opt.step()  # warm-up
    plain = []
    for _ in range(args.scale_plain):
        start = time.perf_counter()
        train_step()
        opt.step()
        plain.append(time.perf_counter() - start)
    step_s = statistics.median(plain)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        mon = TimedMonitor(rnn, Path(tmp) / "run", every=10, summary_every=100, summary_length=64,
                           summary_method="sketch", inputs=x[:4], targets=y[:4],
                           loss_fn=nn.functional.cross_entropy, readout=head, tensorboard=False)
        opening = time.perf_counter() - start
        summary, ckpt = [], []
        for step in range(args.scale_steps):
            loss = train_step()
            before, ckpt_before = mon.summary_s, len(list((Path(tmp) / "run" / "checkpoints").glob("*.pt")))
            t0 = time.perf_counter()
            mon.record(step, loss)
            took = time.perf_counter() - t0
            if mon.summary_s > before:
                summary.append(took)
            elif len(list((Path(tmp) / "run" / "checkpoints").glob("*.pt"))) > ckpt_before:
                ckpt.append(took)
            opt.step()
        mon.close()
    record_s = mon.record_s / max(1, mon.records)
    summary_s = statistics.median(summary) if summary else math.nan
    # checkpoints are written at the first record and every 100 steps, with the summary there; without a
    # record of its own the checkpoint's cost is counted as an ordinary record's
    ckpt_s = statistics.median(ckpt) - record_s if ckpt else 0.0
    cycle = 9 * record_s + summary_s + ckpt_s
    print(f"nn.LSTM(128, 1024), batch 32, T = 256, {torch.get_num_threads()} threads, load "
          f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(f"plain step: {step_s:.2f} s (median of {len(plain)}); Monitor(): {opening:.2f} s; record without a "
          f"summary: {record_s:.2f} s ({mon.records} records); record with a summary (sketch): {summary_s:.2f} s; "
          f"checkpoint: {ckpt_s:.2f} s")
    print(f"one 100-step cycle: monitor {cycle:.1f} s over training {100 * step_s:.1f} s = "
          f"ratio {cycle / (100 * step_s):.3f}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hidden", type=count, default=64)
    p.add_argument("--steps", type=count, default=300)
    p.add_argument("--batch", type=count, default=64)
    p.add_argument("--every", type=count, default=10)
    p.add_argument("--repeats", type=count, default=3)
    p.add_argument("--threads", type=count, default=2)
    p.add_argument("--no-tensorboard", action="store_true", help="leave TensorBoard out of the monitored loop")
    p.add_argument("--scale", action="store_true", help="nn.LSTM(128, 1024), batch 32, T = 256 (see above)")
    p.add_argument("--scale-steps", type=count, default=21, help="monitored steps of --scale (default: 21)")
    p.add_argument("--scale-plain", type=count, default=5, help="timed plain steps of --scale (default: 5)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.scale:
        scale(args)
        return
    data = digits_splits(permute=True)
    print(f"{platform.platform()}, {platform.processor() or platform.machine()}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; h = {args.hidden}, T = 64, batch {args.batch}, {args.steps} steps, "
          f"every = {args.every} (checkpoints every {10 * args.every}, summaries every {100 * args.every}), "
          f"tensorboard {'off' if args.no_tensorboard else 'on where installed'}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in models(args.hidden).items():
            run(build, data, args, None)  # warm-up: first-call allocations, lazy imports
            run(build, data, args, Path(tmp) / f"{name}-warm-up")
            plain, monitored, monitors = [], [], []
            for r in range(args.repeats):
                plain.append(run(build, data, args, None)[0])
                seconds, mon = run(build, data, args, Path(tmp) / f"{name}-{r}")
                monitored.append(seconds)
                monitors.append(mon)
            ratio = statistics.median(monitored) / statistics.median(plain)
            # the time spent inside the monitor over the plain loop of the same repeat: less sensitive to
            # load from other processes than the difference of two wall times
            accounted = statistics.median((p + m.open_s + m.record_s + m.summary_s + m.close_s) / p
                                          for p, m in zip(plain, monitors))
            inside = statistics.median(m.record_s for m in monitors)
            summaries = statistics.median(m.summary_s for m in monitors)
            closing = statistics.median(m.close_s for m in monitors)
            opening = statistics.median(m.open_s for m in monitors)
            # one record without a summary over one plain training step, each repeat against its own plain run
            per_record = statistics.median(m.record_s / m.records / (p / args.steps) for p, m in zip(plain, monitors))
            print(f"{name}: plain {statistics.median(plain):.2f} s, monitored {statistics.median(monitored):.2f} s "
                  f"(medians of {args.repeats}: plain {_list(plain)}, monitored {_list(monitored)}); ratio "
                  f"{ratio:.3f}; (plain + time inside the monitor) / plain: {accounted:.3f}. Inside Monitor(): "
                  f"{opening:.2f} s; record(): {inside:.2f} s for the records "
                  f"without a summary, {summaries:.2f} s for those with one; close(): {closing:.2f} s; "
                  f"one record without a summary / one plain step: {per_record:.2f}")


def _list(values) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"


if __name__ == "__main__":
    main()
