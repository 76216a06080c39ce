"""``rnnaudit heatmap``, ``spectrum``, ``lyapunov`` and ``compare``: one figure each."""

from __future__ import annotations

__all__ = ["run"]


def _source(args):
    from rnnaudit.sources import load_source

    if args.model or args.arch:
        from rnnaudit.user_models import user_source

        return user_source(args)
    return load_source(args.source, T=args.T, hidden=args.hidden, seed=args.seed, step=args.step, task=args.task,
                       allow_large=args.allow_large)


def _heatmap(args, src):
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps

    return plot_jacobian_heatmaps(src.cell, src.x[0], kind=args.kind, log=not args.linear, title=src.label)


def _spectrum(args, src):
    from rnnaudit.figures.spectrum import plot_spectrum
    from rnnaudit.untrusted import InputError

    W = src.cell.recurrent_matrix()
    if W.dim() != 2:
        raise InputError(f"{src.label} has {W.shape[0]} recurrent matrices, not one")
    return plot_spectrum(W, title=src.label)


def _compare(args):
    from rnnaudit.figures.trajectory import plot_comparison
    from rnnaudit.training import read_trajectory

    return plot_comparison({str(p): read_trajectory(p) for p in args.runs}, args.key)


def run(args) -> int:
    import torch

    from rnnaudit.figures.paper_figures import save_figure

    if args.command == "compare":
        fig = _compare(args)
    else:
        src = _source(args)
        with torch.no_grad():
            fig = {"heatmap": _heatmap, "spectrum": _spectrum}[args.command](args, src)
    save_figure(fig, args.out)
    print(f"wrote {args.out}")
    return 0
