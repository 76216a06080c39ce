"""All implemented claims, by paper, and the reloading of saved counterexamples (which needs to
know every claim). A paper with no claims yet maps to an empty tuple, so the CLI can say so
instead of silently skipping it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from rnnaudit.bounds import (
    contraction,
    echo_state,
    enrnn,
    laurent2017,
    lru,
    mamba,
    miller_hardt2019,
    min_rnn,
    nc_gru,
    pascanu2013,
    s4d,
    sgornn,
    spectral_rnn,
    srnn,
    xlstm,
)
from rnnaudit.bounds.cases import case_from_state, check_state_sizes
from rnnaudit.bounds.core import Claim, Statement
from rnnaudit.bounds.search import COUNTEREXAMPLE_FORMAT
from rnnaudit.limits import check_sizes
from rnnaudit.names import PAPERS as _PAPER_NAMES
from rnnaudit.untrusted import InputError, load_torch_file

__all__ = ["PAPERS", "CLAIMS_BY_PAPER", "COVERAGE_BY_PAPER", "all_claims", "claim_by_id", "coverage",
           "load_counterexample", "findings", "findings_not_shown"]

#: The five specification papers (file stems in papers/), then the classic papers they cite, then the modern
#: recurrences (LRU, S4D, Mamba, minGRU/minLSTM).
PAPERS = _PAPER_NAMES

CLAIMS_BY_PAPER: dict[str, tuple[Claim, ...]] = {
    "sgornn": sgornn.CLAIMS,
    "spectral_rnn": spectral_rnn.CLAIMS,
    "nc_gru": nc_gru.CLAIMS,
    "srnn": srnn.CLAIMS,
    "enrnn": enrnn.CLAIMS,
    "pascanu2013": pascanu2013.CLAIMS,
    "miller_hardt2019": miller_hardt2019.CLAIMS,
    "echo_state": echo_state.CLAIMS,
    "laurent2017": laurent2017.CLAIMS,
    "contraction": contraction.CLAIMS,
    "lru": lru.CLAIMS,
    "s4d": s4d.CLAIMS,
    "mamba": mamba.CLAIMS,
    "min_rnn": min_rnn.CLAIMS,
    "xlstm": xlstm.CLAIMS,
}


#: Each paper's statement index (:class:`~rnnaudit.bounds.core.Statement` entries, paper order).
COVERAGE_BY_PAPER: dict[str, tuple[Statement, ...]] = {
    "sgornn": sgornn.COVERAGE,
    "spectral_rnn": spectral_rnn.COVERAGE,
    "nc_gru": nc_gru.COVERAGE,
    "srnn": srnn.COVERAGE,
    "enrnn": enrnn.COVERAGE,
    "pascanu2013": pascanu2013.COVERAGE,
    "miller_hardt2019": miller_hardt2019.COVERAGE,
    "echo_state": echo_state.COVERAGE,
    "laurent2017": laurent2017.COVERAGE,
    "contraction": contraction.COVERAGE,
    "lru": lru.COVERAGE,
    "s4d": s4d.COVERAGE,
    "mamba": mamba.COVERAGE,
    "min_rnn": min_rnn.COVERAGE,
    "xlstm": xlstm.COVERAGE,
}


def coverage(papers=None) -> list[dict]:
    """The statement index of ``papers`` (default: all) as results.json's ``coverage`` list: one
    ``{"paper", "label", "status", "claims", "reason", "finding"}`` per labelled statement, in paper order;
    ``finding`` is ``{"verdict", "claim", "summary"}`` or None."""
    return [{"paper": p, "label": s.label, "status": s.status, "claims": list(s.claims), "reason": s.reason,
             "finding": None if s.finding is None else {"verdict": s.finding.verdict, "claim": s.finding.claim,
                                                         "summary": s.finding.summary}}
            for p in (PAPERS if papers is None else papers) for s in COVERAGE_BY_PAPER[p]]


def findings(papers=None) -> list[tuple[str, Statement]]:
    """Every statement-index entry of ``papers`` (default: all) that records a finding, as (paper, entry)."""
    return [(p, s) for p in (PAPERS if papers is None else papers) for s in COVERAGE_BY_PAPER[p]
            if s.finding is not None]


def findings_not_shown(verdicts: dict[str, str], papers=None) -> list[str]:
    """The findings of the statement index that no claim's verdict shows, one line each (empty when every finding's
    claim has the finding's verdict).

    Args:
        verdicts: claim id → verdict (from a check, e.g. ``{r.claim.id: r.verdict for r in run.results}``); a
            finding whose claim is missing counts as not shown.
    """
    out = []
    for paper, s in findings(papers):
        shown = verdicts.get(s.finding.claim)
        if shown != s.finding.verdict:
            out.append(f"{paper}, {s.label}: records '{s.finding.verdict}' ({s.finding.summary}) but "
                       f"{s.finding.claim} is {shown or 'not checked'}")
    return out


def all_claims() -> list[Claim]:
    """Every implemented claim, papers in :data:`PAPERS` order, each paper's in paper order."""
    return [c for p in PAPERS for c in CLAIMS_BY_PAPER[p]]


def claim_by_id(claim_id: str) -> Claim:
    """The claim with this id.

    Raises:
        ValueError: unknown id (the message lists the known ones).
    """
    for c in all_claims():
        if c.id == claim_id:
            return c
    raise ValueError(f"unknown claim id {claim_id!r}; known: {', '.join(c.id for c in all_claims())}")


def _check_sequence_field(case, where: str) -> None:
    """A case's input sequence ``x``, where it has one beside a ``cell``, of shape (batch, T, n) with batch, T ≥ 1 and
    n the cell's input width: a tampered file's x of another shape failed deep inside the measurement (or its size).

    Raises:
        InputError: naming the field, the expected and the found shape.
    """
    x, cell = getattr(case, "x", None), getattr(case, "cell", None)
    n = getattr(cell, "input_size", None)
    if not isinstance(x, torch.Tensor) or not isinstance(n, int):  # cases of raw weights keep x (T, n) or (S, n)
        return
    if x.dim() != 3 or x.shape[0] < 1 or x.shape[1] < 1 or x.shape[2] != n:
        raise InputError(f"{where}: field 'x' must have shape (batch, T, {n}) with batch, T >= 1, got "
                         f"{tuple(x.shape)}")


def load_counterexample(path: str | Path, *, device: str | torch.device = "cpu", dtype: torch.dtype = torch.float64,
                        allow_large: bool = False) -> tuple[str, Any, float]:
    """Reload a counterexample file written by :func:`rnnaudit.bounds.search.save_counterexample`:
    returns ``(claim_id, case, recorded_ratio)``.

    The file is untrusted input: it is read with ``torch.load(..., weights_only=True)``
    (:func:`rnnaudit.untrusted.load_torch_file`), the only modules it can name are rnnaudit's cells
    (:data:`rnnaudit.cells.registry.MODULE_TYPES`), and the sizes it describes are checked against
    :data:`rnnaudit.limits.LIMITS` before anything is built (``allow_large`` lifts them).

    Raises:
        rnnaudit.untrusted.InputError: not such a counterexample (unreadable, another format, a claim
            this version does not know, a case that does not fit its claim).
        rnnaudit.limits.TooLargeError: sizes above the limits.
    """
    payload = load_torch_file(path, "counterexample", allow_large=allow_large)
    if not isinstance(payload, dict) or not {"claim_id", "case", "ratio"} <= payload.keys():
        raise InputError(f"{path}: not an rnnaudit counterexample (expected a dict with claim_id, case and ratio)")
    if payload.get("format") != COUNTEREXAMPLE_FORMAT:
        raise InputError(f"{path}: a counterexample in format {payload.get('format', 'rnnaudit-counterexample-1')!r}, "
                         f"not {COUNTEREXAMPLE_FORMAT!r}: written by another rnnaudit version; rerun rnnaudit check "
                         "to write it again")
    if not isinstance(payload["claim_id"], str) or not isinstance(payload["ratio"], (int, float)) \
            or isinstance(payload["ratio"], bool):
        raise InputError(f"{path}: claim_id must be a string and ratio a number")
    try:
        claim = claim_by_id(payload["claim_id"])
    except ValueError:
        raise InputError(f"{path}: names the claim {payload['claim_id'][:80]!r}, which this version of rnnaudit does "
                         "not have") from None
    check_state_sizes(payload["case"], f"{path}", allow_large=allow_large)
    try:
        case = case_from_state(claim.cases.case_type, payload["case"], device, dtype)
    except (ValueError, TypeError, KeyError, RuntimeError) as err:
        why = " ".join(str(err).split())[:300]
        raise InputError(f"{path}: the saved case does not fit {claim.id}: {why}") from None
    _check_sequence_field(case, f"{path}: the saved case of {claim.id}")
    try:
        h, T = case.size()
    except (IndexError, AttributeError, TypeError, ValueError) as err:
        raise InputError(f"{path}: the saved case of {claim.id} has no size (h, T): "
                         f"{' '.join(str(err).split())[:200]}") from None
    check_sizes(f"{path}", allow_large=allow_large, T=T, hidden=h, elements=h * T)
    return claim.id, case, float(payload["ratio"])
