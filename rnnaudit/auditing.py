"""Audit of trained models: which theorem assumptions a checkpoint satisfies, and whether the
bounds hold on its trained parameters (issue 7).

For a checkpoint, every assumption predicate that applies to its cell is evaluated, then the
bound checks of the cell's paper are run on the trained parameters with inputs from the run's
own task. For a run directory, the predicates are evaluated at every checkpoint and on every
trajectory record, and the first step at which each assumption fails is reported.

A trained cell has a bias b; sgornn.md eq. 5 says biases are "omitted or absorbed into the
weights matrix", so the bound checks absorb it: x̃_t = [x_t, 1], W̃ = [W | b]. The cell computes
exactly the same states, and R_x, R_W are those of x̃ and W̃.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import Tensor

from rnnaudit.training import TASK_SPECS, build_model, load_checkpoint, read_trajectory
from rnnaudit.bounds import sgornn
from rnnaudit.bounds.core import evaluate_cases
from rnnaudit.cells import ENRNN, SGORNN, FastRNN, SpectralRNN, orthogonality_defect, spectral_radius

__all__ = ["Check", "assumption_checks", "task_inputs", "bound_checks", "audit_checkpoint", "audit_run"]

#: Orthogonality is a float32 training invariant here: 1e-5 is ≈ 100 float32 ulps of accumulated
#: rounding, far below any loss of orthogonality that would change the theorems' constants.
ORTHOGONALITY_TOL_FLOAT32 = 1e-5


@dataclass
class Check:
    """One assumption predicate evaluated on a model: which claim needs it, and the value seen."""

    claim: str
    assumption: str
    holds: bool
    detail: str


def _f(t: Tensor) -> float:
    return float(t.detach())


def _gate_checks(alpha: float, beta: float, defect: float) -> list[Check]:
    """SGORNN's gate constraints and U's orthogonality from the scalars α, β and ‖UᵀU − I‖₂, so
    that a checkpoint and every trajectory record (which holds these three) are judged alike."""
    return [Check("sgornn.eq3", "β ≤ 1 − 2α (eq. 3, Theorem 1)", beta <= 1 - 2 * alpha + 1e-12,
                  f"α = {alpha:.6g}, β = {beta:.6g}, 1 − 2α = {1 - 2 * alpha:.6g}"),
            Check("sgornn.theorem2", "β ≤ 1 − α (Theorem 2)", beta <= 1 - alpha + 1e-12, f"α + β = {alpha + beta:.6g}"),
            Check("sgornn.theorem2", "U = φ(Θ) orthogonal", defect <= ORTHOGONALITY_TOL_FLOAT32,
                  f"‖UᵀU − I‖₂ = {defect:.3g}")]


def assumption_checks(cell, config) -> list[Check]:
    """Evaluate the assumption predicates of every claim that applies to ``cell``.

    Args:
        cell: a trained cell (any dtype). config: its :class:`rnnaudit.training.TrainConfig`
            (the run's T is needed by FastRNN's eq. 4).

    Returns:
        list of :class:`Check`; empty for cells no implemented claim is about.
    """
    out: list[Check] = []
    with torch.no_grad():
        if isinstance(cell, (SGORNN, FastRNN)):
            U = cell.recurrent_matrix().detach()
            out += _gate_checks(_f(cell.alpha), _f(cell.beta), _f(orthogonality_defect(U.double())))
        if isinstance(cell, FastRNN):
            alpha = _f(cell.alpha)
            limit = sgornn.fastrnn_eq4_limit(cell.U.double(), config.T, _f(torch.linalg.matrix_norm(cell.U.double())))
            out.append(Check("sgornn.eq4", f"FastRNN eq. 4 at T = {config.T}", alpha <= limit,
                             f"α = {alpha:.4g}, eq. 4 allows α ≤ {limit:.4g}"))
        if isinstance(cell, ENRNN) and cell.short_size > 0:
            WS = cell.short_term_matrix().detach().double()
            rho, norm = _f(spectral_radius(WS)), _f(torch.linalg.matrix_norm(WS, ord=2))
            out.append(Check("enrnn.theorem3.1", "ρ(W^(S)) < 1 (what eigenvalue normalization enforces)", rho < 1,
                             f"ρ(W^(S)) = {rho:.6g}"))
            out.append(Check("enrnn.theorem3.1", "‖W^(S)‖₂ < 1 (a contraction, which ρ < 1 does not imply)",
                             norm < 1, f"‖W^(S)‖₂ = {norm:.6g}"))
        if isinstance(cell, SpectralRNN) and cell.sigma is not None:
            sigma = cell.sigma.detach()
            lo, hi = cell.sigma_star - cell.r, cell.sigma_star + cell.r
            ok = bool(((sigma >= lo - 1e-6) & (sigma <= hi + 1e-6)).all())
            out.append(Check("spectral_rnn.eq7", "σ_i ∈ [σ* − r, σ* + r] (eq. 7)", ok,
                             f"σ ∈ [{_f(sigma.min()):.6g}, {_f(sigma.max()):.6g}], allowed [{lo:.6g}, {hi:.6g}]"))
    return out


def _absorbed_case(cell, readout_row: Tensor, x: Tensor) -> sgornn.GatedCase:
    """The trained scalar-gated cell as an element of F_T (eq. 5): bias absorbed, float64."""
    cell = copy.deepcopy(cell).double()
    n, h = cell.input_size, cell.hidden_size
    b = cell.b.detach() if cell.b is not None else torch.zeros(h, dtype=torch.float64)
    W_aug = torch.cat([cell.W.detach(), b[:, None]], dim=1)
    alpha, beta = _f(cell.alpha), _f(cell.beta)
    logit = lambda p: math.log(p) - math.log1p(-p)  # noqa: E731
    if isinstance(cell, SGORNN):
        aug = SGORNN(n + 1, h, k=cell.phi.k, bias=False, clip_beta=False, activation=cell.activation,
                     dtype=torch.float64)
        aug.phi.load_state_dict(cell.phi.state_dict())
    else:
        aug = FastRNN(n + 1, h, bias=False, activation=cell.activation, dtype=torch.float64)
        aug.U.data.copy_(cell.U.detach())
    with torch.no_grad():
        aug.W.copy_(W_aug)
        aug.alpha_logit.fill_(logit(alpha))
        aug.beta_logit.fill_(logit(beta))
    x = x.double()
    x_aug = torch.cat([x, torch.ones(*x.shape[:-1], 1, dtype=torch.float64)], dim=-1)
    v = readout_row.detach().double()
    return sgornn.GatedCase(aug, x_aug[None], v, float(torch.linalg.matrix_norm(W_aug)),
                            float(torch.linalg.vector_norm(x_aug, dim=-1).max()), float(torch.linalg.vector_norm(v)))


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


def bound_checks(model, config, n_sequences: int = 4, seed: int = 0) -> list[dict]:
    """Run the bound checks of the model's paper on its trained parameters.

    Args:
        model: a :class:`rnnaudit.training.SequenceModel`. config: its TrainConfig.
        n_sequences: task sequences (length config.T, the run's ``task_kwargs``,
            :func:`task_inputs`) the bounds are measured on.

    Returns:
        one dict per claim: id, verdict, worst_ratio, failed assumptions (with values).
    """
    cell = model.cell
    if not isinstance(cell, (SGORNN, FastRNN)) or model.readout.out_features != 1:
        return []
    x = task_inputs(config, n_sequences, seed)
    cases = [_absorbed_case(cell, model.readout.weight[0], x[i]) for i in range(n_sequences)]
    out = []
    for claim in (sgornn.hidden_state, sgornn.theorem2, sgornn.corollary1):
        if claim is sgornn.corollary1 and not isinstance(cell, SGORNN):
            continue
        result = evaluate_cases(claim, cases)
        out.append({"id": claim.id, "verdict": result.verdict, "worst_ratio": result.worst_ratio,
                    "failed_assumptions": sorted({f for r in result.records for f in r.failed_assumptions})})
    return out


def audit_checkpoint(path: str | Path) -> dict:
    """Assumptions and bound checks of one checkpoint (a file, or a run directory's latest).

    Raises:
        ValueError: not an rnnaudit checkpoint.
    """
    ckpt = load_checkpoint(path)
    config = ckpt["config"]
    config.device = "cpu"
    model = build_model(config)
    model.load_state_dict(ckpt["model"])
    return {"step": int(ckpt["step"]), "config": asdict(config),
            "assumptions": [asdict(c) for c in assumption_checks(model.cell, config)],
            "bounds": bound_checks(model, config)}


#: Trajectory keys whose recorded value must stay below 1 for an assumption to hold.
_TRAJECTORY_PREDICATES = {
    "neumann_condition": ("nc_gru.eq18", "‖(I + A^(k−1))⁻¹ δA^(k)‖₂ < 1 (eq. 18 convergence)"),
}


def audit_run(run_dir: str | Path) -> dict:
    """Audit every checkpoint of a run and every trajectory record; report when each assumption
    first fails (the predicates on recorded quantities, α, β, ‖UᵀU − I‖₂ and the Neumann
    condition, at every record; those that need the parameters, at every checkpoint).

    Returns:
        {"checkpoints": [audit of each checkpoint], "first_failure": {assumption: step or None},
        "latest": audit of the latest checkpoint}.

    Raises:
        ValueError: not a run directory.
    """
    run_dir = Path(run_dir)
    paths = sorted((run_dir / "checkpoints").glob("step_*.pt"))
    if not paths:
        raise ValueError(f"{run_dir} has no checkpoints/step_*.pt; is it an rnnaudit run directory?")
    audits = []
    for p in paths:
        ckpt = load_checkpoint(p)
        config = ckpt["config"]
        config.device = "cpu"
        model = build_model(config)
        model.load_state_dict(ckpt["model"])
        audits.append({"step": int(ckpt["step"]),
                       "assumptions": [asdict(c) for c in assumption_checks(model.cell, config)]})
    first: dict[str, int | None] = {}
    for a in audits:
        for c in a["assumptions"]:
            key = f"{c['claim']}: {c['assumption']}"
            first.setdefault(key, None)
            if not c["holds"] and first[key] is None:
                first[key] = a["step"]
    trajectory = read_trajectory(run_dir)
    for key, (claim, name) in _TRAJECTORY_PREDICATES.items():
        if key in trajectory:
            label = f"{claim}: {name}"
            bad = [int(s) for s, v in zip(trajectory["step"], trajectory[key]) if not v < 1]
            first[label] = bad[0] if bad else None
    # the gate constraints at every record, not only at the (sparser) checkpoints
    if config.cell in ("sgornn", "fastrnn") and {"alpha", "beta", "orthogonality_defect"} <= trajectory.keys():
        for step, alpha, beta, defect in zip(trajectory["step"], trajectory["alpha"], trajectory["beta"],
                                             trajectory["orthogonality_defect"]):
            for c in _gate_checks(float(alpha), float(beta), float(defect)):
                key = f"{c.claim}: {c.assumption}"
                if not c.holds and (first.get(key) is None or step < first[key]):
                    first[key] = int(step)
    return {"checkpoints": audits, "first_failure": first, "latest": audit_checkpoint(paths[-1])}
