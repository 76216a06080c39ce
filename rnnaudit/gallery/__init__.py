"""A gallery of trained recurrent networks that ship inside pip packages, read as data into torch modules.

Each module reads one installed package's weight file, without importing the package (whose import may
need the network or heavy dependencies), into the equivalent float64 ``torch.nn.GRU``/``LSTM``, checks
it against the package's own forward pass, and gives the recurrence's inputs for a synthetic signal:

- :mod:`rnnaudit.gallery.g2p_en`: the encoder ``GRU(256, 256)`` of g2p-en (English grapheme-to-phoneme);
- :mod:`rnnaudit.gallery.beatnet`: the 2-layer ``LSTM(150, 150)`` of BeatNet (beat and downbeat tracking);
- :mod:`rnnaudit.gallery.silero_vad`: the ``LSTMCell(128, 128)`` of silero-vad (voice activity detection);
- :mod:`rnnaudit.gallery.digits_lstm`: a 2-layer LSTM trained here on the bundled digits, as a control.

Install the packages with ``pip install "rnnaudit[gallery]"``; nothing is vendored, and each weight file
stays under its own licence (:data:`rnnaudit.gallery.installed.GalleryModel.licence`).
"""

from rnnaudit.gallery.installed import GalleryModel, NotInstalled

__all__ = ["GalleryModel", "NotInstalled", "GALLERY"]

#: name → module (under rnnaudit.gallery) whose ``extract()`` returns its :class:`GalleryModel`
GALLERY = {"g2p-en": "g2p_en", "BeatNet": "beatnet", "silero-vad": "silero_vad", "digits-lstm": "digits_lstm"}
