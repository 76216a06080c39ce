"""Extract, check and audit the gallery of deployed RNNs (rnnaudit.gallery), and write docs/deployed-rnns/:
per model a summary <name>.json (the extraction error, the audit's numbers, the time it took and the load),
its ‖∂h_t/∂h_s‖₂ heatmap <name>-heat.png and the spectra of its recurrent matrices <name>-spectrum.png.

    python scripts/gallery.py                       # every model, each at its default T
    python scripts/gallery.py BeatNet --T 25        # one model, its first 25 steps

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

from rnnaudit.figures.escaping import md_code, md_text
from rnnaudit.untrusted import InputError, read_json_file

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "deployed-rnns"
#: steps audited by default: g2p-en's word (46), silero-vad's 2 s (62 chunks), the digits (64), BeatNet's 8 s at
#: 50 frames per second (400; minutes and about 5 GB on 2 cores, see the page)
DEFAULT_T = {"g2p-en": 46, "silero-vad": 62, "digits-lstm": 64, "BeatNet": 400}

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
    T = DEFAULT_T[name] if T is None else T
    if T > model.inputs.shape[1]:
        raise InputError(f"--T {T}: {name}'s inputs have {model.inputs.shape[1]} steps")
    x = model.inputs[:, :T]
    print(f"{name}: reference error {model.reference_error}; auditing T = {T}", flush=True)
    start = time.perf_counter()
    report = rnnaudit.audit(model.rnn, x, trained_dtype=torch.float32)
    seconds = time.perf_counter() - start
    doc = summary(model, report, T, seconds)
    doc["peak_memory_gb"] = round(peak_memory_bytes() / 2 ** 30, 2)  # the process so far: extraction and audit
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    print(f"{name}: audit {seconds:.0f} s at load {doc['load_average']:.1f}", flush=True)
    probe = rnnaudit.wrap(copy.deepcopy(model.rnn).double())
    save_figure(plot_jacobian_heatmaps(probe, x, block="h", title=f"{name}: ‖∂h_t/∂h_s‖₂, mean over "
                                       f"{x.shape[0]} sequence(s)"), OUT / f"{name}-heat.png")
    save_figure(plot_spectra(dict(probe.recurrent_matrices()), role=model.description.split(",")[0], grid=24),
                OUT / f"{name}-spectrum.png")
    return doc


def peak_memory_bytes() -> int:
    """The peak resident memory of this process so far, in bytes (``getrusage``: kilobytes on Linux, bytes on
    macOS); 0 where the ``resource`` module is missing (Windows)."""
    try:
        import resource
    except ImportError:
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


def _gallery_row(n: str, s: dict) -> str:
    error = "—" if s["reference_error"] is None else f"{s['reference_error']:.1e}"
    recurrence = _RECURRENCE.search(s["description"])
    if recurrence is None:
        raise ValueError(f"its description {s['description'][:80]!r} names no nn.X(...) recurrence")
    return (f"| {md_text(n)} | {md_text(s['version'])} | {md_code(s['weight_file'] or '—')} | "
            f"{md_text(s['licence'])} | {md_text(recurrence.group(0))} | {md_text(s['compared'])} | {error} |")


def _audit_row(n: str, s: dict) -> str:
    # format codes as types: a string where a number belongs raises here instead of reaching the page raw
    d = s["diagnostics"]
    from rnnaudit.analysis.diagnostics import contractivity_name

    # per layer, under the one label of the number (block and sequences; the layers in order)
    labels = {contractivity_name({**x, "part": None}) for x in d}
    eta = ", ".join(f"{x['contractivity']:.3g}" for x in d) + "".join(f": {md_text(v)}" for v in sorted(labels))
    lam = ", ".join(f"{x['lyapunov'][0]:.3g} ± {x.get('lyapunov_halfwidth', x.get('lyapunov_stderr'))[0]:.2g}"
                    for x in d)
    fp = "; ".join(f"{f['fixed']:d} ({f['stable']:d} / {f['unstable']:d}) of {f['n_starts']:d}"
                   for f in s["fixed_points"])
    if not isinstance(s["claims_applying"], list):
        raise TypeError(f"claims_applying must be a list, got {type(s['claims_applying']).__name__}")
    return (f"| {md_text(n)} | {s['T']:d} | {len(s['claims_applying']):d} of {s['claims_total']:d} | {eta} | {lam} | "
            f"{fp} | {s['audit_seconds']:.0f} s ({s['load_average']:.0f}) |")


def _summaries() -> dict[str, dict]:
    """name → the summary in OUT/<name>.json, for every gallery model that has one."""
    from rnnaudit.gallery import GALLERY

    return {n: read_json_file(OUT / f"{n}.json", "gallery summary") for n in GALLERY if (OUT / f"{n}.json").is_file()}


def tables() -> str:
    """The page's two tables (the gallery; what the audit says) from the summaries in docs/deployed-rnns/.

    Every string from a summary is escaped as Markdown text (or a code span): a summary is a file, and the page is
    rendered to HTML.

    Raises:
        InputError: a summary that is not UTF-8 JSON, or lacks a field or holds one of another type (names the
            file and the field).
    """
    docs = _summaries()
    lines = ["| model | package | weight file | licence | recurrence | checked against the package's own | "
             "max abs difference (float64) |", "|---|---|---|---|---|---|---|"]
    audit = ["", "| model | T | claims that apply | largest step-Jacobian norm, per layer | "
             "λ₁ ± half-width (nats/step) | "
             "fixed points (stable / unstable) of starts | audit time (load) |", "|---|---|---|---|---|---|---|"]
    for n, s in docs.items():
        try:
            lines.append(_gallery_row(n, s))
            audit.append(_audit_row(n, s))
        except KeyError as err:
            raise InputError(f"{OUT / f'{n}.json'}: the gallery summary has no field {err}") from None
        except (TypeError, ValueError, AttributeError, IndexError) as err:
            raise InputError(f"{OUT / f'{n}.json'}: not a gallery summary as this script writes it "
                             f"({' '.join(str(err).split())[:200]})") from None
    if any(s.get("certificates") for s in docs.values()):
        audit += ["", "| model | " + " | ".join(f"`{c}`" for c in CERTIFICATES) + " |", "|---|---|---|---|"]
        for n, s in docs.items():
            if s.get("certificates"):
                try:
                    by_id = {c["id"]: c for c in s["certificates"]}
                    cells = [md_text(certificate_cell(by_id.get(c))) for c in CERTIFICATES]
                except KeyError as err:
                    raise InputError(f"{OUT / f'{n}.json'}: a certificate entry has no field {err}") from None
                except (TypeError, ValueError, AttributeError, IndexError) as err:
                    raise InputError(f"{OUT / f'{n}.json'}: not a gallery summary as this script writes it "
                                     f"({' '.join(str(err).split())[:200]})") from None
                audit.append(f"| {md_text(n)} | " + " | ".join(cells) + " |")
    return "\n".join(lines + audit)


def positive_steps(text: str) -> int:
    """``--T``: a positive number of steps."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


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
    parser.add_argument("--T", type=positive_steps, default=None,
                        help="steps to audit, a positive integer (default: each model's own, "
                             + ", ".join(f"{n} {t}" for n, t in DEFAULT_T.items()) + ")")
    parser.add_argument("--tables", action="store_true", help="print the page's tables from the summaries, run nothing")
    args = parser.parse_args(argv)
    if args.tables:
        try:
            print(tables())
        except InputError as err:
            print(f"gallery.py: error: {err}", file=sys.stderr)
            return 2
        return 0
    unknown = [n for n in args.names if n not in GALLERY]
    if unknown:
        print(f"gallery.py: unknown model {unknown[0]!r}; expected one of {', '.join(GALLERY)}", file=sys.stderr)
        return 2
    for name in args.names or GALLERY:
        try:
            run(name, args.T)
        except InputError as err:
            print(f"gallery.py: error: {err}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
