"""rnnaudit: theory verification and analysis for orthogonal and gated recurrent networks.

The public API, importable from here without loading matplotlib (names resolve on first use):

- claims: :func:`check` (a whole audit, as ``rnnaudit check``), :func:`check_claim`,
  :func:`claim_by_id`, :func:`all_claims`, :data:`PROFILES`;
- the audit of trained runs: :func:`audit_checkpoint`, :func:`audit_run`;
- probes: :func:`hidden_jacobian_maps`, :func:`input_jacobian_maps`, :func:`pseudospectrum`,
  :func:`spectral_summary`, :func:`transient_growth`, :func:`kreiss_constant`,
  :func:`lyapunov_spectrum`, :func:`recurrent_matrix_probes`, ...;
- fixed points and slow points of any model under a constant input, with their stability: :func:`fixed_points`;
- any model as a cell the probes accept: :func:`wrap` (``torch.nn.RNN``/``GRU``/``LSTM``, their
  ``*Cell``, parametrized or geotorch weights, or any step function);
- the user's own training loop: :class:`Monitor` records what :func:`rnnaudit.training.train` records
  into a run directory that ``rnnaudit audit`` and ``compare`` read;
- the subpackages :mod:`rnnaudit.cells`, :mod:`rnnaudit.analysis`, :mod:`rnnaudit.bounds`,
  :mod:`rnnaudit.figures`, :mod:`rnnaudit.training`, :mod:`rnnaudit.tasks`.

Layers import one way: cells ← analysis (probes) ← bounds (claims) ← figures (plots, report) ←
the application layer in this package (CLI, check/audit orchestration, training, run
directories). ``rnnaudit.tasks`` and ``rnnaudit.atomic`` are leaves that import nothing else of
rnnaudit, so every layer may use them.
"""

from __future__ import annotations

import importlib
import os

# Set before torch is imported by anything of ours, whichever entry point the user takes (the CLI
# or this API): OpenMP's default active wait makes idle threads spin, and on a busy 2-core machine
# that slows the checks' many small batched products several-fold. setdefault keeps a user's own
# choice. It cannot reach a torch that was imported before rnnaudit.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__all__ = ["__version__", "check", "check_claim", "claim_by_id", "all_claims", "PROFILES", "audit", "audit_checkpoint",
           "audit_run", "Monitor", "hidden_jacobian_maps", "input_jacobian_maps", "pseudospectrum", "spectral_summary",
           "transient_growth", "kreiss_constant", "lyapunov_spectrum", "recurrent_matrix_probes", "fixed_points", "wrap", "cells",
           "analysis", "bounds", "figures", "training", "tasks"]

#: public name → module that defines it; imported on first access (PEP 562), so that
#: ``import rnnaudit`` and ``rnnaudit --help`` stay light.
_LAZY = {
    "check": "rnnaudit.checking",
    "check_claim": "rnnaudit.bounds", "claim_by_id": "rnnaudit.bounds", "all_claims": "rnnaudit.bounds",
    "PROFILES": "rnnaudit.bounds",
    "audit": "rnnaudit.auditing", "fixed_points": "rnnaudit.auditing", "audit_checkpoint": "rnnaudit.auditing", "audit_run": "rnnaudit.auditing",
    "hidden_jacobian_maps": "rnnaudit.analysis", "input_jacobian_maps": "rnnaudit.analysis",
    "pseudospectrum": "rnnaudit.analysis", "spectral_summary": "rnnaudit.analysis",
    "transient_growth": "rnnaudit.analysis", "kreiss_constant": "rnnaudit.analysis",
    "lyapunov_spectrum": "rnnaudit.analysis", "recurrent_matrix_probes": "rnnaudit.analysis",
    "wrap": "rnnaudit.cells",
    "Monitor": "rnnaudit.monitoring",
}
_SUBPACKAGES = {"cells", "analysis", "bounds", "figures", "training", "tasks"}


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"rnnaudit.{name}")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name == "__version__":
        from importlib import metadata

        try:
            return metadata.version("rnnaudit")
        except metadata.PackageNotFoundError:
            return "unknown"
    raise AttributeError(f"module 'rnnaudit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
