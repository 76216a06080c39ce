"""Jacobian maps of a wrapped ``torch.nn.GRU`` against our own GRU cell of the same size, in one run.

    python benchmarks/bench_wrapped.py                    # h = 128, T = 200, 3 interleaved rounds
    python benchmarks/bench_wrapped.py --hidden 64 --T 1000 --rounds 5 --repeat 3

Both are timed on the same addition-problem sequence (n = 2, float64, CPU): the whole
:func:`analysis.hidden_jacobian_maps` (spectral + Frobenius, certified rtol) and, separately, its
first stage, the per-step Jacobians J_t by forward mode (:func:`analysis.step_jacobians`), the only
stage where the cell's code runs. The cost of the later stages depends on the Jacobians' spectra
(how many pairs the cheap certificate settles), so by default the two cells get the same dynamics:
our GRU (nc_gru.md eq. 1) takes the torch GRU's weights with u = 1 − z (negated z weights), b_hn = 0
and the reset gate held open (r ≡ 1, where eq. 1's U_c(r ⊙ h) and torch's r ⊙ (W_hn h) coincide), so
both produce the same J_t and the maps differ in time only by the cells' code. ``--independent``
draws the two cells independently instead. Rounds alternate the order (ours, wrapped; wrapped, ours;
...) so that load on the shared machine hits both alike; the ratio wrapped/ours is reported per
round and as the median. Within a round each timing is the best of ``--repeat`` runs (the per-step
stage, well under a second, always of at least 5): on a busy machine the minimum is the least
disturbed measurement of the same work.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as the CLI does

import torch  # noqa: E402

from rnnaudit.analysis import hidden_jacobian_maps, step_jacobians  # noqa: E402
from rnnaudit.cells import GRU, wrap  # noqa: E402
from rnnaudit.tasks.synthetic import addition_problem  # noqa: E402
from rnnaudit.cli.argtypes import count  # noqa: E402

try:
    from bench_jacobian import machine  # noqa: E402
except ImportError:  # run from another directory
    from benchmarks.bench_jacobian import machine  # noqa: E402


def _best(fn, repeat: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, all threads), each the best of ``repeat`` runs."""
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return min(wall), min(cpu)


@torch.no_grad()
def same_dynamics(ours: GRU, module: torch.nn.GRU) -> None:
    """Give both cells one and the same recurrence (module docstring): r ≡ 1 exactly in float64
    (sigmoid(1000) = 1), u = 1 − z through sigmoid(−a) = 1 − sigmoid(a), b_hn = 0."""
    H = module.hidden_size
    module.bias_ih_l0[:H].fill_(1e3)
    module.bias_hh_l0[:H].zero_()
    module.bias_hh_l0[2 * H:].zero_()
    Wr, Wz, Wn = module.weight_ih_l0.chunk(3)
    Ur, Uz, Un = module.weight_hh_l0.chunk(3)
    b_i, b_h = module.bias_ih_l0.chunk(3), module.bias_hh_l0.chunk(3)
    for p, v in ((ours.W_r, Wr), (ours.W_u, -Wz), (ours.W_c, Wn), (ours.U_r, Ur), (ours.U_u, -Uz), (ours.U_c, Un),
                 (ours.b_r, b_i[0] + b_h[0]), (ours.b_u, -(b_i[1] + b_h[1])), (ours.b_c, b_i[2])):
        p.copy_(v)


def bench(hidden: int, T: int, rounds: int, seed: int, independent: bool = False, repeat: int = 1
          ) -> tuple[list[dict], float]:
    gen = torch.Generator().manual_seed(seed)
    ours = GRU(2, hidden, generator=gen, dtype=torch.float64)
    torch.manual_seed(seed)
    module = torch.nn.GRU(2, hidden, batch_first=True, dtype=torch.float64).eval()
    if not independent:
        same_dynamics(ours, module)
    wrapped = wrap(module)
    x = addition_problem(1, T, generator=gen)[0][0].double()
    with torch.no_grad():
        max_diff = float((ours(x[None]) - wrapped(x[None])).abs().max())
    cells = {"ours": ours, "wrapped": wrapped}
    for cell in cells.values():  # warm-up: torch.func's first call
        step_jacobians(cell, x[:8])
    rows, stats = [], {}
    for r in range(rounds):
        order = ("ours", "wrapped") if r % 2 == 0 else ("wrapped", "ours")
        row = {"round": r + 1, "order": order}
        for name in order:
            row[f"{name}_steps_s"], row[f"{name}_steps_cpu"] = _best(lambda: step_jacobians(cells[name], x),
                                                                     max(5, repeat))
            row[f"{name}_maps_s"], row[f"{name}_maps_cpu"] = _best(
                lambda: stats.__setitem__(name, hidden_jacobian_maps(cells[name], x).stats), repeat)
        for key in ("steps_s", "steps_cpu", "maps_s", "maps_cpu"):
            row[f"ratio_{key}"] = row[f"wrapped_{key}"] / row[f"ours_{key}"]
        row["stats"] = dict(stats)
        rows.append(row)
    return rows, max_diff


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", type=count, default=128)
    ap.add_argument("--T", type=count, default=200)
    ap.add_argument("--rounds", type=count, default=3)
    ap.add_argument("--repeat", type=count, default=1, help="timings per stage and round (the best is kept)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--independent", action="store_true", help="draw the two cells independently")
    args = ap.parse_args(argv)
    print("machine:", machine("cpu"))
    rows, max_diff = bench(args.hidden, args.T, args.rounds, args.seed, args.independent, args.repeat)
    print(f"states of the two cells differ by at most {max_diff:.1e}"
          + (" (independent draws)" if args.independent else " (same dynamics)"))
    for r in rows:
        print(f"round {r['round']} ({' then '.join(r['order'])}): h={args.hidden} T={args.T} float64 CPU | "
              f"Jacobian map: ours {r['ours_maps_s']:6.2f} s ({r['ours_maps_cpu']:6.2f} s CPU), wrapped nn.GRU "
              f"{r['wrapped_maps_s']:6.2f} s ({r['wrapped_maps_cpu']:6.2f} s CPU), ratio {r['ratio_maps_s']:.2f} "
              f"(CPU {r['ratio_maps_cpu']:.2f}) | per-step J_t: ours {r['ours_steps_s']:.3f} s, wrapped "
              f"{r['wrapped_steps_s']:.3f} s, ratio {r['ratio_steps_s']:.2f} (CPU {r['ratio_steps_cpu']:.2f})")
        print(f"         spectral paths: ours {r['stats']['ours']}, wrapped {r['stats']['wrapped']}")
    med = {k: statistics.median(r[f"ratio_{k}"] for r in rows) for k in ("maps_s", "maps_cpu", "steps_s", "steps_cpu")}
    print(f"median ratio wrapped/ours: Jacobian map {med['maps_s']:.2f} wall, {med['maps_cpu']:.2f} CPU; "
          f"per-step Jacobians {med['steps_s']:.2f} wall, {med['steps_cpu']:.2f} CPU")
    print("machine after:", machine("cpu"))


if __name__ == "__main__":
    main()
