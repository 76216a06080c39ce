"""The argument parser of ``rnnaudit``: light enough that ``rnnaudit --help`` imports neither torch nor
matplotlib (its choices come from :mod:`rnnaudit.names`). Every option's help states its default."""

from __future__ import annotations

import argparse
from pathlib import Path

from rnnaudit import names
from rnnaudit.cli.argtypes import (count, figure_file, grid_points, learning_rate, positive_float, rtol, seed,
                                   strict_level)

__all__ = ["build_parser", "Parser"]

EPILOG = ("Exit status: 0 done; 1 a claim false with --strict (false or misprinted with --strict=misprinted), "
          "or a counterexample that no longer reproduces; "
          "2 a bad argument or input file (one line on stderr); 130 interrupted.")


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``rnnaudit: error: ...`` on stderr, exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show the traceback of an error (default: one line)")
    return common


def _model_source(p: argparse.ArgumentParser, *, task_default: str = "adding", inputs: bool = True) -> None:
    """SOURCE, or a user's own model: --model MODULE:FACTORY or --arch with --weights, and (``inputs``) the
    sequences to probe it with; ``spectrum`` reads the weights alone and takes none."""
    p.add_argument("source", nargs="?", help="a cell name (initialised as in its paper), an rnnaudit checkpoint .pt, "
                                             "or a run directory (its latest checkpoint); omit with --model/--arch")
    p.add_argument("--model", metavar="MODULE:FACTORY",
                   help="your own model: a function returning the nn.Module, imported with the current directory on "
                        "sys.path; with SOURCE, the factory of a Monitor run's model (a factory a run names is never "
                        "imported) (default: none)")
    p.add_argument("--arch", choices=names.ARCHS, help="read --weights as a plain state dict of torch.nn.RNN, GRU or "
                                                       "LSTM, sizes inferred from the tensors (default: none)")
    p.add_argument("--weights", type=Path, metavar="FILE",
                   help="a state dict (.pt, loaded with weights_only=True, or .safetensors) for --model or --arch; "
                        "alone, a torch.nn.RNN/GRU/LSTM or *Cell state dict whose sizes and architecture are read "
                        "from the tensors (default: none)")
    p.add_argument("--submodule", metavar="PATH",
                   help="the recurrent module to probe, a dotted path (e.g. encoder.rnn): inside --model, or the "
                        "prefix of its tensors in --weights (a whole model's state dict, a Lightning checkpoint, "
                        "prefixed safetensors); --inputs then holds that module's own inputs (default: the whole "
                        "model; for --weights, the file's only recurrent prefix)")
    p.add_argument("--nonlinearity", choices=("tanh", "relu"), default="tanh",
                   help="of --arch rnn, which a state dict cannot tell (default: tanh)")
    if inputs:
        _inputs(p, task_default)
    p.add_argument("--hidden", type=count, default=64, help="width when SOURCE is a cell name (default: 64)")
    p.add_argument("--step", type=count, help="for a run directory: the checkpoint of this training step "
                                               "(default: the latest)")
    p.add_argument("--seed", type=seed, default=0, help="seeds the initialisation of a cell name and the input "
                                                         "sequence (default: 0)")
    p.add_argument("--allow-large", action="store_true",
                   help="lift the limits on sizes read from files and flags (default: off)")


def _inputs(p: argparse.ArgumentParser, task_default: str) -> None:
    p.add_argument("--inputs", type=Path, metavar="FILE.pt",
                   help="input sequences, a tensor (T, n) or (batch, T, n) (default: one sequence of --task)")
    p.add_argument("--task", choices=[t for t in names.TASKS if t not in names.DATA_DIR_TASKS], default=None,
                   help=f"the task that draws the input sequence (default: the run's own task, else {task_default})")
    p.add_argument("--T", type=count, help="sequence length (default: the run's T, else the task's own "
                                                "length where it has one, as the digits' 64, else 100)")


def build_parser() -> argparse.ArgumentParser:
    """The ``rnnaudit`` parser with every subcommand."""
    common = _common()
    parser = Parser(prog="rnnaudit", description="Check the stated bounds of orthogonal and gated RNN papers, and "
                                                 "audit trained models against their theorems.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error (default: one line)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")

    check = sub.add_parser("check", parents=[common], help="check every claim of the papers and write a report",
                           epilog=EPILOG)
    check.add_argument("--paper", nargs="+", choices=names.PAPERS, metavar="PAPER",
                       help=f"papers to check: {', '.join(names.PAPERS)} (default: all)")
    check.add_argument("--out", type=Path, default=Path("rnnaudit-check"),
                       help="report directory, replaced whole when the check completes (default: rnnaudit-check)")
    check.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where the cases run (default: cpu)")
    effort = check.add_mutually_exclusive_group()
    effort.add_argument("--quick", dest="profile", action="store_const", const="quick",
                        help="small search, about 2 minutes on 2 CPU cores (the default)")
    effort.add_argument("--full", dest="profile", action="store_const", const="full",
                        help="the papers' full sizes (T up to 5000, h = 128) and a longer adversarial search "
                             "(default: off)")
    check.set_defaults(profile="quick")
    check.add_argument("--seed", type=seed, default=0, help="base seed of every claim's search (default: 0)")
    check.add_argument("--jobs", type=count, default=None, metavar="N",
                       help="worker processes checking claims side by side; the report is the same for every N "
                            "(default: one per usable CPU core)")
    check.add_argument("--strict", nargs="?", const=("false",), default=None, type=strict_level,
                       metavar="false|misprinted",
                       help="exit 1 if a claim is false (bare --strict or --strict=false), or false or misprinted "
                            "(--strict=misprinted) (default: off)")

    rep = sub.add_parser("reproduce", parents=[common], help="re-measure a saved counterexample", epilog=EPILOG)
    rep.add_argument("path", type=Path, help="a counterexample .pt written by rnnaudit check")
    rep.add_argument("--allow-large", action="store_true", help="run a counterexample above the size limits "
                                                                "(default: off)")

    tr = sub.add_parser("train", parents=[common], help="train a cell on a task and record its trajectory",
                        epilog=EPILOG)
    tr.add_argument("--preset", choices=names.PRESETS, metavar="NAME",
                    help=f"a paper's configuration ({', '.join(names.PRESETS)}); other flags override it, and a "
                         "different --cell/--task/--optimizer drops the preset's cell/task/optimizer arguments "
                         "(default: none)")
    tr.add_argument("--cell", choices=names.CELLS, help="the cell (default: the preset's, else sgornn)")
    tr.add_argument("--task", choices=names.TASKS, help="the task (default: the preset's, else adding)")
    tr.add_argument("--data-dir", type=Path, metavar="DIR",
                    help=f"where the files of {', '.join(names.DATA_DIR_TASKS)} are; nothing is downloaded "
                         "(default: none)")
    for flag, kind, default, what in (
            ("--T", count, "the task's own length, else 100", "sequence length"),
            ("--steps", count, "1000", "optimizer steps"),
            ("--batch", count, "64", "batch size"), ("--hidden", count, "128", "state width h"),
            ("--record-every", count, "100", "steps between trajectory records"),
            ("--checkpoint-every", count, "500", "steps between checkpoints"),
            ("--val-batches", count, "10", "fixed validation batches")):
        tr.add_argument(flag, type=kind, help=f"{what} (default: the preset's, else {default})")
    tr.add_argument("--seed", type=seed, help="seeds the initialisation and the data (default: the preset's, else 0)")
    tr.add_argument("--lr", type=learning_rate, help="initial learning rate (default: the preset's, else 1e-3)")
    tr.add_argument("--optimizer", choices=names.OPTIMIZERS, help="(default: the preset's, else rmsprop)")
    tr.add_argument("--schedule", choices=names.SCHEDULES, help="learning-rate schedule (default: the preset's, "
                                                                "else linear)")
    tr.add_argument("--device", choices=("cpu", "cuda"), help="(default: cpu)")
    tr.add_argument("--amp", action="store_true", help="bfloat16 autocast on CUDA; probes stay float64 "
                                                       "(default: off)")
    tr.add_argument("--out", type=Path, help="run directory (default: runs/<cell>-<task>-T<T>-seed<seed>)")
    what = tr.add_mutually_exclusive_group()
    what.add_argument("--resume", action="store_true", help="continue the run in --out from its latest checkpoint "
                                                            "(default: off)")
    what.add_argument("--overwrite", action="store_true", help="delete the run in --out and start again "
                                                               "(default: off)")
    tr.add_argument("--allow-large", action="store_true", help="lift the size limits (default: off)")

    au = sub.add_parser("audit", parents=[common], help="check a trained model against every theorem's assumptions "
                                                        "and bounds", epilog=EPILOG)
    _model_source(au)
    au.add_argument("--out", type=Path, default=Path("rnnaudit-audit"),
                    help="report directory, replaced whole when the audit completes (default: rnnaudit-audit)")
    au.add_argument("--max-minutes", type=positive_float, default=None,
                    help="refuse an audit whose estimate (printed before it starts, from a GEMM timed on this "
                         "machine) exceeds this many minutes (default: 10)")
    au.add_argument("--memory-limit", type=positive_float, metavar="GIB",
                    help="refuse an audit whose estimated peak memory is above this many GiB (default: 3/4 of the "
                         "machine's memory)")

    for name, summary, default in (("heatmap", "draw the ‖∂h_t/∂h_s‖₂ map of a model", "heatmap.png"),
                                   ("spectrum", "eigenvalues, ε-pseudospectra and singular values of each recurrent "
                                                "matrix, one row each in one figure", "spectrum.png"),
                                   ("lyapunov", "the Lyapunov spectrum along a trajectory", "lyapunov.png"),
                                   ("fixed-points", "fixed points and slow points under a constant input, and the "
                                                    "eigenvalues of the Jacobian at each on the unit circle",
                                    "fixed-points.png")):
        p = sub.add_parser(name, parents=[common], help=summary, epilog=EPILOG)
        _model_source(p)  # spectrum reads inputs only for an input-dependent transition (a selective SSM's Ā_t)
        p.add_argument("--out", type=figure_file, default=Path(default),
                       help=f"figure file, .png, .pdf or .svg (default: {default}); its data file goes beside it, "
                            "same stem, .npz or .csv (replaced if present)")
        if name in ("heatmap", "spectrum", "lyapunov"):
            p.add_argument("--max-minutes", type=positive_float, default=None,
                           help="refuse a job whose estimate (printed before it starts, from rates measured on this "
                                "machine) exceeds this many minutes (default: 10)")
        if name == "heatmap":
            p.add_argument("--kind", choices=("hidden", "input"), default="hidden",
                           help="‖∂h_t/∂h_s‖₂ (hidden) or ‖∂h_τ/∂x_t‖₂ (input, as enrnn.md Fig. 4–5) (default: hidden)")
            p.add_argument("--linear", action="store_true", help="linear colour scale (default: log)")
            tol = p.add_mutually_exclusive_group()
            tol.add_argument("--certified", action="store_true",
                             help="certify every value to rtol 1e-10 (default: off, a heatmap-grade tolerance)")
            tol.add_argument("--rtol", type=rtol, help="relative tolerance of the spectral norms "
                                                       "(default: heatmap grade)")
            p.add_argument("--resolution", type=grid_points,
                           help="grid points per axis: the map at that many source and target steps, not every "
                                "pair (default: 256 at the heatmap-grade rtol 1e-3 or coarser; every pair for a "
                                "finer --rtol or --certified)")
            p.add_argument("--method", choices=("auto", "certified", "sketch"), default="auto",
                           help="on a grid: certified (every value within rtol, deterministic) or sketch (randomized "
                                "sweeps, each value within a stated factor at confidence 0.9999; for wide states); "
                                "auto: certified unless its estimate exceeds 5 minutes and the sketch is cheaper "
                                "(default: auto)")
            p.add_argument("--block", choices=("h", "c", "state"), default="h",
                           help="which part of the state: h (the hidden state), c (an LSTM's cell state) or the "
                                "whole packed state (default: h)")
            p.add_argument("--layer", type=seed, metavar="N",
                           help="layer of a stacked model, 0-based as torch's weight_hh_lN (default: the last)")
            p.add_argument("--memory-limit", type=positive_float, metavar="GIB",
                           help="refuse a map whose estimated memory is above this many GiB (default: 3/4 of "
                                "the machine's memory)")
        p.add_argument("--direction", choices=("forward", "reverse"),
                       help="one direction of a bidirectional torch module (the reverse one on reversed time: its "
                            "step 1 reads the last input); of several layers, "
                            + {"heatmap": "that of --layer", "spectrum": "every layer's matrices",
                               "lyapunov": "the last layer's", "fixed-points": "the last layer's"}[name]
                            + " (default: none; needed for a bidirectional module)")
        if name == "spectrum":
            p.add_argument("--role", help="which recurrent matrix, by role (default: every one)")
        if name == "lyapunov":
            p.add_argument("--k", type=count, help="how many exponents (default: all)")
        if name in ("heatmap", "lyapunov"):
            p.add_argument("--sequence", type=seed, metavar="I",
                           help="use only this sequence of the inputs, 0-based (default: all of them, "
                                + ("the mean of the per-sequence norms" if name == "heatmap" else
                                   "the mean of the per-sequence exponents, error bars covering their spread")
                                + ")")
        if name == "fixed-points":
            p.add_argument("--input", choices=("zero", "mean"), default="zero",
                           help="the constant input x*: zero, or the mean of the inputs (default: zero)")
            p.add_argument("--starts", type=count, default=64,
                           help="starts of the search, drawn from the states the inputs visit (default: 64)")

    sw = sub.add_parser("sweep", parents=[common], help="run every point of a run-spec grid", epilog=EPILOG)
    sw.add_argument("spec", type=Path, help="sweep spec .json or .toml (see rnnaudit/training/sweep.py)")
    sw.add_argument("--executor", choices=("inline", "local", "slurm"), default="inline",
                    help="inline: one run after another in this process; local: submitit's local executor "
                         "(separate processes, the code path Slurm takes); slurm: the grid as one Slurm job "
                         "array, see docs/sweeps.md (default: inline)")
    sw.add_argument("--folder", type=Path, default=Path("submitit-logs"),
                    help="submitit's folder for --executor local|slurm: each job's <job id>_<task>_log.out and "
                         ".err (default: submitit-logs)")
    sw.add_argument("--wait", action="store_true",
                    help="stay until every job has ended, printing each job's id and state as it changes, then "
                         "each run's result (default: on for local, off for slurm)")
    slurm = sw.add_argument_group("Slurm (--executor slurm; each overrides the spec's \"slurm\" table)")
    slurm.add_argument("--partition", help="partition, or several joined by ',' (default: the cluster's default)")
    slurm.add_argument("--time", help="time limit per job, minutes or [D-]HH:MM:SS (default: 1440)")
    slurm.add_argument("--mem", help="memory per job, megabytes or with a unit: 500M, 4G (default: the "
                                     "cluster's default)")
    slurm.add_argument("--cpus-per-task", help="CPUs per job; torch uses as many threads (default: Slurm's, 1)")
    slurm.add_argument("--array-parallelism", help="most runs of the job array running at once (default: 256)")

    cp = sub.add_parser("compare", parents=[common], help="one recorded quantity over training for several runs",
                        epilog=EPILOG)
    cp.add_argument("runs", nargs="+", type=Path, help="run directories")
    cp.add_argument("--key", default="val_loss", help="trajectory key, e.g. val_loss, grad/W/max, grad_h0 "
                                                      "(default: val_loss)")
    cp.add_argument("--out", type=figure_file, default=Path("compare.png"),
                    help="figure file, .png, .pdf or .svg (default: compare.png); its data go beside it, same "
                         "stem, .csv (replaced if present)")
    _completion(parser)
    return parser


def _version() -> str:
    from rnnaudit.provenance import rnnaudit_version

    return rnnaudit_version()


def _completion(parser: argparse.ArgumentParser) -> None:
    """``rnnaudit --print-completion SHELL`` writes a shell completion script (shtab), for every shell shtab
    supports (bash, zsh, tcsh, fish, powershell with shtab 1.7+); the help lists exactly the shells accepted."""
    try:
        import shtab
    except ImportError:  # completion is a convenience; the CLI works without it
        return
    shells = list(shtab.SUPPORTED_SHELLS)
    shtab.add_argument_to(parser, ["--print-completion"], help=f"print a shell completion script for "
                                                               f"{', '.join(shells[:-1])} or {shells[-1]}, e.g. "
                                                               "`eval \"$(rnnaudit --print-completion bash)\"` "
                                                               "(default: none)")
