"""One line per claim whose assumption fails on the audited model: which assumption, what the diagnostics
measure instead (:mod:`rnnaudit.analysis.diagnostics`), and the standard remedy that would make the
assumption hold in training, where there is one."""

from __future__ import annotations

import math

__all__ = ["assumption_notes", "remedy", "measured_text"]

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


def remedy(assumption: str) -> str | None:
    """The standard remedy for a failing assumption, by its wording; None when training cannot fix it
    (an activation, an architecture, a task)."""
    for keys, text in _REMEDIES:
        if any(k in assumption for k in keys):
            return text
    return None


def _fmt(v) -> str:
    if isinstance(v, str):
        return v
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3g}"


def measured_text(d: dict) -> str:
    """The diagnostics of one recurrence in one phrase."""
    c = d.get("contractivity")
    # near 1, enough digits that a map just above 1 is not printed as "1"
    c_text = "–" if c is None else f"{c:.9g}" if abs(c - 1) < 1e-3 else f"{c:.3g}"
    horizon = f"beyond T = {d['T']}" if d.get("horizon") is None else f"{d['horizon']} steps"
    lyap = ""
    if d.get("lyapunov"):
        se = d["lyapunov_stderr"][0]
        lyap = f", λ₁ = {_fmt(d['lyapunov'][0])}" + (f" ± {_fmt(se)}" if se is not None else "") + " nats/step"
    from rnnaudit.analysis.norms import step_norm_name

    over = f"; the largest over all {d['sequences']} sequences" if d.get("sequences") else ""
    return (f"{step_norm_name(d.get('state'))} = {c_text} "
            f"({'contractive' if c is not None and c < 1 else 'not contractive'}"
            f" on these inputs{over}), memory horizon {horizon}{lyap}")


def assumption_notes(result: dict) -> list[dict]:
    """For each applicable claim with a failing assumption: {"claim", "part", "assumption", "measured",
    "remedy", "line"}; "measured" is the diagnostics of the same part (or of every part, joined), None
    without diagnostics. A failing assumption is explained once: a later claim where the same assumption fails
    with the same value (and part) gets a short line and "see", the claim whose note explains it."""
    diags = result.get("diagnostics") or []
    out = []
    first: dict[tuple, str] = {}  # (part, assumption, detail) → the claim whose note explains it
    for c in result["claims"]:
        failing = [a for a in c.get("assumptions") or [] if not a["holds"]] if c["applies"] else []
        if not failing:
            continue
        a = failing[0]
        same = [d for d in diags if d["part"] == c.get("part")] or diags
        measured = "; ".join((f"{d['part']}: " if len(same) > 1 else "") + measured_text(d) for d in same) or None
        fix = remedy(a["name"])
        where = f" ({c['part']})" if c.get("part") else ""
        key = (c.get("part"), a["name"], a["detail"])
        if key in first:  # explained once: the same assumption with the same value under an earlier claim
            out.append({"claim": c["id"], "part": c.get("part"), "assumption": a["name"], "measured": measured,
                        "remedy": fix, "see": first[key],
                        "line": f"{c['id']}{where}: the same assumption fails (see {first[key]})."})
            continue
        first[key] = c["id"]
        line = (f"{c['id']}{where}: the assumption “{a['name']}” fails ({a['detail']}), so the theorem says nothing "
                f"here" + (f"; measured instead: {measured}" if measured else "") + (f"; remedy: {fix}" if fix else "")
                + ".")
        out.append({"claim": c["id"], "part": c.get("part"), "assumption": a["name"], "measured": measured,
                    "remedy": fix, "line": line})
    return out
