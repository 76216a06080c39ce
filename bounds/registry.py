"""All implemented claims, by paper, and the reloading of saved counterexamples (which needs to
know every claim). A paper with no claims yet maps to an empty tuple, so the CLI can say so
instead of silently skipping it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from rnnaudit.bounds import enrnn, nc_gru, sgornn, spectral_rnn, srnn
from rnnaudit.bounds.cases import case_from_state
from rnnaudit.bounds.core import Claim, Statement

__all__ = ["PAPERS", "CLAIMS_BY_PAPER", "COVERAGE_BY_PAPER", "all_claims", "claim_by_id", "coverage",
           "load_counterexample"]

#: The five specification papers (file stems in shared/papers/).
PAPERS = ("sgornn", "spectral_rnn", "nc_gru", "srnn", "enrnn")

CLAIMS_BY_PAPER: dict[str, tuple[Claim, ...]] = {
    "sgornn": sgornn.CLAIMS,
    "spectral_rnn": spectral_rnn.CLAIMS,
    "nc_gru": nc_gru.CLAIMS,
    "srnn": srnn.CLAIMS,
    "enrnn": enrnn.CLAIMS,
}


#: Each paper's statement index (:class:`~rnnaudit.bounds.core.Statement` entries, paper order).
COVERAGE_BY_PAPER: dict[str, tuple[Statement, ...]] = {
    "sgornn": sgornn.COVERAGE,
    "spectral_rnn": spectral_rnn.COVERAGE,
    "nc_gru": nc_gru.COVERAGE,
    "srnn": srnn.COVERAGE,
    "enrnn": enrnn.COVERAGE,
}


def coverage(papers=None) -> list[dict]:
    """The statement index of ``papers`` (default: all) as results.json's ``coverage`` list: one
    ``{"paper", "label", "status", "claims", "reason"}`` per labelled statement, in paper order."""
    return [{"paper": p, "label": s.label, "status": s.status, "claims": list(s.claims), "reason": s.reason}
            for p in (PAPERS if papers is None else papers) for s in COVERAGE_BY_PAPER[p]]


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


def load_counterexample(path: str | Path, *, device: str | torch.device = "cpu",
                        dtype: torch.dtype = torch.float64) -> tuple[str, Any, float]:
    """Reload a counterexample file written by :func:`rnnaudit.bounds.search.save_counterexample`:
    returns ``(claim_id, case, recorded_ratio)``.

    The file is untrusted input: it is read with ``torch.load(..., weights_only=True)``, and the
    only modules it can name are rnnaudit's cells (:data:`rnnaudit.cells.registry.MODULE_TYPES`).

    Raises:
        ValueError: the file is not such a counterexample, or names a claim this version does not know.
    """
    payload = torch.load(path, map_location=device, weights_only=True)
    if not isinstance(payload, dict) or not {"claim_id", "case", "ratio"} <= payload.keys():
        raise ValueError(f"{path} is not an rnnaudit counterexample (missing claim_id/case/ratio)")
    claim = claim_by_id(payload["claim_id"])
    return claim.id, case_from_state(claim.cases.case_type, payload["case"], device, dtype), float(payload["ratio"])
