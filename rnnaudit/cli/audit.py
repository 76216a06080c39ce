"""``rnnaudit audit``: put every claim to a trained model (a checkpoint, a run directory, or a user's own
model) and write audit.json, report.md and report.html."""

from __future__ import annotations

from pathlib import Path


__all__ = ["run"]


def run(args) -> int:
    from rnnaudit.atomic import write_json_atomic, write_text_atomic
    from rnnaudit.figures.html import fmt_number
    from rnnaudit.figures.paper_figures import save_figure
    from rnnaudit.figures.report import render_audit_html, render_audit_markdown
    from rnnaudit.outputs import replaced_directory
    from rnnaudit.progress import progress_bar, reporting_to
    from rnnaudit.provenance import provenance

    _precheck(args)
    with replaced_directory(args.out, "audit") as staging:
        with progress_bar(_claims_to_assess(args), "audit", unit="claim") as bar, reporting_to(bar.update):
            doc, trajectory = _audit(args)
        doc["provenance"] = provenance(seed=args.seed)
        if trajectory is not None:
            from rnnaudit.figures.escaping import mpl_text
            from rnnaudit.figures.trajectory import plot_trajectory

            save_figure(plot_trajectory(trajectory, title=mpl_text(doc["source"])), staging / "trajectory.png")
            doc["figures"] = [{"caption": "Recorded trajectory", "path": "trajectory.png"}]
        write_json_atomic(staging / "audit.json", doc)
        write_text_atomic(staging / "report.md", render_audit_markdown(doc))
        write_text_atomic(staging / "report.html", render_audit_html(doc, staging))
    claims = doc["latest"]["claims"]
    model = doc.get("model") or {}
    if model.get("state_layout"):
        print(f"{model.get('type')}: input size {model.get('input_size')}, hidden size {model.get('hidden_size')}, "
              f"{model['state_layout']}")
    width = max(len(_name(c)) for c in claims)
    explained: set[tuple] = set()  # a failing assumption is explained once, with its value; later claims refer to it
    for c in claims:
        if c["applies"]:
            ratio = "" if c["worst_ratio"] is None or c.get("exceeded") else f" (worst ratio {fmt_number(c['worst_ratio'])})"
            print(f"{_name(c):<{width}}  {c['reading']}{ratio}")
            for a in c["assumptions"]:
                if a["holds"] is False:
                    key = (c.get("part"), a["name"], a["detail"])
                    print(f"{'':<{width}}    FAILS {a['name']}" + (" (as above)" if key in explained else
                                                                    f" ({a['detail']})"))
                    explained.add(key)
    if doc["latest"].get("bounds_not_measured"):
        print(doc["latest"]["bounds_not_measured"])
    for d in doc["latest"].get("diagnostics") or []:
        from rnnaudit.auditing.notes import measured_text

        print(f"diagnostics, {d['part']} [{d['state']}]: {measured_text(d)}")
    for f in doc["latest"].get("fixed_points") or []:
        worst = f.get("most_unstable_mode")
        print(f"fixed points, {f['part']} (mean input, {f['n_starts']} starts): {f['fixed']} fixed ({f['stable']} "
              f"stable, {f['unstable']} unstable, {f['marginal']} marginal), {f['slow']} slow"
              + ("" if worst is None else f"; largest |λ| = {worst['modulus']:.4g} at an unstable point"))
    for n in doc["latest"].get("notes") or []:
        if n.get("remedy") and not n.get("see"):  # once per failing assumption
            print(f"remedy for {n['claim']}{_part(n)}: "
                  f"{n['remedy']}")
    out = Path(args.out)
    print(f"{sum(not c['applies'] for c in claims)} claim(s) do not apply to this model (the report says why); "
          f"wrote {out / 'audit.json'}, {out / 'report.md'} and {out / 'report.html'}")
    return 0


def _name(c: dict) -> str:
    return f"{c['id']} ({c['part']})" if c.get("part") else c["id"]


def _precheck(args) -> None:
    """What can be refused before the output directory is touched."""
    from rnnaudit import names
    from rnnaudit.untrusted import InputError

    if args.source is not None or not (args.model or args.arch or args.weights):
        if args.source is None:
            raise InputError("audit needs a SOURCE (a checkpoint or a run directory) or --model/--arch with --weights")
        if not Path(args.source).exists() and args.source not in names.CELLS:
            raise InputError(f"{args.source}: no such checkpoint or run directory, nor a cell name in "
                             f"{sorted(names.CELLS)}")


def _claims_to_assess(args) -> int:
    """The bar's total: every claim at every checkpoint the audit reads (a run directory: all of them), and for a
    model the diagnostics and fixed-point stages (one unit each)."""
    from rnnaudit.bounds import all_claims
    from rnnaudit.training.runs import checkpoint_steps

    path = None if args.source is None else Path(args.source)
    checkpoints = len(checkpoint_steps(path)) if path is not None and path.is_dir() and args.step is None else 1
    return (len(all_claims()) + (2 if path is None or not path.exists() else 0)) * max(1, checkpoints)


def _audit(args) -> tuple[dict, dict | None]:
    """The audit document and, for a run directory, its trajectory (for the figure)."""
    from rnnaudit.auditing import audit_checkpoint, audit_run
    from rnnaudit.training import read_trajectory
    from rnnaudit.untrusted import InputError

    named_cell = args.source is not None and not Path(args.source).exists()  # a cell name (the precheck saw it)
    if named_cell or args.arch or (args.source is None and (args.model or args.weights is not None)):
        from rnnaudit.auditing import audit
        from rnnaudit.cli.plots import source_of

        src = source_of(args, n_sequences=4)  # a cell name: initialised as in its paper, inputs of --task
        # a pip implementation is audited as the reference cell it was mapped onto, on the inputs of that cell
        # (checked against the module's own forward when loaded: rnnaudit.cells.packages)
        own = named_cell or getattr(src.cell, "package_mapping", None) is not None
        _check_cost(args, src.cell if own else src.module, src.x)
        result = audit(src.cell if own else src.module, src.x, T=src.x.shape[1],
                       trained_dtype=src.trained_dtype)
        model = result["model"]
        config = {"cell": src.label, "task": args.task or ("inputs file" if args.inputs else "adding"),
                  "T": src.x.shape[1], "hidden_size": model["hidden_size"]}
        latest = {"step": None, "config": config, **{k: v for k, v in result.items() if k != "model"}}
        doc = {"latest": latest, "model": model, "source": src.label}
        if src.notes:
            doc["source_notes"] = list(src.notes)
        return doc, None
    if args.weights is not None or args.inputs is not None:
        raise InputError("--weights and --inputs go with --model or --arch, not with SOURCE")
    from rnnaudit.provenance import command_text

    path = Path(args.source)
    if path.is_dir() and args.step is None:
        doc = audit_run(path, allow_large=args.allow_large, factory=args.model)
        doc["source"] = command_text(path)  # valid text for the figure's title and the report
        return doc, read_trajectory(path)
    doc = {"latest": audit_checkpoint(path, step=args.step, allow_large=args.allow_large, factory=args.model),
           "source": command_text(path)}
    return doc, None


def _check_cost(args, model, x) -> None:
    """Print the audit's estimate (:func:`rnnaudit.auditing.cost.audit_cost`) and refuse, in one line, an audit
    above --memory-limit or --max-minutes."""
    from rnnaudit.auditing.cost import audit_cost
    from rnnaudit.bounds import all_claims
    from rnnaudit.cells.adapters import wrap
    from rnnaudit.cli.budget import check_budget
    from rnnaudit.untrusted import InputError

    try:
        cell = wrap(model)
    except (TypeError, ValueError):  # a bidirectional module: the audit itself reports it per direction
        return
    limit = None if getattr(args, "memory_limit", None) is None else max(1, int(args.memory_limit * 2 ** 30))
    est = audit_cost(cell, x.shape[-2], x.shape[0] if x.dim() == 3 else 1, claims=len(all_claims()),
                     memory_limit=limit)
    print(f"estimate: {est.describe()}", flush=True)
    if not est.fits:
        raise InputError(f"audit: estimated peak memory {est.peak_bytes / 2 ** 30:.3g} GiB is above the limit of "
                         f"{est.memory_limit / 2 ** 30:.3g} GiB; pass --memory-limit, or fewer or shorter --inputs")
    check_budget("audit", est.seconds, getattr(args, "max_minutes", None))


def _part(note: dict) -> str:
    return f" ({note['part']})" if note.get("part") else ""
