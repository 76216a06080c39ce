"""One line per claim whose assumption fails on the audited model: which assumption, what the diagnostics
measure instead (:mod:`rnnaudit.analysis.diagnostics`), and the standard remedy that would make the
assumption hold in training, where there is one."""

from __future__ import annotations

import math

__all__ = ["assumption_notes", "remedy", "by_design", "orthogonal_roles", "measured_text", "ORTHOGONAL_DEFECT"]

#: assumption wording → the standard remedy, first match wins (a constraint the theorem asks of the
#: weights has a parametrization that enforces it; an architectural assumption has none)
_REMEDIES = (
    (("skew",), "parametrize the matrix as A − Aᵀ (torch.nn.utils.parametrize.register_parametrization)"),
    (("orthogonal", "∈ O(n)"), "constrain the recurrent weight: torch.nn.utils.parametrizations.orthogonal(module, "
                               "\"weight_hh_l0\")"),
    (("‖W", "‖U", "ρ(W", "R_W", "R_U", "‖(I"), "bound the recurrent weight: torch.nn.utils.parametrizations."
                                                "spectral_norm, or a smaller ‖W‖₂ (weight decay, clipping its "
                                                "singular values)"),
)


#: ‖WᵀW − I‖₂ at or below which the audit takes a recurrent matrix as orthogonal by design: a float32-trained
#: orthogonal parametrization leaves a defect of order √n·u₃₂ ≈ 6e-8·√n (1e-6 at n = 256), well below; a matrix
#: that is orthogonal only by accident of training is not, at this distance, told apart from one by design.
ORTHOGONAL_DEFECT = 1e-5

#: assumption wording that bounds a norm of the recurrent weight below 1 (the remedy "spectral_norm" of _REMEDIES)
_NORM_BOUNDS = _REMEDIES[-1][0]


def orthogonal_roles(model: dict | None) -> list[str]:
    """Roles of the audited model's square recurrent matrices that are orthogonal (‖WᵀW − I‖₂ ≤
    :data:`ORTHOGONAL_DEFECT`), from the audit's ``model`` summary; [] without one."""
    recurrent = (model or {}).get("recurrent") or {}
    return [role for role, r in recurrent.items()
            if r.get("orthogonality_defect") is not None and r["orthogonality_defect"] <= ORTHOGONAL_DEFECT]


def by_design(assumption: str, model: dict | None = None) -> str | None:
    """Why a failing assumption cannot be remedied on this model, where its design rules the remedy out; None
    otherwise. An orthogonal recurrent matrix has ‖W‖₂ = 1 exactly, so a norm bound below 1 fails by
    construction, and spectral_norm (or any shrinking of W) would give up the norm preservation the model is
    built for."""
    roles = orthogonal_roles(model)
    if roles and any(k in assumption for k in _NORM_BOUNDS):
        return (f"by design: {', '.join(roles)} orthogonal (‖WᵀW − I‖₂ ≤ {ORTHOGONAL_DEFECT:g}), so ‖W‖₂ = 1 and a "
                "norm bound below 1 cannot hold; shrinking W would undo the orthogonality the model is built on")
    return None


def remedy(assumption: str, model: dict | None = None) -> str | None:
    """The standard remedy for a failing assumption, by its wording; None when training cannot fix it
    (an activation, an architecture, a task, a condition on the data such as every step contracting) or when
    the model's design rules it out (:func:`by_design`: an orthogonal W is never told to use spectral_norm).

    Args:
        assumption: the assumption's name as the claim states it.
        model: the audit's ``model`` summary (:func:`rnnaudit.auditing.summary.model_summary`), or None.
    """
    if by_design(assumption, model):
        return None
    for keys, text in _REMEDIES:
        if any(k in assumption for k in keys):
            return text
    return None


def _fmt(v) -> str:
    if isinstance(v, str):
        return v
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3g}"


def measured_text(d: dict) -> str:
    """The diagnostics of one recurrence in one phrase: the largest step norm under its one label
    (:func:`rnnaudit.analysis.diagnostics.contractivity_name`: block, layer and direction, sequences), the memory
    horizon and λ₁."""
    from rnnaudit.analysis.diagnostics import contractivity_name

    c = d.get("contractivity")
    c = float(c) if isinstance(c, str) else c  # an overflowing norm is stored "inf" (JSON has no infinity)
    # near 1, enough digits that a map just above 1 is not printed as "1"
    c_text = "–" if c is None else f"{c:.9g}" if abs(c - 1) < 1e-3 else f"{c:.3g}"
    horizon = f"beyond T = {d['T']}" if d.get("horizon") is None else f"{d['horizon']} steps"
    lyap = ""
    if d.get("lyapunov"):
        u = (d.get("lyapunov_halfwidth") or [None])[0]
        lyap = f", λ₁ = {_fmt(d['lyapunov'][0])}" + (f" ± {_fmt(u)}" if u is not None else "") + " nats/step"
        if d.get("lyapunov_converged") is False:
            lyap += " (not converged: a finite-time rate, lengthen T)"
    # a block of the state (an LSTM's h, c_{t−1} held fixed) below 1 is no contraction of the step: said as "below 1"
    whole = not str(d.get("contractivity_block") or "").endswith(" block")
    reading = (("contractive" if c is not None and c < 1 else "not contractive") if whole else
               ("below 1" if c is not None and c < 1 else "not below 1"))
    return f"{contractivity_name(d)} = {c_text} ({reading} on these inputs), memory horizon {horizon}{lyap}"


def assumption_notes(result: dict) -> list[dict]:
    """For each applicable claim with a failing assumption: {"claim", "part", "assumption", "measured", "line"},
    with "remedy" only where one is right (:func:`remedy`) and "by_design" where the model's design rules one out
    (:func:`by_design`); "measured" is the diagnostics of the same part (or of every part, joined), None
    without diagnostics. A failing assumption is explained once: a later claim where the same assumption fails
    with the same value (and part) gets a short line and "see", the claim whose note explains it. The measured
    diagnostics are printed once too: a later note with the same ones names the note that prints them."""
    diags = result.get("diagnostics") or []
    model = result.get("model")
    out = []
    first: dict[tuple, str] = {}  # (part, assumption, detail) → the claim whose note explains it
    measured_in: dict[str, str] = {}  # the diagnostics' phrase → the claim whose note prints it
    for c in result["claims"]:
        failing = [a for a in c.get("assumptions") or [] if not a["holds"]] if c["applies"] else []
        if not failing:
            continue
        a = failing[0]
        same = [d for d in diags if d["part"] == c.get("part")] or diags
        measured = "; ".join(measured_text(d) for d in same) or None  # each names its layer and direction
        fix, design = remedy(a["name"], model), by_design(a["name"], model)
        where = f" ({c['part']})" if c.get("part") else ""
        key = (c.get("part"), a["name"], a["detail"])
        if key in first:  # explained once: the same assumption with the same value under an earlier claim
            seen = {"claim": c["id"], "part": c.get("part"), "assumption": a["name"], "measured": measured,
                    "see": first[key], "line": f"{c['id']}{where}: the same assumption fails (see {first[key]})."}
            if fix:
                seen["remedy"] = fix
            out.append(seen)
            continue
        first[key] = c["id"]
        # the diagnostics' numbers are printed once, in the first note that shows them; later notes point to it
        shown = measured_in.get(measured)
        instead = "" if not measured else f"; measured instead: {measured}" if shown is None else \
            f"; measured instead: as in the note on {shown}"
        measured_in.setdefault(measured, c["id"])
        line = (f"{c['id']}{where}: the assumption “{a['name']}” fails ({a['detail']}), so the theorem says nothing "
                f"here" + instead + (f"; remedy: {fix}" if fix else "") + (f"; {design}" if design else "") + ".")
        note = {"claim": c["id"], "part": c.get("part"), "assumption": a["name"], "measured": measured, "line": line}
        if fix:
            note["remedy"] = fix
        if design:
            note["by_design"] = design
        out.append(note)
    return out
