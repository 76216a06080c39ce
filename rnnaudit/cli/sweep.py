"""``rnnaudit sweep``: every point of a run-spec grid, inline or through submitit (local or Slurm)."""

from __future__ import annotations

import sys

__all__ = ["run"]


def _state(run: str, job_id: str, state: str) -> None:
    print(f"job {job_id} ({run}): {state}", flush=True)


def run(args) -> int:
    """Exit status 0 when every run finished or was skipped (or was submitted, without --wait); 1 when a
    run's job failed (each named with its log); 2 for a bad spec or flag (one line)."""
    from rnnaudit.training.sweep import SLURM_FIELDS, load_spec, run_sweep, script_path, slurm_parameters, submit_sweep

    flags = {key: getattr(args, key) for key in SLURM_FIELDS if getattr(args, key) is not None}
    # validated before the spec is read, so that a bad flag is named even when the spec is bad too
    slurm = slurm_parameters(flags, label=lambda key: f"--{key.replace('_', '-')}")
    if slurm and args.executor != "slurm":
        raise ValueError(f"--{min(slurm).replace('_', '-')} applies to --executor slurm only")
    if args.executor != "inline":  # the folder goes into the batch script: named as the flag it came from
        script_path(args.folder, "--folder", executor=args.executor)
    spec = load_spec(args.spec)
    if args.executor == "inline":
        from rnnaudit.progress import shows_progress

        summaries = run_sweep(spec, progress=shows_progress())  # bars on a terminal only
    else:
        summaries = submit_sweep(spec, executor=args.executor, folder=args.folder, slurm=slurm,
                                 wait=True if args.wait else None, on_state=_state if args.wait else None)
    failed = 0
    for s in summaries:
        if s.get("failed"):
            failed += 1
            print(f"{s['run']}: FAILED (job {s['job_id']}): {s['failed']}; log: {s['log']}", file=sys.stderr)
            continue
        state = ("skipped (finished)" if s.get("skipped") else
                 f"submitted as job {s['job_id']}" if s.get("job_id") and "final_val_loss" not in s else
                 f"DIVERGED at step {s['diverged_at']}" if s.get("diverged_at") is not None else
                 f"val loss {s['final_val_loss']:.4g}")
        print(f"{s['run']}: {state}")
    if failed:
        print(f"{failed} of {len(summaries)} runs failed; `rnnaudit sweep` again resumes them and skips the "
              "finished ones", file=sys.stderr)
    return 1 if failed else 0
