"""Batched float64 Gram matrices, Cholesky factorisations and top eigenvalues on the CPU through scipy's
own BLAS/LAPACK, one matrix per call and without the GIL: the kernels the Jacobian-map certificate
(:mod:`analysis.certificate`) spends its time in for flat spectra.

Why not ``torch.linalg``: on the CPU torch calls MKL, whose small-matrix LAPACK is slow on some
machines. Measured on a 2-core AMD EPYC (h = 128, one thread, per matrix): ``cholesky_ex`` 108 µs
against 41 µs for scipy's ``dpotrf`` (OpenBLAS); the Gram matrix A Aᵀ by ``bmm`` 96 µs against 58 µs
for ``dsyrk``; ``eigvalsh`` 437 µs against 277 µs for ``dsyevr`` asked for the top eigenvalue only.
scipy's Python wrappers of LAPACK hold the GIL, so the routines are called through the C function
pointers scipy exports for Cython (``scipy.linalg.cython_blas`` / ``cython_lapack``) with ``ctypes``,
which releases the GIL for the duration of each call: the engine's worker threads run them in parallel.
Each call runs OpenBLAS single-threaded in the calling thread (``openblas_set_num_threads_local``):
OpenBLAS's own pool next to torch's threads made a 128 × 128 ``dpotrf`` take 1.5–127 ms instead of
55 µs in the same measurement. Where scipy's OpenBLAS cannot be found among the loaded libraries (other
platforms or builds) :func:`available` is false and the torch kernels are used.

Every function takes and returns torch tensors (CPU, float64, C-contiguous batches), works in place
where it says so, and is only used where :func:`available` is true; :mod:`analysis.certificate` has
the device-generic torch equivalents.

Storage convention: a C-contiguous (p, p) matrix is its transpose in Fortran order. For the
symmetric matrices here that is the same matrix, and LAPACK's ``uplo="L"`` refers to the C upper
triangle.
"""

from __future__ import annotations

import ctypes
import functools

import torch
from torch import Tensor

__all__ = ["available", "gram", "symmetric_times", "cholesky", "cholesky_solve", "top_eigenvalue"]

_D = ctypes.POINTER(ctypes.c_double)
_I = ctypes.POINTER(ctypes.c_int)
_C = ctypes.c_char_p

_SIGNATURES = {
    # Fortran argument lists as scipy.linalg.cython_blas / cython_lapack declare them
    "dsyrk": ("blas", (_C, _C, _I, _I, _D, _D, _I, _D, _D, _I)),
    "dsymm": ("blas", (_C, _C, _I, _I, _D, _D, _I, _D, _I, _D, _D, _I)),
    "dpotrf": ("lapack", (_C, _I, _D, _I, _I)),
    "dpotrs": ("lapack", (_C, _I, _I, _D, _I, _D, _I, _I)),
    "dsyevr": ("lapack", (_C, _C, _C, _I, _D, _I, _D, _D, _I, _I, _D, _I, _D, _D, _I, _I, _D, _I, _I, _I, _I)),
}


@functools.lru_cache(maxsize=1)
def _routines() -> dict | None:
    """name → ctypes function, or None where scipy (or its Cython C-API table) is missing."""
    try:
        from scipy.linalg import cython_blas, cython_lapack
    except ImportError:  # pragma: no cover - scipy is a dependency
        return None
    get_name, get_pointer = ctypes.pythonapi.PyCapsule_GetName, ctypes.pythonapi.PyCapsule_GetPointer
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    library = _openblas()
    if library is None:
        return None
    out = {"threads": library.openblas_set_num_threads_local}
    out["threads"].restype, out["threads"].argtypes = ctypes.c_int, [ctypes.c_int]
    try:
        for name, (lib, args) in _SIGNATURES.items():
            capsule = (cython_blas if lib == "blas" else cython_lapack).__pyx_capi__[name]
            out[name] = ctypes.CFUNCTYPE(None, *args)(get_pointer(capsule, get_name(capsule)))
    except (AttributeError, KeyError, ValueError):  # pragma: no cover - a scipy without the C-API table
        return None
    return out


def _openblas() -> ctypes.CDLL | None:
    """The OpenBLAS that scipy's C-API table calls into (scipy's wheels ship it in ``scipy.libs``), or
    None where it is not found or too old for per-thread thread counts (OpenBLAS < 0.3.27)."""
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "scipy_openblas" in line and "scipy" in line})
    except OSError:  # not Linux
        return None
    for path in paths:
        if "openblas64_" in path:  # numpy's copy (64-bit integers), not the one scipy.linalg uses
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError:  # pragma: no cover
            continue
        if hasattr(library, "openblas_set_num_threads_local"):
            return library
    return None


class _single_threaded:
    """OpenBLAS runs single-threaded in the calling thread inside the block (restored after)."""

    def __enter__(self):
        self.previous = _routines()["threads"](1)

    def __exit__(self, *exc):
        _routines()["threads"](self.previous)


def available(x: Tensor) -> bool:
    """True where these routines apply to x: a CPU float64 tensor and scipy's LAPACK is reachable."""
    return x.device.type == "cpu" and x.dtype == torch.float64 and _routines() is not None


def _ptr(x: Tensor, i: int) -> ctypes.POINTER(ctypes.c_double):
    return ctypes.cast(x.data_ptr() + i * x.stride(0) * 8, _D)


def _int(v: int) -> ctypes.c_int:
    return ctypes.c_int(v)


def gram(A: Tensor) -> tuple[Tensor, Tensor]:
    """G_i = A_i A_iᵀ for A (n, p, q) by ``dsyrk`` (half the flops of a general product), and ‖G_i‖_F².

    Returns:
        ``(G, fro2)``: G (n, p, p) with **one triangle** (the one LAPACK's ``uplo="L"`` reads) holding
        A_iA_iᵀ and the other zero: every routine below reads only that triangle. fro2 (n,) = ‖A_iA_iᵀ‖_F².

    Raises:
        ValueError: A not a CPU float64 (n, p, q) tensor.
    """
    _check(A, "A", 3)
    n, p, q = A.shape
    A = A.contiguous()
    G = torch.zeros(n, p, p, dtype=A.dtype)
    f = _routines()["dsyrk"]
    one, zero = ctypes.c_double(1.0), ctypes.c_double(0.0)
    P, Q = _int(p), _int(q)
    with _single_threaded():
        for i in range(n):
            # A_i in C order is F = A_iᵀ (q × p) in Fortran order, and G = Fᵀ F
            f(b"L", b"T", ctypes.byref(P), ctypes.byref(Q), ctypes.byref(one), _ptr(A, i), ctypes.byref(Q),
              ctypes.byref(zero), _ptr(G, i), ctypes.byref(P))
    # Σ g_ij² over one triangle counts the off-diagonal entries once
    fro2 = 2 * G.reshape(n, -1).square().sum(1) - G.diagonal(dim1=1, dim2=2).square().sum(1)
    return G, fro2


def symmetric_times(G: Tensor, V: Tensor) -> Tensor:
    """V_i G_i for G (n, p, p) from :func:`gram` (one triangle read) and row blocks V (n, k, p), by ``dsymm``.

    Raises:
        ValueError: not CPU float64 tensors of matching shapes.
    """
    _check(G, "G", 3)
    _check(V, "V", 3)
    if V.shape[0] != G.shape[0] or V.shape[2] != G.shape[1]:
        raise ValueError(f"V must be (n, k, p) for G {tuple(G.shape)}, got {tuple(V.shape)}")
    V = V.contiguous()
    n, k, p = V.shape
    Z = torch.empty_like(V)
    f = _routines()["dsymm"]
    one, zero = ctypes.c_double(1.0), ctypes.c_double(0.0)
    P, K = _int(p), _int(k)
    with _single_threaded():
        for i in range(n):
            # a C-order (k, p) block is a Fortran (p, k) one: Zᵀ = G Vᵀ
            f(b"L", b"L", ctypes.byref(P), ctypes.byref(K), ctypes.byref(one), _ptr(G, i), ctypes.byref(P),
              _ptr(V, i), ctypes.byref(P), ctypes.byref(zero), _ptr(Z, i), ctypes.byref(P))
    return Z


def cholesky(S: Tensor) -> Tensor:
    """Cholesky factorisation of each symmetric S_i (n, p, p), **in place** (``dpotrf``; one triangle read).

    Returns:
        (n,) bool: True where S_i was numerically positive definite; there S_i holds the factor
        in the layout :func:`cholesky_solve` reads (elsewhere S_i is garbage).

    Raises:
        ValueError: S not a C-contiguous CPU float64 (n, p, p) tensor.
    """
    _check(S, "S", 3)
    if not S.is_contiguous():
        raise ValueError("S must be C-contiguous (it is factorised in place)")
    n, p = S.shape[0], S.shape[1]
    f = _routines()["dpotrf"]
    P, info = _int(p), ctypes.c_int(0)
    ok = torch.empty(n, dtype=torch.bool)
    with _single_threaded():
        for i in range(n):
            f(b"L", ctypes.byref(P), _ptr(S, i), ctypes.byref(P), ctypes.byref(info))
            ok[i] = info.value == 0
    return ok


def cholesky_solve(L: Tensor, V: Tensor) -> None:
    """V_i ← V_i S_i⁻¹ for factors L from :func:`cholesky` of S (n, p, p) and row blocks V (n, k, p),
    **in place** (``dpotrs``: S_i X = V_iᵀ, and a C-order (k, p) block is a Fortran (p, k) one).

    Raises:
        ValueError: not C-contiguous CPU float64 tensors of matching shapes.
    """
    _check(L, "L", 3)
    _check(V, "V", 3)
    if not V.is_contiguous() or V.shape[0] != L.shape[0] or V.shape[2] != L.shape[1]:
        raise ValueError(f"V must be a C-contiguous (n, k, p) block for L {tuple(L.shape)}, got {tuple(V.shape)}")
    n, k, p = V.shape
    f = _routines()["dpotrs"]
    P, K, info = _int(p), _int(k), ctypes.c_int(0)
    with _single_threaded():
        for i in range(n):
            f(b"L", ctypes.byref(P), ctypes.byref(K), _ptr(L, i), ctypes.byref(P), _ptr(V, i), ctypes.byref(P),
              ctypes.byref(info))


def top_eigenvalue(G: Tensor) -> Tensor:
    """λ_max(G_i) for symmetric G (n, p, p) by ``dsyevr`` restricted to the largest eigenvalue
    (backward stable: |λ̂ − λ| ≲ p·u·‖G_i‖₂); one triangle read, as from :func:`gram`. G is not modified.

    Raises:
        ValueError: G not a C-contiguous CPU float64 (n, p, p) tensor.
    """
    _check(G, "G", 3)
    n, p = G.shape[0], G.shape[1]
    f = _routines()["dsyevr"]
    lwork, liwork = 26 * p, 10 * p
    a = (ctypes.c_double * (p * p))()  # dsyevr destroys its input: each matrix is copied here first
    w, z, work = (ctypes.c_double * p)(), (ctypes.c_double * 1)(), (ctypes.c_double * lwork)()
    iwork, isuppz = (ctypes.c_int * liwork)(), (ctypes.c_int * 2)()
    P, one, m, info = _int(p), _int(1), ctypes.c_int(0), ctypes.c_int(0)
    vl, vu, abstol = ctypes.c_double(0.0), ctypes.c_double(0.0), ctypes.c_double(0.0)
    LW, LIW = _int(lwork), _int(liwork)
    args = (b"N", b"I", b"L", ctypes.byref(P), ctypes.cast(a, _D), ctypes.byref(P), ctypes.byref(vl), ctypes.byref(vu),
            ctypes.byref(P), ctypes.byref(P), ctypes.byref(abstol), ctypes.byref(m), ctypes.cast(w, _D),
            ctypes.cast(z, _D), ctypes.byref(one), ctypes.cast(isuppz, _I), ctypes.cast(work, _D), ctypes.byref(LW),
            ctypes.cast(iwork, _I), ctypes.byref(LIW), ctypes.byref(info))
    base, stride, size = G.data_ptr(), G.stride(0) * 8, p * p * 8
    out = []
    with _single_threaded():
        for i in range(n):
            ctypes.memmove(a, base + i * stride, size)
            f(*args)
            # dsyevr's MRRR reports rare internal failures (info > 0); those matrices go to eigvalsh below
            out.append(w[0] if info.value == 0 else float("nan"))
    out = torch.tensor(out, dtype=torch.float64)
    failed = out.isnan().nonzero()[:, 0]
    if failed.numel():
        out[failed] = torch.linalg.eigvalsh(G[failed], UPLO="U")[:, -1]
    return out


def _check(x: Tensor, name: str, dim: int) -> None:
    """x must be a CPU float64 batch whose matrices are each C-contiguous (the pointer arithmetic of :func:`_ptr`)."""
    if (not isinstance(x, Tensor) or x.dim() != dim or not available(x)
            or x.stride()[1:] != (x.shape[2], 1)):
        raise ValueError(f"{name} must be a CPU float64 tensor with {dim} dimensions, each matrix C-contiguous, got "
                         f"{type(x).__name__ if not isinstance(x, Tensor) else (tuple(x.shape), x.dtype, x.device)}")
