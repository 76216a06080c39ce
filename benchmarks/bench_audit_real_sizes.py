"""``rnnaudit.audit`` at real sizes against the work no audit can skip: the ratio of the audit's time to the
same-run time of forming the T one-step Jacobians ∂s_t/∂s_{t−1} of every sequence with ``torch.func.jacrev``
(vectorised over t with ``vmap``, in chunks), and the audit's peak memory.

    python benchmarks/bench_audit_real_sizes.py [--models lstm,gru] [--lstm-T 400] [--gru-T 46] [--sequences 1]
        [--repeat 1] [--cold]

The models are those of the targets: ``nn.LSTM(150, 150, num_layers=2)`` at T = 400 (a beat tracker's, 8 s of audio
at 50 fps) and ``nn.GRU(256, 256)`` at T = 46 (a grapheme-to-phoneme encoder's), with torch's default initialisation
and Gaussian inputs. Each model runs in its own child process, the audit first (its peak resident memory,
``ru_maxrss``, is read before the baseline allocates anything: with the warm-up, the peak of two audits), then the
baseline. Before either is timed, both run once on the same model and length over other inputs, so both times are of
the steady state: the first call of each LAPACK/MKL kernel at the model's sizes and the allocator's first touches of
fresh memory (0.2–0.5 s of the GRU's audit in a new process, about 45,000 page faults, 0.15 s of it system time) are
out of both, where before only the audit, run first, paid them (``--cold`` measures that way: a user's first audit in
a fresh process). Absolute times depend on the machine and its load (printed); the ratios are the result (target: ≤
3, under 2 GB). The CPU ratio (process CPU time of the audit over that of the baseline, all threads) is less
disturbed by other processes on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time

import torch
from torch import nn
from torch.func import functional_call, jacrev, vmap

CHUNK = 16  # steps per vectorised jacrev call of the baseline


def _model(name: str) -> tuple[nn.Module, int]:
    torch.manual_seed(0)
    if name == "lstm":
        return nn.LSTM(150, 150, num_layers=2, batch_first=True), 150
    return nn.GRU(256, 256, batch_first=True), 256


def baseline_seconds(module: nn.Module, x: torch.Tensor) -> float:
    """Seconds to form ∂s_t/∂s_{t−1} of the module's packed state (every layer's h, and c of an LSTM) along each
    sequence of x (m, T, n), float64, with torch.func.jacrev through the module's own forward (one step)."""
    m64 = module.double().eval()
    params = dict(m64.named_parameters())
    L, H, lstm = m64.num_layers, m64.hidden_size, isinstance(m64, nn.LSTM)
    x = x.double()

    def step(x_t, s):
        hs = s[:L * H].reshape(L, 1, H)
        init = (hs, s[L * H:].reshape(L, 1, H)) if lstm else hs
        _, new = functional_call(m64, params, (x_t[None, None], init))
        return torch.cat([t.reshape(-1) for t in new]) if lstm else new.reshape(-1)

    start = time.perf_counter()
    for seq in x:
        with torch.no_grad():
            _, last = m64(seq[None])
        s = torch.zeros(L * H * (2 if lstm else 1), dtype=torch.float64)
        states = [s]
        with torch.no_grad():
            for x_t in seq:
                states.append(step(x_t, states[-1]))
        prev = torch.stack(states[:-1])
        for lo in range(0, seq.shape[0], CHUNK):
            vmap(jacrev(step, argnums=1))(seq[lo:lo + CHUNK], prev[lo:lo + CHUNK])
    return time.perf_counter() - start


def _child(name: str, T: int, sequences: int, cold: bool, queue) -> None:
    import rnnaudit

    module, n = _model(name)
    x = torch.randn(sequences, T, n, generator=torch.Generator().manual_seed(1))
    rnnaudit.audit(nn.RNN(2, 3, batch_first=True), torch.randn(1, 4, 2))  # imports and first calls out of the time
    # the same model and length on other inputs through each computation before it is timed (its steady state); the
    # baseline's after the audit's peak is read (jacrev's chunks need more memory than the audit) and after the audit
    # (the baseline turns the module into float64 in place)
    other = None if cold else torch.randn(sequences, T, n, generator=torch.Generator().manual_seed(2))
    if other is not None:
        rnnaudit.audit(module, other, allow_large=True)
    start, cpu = time.perf_counter(), time.process_time()
    rnnaudit.audit(module, x, allow_large=True)
    audit_s, audit_cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    if other is not None:
        baseline_seconds(module, other)
    cpu = time.process_time()
    base_s = baseline_seconds(module, x)
    base_cpu = time.process_time() - cpu
    queue.put({"model": name, "T": T, "audit_s": audit_s, "baseline_s": base_s, "peak_bytes": peak,
               "audit_cpu_s": audit_cpu, "baseline_cpu_s": base_cpu})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="lstm,gru")
    parser.add_argument("--lstm-T", type=int, default=400)
    parser.add_argument("--gru-T", type=int, default=46)
    parser.add_argument("--sequences", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1,
                        help="child processes per model (each audit and baseline in a fresh one); with more than one, "
                             "every run is printed and then the median ratio (this machine's speed moves by about a "
                             "quarter from one process to the next)")
    parser.add_argument("--cold", action="store_true",
                        help="warm up on a tiny nn.RNN only (the earlier measure): the timed audit is then the first "
                             "in its process and pays the first calls of the model's kernels and the allocator's "
                             "first touches of its memory; the baseline, run after it, does not")
    parser.add_argument("--json", action="store_true", help="also print one JSON line per model")
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':<34} {'T':>4} {'audit s':>9} {'jacrev s':>9} {'ratio':>6} {'peak GB':>8} {'CPU ratio':>10}")
    ctx = mp.get_context("spawn")
    for name in args.models.split(","):
        T = args.lstm_T if name == "lstm" else args.gru_T
        label = "nn.LSTM(150, 150, num_layers=2)" if name == "lstm" else "nn.GRU(256, 256)"
        ratios = []
        for _ in range(max(1, args.repeat)):
            queue = ctx.Queue()
            proc = ctx.Process(target=_child, args=(name, T, args.sequences, args.cold, queue))
            proc.start()
            proc.join()
            if proc.exitcode != 0:
                print(f"{name}: the child process failed (exit {proc.exitcode})", file=sys.stderr)
                continue
            r = queue.get()
            ratios.append(r["audit_s"] / r["baseline_s"])
            print(f"{label:<34} {T:>4} {r['audit_s']:9.2f} {r['baseline_s']:9.2f} {ratios[-1]:6.2f} "
                  f"{r['peak_bytes'] / 1e9:8.2f} {r['audit_cpu_s'] / r['baseline_cpu_s']:10.2f}")
            if args.json:
                print(json.dumps(r))
        if len(ratios) > 1:
            print(f"{label}: median ratio {statistics.median(ratios):.2f} over {len(ratios)} processes "
                  f"(from {min(ratios):.2f} to {max(ratios):.2f})")


if __name__ == "__main__":
    main()
