"""The CUDA linear algebra the probes rely on, against the CPU's, first calls included.

    python benchmarks/cuda_linalg_check.py            # on a machine with a CUDA device

Each operation (``svdvals`` with torch's default driver and with each cuSOLVER driver, ``eigvalsh``, ``eigvals``,
``cholesky``, ``matrix_norm(ord=2)``) runs on float64 matrices of widths 12, 64 and 256, row-major and
column-major (a QR factor is column-major, as LAPACK returns it), and each is compared with the same operation on
the CPU: the largest difference relative to ‖A‖₂ is printed, with ``BAD`` where it exceeds 1e-10 (rounding is
~n·u ≈ 6e-14 at n = 256). The first call of each operation in the process is its own row, since a library's
lazy initialisation is where a wrong first answer would come from.
"""
from __future__ import annotations

import torch

TOL = 1e-10


def _cases():
    g = torch.Generator().manual_seed(0)
    for n in (12, 64, 256):
        M = torch.randn(n, n, dtype=torch.float64, generator=g)
        Q, _ = torch.linalg.qr(M)  # column-major: stride (1, n)
        S = M @ M.T + n * torch.eye(n, dtype=torch.float64)
        yield f"n={n} random", M
        yield f"n={n} orthogonal (column-major)", Q
        yield f"n={n} SPD", S


def _ops():
    ops = {"svdvals": torch.linalg.svdvals}
    for driver in ("gesvd", "gesvdj", "gesvda"):
        ops[f"svd[{driver}]"] = lambda A, d=driver: torch.linalg.svd(A, full_matrices=False, driver=d)[1] \
            if A.is_cuda else torch.linalg.svdvals(A)
    ops["matrix_norm(2)"] = lambda A: torch.linalg.matrix_norm(A, ord=2)
    ops["eigvalsh"] = lambda A: torch.linalg.eigvalsh(A + A.T)
    ops["eigvals|.|"] = lambda A: torch.linalg.eigvals(A).abs().sort().values
    ops["cholesky"] = lambda A: torch.linalg.cholesky(A @ A.T + A.shape[0] * torch.eye(A.shape[0], dtype=A.dtype,
                                                                                        device=A.device))
    return ops


def main() -> int:
    if not torch.cuda.is_available():
        print("no CUDA device: nothing to check")
        return 0
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"preferred linalg library {torch.backends.cuda.preferred_linalg_library()}")
    bad = 0
    first = {}
    for name, op in _ops().items():
        for label, A in _cases():
            scale = float(torch.linalg.matrix_norm(A, ord=2))
            try:
                got = op(A.cuda()).cpu()
            except RuntimeError as err:
                print(f"{name:16s} {label:34s} ERROR {str(err).splitlines()[0][:80]}")
                bad += 1
                continue
            err = float((got - op(A)).abs().max()) / scale
            tag = "first call" if name not in first else ""
            first.setdefault(name, err)
            flag = "BAD" if not err <= TOL else "ok"
            bad += flag == "BAD"
            print(f"{name:16s} {label:34s} {err:9.2e} {flag} {tag}")
    print(f"{bad} results off by more than {TOL:g} of ||A||_2")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
