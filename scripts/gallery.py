"""Extract, check and audit the gallery of deployed RNNs (rnnaudit.gallery), and write docs/deployed-rnns/:
per model a summary <name>.json (the extraction error, the audit's numbers, the time it took and the load),
its ‖∂h_t/∂h_s‖₂ heatmap <name>-heat.png and the spectra of its recurrent matrices <name>-spectrum.png.

    python scripts/gallery.py                       # every model, each at its default T
    python scripts/gallery.py beatnet --T 25        # one model, its first 25 steps

Needs the gallery extra: pip install -e ".[gallery]". Slow on 2 cores (minutes per model; see the page).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.metadata
import json
import os
import re
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "deployed-rnns"
#: steps audited by default: g2p-en's word (46), silero-vad's 2 s (62 chunks), the digits (64); BeatNet's 400
#: frames do not finish in the audit of today, so its first 25 frames (half a second) are audited
DEFAULT_T = {"g2p-en": 46, "silero-vad": 62, "digits-lstm": 64, "BeatNet": 25}

#: the torch module named in a model's description, e.g. "nn.LSTM(150, 150, num_layers=2)"
_RECURRENCE = re.compile(r"nn\.\w+\([^)]*\)")


#: the certificates a trained model can meet: contraction in a weighted ℓ∞ norm, on the invariant box, on the data's box
CERTIFICATES = ("contraction.weighted_inf", "contraction.gated_box", "contraction.data_box")


def certificates(report: dict) -> list[dict]:
    """Each certificate claim's entry in the report, applying or not: id, applies, reason (why not), and each
    assumption's name, holds and detail (the rate and weight per layer), verdict and worst ratio."""
    out = []
    for c in report["claims"]:
        if c["id"] in CERTIFICATES:
            out.append({"id": c["id"], "part": c.get("part"), "applies": c["applies"], "reason": c.get("reason"),
                        "assumptions": [{"name": a["name"], "holds": a["holds"], "detail": a["detail"]}
                                        for a in c.get("assumptions", [])],
                        "verdict": c.get("verdict"), "worst_ratio": c.get("worst_ratio")})
    return out


def summary(model, report: dict, T: int, seconds: float) -> dict:
    """The numbers the docs page quotes, from one audit report."""
    applying = [{"id": c["id"], "verdict": c.get("verdict"), "worst_ratio": c.get("worst_ratio"),
                 "assumptions": [(a["name"], a["holds"]) for a in c.get("assumptions", [])]}
                for c in report["claims"] if c["applies"]]
    return {"name": model.name, "version": model.version, "licence": model.licence,
            "weight_file": None if model.weight_file is None else  # the path inside the installed package
            model.weight_file.relative_to(importlib.metadata.distribution(model.name).locate_file("")).as_posix(),
            "description": model.description, "reference_error": model.reference_error, "compared": model.compared,
            "T": T, "sequences": int(model.inputs.shape[0]), "audit_seconds": round(seconds, 1),
            "load_average": os.getloadavg()[0], "torch": torch.__version__,
            "claims_total": len(report["claims"]), "claims_applying": applying,
            "recurrent": report["model"].get("recurrent"), "state_layout": report["model"].get("state_layout"),
            "diagnostics": report.get("diagnostics"), "fixed_points": report.get("fixed_points"),
            "certificates": certificates(report),
            "extra": {k: v for k, v in model.extra.items() if isinstance(v, (int, float, str))}}


def run(name: str, T: int | None) -> dict:
    import rnnaudit
    from rnnaudit.figures.heatmap import plot_jacobian_heatmaps
    from rnnaudit.figures.saving import save_figure
    from rnnaudit.figures.spectrum import plot_spectra
    from rnnaudit.gallery import GALLERY

    model = importlib.import_module(f"rnnaudit.gallery.{GALLERY[name]}").extract()
    T = T or DEFAULT_T[name]
    x = model.inputs[:, :T]
    print(f"{name}: reference error {model.reference_error}; auditing T = {T}", flush=True)
    start = time.perf_counter()
    report = rnnaudit.audit(model.rnn, x, trained_dtype=torch.float32)
    seconds = time.perf_counter() - start
    doc = summary(model, report, T, seconds)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print(f"{name}: audit {seconds:.0f} s at load {doc['load_average']:.1f}", flush=True)
    probe = rnnaudit.wrap(copy.deepcopy(model.rnn).double())
    save_figure(plot_jacobian_heatmaps(probe, x, block="h", title=f"{name}: ‖∂h_t/∂h_s‖₂, mean over "
                                       f"{x.shape[0]} sequence(s)"), OUT / f"{name}-heat.png")
    save_figure(plot_spectra(dict(probe.recurrent_matrices()), role=model.description.split(",")[0], grid=24),
                OUT / f"{name}-spectrum.png")
    return doc


def tables() -> str:
    """The page's two tables (the gallery; what the audit says) from the summaries in docs/deployed-rnns/."""
    from rnnaudit.gallery import GALLERY

    docs = {n: json.loads((OUT / f"{n}.json").read_text()) for n in GALLERY if (OUT / f"{n}.json").is_file()}
    lines = ["| model | package | weight file | licence | recurrence | checked against the package's own | "
             "max abs difference (float64) |", "|---|---|---|---|---|---|---|"]
    for n, s in docs.items():
        error = "—" if s["reference_error"] is None else f"{s['reference_error']:.1e}"
        lines.append(f"| {n} | {s['version']} | `{s['weight_file'] or '—'}` | {s['licence']} | "
                     f"{_RECURRENCE.search(s['description']).group(0)} | {s['compared']} | {error} |")
    lines += ["", "| model | T | claims that apply | max ‖∂h_t/∂h_{t−1}‖₂ (per layer) | "
              "λ₁ ± half-width (nats/step) | "
              "fixed points (stable / unstable) of starts | audit time (load) |", "|---|---|---|---|---|---|---|"]
    for n, s in docs.items():
        d = s["diagnostics"]
        eta = ", ".join(f"{x['contractivity']:.3g}" for x in d)
        lam = ", ".join(f"{x['lyapunov'][0]:.3g} ± {x.get('lyapunov_halfwidth', x.get('lyapunov_stderr'))[0]:.2g}"
                        for x in d)
        fp = "; ".join(f"{f['fixed']} ({f['stable']} / {f['unstable']}) of {f['n_starts']}" for f in s["fixed_points"])
        lines.append(f"| {n} | {s['T']} | {len(s['claims_applying'])} of {s['claims_total']} | {eta} | {lam} | {fp} | "
                     f"{s['audit_seconds']:.0f} s ({s['load_average']:.0f}) |")
    if any(s.get("certificates") for s in docs.values()):
        lines += ["", "| model | " + " | ".join(f"`{c}`" for c in CERTIFICATES) + " |", "|---|---|---|---|"]
        for n, s in docs.items():
            if s.get("certificates"):
                by_id = {c["id"]: c for c in s["certificates"]}
                lines.append(f"| {n} | " + " | ".join(certificate_cell(by_id.get(c)) for c in CERTIFICATES) + " |")
    return "\n".join(lines)


#: one layer's rate in an assumption's detail: "layer 0: ‖M‖_∞,η = 6.21 (…" or "layer 1: no bounded invariant box"
_LAYER_RATE = re.compile(r"layer (\d+): (?:‖[^=]*= ([0-9.]+(?:e[+-]?\d+)?|inf)|(no bounded invariant box))")


def layer_rates(detail: str) -> list[str]:
    """Each layer's certified rate in an assumption's detail, as printed ("none" where no invariant box)."""
    return [m.group(2) or "no box" for m in _LAYER_RATE.finditer(detail)]


def certificate_cell(entry: dict | None) -> str:
    """A certificate's table cell: "certified, rate r" (per layer), "fails, rate r" or "does not apply"."""
    if entry is None:
        return "not run"
    if not entry["applies"]:
        reason = entry["reason"] or ""
        return "does not apply" + (f" ({reason.split('the model is ')[-1]})" if "the model is " in reason else "")
    a = entry["assumptions"][0]
    per_layer = layer_rates(a["detail"])
    rates = ", ".join(per_layer) if per_layer and "no box" not in per_layer else \
        "; ".join(f"layer {k}: {'no bounded invariant box' if r == 'no box' else r}" for k, r in enumerate(per_layer)) \
        or a["detail"]
    if a["holds"]:
        return f"certified, rate {rates}" + ("" if entry["verdict"] == "holds" else f" (verdict {entry['verdict']})")
    where = re.search(r"\(sequence (\d+) of (\d+)", a["detail"])
    which = f" (sequence {where.group(1)} of {where.group(2)})" if where else ""
    return (f"fails, rate {rates}" if "no bounded" not in rates else f"fails ({rates})") + which


def main(argv=None) -> int:
    from rnnaudit.gallery import GALLERY

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"models to run (default: all): {', '.join(GALLERY)}")
    parser.add_argument("--T", type=int, default=None, help="steps to audit (default: each model's, see DEFAULT_T)")
    parser.add_argument("--tables", action="store_true", help="print the page's tables from the summaries, run nothing")
    args = parser.parse_args(argv)
    if args.tables:
        print(tables())
        return 0
    unknown = [n for n in args.names if n not in GALLERY]
    if unknown:
        print(f"gallery.py: unknown model {unknown[0]!r}; expected one of {', '.join(GALLERY)}", file=sys.stderr)
        return 2
    for name in args.names or GALLERY:
        run(name, args.T)
    return 0


if __name__ == "__main__":
    sys.exit(main())
