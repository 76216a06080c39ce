"""The small interface every reference cell exposes to the probes.

A cell runs a batch-first sequence (batch, T, n) to all hidden states (batch, T, h),
takes one step, returns its recurrent matrix as a dense tensor, and names its
parameters by the role they play in its paper (Θ, W, U, b, α, β, ...).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from rnnaudit.cells._validate import check_parameters_finite, check_sequence, check_state

#: Negative slope of ``"leaky_relu"``: PyTorch's default. spectral_rnn.md Sec. 7 uses leaky_ReLU but states no
#: slope (its TensorFlow code base would default to tf.nn.leaky_relu's 0.2); any slope in [0, 1] keeps
#: Assumption 1(b) of Sec. 6 (‖φ(x)‖ ≤ ‖x‖, 1-Lipschitz).
LEAKY_RELU_SLOPE = 0.01

ACTIVATIONS = {"relu": torch.relu, "tanh": torch.tanh, "identity": lambda z: z,
               "leaky_relu": lambda z: torch.nn.functional.leaky_relu(z, LEAKY_RELU_SLOPE)}


def real_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 for complex128, float32 for complex64; a real dtype unchanged."""
    return {torch.complex128: torch.float64, torch.complex64: torch.float32,
            torch.complex32: torch.float16}.get(dtype, dtype)


def complex_dtype(dtype: torch.dtype) -> torch.dtype:
    """complex128 for float64, complex64 for float32 (and float16/bfloat16); a complex dtype unchanged."""
    if dtype.is_complex:
        return dtype
    return torch.complex128 if dtype == torch.float64 else torch.complex64


def get_activation(name: str):
    """Pointwise activation σ by name (``relu``, ``tanh``, ``identity``, ``leaky_relu`` with slope
    :data:`LEAKY_RELU_SLOPE`, spectral_rnn.md Sec. 7).

    Raises:
        ValueError: unknown name.
    """
    if name not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {name!r}")
    return ACTIVATIONS[name]


class RecurrentCell(nn.Module):
    """Base class: subclasses implement :meth:`step`, :meth:`recurrent_matrix`,
    :meth:`parameters_by_role`; :meth:`forward` loops :meth:`step` after validating input.

    Subclasses may override :meth:`forward` with a faster loop that computes the same thing
    (the tests compare the two).
    """

    input_size: int
    hidden_size: int
    #: the role of :meth:`recurrent_matrix` in the cell's paper (its key in :meth:`recurrent_matrices`)
    recurrent_role: str = "W"
    #: True for a cell whose state z is complex (batch, hidden_size) while its inputs are real (an LRU, a
    #: complex diagonal SSM); a cell with complex parameters has a complex state too (:meth:`has_complex_state`).
    #: The probes see such a cell through :class:`cells.real_view.RealView`: z ∈ ℂᴺ as (Re z, Im z) ∈ ℝ²ᴺ.
    complex_state: bool = False

    def _dtype(self) -> torch.dtype:
        return next(self.parameters()).dtype

    def has_complex_state(self) -> bool:
        """Whether the state is complex: declared (:attr:`complex_state`) or implied by complex parameters."""
        return bool(self.complex_state) or self._dtype().is_complex

    def input_dtype(self) -> torch.dtype:
        """The dtype of x: the real counterpart of the parameters' dtype (float64 for complex128)."""
        return real_dtype(self._dtype())

    def state_dtype(self) -> torch.dtype:
        """The dtype of h: the parameters' dtype, or its complex counterpart for a complex state."""
        return complex_dtype(self._dtype()) if self.has_complex_state() else self._dtype()

    def initial_state(self, x: Tensor, h0: Tensor | None) -> Tensor:
        """Validate x (batch, T, n), h0 (batch, h) and the cell's own tensors, and return h0 (zeros
        by default, sgornn.md Sec. 2: "we assume h_0 is a vector of zeros").

        Raises:
            ValueError: see :meth:`forward`; a NaN/Inf parameter or floating buffer is named
                (module path and, where it has one, its role from :meth:`parameters_by_role`).
        """
        check_sequence(x, self.input_size, self.input_dtype())
        self.check_finite()
        if h0 is None:
            return x.new_zeros(x.shape[0], self.hidden_size, dtype=self.state_dtype())
        check_state(h0, x.shape[0], self.hidden_size, self.state_dtype())
        return h0

    def check_finite(self) -> None:
        """Raise ValueError naming the first parameter or floating buffer that holds NaN/Inf.

        One reduction per tensor and a single host synchronisation per call, not per time step
        (:func:`cells._validate.check_parameters_finite`); called by :meth:`initial_state`, i.e. once
        per forward pass. Measured on the CPU: 40–700 µs, under 1% of a forward+backward pass at
        T = 20–100, h = 128–1024.
        """
        def role_of(name: str, tensor: Tensor) -> str | None:
            try:
                roles = self.parameters_by_role()
            except NotImplementedError:
                return None
            return next((r for r, p in roles.items() if p is tensor), None)

        check_parameters_finite(self, role_of)

    def check_step_args(self, x_t: Tensor, h: Tensor) -> None:
        """Shape and dtype checks of :meth:`step`'s arguments: x_t (..., n) and h (..., h), both in
        the cell's dtype. No value (NaN/Inf) checks, so that ``torch.func.vmap``/``jvp`` over
        :meth:`step` keep working (analysis/jacobian.py, bounds/).

        Raises:
            ValueError: not tensors, wrong last dimension, more than one batch dimension, batch sizes
                that differ, or a dtype other than the cell's.
        """
        if (not isinstance(x_t, Tensor) or not isinstance(h, Tensor) or x_t.shape[-1:] != (self.input_size,)
                or h.shape[-1:] != (self.hidden_size,) or x_t.dim() > 2 or x_t.shape[:-1] != h.shape[:-1]):
            shapes = [tuple(t.shape) if isinstance(t, Tensor) else type(t).__name__ for t in (x_t, h)]
            raise ValueError(f"x_t must be (batch, {self.input_size}) and h (batch, {self.hidden_size}), "
                             f"got {shapes[0]} and {shapes[1]}")
        dtype = self._dtype()
        # has_complex_state() only where h is not in the parameters' dtype: it may walk every parameter, per step
        if x_t.dtype != real_dtype(dtype) or (h.dtype != dtype and not (
                h.dtype == complex_dtype(dtype) and self.has_complex_state())):
            raise ValueError(f"x_t and h must have the cell's dtypes {self.input_dtype()} and {self.state_dtype()}, "
                             f"got {x_t.dtype} and {h.dtype}")

    def step(self, x_t: Tensor, h: Tensor) -> Tensor:
        """One recurrence step: x_t (batch, n), h (batch, h) → next h (batch, h)."""
        raise NotImplementedError

    def forward(self, x: Tensor, h0: Tensor | None = None) -> Tensor:
        """All hidden states h_1..h_T, shape (batch, T, h), for x of shape (batch, T, n).

        Raises:
            ValueError: wrong shape/width/dtype, T = 0, NaN/Inf in x, h0 or a parameter.
        """
        h = self.initial_state(x, h0)
        states = []
        # unbind, not x[:, t]: each slice's backward would add a full (batch, T, n) zero tensor (O(T²))
        for x_t in x.unbind(1):
            h = self.step(x_t, h)
            states.append(h)
        return torch.stack(states, dim=1)

    def recurrent_matrix(self) -> Tensor:
        """The dense recurrent matrix (h, h)."""
        raise NotImplementedError

    def recurrent_matrices(self) -> dict[str, Tensor]:
        """Every recurrent matrix by its role: ``{recurrent_role: recurrent_matrix()}`` unless a cell
        has several (the gated cells, wrapped torch modules), for the spectral probes by role
        (:func:`rnnaudit.analysis.recurrent_matrix_probes`)."""
        return {self.recurrent_role: self.recurrent_matrix()}

    def parameters_by_role(self) -> dict[str, Tensor]:
        """Trainable tensors keyed by their role in the paper's notation."""
        raise NotImplementedError

    def config(self) -> dict:
        """Constructor keyword arguments that rebuild this cell's structure, not its values:
        ``type(cell)(**cell.config())`` followed by ``load_state_dict`` gives the same cell. Plain
        JSON values only (saved counterexamples and checkpoints hold them)."""
        raise NotImplementedError


def initial_parameter(init, shape: tuple[int, ...], generator: torch.Generator | None = None, *,
                      dtype: torch.dtype | None = None, device: torch.device | str | None = None,
                      **init_kwargs) -> nn.Parameter:
    """A parameter of ``shape`` filled by ``init(tensor, generator=generator, **init_kwargs)`` (an ``nn.init``
    function: ``uniform_`` with ``a=, b=``, ``xavier_uniform_``, ``kaiming_normal_`` with ``nonlinearity=``, ...)
    on the generator's device (the CPU for ``torch.Generator()`` or None), in ``dtype``, then placed on ``device``.

    A CUDA tensor refuses a CPU generator; drawing where the generator lives gives a seed the same values on
    every device (the CPU twin of a CUDA cell is the same cell), and on the CPU the same bits as drawing in place.

    Args:
        init: fills a tensor in place and takes ``generator=``. shape: the parameter's shape.
        generator: the RNG, or None for torch's global CPU RNG. dtype, device: of the parameter (None: torch's
            defaults).

    Returns:
        ``nn.Parameter`` of ``shape``, ``dtype``, on ``device``.

    Raises:
        RuntimeError: ``init``'s own errors (torch's message).
    """
    drawn = torch.empty(*shape, dtype=dtype, device=None if generator is None else generator.device)
    init(drawn, generator=generator, **init_kwargs)
    return nn.Parameter(drawn.to(device=device))


def parameter_count(module: nn.Module) -> int:
    """Number of free trainable scalars, as the papers' parameter tables count them.

    A trainable parameter counts ``numel()`` scalars unless the submodule that owns it declares
    fewer through a method ``free_entries() -> dict[str, int]`` (own parameter name → number of
    free scalars). The skew-symmetric parametrisations do: scoRNN's A (nc_gru.md eq. 2), the
    Θ of A = Θ − Θᵀ and of exp(Θ − Θᵀ) have h(h−1)/2 free entries of h², as scoRNN, NC-GRU and
    ENRNN count them (enrnn.md Table 1; tests/test_cells_enrnn.py, tests/test_cells_nc_gru.py).
    Shared parameters count once; frozen ones (``requires_grad=False``) not at all.

    Args:
        module: any ``nn.Module``.

    Returns:
        int ≥ 0.

    Raises:
        ValueError: a ``free_entries()`` entry names no parameter of its module, or claims more
            free scalars than the parameter has.
    """
    free: dict[int, int] = {}
    for owner in module.modules():
        declared = getattr(owner, "free_entries", None)
        if not callable(declared):
            continue
        for name, count in declared().items():
            p = owner._parameters.get(name)
            if p is None or not 0 <= count <= p.numel():
                raise ValueError(f"{type(owner).__name__}.free_entries() gives {count!r} free entries for "
                                 f"{name!r}, which is not a parameter with at least that many entries")
            free[id(p)] = count
    return sum(free.get(id(p), p.numel()) for p in module.parameters() if p.requires_grad)
