"""``rnnaudit train``: train a cell on a task and record its trajectory into a run directory."""

from __future__ import annotations

from pathlib import Path

__all__ = ["run"]

_FLAGS = {"cell": "cell", "task": "task", "T": "T", "steps": "steps", "batch": "batch", "hidden": "hidden_size",
          "seed": "seed", "record_every": "record_every", "checkpoint_every": "checkpoint_every",
          "val_batches": "val_batches", "lr": "lr", "optimizer": "optimizer", "schedule": "schedule",
          "device": "device"}


def run(args) -> int:
    from rnnaudit.limits import check_sizes
    from rnnaudit.training import TrainConfig, preset_config, train

    overrides = {field: getattr(args, flag) for flag, field in _FLAGS.items() if getattr(args, flag) is not None}
    if args.amp:
        overrides["amp"] = True
    config = preset_config(args.preset, **overrides) if args.preset else TrainConfig(**overrides)
    _data_task(config, args)
    check_sizes("the run's configuration", allow_large=args.allow_large, T=config.T, hidden=config.hidden_size,
                batch=config.batch, steps=config.steps, elements=config.batch * config.T * config.hidden_size)
    config.validate()
    out = args.out or Path("runs") / f"{config.cell}-{config.task}-T{config.T}-seed{config.seed}"
    from rnnaudit.progress import shows_progress

    summary = train(config, out, resume=args.resume, overwrite=args.overwrite, progress=shows_progress(),
                    allow_large=args.allow_large)
    if summary.get("diverged_at") is not None:
        print(f"{config.cell} on {config.task} (T = {config.T}): DIVERGED at step {summary['diverged_at']}: the loss "
              f"or a gradient is NaN/Inf (exploding gradients); stopped before that step. The last record of "
              f"{out / 'trajectory.jsonl'} has the float64 gradient norms, and the checkpoint of step "
              f"{summary['steps']} the parameters that produced them (rnnaudit audit {out})")
        return 0
    verdict = "beat" if summary["beat_baseline"] else "did NOT beat"
    accuracy = "" if summary.get("final_val_accuracy") is None else (
        f", validation accuracy {summary['final_val_accuracy']:.1%} (chance {summary['chance_accuracy']:.1%})")
    print(f"{config.cell} on {config.task} (T = {config.T}): final validation loss {summary['final_val_loss']:.4g}, "
          f"{verdict} the baseline {summary['baseline']:.4g}{accuracy}; trajectory in {out / 'trajectory.jsonl'}")
    return 0


def _data_task(config, args) -> None:
    """A data set's own sequence length when --T is not given, and --data-dir into task_kwargs."""
    from rnnaudit.training import TASK_SPECS

    spec = TASK_SPECS[config.task]
    if args.T is None and spec.length is not None:
        config.T = spec.length
    if args.data_dir is not None:
        if "data_dir" not in spec.kwargs:
            raise ValueError(f"--data-dir: task {config.task!r} reads no files (the tasks that do: "
                             f"{', '.join(t for t, s in TASK_SPECS.items() if 'data_dir' in s.kwargs)})")
        config.task_kwargs = {**config.task_kwargs, "data_dir": str(args.data_dir.expanduser().resolve())}
