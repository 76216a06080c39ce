"""All implemented claims, by paper. A paper with no claims yet maps to an empty tuple, so the
CLI can say so instead of silently skipping it."""

from __future__ import annotations

from rnnaudit.bounds import enrnn, nc_gru, sgornn, spectral_rnn, srnn
from rnnaudit.bounds.core import Claim

__all__ = ["PAPERS", "CLAIMS_BY_PAPER", "all_claims", "claim_by_id"]

#: The five specification papers (file stems in shared/papers/).
PAPERS = ("sgornn", "spectral_rnn", "nc_gru", "srnn", "enrnn")

CLAIMS_BY_PAPER: dict[str, tuple[Claim, ...]] = {
    "sgornn": sgornn.CLAIMS,
    "spectral_rnn": spectral_rnn.CLAIMS,
    "nc_gru": nc_gru.CLAIMS,
    "srnn": srnn.CLAIMS,
    "enrnn": enrnn.CLAIMS,
}


def all_claims() -> list[Claim]:
    """Every implemented claim, papers in :data:`PAPERS` order."""
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
