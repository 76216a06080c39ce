"""The ``rnnaudit`` command line (top layer: uses bounds, analysis, cells and the figures).

    rnnaudit check [--paper P ...] [--out DIR] [--device cpu|cuda] [--quick|--full] [--seed N] [--strict]
    rnnaudit reproduce COUNTEREXAMPLE.pt
    rnnaudit train [--preset NAME] [--cell C] [--task adding|copy|denoise|parenthesis] [--T N] ... --out DIR [--resume]
    rnnaudit audit CHECKPOINT_OR_RUN_DIR [--out DIR]
    rnnaudit heatmap SOURCE [--kind hidden|input] [--T N] [--step N] [--linear] --out FILE.png|.pdf|.svg
    rnnaudit spectrum SOURCE --out FILE.png|.pdf|.svg
    rnnaudit sweep SPEC.json|.toml [--slurm]
    rnnaudit compare RUN_DIR [RUN_DIR ...] --key grad/W/max --out FILE.png

Exit status: 0 when the run completed (whatever the verdicts); 1 with ``--strict`` when some
claim is violated, or when ``reproduce`` no longer reproduces; 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from rnnaudit.bounds import PAPERS, claim_by_id, load_counterexample, measure_case
from rnnaudit.figures.paper_figures import save_figure


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``rnnaudit: error: ...`` on stderr, exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"rnnaudit: error: {message}\n")


def _positive_or_zero_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rnnaudit", description="Check the stated bounds of orthogonal and gated RNN papers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = sub.add_parser("check", help="audit every implemented claim and write a report")
    check.add_argument("--paper", nargs="+", choices=PAPERS, metavar="PAPER",
                       help=f"papers to audit (default: all): {', '.join(PAPERS)}")
    check.add_argument("--out", type=Path, default=Path("audit-report"), help="output directory")
    check.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    effort = check.add_mutually_exclusive_group()
    effort.add_argument("--quick", dest="profile", action="store_const", const="quick",
                        help="small search, minutes on 2 CPU cores (default)")
    effort.add_argument("--full", dest="profile", action="store_const", const="full",
                        help="the papers' full sizes (T up to 5000, h = 128) and a longer adversarial search")
    check.set_defaults(profile="quick")
    check.add_argument("--seed", type=_positive_or_zero_int, default=0)
    check.add_argument("--strict", action="store_true", help="exit 1 if any claim is violated")
    rep = sub.add_parser("reproduce", help="re-measure a saved counterexample")
    rep.add_argument("path", type=Path)

    from rnnaudit.training import OPTIMIZERS, PRESETS, TASK_SPECS
    from rnnaudit.cells.registry import CELLS

    tr = sub.add_parser("train", help="train a cell on a task and record its trajectory")
    tr.add_argument("--preset", choices=sorted(PRESETS), metavar="NAME",
                    help=f"a paper configuration ({', '.join(sorted(PRESETS))}); other flags override it, and a "
                         "different --cell/--task/--optimizer drops the preset's cell/task/optimizer arguments")
    tr.add_argument("--cell", choices=sorted(CELLS))
    tr.add_argument("--task", choices=sorted(TASK_SPECS))
    for name, kind in (("T", int), ("steps", int), ("batch", int), ("hidden", int), ("seed", int),
                       ("record-every", int), ("checkpoint-every", int), ("val-batches", int), ("lr", float)):
        tr.add_argument(f"--{name}", type=kind)
    tr.add_argument("--optimizer", choices=sorted(OPTIMIZERS))
    tr.add_argument("--schedule", choices=("linear", "constant"), help="learning-rate schedule")
    tr.add_argument("--device", choices=("cpu", "cuda"))
    tr.add_argument("--amp", action="store_true", help="bfloat16 autocast on CUDA (probes stay float64)")
    tr.add_argument("--out", type=Path, required=True, help="run directory")
    tr.add_argument("--resume", action="store_true", help="continue the run in --out from its latest checkpoint")

    hm = sub.add_parser("heatmap", help="draw the ‖∂h_t/∂h_s‖₂ map of a cell, checkpoint or run")
    hm.add_argument("source", help="cell name (paper defaults), checkpoint .pt, or run directory")
    hm.add_argument("--kind", choices=("hidden", "input"), default="hidden",
                    help="‖∂h_t/∂h_s‖₂ (hidden) or ‖∂h_τ/∂x_t‖₂ (input, as enrnn.md Fig. 4–5)")
    hm.add_argument("--T", type=int, help="sequence length (default: the run's, or 100)")
    hm.add_argument("--hidden", type=int, default=64, help="width when SOURCE is a cell name")
    hm.add_argument("--step", type=int, help="when SOURCE is a run directory: the checkpoint of this step")
    hm.add_argument("--linear", action="store_true", help="linear colour scale (default: log)")
    hm.add_argument("--out", type=Path, required=True, help="FILE.png, .pdf or .svg")
    sp = sub.add_parser("spectrum", help="eigenvalues, ε-pseudospectra and singular values of a recurrent matrix")
    sp.add_argument("source", help="cell name (paper defaults), checkpoint .pt, or run directory")
    sp.add_argument("--hidden", type=int, default=64, help="width when SOURCE is a cell name")
    sp.add_argument("--step", type=int, help="when SOURCE is a run directory: the checkpoint of this step")
    sp.add_argument("--out", type=Path, required=True, help="FILE.png, .pdf or .svg")

    sw = sub.add_parser("sweep", help="run every point of a run-spec grid, here or through SLURM (submitit)")
    sw.add_argument("spec", type=Path, help="sweep spec .json or .toml (see analysis/sweep.py)")
    sw.add_argument("--slurm", action="store_true", help="submit one SLURM job per run via submitit")
    sw.add_argument("--slurm-folder", type=Path, default=Path("slurm-logs"))

    cp = sub.add_parser("compare", help="one recorded quantity over training for several runs")
    cp.add_argument("runs", nargs="+", type=Path, help="run directories")
    cp.add_argument("--key", default="val_loss", help="trajectory key, e.g. val_loss, grad/W/max, grad_h0")
    cp.add_argument("--out", type=Path, required=True, help="FILE.png, .pdf or .svg")

    au = sub.add_parser("audit", help="check a checkpoint's or a run's theorem assumptions and bounds")
    au.add_argument("path", type=Path, help="a checkpoint .pt or a run directory")
    au.add_argument("--out", type=Path, default=Path("audit-report"))
    return parser


def _check(args, parser) -> int:
    from rnnaudit.checking import check

    try:
        run = check(args.paper, profile=args.profile, seed=args.seed, device=args.device, out_dir=args.out)
    except ValueError as err:
        parser.error(str(err))
    for paper in run.skipped_papers:
        print(f"{paper}: no claims implemented yet", file=sys.stderr)
    width = max((len(r.claim.id) for r in run.results), default=10)
    for r in run.results:
        worst = r.worst_ratio
        print(f"{r.claim.id:<{width}}  {r.verdict:<12}  worst ratio {'–' if worst is None else f'{worst:.4g}'}")
    print(f"wrote {args.out / 'results.json'} and {args.out / 'report.md'}")
    return 1 if args.strict and run.violated else 0


def _reproduce(args, parser) -> int:
    if not args.path.is_file():
        parser.error(f"argument path: no such file {args.path}")
    try:
        claim_id, case, recorded = load_counterexample(args.path)
    except (ValueError, RuntimeError, KeyError) as err:
        parser.error(f"argument path: {err}")
    claim = claim_by_id(claim_id)
    ratio, parts = measure_case(claim, case)
    h, T = case.size()
    print(f"{claim_id}: h = {h}, T = {T}, measured/bound = {ratio:.10g} (recorded {recorded:.10g})")
    for name, value in parts.items():
        print(f"  {name}: {value:.10g}")
    return 0 if ratio > 1 + claim.tolerance else 1


def _train(args, parser) -> int:
    from rnnaudit.training import TrainConfig, preset_config, train

    overrides = {"cell": args.cell, "task": args.task, "T": args.T, "steps": args.steps, "batch": args.batch,
                 "hidden_size": args.hidden, "seed": args.seed, "record_every": args.record_every,
                 "checkpoint_every": args.checkpoint_every, "val_batches": args.val_batches, "lr": args.lr,
                 "optimizer": args.optimizer, "schedule": args.schedule, "device": args.device}
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if args.amp:
        overrides["amp"] = True
    try:
        cfg = preset_config(args.preset, **overrides) if args.preset else TrainConfig(**overrides)
        cfg.validate()
        summary = train(cfg, args.out, resume=args.resume)
    except ValueError as err:
        parser.error(str(err))
    if summary.get("diverged_at") is not None:
        print(f"{cfg.cell} on {cfg.task} (T = {cfg.T}): DIVERGED at step {summary['diverged_at']}: the loss or a "
              f"gradient is NaN/Inf (exploding gradients); stopped before that step. The last record of "
              f"{args.out / 'trajectory.jsonl'} has the float64 gradient norms, and the checkpoint of step "
              f"{summary['steps']} the parameters that produced them (rnnaudit audit {args.out})")
        return 0
    verdict = "beat" if summary["beat_baseline"] else "did NOT beat"
    print(f"{cfg.cell} on {cfg.task} (T = {cfg.T}): final validation loss {summary['final_val_loss']:.4g}, "
          f"{verdict} the baseline {summary['baseline']:.4g}; trajectory in {args.out / 'trajectory.jsonl'}")
    return 0


def _audit(args, parser) -> int:
    from rnnaudit.atomic import write_json_atomic, write_text_atomic
    from rnnaudit.auditing import audit_checkpoint, audit_run
    from rnnaudit.figures.report import render_audit_html, render_audit_markdown

    if not args.path.exists():
        parser.error(f"argument path: no such file or directory {args.path}")
    try:
        doc = audit_run(args.path) if args.path.is_dir() else {"latest": audit_checkpoint(args.path)}
    except (ValueError, RuntimeError) as err:
        parser.error(f"argument path: {err}")
    doc["source"] = str(args.path)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.path.is_dir():
        from rnnaudit.training import read_trajectory
        from rnnaudit.figures.trajectory import plot_trajectory

        save_figure(plot_trajectory(read_trajectory(args.path), title=str(args.path)), args.out / "trajectory.png")
        doc["figures"] = [{"caption": "Recorded trajectory", "path": "trajectory.png"}]
    write_json_atomic(args.out / "audit.json", doc)
    write_text_atomic(args.out / "report.md", render_audit_markdown(doc))
    write_text_atomic(args.out / "report.html", render_audit_html(doc, args.out))
    for c in doc["latest"]["claims"]:
        if c["applies"]:
            ratio = "" if c["worst_ratio"] is None else f" (bound: {c['verdict']}, worst ratio {c['worst_ratio']:.4g})"
            print(f"{c['id']:<28} {c['reading']}{ratio}")
            for a in c["assumptions"]:
                if not a["holds"]:
                    print(f"{'':<28}   FAILS {a['name']} ({a['detail']})")
    print(f"{sum(not c['applies'] for c in doc['latest']['claims'])} claim(s) do not apply to this model "
          "(see the report for why)")
    print(f"wrote {args.out / 'audit.json'}, {args.out / 'report.md'} and {args.out / 'report.html'}")
    return 0


def _figure_command(args, parser) -> int:
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps
    from rnnaudit.sources import FIGURE_SUFFIXES, load_source
    from rnnaudit.figures.spectrum import plot_spectrum

    if args.out.suffix not in FIGURE_SUFFIXES:
        parser.error(f"argument --out: expected a file ending in {', '.join(FIGURE_SUFFIXES)}, got {args.out}")
    try:
        src = load_source(args.source, T=getattr(args, "T", None), hidden=args.hidden, step=args.step)
    except ValueError as err:
        parser.error(f"argument source: {err}")
    with torch.no_grad():
        if args.command == "heatmap":
            fig = plot_jacobian_heatmaps(src.cell, src.x, kind=args.kind, log=not args.linear, title=src.label)
        else:
            W = src.cell.recurrent_matrix()
            if W.dim() != 2:
                parser.error(f"argument source: {src.label} has {W.shape[0]} recurrent matrices, not one")
            fig = plot_spectrum(W, title=src.label)
    save_figure(fig, args.out)
    print(f"wrote {args.out}")
    return 0


def _sweep(args, parser) -> int:
    from rnnaudit.training.sweep import load_spec, run_sweep, submit_sweep

    try:
        spec = load_spec(args.spec)
        if args.slurm:
            jobs = submit_sweep(spec, folder=args.slurm_folder)
            print(f"submitted {len(jobs)} job(s): {', '.join(j.job_id for j in jobs)}")
            return 0
        summaries = run_sweep(spec)
    except (ValueError, RuntimeError, FileNotFoundError) as err:
        parser.error(f"argument spec: {err}")
    for s in summaries:
        state = ("skipped (finished)" if s.get("skipped") else
                 f"DIVERGED at step {s['diverged_at']}" if s.get("diverged_at") is not None else
                 f"val loss {s['final_val_loss']:.4g}")
        print(f"{s['run']}: {state}")
    return 0


def _compare(args, parser) -> int:
    from rnnaudit.training import read_trajectory
    from rnnaudit.sources import FIGURE_SUFFIXES
    from rnnaudit.figures.trajectory import plot_comparison

    if args.out.suffix not in FIGURE_SUFFIXES:
        parser.error(f"argument --out: expected a file ending in {', '.join(FIGURE_SUFFIXES)}, got {args.out}")
    try:
        runs = {str(p): read_trajectory(p) for p in args.runs}
        fig = plot_comparison(runs, args.key)
    except ValueError as err:
        parser.error(f"argument runs: {err}")
    save_figure(fig, args.out)
    print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rnnaudit`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = {"check": _check, "reproduce": _reproduce, "train": _train, "audit": _audit,
                "heatmap": _figure_command, "spectrum": _figure_command, "compare": _compare,
                "sweep": _sweep}
    return commands[args.command](args, parser)


if __name__ == "__main__":
    sys.exit(main())
