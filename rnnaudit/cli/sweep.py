"""``rnnaudit sweep``: every point of a run-spec grid, inline or through submitit (local or SLURM)."""

from __future__ import annotations

__all__ = ["run"]


def run(args) -> int:
    from rnnaudit.training.sweep import load_spec, run_sweep, submit_sweep

    spec = load_spec(args.spec)
    if args.executor == "inline":
        summaries = run_sweep(spec)
    else:
        summaries = submit_sweep(spec, executor=args.executor, folder=args.folder)
    for s in summaries:
        state = ("skipped (finished)" if s.get("skipped") else
                 f"submitted as job {s['job_id']}" if s.get("job_id") and "final_val_loss" not in s else
                 f"DIVERGED at step {s['diverged_at']}" if s.get("diverged_at") is not None else
                 f"val loss {s['final_val_loss']:.4g}")
        print(f"{s['run']}: {state}")
    return 0
