"""The audit of one model: which theorems' assumptions it satisfies, and whether their bounds hold on
its parameters.

Every claim of the five papers is put to the model through its own case family
(:func:`rnnaudit.bounds.on_model.assess`): a claim about another architecture is reported as not
applicable, with the reason; for the others, the claim's own assumption predicates are evaluated on
the model's parameters (float32 parameters with :data:`rnnaudit.bounds.FLOAT32_TRAINED` slack) and
its bound is measured on sequences of the run's own task (:func:`model_view`) or on the user's own
inputs (:func:`audit`). The audit of run directories, checkpoint by checkpoint, is
:mod:`rnnaudit.auditing.runs`.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import torch
from torch import Tensor

from rnnaudit.bounds import all_claims
from rnnaudit.bounds.core import NotApplicable, tolerances
from rnnaudit.bounds.on_model import ClaimOnModel, ModelView, assess, tolerances_for
from rnnaudit.bounds.sgornn.cases import gated_cases_from_model
from rnnaudit.bounds.sgornn.eq4 import fastrnn_eq4_assumption
from rnnaudit.cells import FastRNN
from rnnaudit.auditing.summary import model_summary
from rnnaudit.limits import check_sizes, check_tensor_sizes
from rnnaudit.training import TASK_SPECS

__all__ = ["task_inputs", "model_view", "audit_model", "audit"]


def _readout_weight(readout, cell) -> Tensor | None:
    """The readout weight (k, h) as float64, checked against the model's width (a wrong one would measure
    the bounds on a different output and still say "holds")."""
    if readout is None:
        return None
    if isinstance(readout, torch.nn.Module) and isinstance(getattr(readout, "weight", None), Tensor):
        readout = readout.weight
    if not isinstance(readout, Tensor):
        raise TypeError(f"readout must be the readout's weight, a tensor (k, h) (or an nn.Linear), got "
                        f"{type(readout).__name__}")
    widths = {cell.hidden_size} | {w for w in (getattr(cell, "h_size", None), getattr(cell, "units", None))
                                   if isinstance(w, int)}
    if readout.dim() != 2 or readout.shape[1] not in widths or readout.shape[0] == 0:
        raise ValueError(f"readout must be a weight of shape (k, {cell.hidden_size}) (k outputs of the state), got "
                         f"{tuple(readout.shape)}")
    if not readout.is_floating_point() or not torch.isfinite(readout).all():
        raise ValueError(f"readout must be a finite real floating tensor, got {readout.dtype}")
    return readout.detach().double()


def task_inputs(config, n_sequences: int, seed: int = 0, T: int | None = None) -> Tensor:
    """Inputs x of ``n_sequences`` fresh sequences of the run's own task, with the run's
    ``task_kwargs`` (the adding variant of enrnn.md Sec. 5.1 / nc_gru.md Sec. 4.3 among them: the
    nc_gru variant swaps the two input channels, so the default variant's inputs would audit a
    different map than the one trained).

    Args:
        config: a :class:`rnnaudit.training.TrainConfig` (one without ``task_kwargs``, as read from
            an older checkpoint, means the task's defaults). n_sequences: ≥ 1. seed: of a fresh
            CPU generator. T: sequence length (default ``config.T``).

    Returns:
        x (n_sequences, L, input_size), float32, as the trainer draws it (L = T for adding).

    Raises:
        ValueError: from the task generator (bad sizes or task_kwargs).
    """
    gen = torch.Generator().manual_seed(seed)
    kwargs = getattr(config, "task_kwargs", None) or {}
    x, _ = TASK_SPECS[config.task].generate(n_sequences, config.T if T is None else T, gen, **kwargs)
    return x


def model_view(model, config, n_sequences: int = 4, seed: int = 0) -> ModelView:
    """A trained :class:`rnnaudit.training.SequenceModel` as the claims see it: its cell, its
    readout weight and ``n_sequences`` sequences of the run's task (:func:`task_inputs`)."""
    return ModelView(model.cell, task_inputs(config, n_sequences, seed), model.readout.weight.detach(), config.T)


def _model_constraints(view: ModelView) -> list[dict]:
    """Conditions a model is audited against that no claim of the papers states as an inequality of
    its own: FastRNN's eq. 4 (sgornn.md Sec. 2.1, quoted from FastRNN) at the run's T."""
    if not isinstance(view.cell, FastRNN) or view.T is None:
        return []
    try:
        case = gated_cases_from_model(view)[0]
    except NotApplicable:
        return []
    assumption = fastrnn_eq4_assumption(view.T)
    with tolerances(tolerances_for(view.parameter_dtype)):
        holds, detail = assumption.check(case)
    entry = ClaimOnModel("sgornn.eq4", True, None, [{"name": assumption.name, "holds": bool(holds), "detail": detail}])
    return [entry.to_json()]


def audit_model(view: ModelView, *, measure_bounds: bool = True) -> list[dict]:
    """Every claim of the five papers, and FastRNN's eq. 4, put to the model (see the module
    docstring); one dict per claim (:meth:`rnnaudit.bounds.on_model.ClaimOnModel.to_json`)."""
    from rnnaudit.progress import advance

    from rnnaudit.bounds.architectures import shared_maps
    from rnnaudit.bounds.step_maps import release_maps

    width = getattr(view.cell, "hidden_size", None)  # the packed state's (every layer's h, and c of an LSTM)
    claims = []
    with shared_maps():  # one step map per model sequence, read by every claim (rnnaudit.bounds.architectures)
        for c in all_claims():
            claims.append(assess(c, view, measure_bound=measure_bounds).to_json())
            if isinstance(width, int):  # Note [a layer's map beside the packed one]
                release_maps(width=width)
            advance(1)  # one claim done, for the bar of `rnnaudit audit` (rnnaudit.progress)
    return claims + _model_constraints(view)


def _trained_dtype(model, given: torch.dtype | None) -> torch.dtype:
    if given is not None:
        return given
    if isinstance(model, torch.nn.Module):
        return next((p.dtype for p in model.parameters() if p.is_floating_point()), torch.float64)
    return torch.float64


def _summary(model, cell, parts, trained: torch.dtype) -> dict:
    """The audit's "model" section (:func:`rnnaudit.auditing.summary.model_summary`): every recurrent matrix of each
    direction of a bidirectional module (``cell`` None), the packed cell's otherwise."""
    from rnnaudit.analysis.norms import one_thread

    user = _user_module(model)
    with one_thread():
        if cell is None:
            matrices = {f"{p.label}.{role}": W for p in parts for role, W in p.cell.recurrent_matrices().items()}
            summary = model_summary(user, parts[0].cell, trained, matrices=matrices)
            summary["state_size"] = sum(p.cell.hidden_size for p in parts)
            return summary
        if isinstance(user, torch.nn.Module):
            return model_summary(user, cell, trained)
    return {"type": type(model).__name__, "hidden_size": cell.hidden_size, "state_size": cell.hidden_size,
            "input_size": cell.input_size, "trained_dtype": str(trained).replace("torch.", "")}


def _reentrant(cell, parts) -> bool:
    """Whether the model's steps may run on two threads at once: torch's own RNN modules and the reference cells
    of rnnaudit.cells compute from their weights alone; a user's step function (``rnnaudit.wrap(step, ...)``) is
    not known to."""
    from rnnaudit.cells.adapters import StepCell, TorchRecurrent

    cells = [cell] if cell is not None else [p.cell for p in parts]
    return all(isinstance(c, TorchRecurrent) or (type(c).__module__.startswith("rnnaudit.cells.")
                                                 and not isinstance(c, StepCell)) for c in cells)


def _fixed_points(cell, x: Tensor, parts) -> list[dict]:
    """:func:`rnnaudit.auditing.attractors.fixed_point_sections` on the calling thread's one BLAS/OpenMP thread."""
    from rnnaudit.analysis.norms import one_thread
    from rnnaudit.auditing.attractors import fixed_point_sections

    with one_thread():
        return fixed_point_sections(cell, x, parts)


def _on_cpu(probe):
    """The CPU twin of a probe copy whose tensors live on another device (the probe itself otherwise). The claims
    and diagnostics are verified on the CPU (on a CUDA module they mixed devices, and CUDA's eigensolver overwrites
    a column-major input: rnnaudit.cells.linalg); the audit of a CUDA module therefore runs at the CPU's speed,
    its ∂L/∂h_0 alone on the module's device."""
    if not isinstance(probe, torch.nn.Module):
        return probe
    tensors = [*probe.parameters(), *probe.buffers()]
    if all(t.device.type == "cpu" for t in tensors):
        return probe
    from rnnaudit.cells.copying import probe_copy

    return probe_copy(probe, dtype=None).to("cpu")


def _probe_of(model):
    """The float64 copy the audit probes (never the user's module: its dtype and caches stay as they are)."""
    from rnnaudit.cells.adapters import TorchRecurrent
    from rnnaudit.cells.copying import probe_copy

    if isinstance(model, TorchRecurrent):
        return probe_copy(model.module)
    return probe_copy(model) if isinstance(model, torch.nn.Module) else model


def _is_bidirectional(model) -> bool:
    return isinstance(model, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM)) and bool(model.bidirectional)


def _claims_per_part(parts, readout, T, trained, measure_bounds) -> list[dict]:
    """Every claim put to each recurrence of a bidirectional module, marked with its part."""
    out = []
    for part in parts:
        view = ModelView(part.cell, part.inputs, None, T, trained)
        out += [{**c, "part": part.label} for c in audit_model(view, measure_bounds=measure_bounds)]
    return out


def _loss_gradient(probe, cell, x: Tensor, loss_fn, targets, parts) -> dict:
    """‖∂L/∂h_0‖ in total and per recurrence: through the module's own forward for a stacked torch module
    (loss_fn gets the module's output, in its own layout), through the packed states otherwise (loss_fn gets
    the last layer's h of a torch ``*Cell``, the packed states (m, T, S) of any other model)."""
    from rnnaudit.analysis.diagnostics import initial_state_gradient
    from rnnaudit.cells.adapters import TorchRecurrent

    if isinstance(probe, (torch.nn.RNN, torch.nn.GRU, torch.nn.LSTM)):
        x = x.to(probe.weight_hh_l0.device)  # the module's own device, as the user's targets and loss_fn expect
        D = 2 if probe.bidirectional else 1
        shapes = [(probe.num_layers * D, probe.proj_size or probe.hidden_size)]
        if isinstance(probe, torch.nn.LSTM):
            shapes.append((probe.num_layers * D, probe.hidden_size))
        # the module stays in the mode it is in (never .train()): cuDNN's RNN backward refuses evaluation mode, so the
        # module's forward is differentiated with cuDNN off (torch's own kernels, any device)
        with torch.enable_grad(), torch.backends.cudnn.flags(enabled=False):
            h0 = [torch.zeros(n, 1, w, dtype=x.dtype, device=x.device, requires_grad=True) for n, w in shapes]
            init = [h.expand(-1, x.shape[0], -1) for h in h0]
            out, _ = probe(x if probe.batch_first else x.transpose(0, 1), tuple(init) if len(init) == 2 else init[0])
            loss = loss_fn(out, targets)
            if not isinstance(loss, Tensor) or loss.numel() != 1 or not torch.isfinite(loss).all():
                raise ValueError("loss_fn must return a finite real scalar tensor of the module's output and targets")
            grads = torch.autograd.grad(loss.reshape(()), h0, allow_unused=True)
        grads = [torch.zeros_like(h) if g is None else g for g, h in zip(grads, h0)]
        per = []
        for i, part in enumerate(parts):
            per.append({"part": part.label, "norm": float(torch.cat([g[i, 0] for g in grads]).norm())})
        return {"norm": float(torch.cat([g.reshape(-1) for g in grads]).norm()), "per_part": per}
    output = None
    if isinstance(cell, TorchRecurrent):
        h = cell.state_slices()["h"]
        output = lambda states: states[..., h]  # noqa: E731 - what the *Cell module itself returns (its h)
    if isinstance(targets, Tensor):  # the claims' CPU copy runs this forward, whatever the model's device
        targets = targets.to(x.device)
    g = initial_state_gradient(cell, x, loss_fn, targets, output=output)
    return {"norm": float(g.norm()), "per_part": [{"part": parts[0].label, "norm": float(g.norm())}]}


def audit(model, inputs: Tensor, *, readout: Tensor | None = None, T: int | None = None,
          trained_dtype: torch.dtype | None = None, measure_bounds: bool = True, diagnostics: bool = True,
          loss_fn=None, targets=None, allow_large: bool = False) -> dict:
    """``rnnaudit.audit(model, inputs)``: every claim of the papers put to any recurrent model, and the
    diagnostics every model gets (:mod:`rnnaudit.analysis.diagnostics`), per layer and direction.

    Args:
        model: one of ours, a ``torch.nn.RNN``/``GRU``/``LSTM`` (stacked, projected, bidirectional,
            ``batch_first`` either way, float16/bfloat16/float32/float64 weights) or ``*Cell``, parametrized
            or geotorch weights included (also after a forward pass), or anything :func:`rnnaudit.wrap`
            accepts; an RNN inside a larger model is audited as that submodule (``model.encoder.rnn``)
            with its own inputs. Probed on a float64 copy on the CPU, whatever the model's device (∂L/∂h_0
            runs on the model's own); the model itself is not changed.
        inputs: sequences to measure on, (T, n) or (m, T, n), batch first whatever the module's
            ``batch_first``.
        readout: the linear readout weight (k, h), when the model has one (a single row is the
            single-neuron output of the gradient and capacity theorems).
        T: the sequence length the model is meant for (default: the inputs').
        trained_dtype: the dtype the parameters were trained in (default: the model's own), which
            sets the slack of the assumption predicates (float32 training: :data:`rnnaudit.bounds.FLOAT32_TRAINED`).
        measure_bounds: also measure every applicable bound on the inputs.
        diagnostics: also measure the diagnostics (contractivity, memory horizon, top-3 Lyapunov exponents) and
            search the fixed points and slow points under the data's mean input
            (:func:`rnnaudit.auditing.attractors.fixed_point_sections`).
        loss_fn, targets: with both, also ‖∂L/∂h_0‖ for L = loss_fn(output, targets), ``output`` the
            torch module's own output (its layout, batch_first as the module says) for ``nn.RNN``/``GRU``/
            ``LSTM``, the h sequence (m, T, H) for a ``*Cell``, the packed states (m, T, S) otherwise.
        allow_large: lift the size limits on the inputs and T (:mod:`rnnaudit.limits`, as ``--allow-large``).

    Returns:
        {"model": :func:`rnnaudit.auditing.summary.model_summary` (type, the module's own hidden_size, the
        state size and layout, layers, parameter count, trained dtype, ‖W‖₂, ρ(W), σ_min and, where it means
        something, ‖WᵀW − I‖₂ per recurrent matrix), "claims": [per claim: id, applies, reason, reading,
        assumptions (name, holds, detail), verdict, worst_ratio (a float, the string "inf" for an infinite ratio as
        in a check's results.json, or None); "part" for a bidirectional module, whose
        claims are put to each layer and direction], "diagnostics": [per layer and direction: part, state,
        and :meth:`rnnaudit.analysis.diagnostics.StateDiagnostics.to_json`], "fixed_points": [per searched map: part
        ("all layers" for a stack, one entry per direction of a bidirectional module), and
        :meth:`rnnaudit.analysis.fixed_points.FixedPoints.to_json`], "initial_state_gradient":
        {"norm", "per_part"} (with loss_fn); for a pip implementation mapped onto a reference cell
        (:mod:`rnnaudit.cells.packages`), "model" has "mapping": the package, the module's class, the reference cell
        audited, and the float64 max difference from the module's own forward on ``inputs`` with its tolerance;
        "notes": [one line per claim whose assumption fails: what the
        diagnostics measure instead, and the standard remedy]}.

    Raises:
        TypeError / ValueError: a model :func:`rnnaudit.wrap` cannot wrap, a pip implementation whose own forward
            differs from its reference cell's on ``inputs`` by more than the derived tolerance
            (:func:`rnnaudit.cells.packages.check_mapping`), inputs of the wrong shape or not
            finite, a readout that is not a tensor (k, h) of the model's width, T not a positive int,
            trained_dtype not a floating torch dtype, loss_fn without targets (or the reverse), a loss_fn that
            does not return a finite scalar.
        rnnaudit.limits.TooLargeError: the model, inputs or T above the limits.
    """
    from rnnaudit.auditing.layers import recurrences
    from rnnaudit.auditing.notes import assumption_notes
    from rnnaudit.progress import advance
    from rnnaudit.cells.adapters import meta_tensor_name, wrap

    if trained_dtype is not None and not (isinstance(trained_dtype, torch.dtype) and trained_dtype.is_floating_point):
        raise TypeError(f"trained_dtype must be a floating torch dtype (e.g. torch.float32), got {trained_dtype!r}")
    if not isinstance(inputs, Tensor):
        raise TypeError(f"inputs must be a tensor (T, n) or (m, T, n), got {type(inputs).__name__}")
    if (loss_fn is None) != (targets is None):
        raise ValueError("loss_fn and targets go together: give both to measure ‖∂L/∂h_0‖, or neither")
    if not isinstance(allow_large, bool):  # a truthy string would lift every limit
        raise TypeError(f"allow_large must be True or False, got {type(allow_large).__name__} {allow_large!r}")
    from rnnaudit.cells.packages import MAPPED_CLASSES

    mapped = f"{type(model).__module__}.{type(model).__qualname__}" in MAPPED_CLASSES
    if isinstance(model, torch.nn.Module) and not mapped:  # a mapped package's complex B, C are split (cells.packages)
        # the float64 copy would drop a complex weight's imaginary part (with only a warning) and round integers
        from rnnaudit.cells._validate import complex_refusal

        odd = next(((n, p.dtype) for n, p in model.named_parameters() if not p.is_floating_point()), None)
        if odd is not None and odd[1].is_complex:
            raise TypeError(f"model: {complex_refusal(f'parameter {odd[0]!r}', odd[1], 'by the audit')}")
        if odd is not None:
            raise TypeError(f"model: parameter {odd[0]!r} is {odd[1]}; the audit needs real floating weights")
    trained = _trained_dtype(model, trained_dtype)
    if isinstance(model, torch.nn.Module):  # from the shapes, before the float64 copy allocates them
        check_tensor_sizes(dict(model.named_parameters()), "model", allow_large=allow_large)
        meta = meta_tensor_name(model)
        if meta is not None:
            raise ValueError(f"model: on the meta device ({meta!r} has a shape but no values); build it on the CPU, "
                             "or call .to_empty(device='cpu') and load its weights")
    try:
        # the float64 copy on the model's own device runs the module's forward for ∂L/∂h_0 (cuDNN off); the claims
        # and diagnostics read its CPU twin
        device_probe = _probe_of(model)
        probe = _on_cpu(device_probe)
        bidirectional = _is_bidirectional(probe)
        cell = None if bidirectional else wrap(probe)
    except (TypeError, ValueError, RuntimeError) as err:
        raise type(err)(f"model: {err}") if not isinstance(err, RuntimeError) else ValueError(f"model: {err}") \
            from None
    mapping = getattr(cell, "package_mapping", None)  # the module itself, or its reference cell (mapped by the CLI)
    from_module = mapping is not None and mapped
    n = probe.input_size if bidirectional else mapping.input_size if from_module else cell.input_size
    if not isinstance(inputs, Tensor) or inputs.dim() not in (2, 3) or inputs.shape[-1] != n:
        shape = tuple(inputs.shape) if isinstance(inputs, Tensor) else type(inputs).__name__
        raise ValueError(f"inputs must be (T, {n}) or (m, T, {n}), got {shape}")
    check_sizes("inputs", allow_large=allow_large, T=inputs.shape[-2] or None, batch=inputs.shape[0] if
                inputs.dim() == 3 and inputs.shape[0] else None, elements=max(1, math.prod(inputs.shape)))
    if inputs.is_complex():
        from rnnaudit.cells._validate import complex_refusal

        raise ValueError(complex_refusal("inputs", inputs.dtype, "as inputs"))
    if not inputs.is_floating_point() or 0 in inputs.shape:
        raise ValueError(f"inputs must be a non-empty real floating tensor, got {inputs.dtype} {tuple(inputs.shape)}")
    if T is not None:
        if isinstance(T, bool) or not isinstance(T, int):
            raise TypeError(f"T must be a positive int (the sequence length the model is meant for), got "
                            f"{type(T).__name__} {T!r}")
        check_sizes("T", allow_large=allow_large, T=T)
    x = (inputs[None] if inputs.dim() == 2 else inputs).detach().double().cpu()
    if not torch.isfinite(x).all():
        raise ValueError("inputs hold NaN or Inf entries")
    checked = None
    if from_module:  # the mapping is checked on these inputs, then the reference cell is what is audited
        from rnnaudit.cells.packages import check_mapping

        checked = mapping.to_json(*check_mapping(mapping, x))
        probe, x = cell, mapping.inputs(x).detach()
        device_probe = probe
    elif mapping is not None:  # the reference cell, as rnnaudit.wrap or the CLI mapped it (and checked it, if so)
        checked = mapping.to_json(*(mapping.checked or ()))
    from rnnaudit.analysis.norms import one_thread
    from rnnaudit.bounds.architectures import shared_maps

    # one step map per sequence, read by every claim and by the diagnostics; the many small factorisations run on
    # one BLAS/OpenMP thread (Note [one LAPACK thread] in rnnaudit.analysis.norms)
    with shared_maps(), one_thread(), ThreadPoolExecutor(max_workers=1) as beside:
        parts = recurrences(probe, x)
        # the fixed-point search shares nothing with the claims (its own calls of the step, LBFGS, a seeded
        # generator): it runs on another core while they do, the same numbers as run after them; leaving this
        # block waits for it, also after an error. A user's own step function may keep state between calls, so
        # its search waits for the claims.
        searched = None if bidirectional else cell
        reentrant = _reentrant(cell, parts)
        summarised = beside.submit(_summary, model, cell, parts, trained) if reentrant else None
        fixed = beside.submit(_fixed_points, searched, x, parts) if diagnostics and reentrant else None
        if bidirectional:
            claims = _claims_per_part(parts, readout, T or x.shape[1], trained, measure_bounds)
        else:
            view = ModelView(cell, x, _readout_weight(readout, cell), T or x.shape[1], trained)
            claims = audit_model(view, measure_bounds=measure_bounds)
        summary = summarised.result() if summarised is not None else _summary(model, cell, parts, trained)
        if checked is not None:
            summary["mapping"] = checked
        result = {"model": summary, "claims": claims}
        if diagnostics:
            from rnnaudit.analysis.diagnostics import state_diagnostics

            # every sequence, as the claims (state_diagnostics caps what it holds at once for the horizon and the
            # exponents; the step norms read every sequence), from the claims' own step maps where the part is a
            # block of them
            from rnnaudit.auditing.part_jacobians import part_jacobians

            blocks = part_jacobians(cell, x, parts, bidirectional)
            from rnnaudit.bounds.step_maps import release_maps

            release_maps()  # the packed maps and their products (T·S² numbers a sequence): only the blocks stay
            result["diagnostics"] = []
            for i, p in enumerate(parts):
                result["diagnostics"].append({"part": p.label, "state": p.state,
                                              **state_diagnostics(p.cell, p.inputs, max_sequences=p.inputs.shape[0],
                                                                  step_jacobians=blocks[i],
                                                                  step_norms=None if blocks[i] is None else
                                                                  blocks[i].norms).to_json()})
                blocks[i] = None  # its last sequence's Jacobians go before the next part's are formed
            del blocks
            advance(1)  # the diagnostics stage, for the bar of `rnnaudit audit`
            result["fixed_points"] = fixed.result() if fixed is not None else _fixed_points(searched, x, parts)
            advance(1)  # the fixed points stage
        if loss_fn is not None:
            result["initial_state_gradient"] = _loss_gradient(device_probe, cell, x, loss_fn, targets, parts)
    result["notes"] = assumption_notes(result)
    return result


def _user_module(model):
    """The module the user holds behind a wrapped cell (for its class name and parameter count)."""
    from rnnaudit.cells.adapters import StepCell, TorchRecurrent

    if isinstance(model, (TorchRecurrent, StepCell)) and isinstance(model.module, torch.nn.Module):
        return model.module
    return model
