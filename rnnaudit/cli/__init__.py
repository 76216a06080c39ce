"""The ``rnnaudit`` command line: parse, run one command, map every failure to its exit status.

    rnnaudit check [--paper P ...] [--out DIR] [--quick|--full] [--seed N] [--strict[=false|misprinted]]
    rnnaudit reproduce COUNTEREXAMPLE.pt
    rnnaudit train [--preset NAME] [--cell C] [--task T] [--T N] ... [--out DIR] [--resume|--overwrite]
    rnnaudit audit SOURCE | --model MODULE:FACTORY --weights FILE | --arch rnn|gru|lstm --weights FILE
    rnnaudit heatmap|spectrum|lyapunov|fixed-points SOURCE | --model ... | --arch ... [--out FILE]
    rnnaudit sweep SPEC.json|.toml [--executor inline|local|slurm]
    rnnaudit compare RUN_DIR [RUN_DIR ...] [--key grad/W/max] [--out FILE]

Exit status: 0 done (whatever the verdicts); 1 with ``--strict`` when a claim is false (``--strict=misprinted``:
false or misprinted), or when
``reproduce`` no longer reproduces; 2 for a bad argument or an unreadable or invalid input file, with
one line on stderr naming it; 130 on Ctrl-C; 70 for an internal error (a bug in rnnaudit: one line
asking for a report). ``--debug`` shows the traceback instead of the line.
Commands import their heavy dependencies (torch, matplotlib) only when they run, so ``--help`` is fast.
"""

from __future__ import annotations

import importlib
import os
import sys

from rnnaudit.cli.parser import build_parser

__all__ = ["main", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_INTERRUPTED", "EXIT_INTERNAL"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_INTERNAL = 0, 1, 2, 130, 70

#: command → module in rnnaudit.cli with a ``run(args) -> int``.
COMMANDS = {"check": "check", "reproduce": "reproduce", "train": "train", "audit": "audit", "heatmap": "plots",
            "spectrum": "plots", "lyapunov": "plots", "fixed-points": "plots", "compare": "plots", "sweep": "sweep"}

#: commands whose --out is one figure file
FIGURE_COMMANDS = ("heatmap", "spectrum", "lyapunov", "fixed-points", "compare")


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 2000 else text[:2000] + " …"


def _out_of_memory(err: BaseException) -> bool:
    """A failed allocation: Python's MemoryError, torch's CUDA OutOfMemoryError, or the RuntimeError of torch's CPU
    allocator (``--allow-large`` lifts the size limits, and what is then asked for may not fit)."""
    return isinstance(err, MemoryError) or type(err).__name__ == "OutOfMemoryError" or (
        isinstance(err, RuntimeError) and "can't allocate memory" in str(err))


def _check_out_location(args) -> None:
    """``--out`` in an existing directory or under the current directory, checked before any work
    (:func:`rnnaudit.outputs.check_output_location`); for a figure, the data files beside it too."""
    from rnnaudit.outputs import check_output_location

    if getattr(args, "out", None) is not None:
        check_output_location(args.out, "--out")
        if args.command in FIGURE_COMMANDS and args.out.is_dir():  # found only when the figure was done
            raise ValueError(f"--out {args.out}: is a directory, expected a figure file")
        if args.command in FIGURE_COMMANDS:
            # the figure's data go beside it (.npz for maps and spectra, .csv for tables): checked as --out is, so
            # that a path there that cannot be written refuses the run before the work, not after the figure
            for beside in (args.out.with_suffix(suffix) for suffix in (".npz", ".csv")):
                where = f"the data file {beside} written beside --out"
                check_output_location(beside, where)
                if beside.is_dir():
                    raise ValueError(f"{where}: is a directory, expected a file (move it, or choose another --out)")


def _printable_stdout() -> None:
    """Print a file name that is not UTF-8 (lone surrogates, PEP 383) with its odd bytes escaped, as stderr
    does, instead of failing on the "wrote" line after the work is done (stdout is strict in a UTF-8 locale)."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None and getattr(sys.stdout, "errors", None) == "strict":
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # a stream that cannot change: leave it
            pass


def _reader_gone() -> int:
    """stdout's reader closed the pipe (``rnnaudit --print-completion bash | head -1``): stop quietly, as Python's
    documentation of SIGPIPE advises. stdout is pointed at /dev/null so that the interpreter's final flush of what
    is still buffered raises no second BrokenPipeError; the status is Python's own for EPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``rnnaudit`` console script; returns the exit status (argparse's own errors,
    --help and --version exit through SystemExit, with status 2 and 0; a closed stdout pipe, 1)."""
    _printable_stdout()
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
    except BrokenPipeError:
        return _reader_gone()


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from rnnaudit.provenance import recorded_seed

        _check_out_location(args)
        module = importlib.import_module(f"rnnaudit.cli.{COMMANDS[args.command]}")
        with recorded_seed(getattr(args, "seed", None)):  # named in every figure file's metadata
            return module.run(args)
    except BrokenPipeError:
        raise  # not bad input: main() ends quietly
    except KeyboardInterrupt:
        print("rnnaudit: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - the last line of defence: no traceback unless asked for
        if args.debug:
            raise
        if _out_of_memory(err):
            print(f"rnnaudit: error: {args.command}: not enough memory for this job (smaller sizes, or another "
                  "machine)", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(err, (ValueError, TypeError, OSError, ImportError)):
            # bad input from a file or an argument that argparse could not see: the readers
            # (rnnaudit.untrusted) and the validators word these errors, naming what was wrong; an
            # ImportError is an optional dependency missing (scikit-learn for the digits), named with its extra
            print(f"rnnaudit: error: {_one_line(err)}", file=sys.stderr)
            return EXIT_USAGE
        print(f"rnnaudit: internal error ({type(err).__name__}: {_one_line(err)}); rerun with --debug for the "
              "traceback and please report it", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
