"""The GRU of nc_gru.md eq. 1, NC-GRU (eq. 19–20) and the Neumann-Cayley update (Algorithm 1).

    GRU     r_t = σ(W_r x_t + U_r h_{t−1} + b_r),  u_t = σ(W_u x_t + U_u h_{t−1} + b_u)
            c_t = tanh(W_c x_t + U_c (r_t ⊙ h_{t−1}) + b_c),  h_t = (1 − u_t) ⊙ h_{t−1} + u_t ⊙ c_t
    NC-GRU  the same with c_t = modReLU(W_c x_t + U_c(A_c)(r_t ⊙ h_{t−1}); b) (no b_c) and
            U_c (optionally U_r, U_u) = Ã (I − A) D, Ã ≈ (I + A)^{-1} kept by Algorithm 1.

The reset gate acts on h_{t−1} before U_c (Cho et al., 2014), not on U_c h_{t−1} as in
``torch.nn.GRU`` and GORU (nc_gru.md Sec. 3.3, difference 1); and u_t weights the candidate.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_sizes
from rnnaudit.cells.base import RecurrentCell, initial_parameter
from rnnaudit.cells.gated_scan import fused_path_applies, gated_recurrence
from rnnaudit.cells.orthogonal import orthogonality_defect
from rnnaudit.cells.scornn import ScoRNNCayley, check_skew, modrelu, skew_gradient

__all__ = ["GRU", "NCGRU", "NeumannCayley", "NeumannCayleyUpdater"]

GATES = ("r", "u", "c")


class NeumannCayley(ScoRNNCayley):
    """Scaled Cayley map with a stored approximate inverse, nc_gru.md Algorithm 1.

    U = Ã (I − A) D (Alg. 1 line 8), where the buffer Ã ≈ (I + A)^{-1} starts exact (line 2) and
    is advanced after each optimizer step by :class:`NeumannCayleyUpdater` (line 7).

    Backward gives A the gradient of Alg. 1 lines 4–5, ∇_A L = Vᵀ − V with
    V = Ãᵀ ∇_U L (D + Uᵀ); with an exact Ã this is eq. 5–6 and autograd's gradient of eq. 2.
    Only this first-order gradient is defined: second derivatives with respect to A (e.g.
    ``create_graph=True`` then differentiating by A again) miss the curvature of the Cayley map.

    Args: as :class:`cells.scornn.ScoRNNCayley`.

    Attributes:
        A: ``nn.Parameter`` (h, h), skew. d: buffer (h,). A_inv: buffer (h, h), Ã.
    """

    def __init__(self, hidden_size: int, num_negative: int = 0, **kwargs):
        super().__init__(hidden_size, num_negative, **kwargs)
        self.register_buffer("A_inv", torch.empty_like(self.A.detach()))
        self.reset_inverse()

    @torch.no_grad()
    def reset_inverse(self) -> None:
        """Ã ← (I + A)^{-1} exactly (Alg. 1 line 2, and the periodic reset of Sec. 3.2)."""
        eye = torch.eye(self.hidden_size, dtype=self.A.dtype, device=self.A.device)
        self.A_inv.copy_(torch.linalg.inv(eye + self.A))  # the algorithm stores the inverse itself

    def matrix(self) -> Tensor:
        """U = Ã(I − A)D, shape (h, h).

        The value is exactly Alg. 1 line 8. For backward, U is written as
        U₀ − Ã Δ (U₀ + D) with Δ = A − A (zero in value): the linearisation of the Cayley map at
        A with the stored Ã, whose A-gradient is −V (line 4), made skew by :func:`skew_gradient`.
        """
        A0 = self.A.detach()
        check_skew(A0)
        eye = torch.eye(self.hidden_size, dtype=A0.dtype, device=A0.device)
        U0 = self.A_inv @ (eye - A0) * self.d
        delta = skew_gradient(self.A) - A0
        return U0 - self.A_inv @ delta @ (U0 + torch.diag(self.d))

    @torch.no_grad()
    def inverse_residual(self) -> float:
        """‖Ã(I + A) − I‖₂: 0 for the exact inverse; the orthogonality defect of U is ≤ 2r + r²."""
        eye = torch.eye(self.hidden_size, dtype=self.A.dtype, device=self.A.device)
        return torch.linalg.matrix_norm(self.A_inv @ (eye + self.A) - eye, ord=2).item()


class NeumannCayleyUpdater:
    """Neumann-Cayley update of Ã after each optimizer step, nc_gru.md Algorithm 1 and eq. 16–18.

    After ``optimizer.step()`` (any optimizer: SGD, RMSprop, Adam, ... — Alg. 1's opt_A) call
    :meth:`step`, or :meth:`attach` it as a post-step hook. For every :class:`NeumannCayley` map in
    ``model`` it forms δA^(k) = A^(k−1) − A^(k) (line 6 defines A^(k) := A^(k−1) − δA^(k)),
    M = Ã^(k−1) δA^(k), and sets

        Ã^(k) = (I + M + … + M^p) Ã^(k−1)            (eq. 18 truncated at i = p, line 7 for p = 2)

    except every ``reset_every``-th step, where Ã^(k) = (I + A^(k))^{-1} exactly (Sec. 3.2:
    "resetting orthogonality by computing the matrix inverse explicitly").

    Args:
        model: module containing one or more :class:`NeumannCayley` maps (e.g. an :class:`NCGRU`).
        order: p ∈ {1, 2, 3}, the Neumann order (Sec. 3.2, Sec. 5.1; the paper's default is 2).
        reset_every: K ≥ 1; the paper resets every 50 (Sec. 4.1–4.3) or 20 (Sec. 4.4) iterations.
            K = 1 reproduces scoRNN's exact update (eq. 4).
        record: keep the per-step probes below (costs a few (h, h) SVDs per map per step).

    Attributes:
        k: steps taken. records: list of dicts, one per map and step, with keys
            ``k``, ``map`` (module path), ``reset`` (bool), ``order``,
            ``convergence`` ‖Ã^(k−1) δA^(k)‖₂ (the series converges if < 1; eq. 18 and Sec. 5.3 state
            it with the exact inverse, this is the M the update actually uses),
            ``delta_norm`` ‖δA^(k)‖₂, ``inverse_residual`` ‖Ã^(k)(I + A^(k)) − I‖₂ and
            ``orthogonality_defect`` ‖U^(k)ᵀU^(k) − I‖₂.

    Raises:
        ValueError: order not in {1, 2, 3}, reset_every not an int ≥ 1, or no NeumannCayley in model.
    """

    def __init__(self, model: nn.Module, order: int = 2, reset_every: int = 50, *, record: bool = True):
        if isinstance(order, bool) or not isinstance(order, int) or order not in (1, 2, 3):
            raise ValueError(f"order (Neumann series order) must be 1, 2 or 3, got {order!r}")
        if isinstance(reset_every, bool) or not isinstance(reset_every, int) or reset_every < 1:
            raise ValueError(f"reset_every (K, steps between exact inverses) must be an int >= 1, got {reset_every!r}")
        self.maps = {name: m for name, m in model.named_modules() if isinstance(m, NeumannCayley)}
        if not self.maps:
            raise ValueError("model contains no NeumannCayley map to update")
        self.order, self.reset_every, self.record = order, reset_every, record
        self.k = 0
        self.records: list[dict] = []
        self._previous = {name: m.A.detach().clone() for name, m in self.maps.items()}

    @torch.no_grad()
    def step(self) -> list[dict]:
        """Advance every Ã by one step of Algorithm 1 (line 7 or a reset); returns this step's records."""
        self.k += 1
        reset = self.k % self.reset_every == 0
        new = []
        for name, m in self.maps.items():
            A = m.A.detach()
            delta = self._previous[name] - A
            M = m.A_inv @ delta
            if reset:
                m.reset_inverse()
            else:
                eye = torch.eye(m.hidden_size, dtype=A.dtype, device=A.device)
                series = eye
                for _ in range(self.order):  # Horner: I + M(I + M(...)) = I + M + ... + M^p
                    series = eye + M @ series
                m.A_inv.copy_(series @ m.A_inv)
            self._previous[name] = A.clone()
            if self.record:
                new.append({"k": self.k, "map": name, "reset": reset, "order": self.order,
                            "convergence": torch.linalg.matrix_norm(M, ord=2).item(),
                            "delta_norm": torch.linalg.matrix_norm(delta, ord=2).item(),
                            "inverse_residual": m.inverse_residual(),
                            "orthogonality_defect": orthogonality_defect(m.matrix().detach()).item()})
        self.records.extend(new)
        return new

    def attach(self, optimizer: torch.optim.Optimizer):
        """Run :meth:`step` after every ``optimizer.step()``; returns the removable hook handle."""
        return optimizer.register_step_post_hook(lambda opt, args, kwargs: self.step())


class _GatedRecurrence(RecurrentCell):
    """Shared loop of eq. 1 and eq. 19; subclasses give U_r, U_u, U_c and the candidate activation."""

    def _init_inputs(self, input_size, hidden_size, generator, kw):
        check_sizes(input_size=input_size, hidden_size=hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        bound = hidden_size ** -0.5  # torch.nn.GRU's U(−1/√h, 1/√h)
        init = lambda *shape: initial_parameter(nn.init.uniform_, shape, generator, a=-bound, b=bound, **kw)
        self.W_r, self.W_u, self.W_c = (init(hidden_size, input_size) for _ in GATES)
        self.b_r, self.b_u = init(hidden_size), init(hidden_size)
        return init

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"U_r", "U_u", "U_c"}, each (h, h)."""
        raise NotImplementedError

    def recurrent_matrix(self) -> Tensor:
        """U_c, shape (h, h): the matrix Theorem 1's β multiplies (nc_gru.md eq. 8) and the one every
        NC-GRU variant makes orthogonal. A gated cell has no single recurrent matrix; see
        :meth:`recurrent_matrices` for all three."""
        return self.recurrent_matrices()["U_c"]

    def _candidate(self, z: Tensor) -> Tensor:
        raise NotImplementedError

    def _input_part(self, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        return (x @ self.W_r.mT, x @ self.W_u.mT, x @ self.W_c.mT)

    def _gates(self, wx, h, U):
        r = torch.sigmoid(wx[0] + h @ U["U_r"].mT + self.b_r)
        u = torch.sigmoid(wx[1] + h @ U["U_u"].mT + self.b_u)
        c = self._candidate(wx[2] + (r * h) @ U["U_c"].mT)
        return r, u, c

    def gates(self, x_t: Tensor, h: Tensor) -> dict[str, Tensor]:
        """r_t, u_t, c_t for x_t (batch, n) and h_{t−1} (batch, h), each (batch, h) — the
        quantities of Theorem 1 (nc_gru.md eq. 9–12).

        Raises:
            ValueError: wrong last dimension or dtype (:meth:`cells.base.RecurrentCell.check_step_args`).
        """
        self.check_step_args(x_t, h)
        r, u, c = self._gates(self._input_part(x_t), h, self.recurrent_matrices())
        return {"r": r, "u": u, "c": c}

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One step: x_t (batch, n), h (batch, h) → h_t = (1 − u_t) ⊙ h + u_t ⊙ c_t, (batch, h)."""
        g = self.gates(x_t, h)
        return (1 - g["u"]) * h + g["u"] * g["c"]

    def _scan_biases(self) -> tuple[Tensor | None, Tensor | None]:
        """(bias added to the candidate's input part, modReLU bias) for :func:`cells.gated_scan.gated_recurrence`."""
        raise NotImplementedError

    def forward(self, x: Tensor, h0: Tensor | None = None, *, fused: bool = True) -> Tensor:
        """Hidden states (batch, T, h) for x (batch, T, n); inputs projected and U formed once.

        With ``fused`` (default) the whole sequence runs through :func:`cells.gated_scan.gated_recurrence`
        (one GEMM per step for both gates, a hand-written backward); ``fused=False`` (and any ``torch.func``
        transform) runs the step loop. Both compute the same states and gradients (tests compare them).

        Raises:
            ValueError: see :meth:`cells.base.RecurrentCell.forward`.
        """
        h = self.initial_state(x, h0)
        U = self.recurrent_matrices()
        if fused and fused_path_applies(x.device.type):
            into_a, modrelu_b = self._scan_biases()
            b_in = torch.cat([self.b_r, self.b_u, torch.zeros_like(self.b_r) if into_a is None else into_a])
            return gated_recurrence(x, torch.cat([self.W_r, self.W_u, self.W_c]), b_in, h,
                                    torch.cat([U["U_r"], U["U_u"]]), U["U_c"], modrelu_b)
        wx = self._input_part(x)
        states = []
        # unbind: slicing costs O(T) per step in backward (cells/base.py)
        for wx_t in zip(*(w.unbind(1) for w in wx)):
            r, u, c = self._gates(list(wx_t), h, U)
            h = (1 - u) * h + u * c
            states.append(h)
        return torch.stack(states, dim=1)


class GRU(_GatedRecurrence):
    """GRU exactly as nc_gru.md eq. 1 (Cho et al., 2014), the cell of Theorem 1 and Corollaries 1–2.

    Args:
        input_size: m (the paper's input dimension) ≥ 1. hidden_size: n ≥ 1.
        generator, dtype, device: RNG for the U(−1/√h, 1/√h) initialisation, and placement.

    Shapes: W_r, W_u, W_c (h, n_in); U_r, U_u, U_c (h, h); b_r, b_u, b_c (h,). Parameter count
    3(h·n_in + h² + h).
    """

    def __init__(self, input_size: int, hidden_size: int, *, generator: torch.Generator | None = None,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None):
        super().__init__()
        init = self._init_inputs(input_size, hidden_size, generator, {"dtype": dtype, "device": device})
        self.U_r, self.U_u, self.U_c = (init(hidden_size, hidden_size) for _ in GATES)
        self.b_c = init(hidden_size)

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"U_r", "U_u", "U_c"}, each (h, h)."""
        return {"U_r": self.U_r, "U_u": self.U_u, "U_c": self.U_c}

    def _candidate(self, z: Tensor) -> Tensor:
        return torch.tanh(z + self.b_c)

    def _scan_biases(self) -> tuple[Tensor | None, Tensor | None]:
        return self.b_c, None

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "hidden_size": self.hidden_size}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W_r", "W_u", "W_c", "U_r", "U_u", "U_c", "b_r", "b_u", "b_c"} (eq. 1)."""
        return {"W_r": self.W_r, "W_u": self.W_u, "W_c": self.W_c, "U_r": self.U_r, "U_u": self.U_u,
                "U_c": self.U_c, "b_r": self.b_r, "b_u": self.b_u, "b_c": self.b_c}


class NCGRU(_GatedRecurrence):
    """Neumann-Cayley orthogonal GRU, nc_gru.md eq. 19–20 and Sec. 5.2.

    Eq. 1 with c_t = modReLU(W_c x_t + U_c (r_t ⊙ h_{t−1}); b) — no b_c, the modReLU bias b takes its
    place (Sec. 3.3 lists W_r, W_u, W_c, U_u, b_r, b_u, b as the other trainables) — and the
    recurrent matrices named in ``orthogonal`` replaced by :class:`NeumannCayley` maps, trained
    by Algorithm 1 (attach a :class:`NeumannCayleyUpdater` to the optimizer).

    Args:
        input_size: ≥ 1. hidden_size: h ≥ 1.
        orthogonal: which of U_r, U_u, U_c are orthogonal, as gate letters; must contain ``"c"``.
            ``("c",)`` is NC-GRU(U_c), ``("r", "c")`` NC-GRU(U_r, U_c), ``("r", "u", "c")`` the third
            model of Sec. 5.2.
        num_negative: ρ, the number of −1 entries of each D (Sec. 4 uses 40–310; default 0).
        generator, dtype, device: RNG for all initialisations (A by :func:`cells.scornn.scornn_skew_init`,
            modReLU b by U[−0.01, 0.01]), and placement.

    Attributes:
        cayley: ``nn.ModuleDict`` gate letter → :class:`NeumannCayley`.

    Parameter count (:func:`cells.base.parameter_count`): 3hn + 3h, plus h(h−1)/2 (the free entries of
    a skew A) for each orthogonal gate and h² for each other one.

    Raises:
        ValueError: bad sizes or ρ, ``orthogonal`` not a subset of {"r", "u", "c"} containing "c".
    """

    def __init__(self, input_size: int, hidden_size: int, *, orthogonal=("c",), num_negative: int = 0,
                 generator: torch.Generator | None = None, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None):
        super().__init__()
        orthogonal = (orthogonal,) if isinstance(orthogonal, str) else tuple(orthogonal)
        if "c" not in orthogonal or not set(orthogonal) <= set(GATES) or len(set(orthogonal)) != len(orthogonal):
            raise ValueError(f"orthogonal must be distinct gate letters from ('r', 'u', 'c') including 'c', "
                             f"got {orthogonal!r}")
        kw = {"dtype": dtype, "device": device}
        init = self._init_inputs(input_size, hidden_size, generator, kw)
        self.orthogonal = tuple(g for g in GATES if g in orthogonal)
        self.cayley = nn.ModuleDict({g: NeumannCayley(hidden_size, num_negative, generator=generator, **kw)
                                     for g in self.orthogonal})
        for g in GATES:
            if g not in self.orthogonal:
                setattr(self, f"U_{g}", init(hidden_size, hidden_size))
        self.b = initial_parameter(nn.init.uniform_, (hidden_size,), generator, a=-0.01, b=0.01, **kw)

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """{"U_r", "U_u", "U_c"}, each (h, h); the orthogonal ones as Ã(I − A)D."""
        return {f"U_{g}": self.cayley[g].matrix() if g in self.cayley else getattr(self, f"U_{g}") for g in GATES}

    def _candidate(self, z: Tensor) -> Tensor:
        return modrelu(z, self.b)

    def _scan_biases(self) -> tuple[Tensor | None, Tensor | None]:
        return None, self.b

    def reset_inverse(self) -> None:
        """Recompute every Ã exactly (e.g. after loading or editing A)."""
        for m in self.cayley.values():
            m.reset_inverse()

    def config(self) -> dict:
        """Constructor arguments of this cell's structure (:meth:`rnnaudit.cells.base.RecurrentCell.config`)."""
        return {"input_size": self.input_size, "hidden_size": self.hidden_size, "orthogonal": list(self.orthogonal),
                "num_negative": next(iter(self.cayley.values())).num_negative}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """{"W_r", "W_u", "W_c", "b_r", "b_u", "b"} plus "A_g" for orthogonal and "U_g" for free gates g."""
        roles = {"W_r": self.W_r, "W_u": self.W_u, "W_c": self.W_c, "b_r": self.b_r, "b_u": self.b_u, "b": self.b}
        for g in GATES:
            roles[f"A_{g}" if g in self.cayley else f"U_{g}"] = (self.cayley[g].A if g in self.cayley
                                                                 else getattr(self, f"U_{g}"))
        return roles
