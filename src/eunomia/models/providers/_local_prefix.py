"""The local provider's kept system prefix: every prompt evaluated as "system part, then
the rest", the state of the system part kept between calls (:class:`SystemPrefixCache`).

llama-cpp-python on its own reuses the KV cache of whatever prefix the previous prompt
shared with this one, so the answer would depend on what was asked before it in the
process (the shared part was computed in other batches). Here every prompt is evaluated in
the same two steps, always: its system part on its own from an empty state, then the rest.
The state of the first step is kept between calls, and a call whose system part is the same
as the previous call's starts from it instead of evaluating it again — the same numbers as
evaluating it afresh, because the procedure does not depend on history. A grading engine
sends the same ~1,000-token system prompt with every submission, so this saves most of the
prompt evaluation.
"""

from __future__ import annotations

from typing import Any

_MIN_PREFIX_TOKENS = 32
"""System parts shorter than this are not worth a separate evaluation step."""
_EDGE_TOKENS = 2
"""Tokens at each end of the system text whose tokenisation may depend on neighbours."""


class SystemPrefixCache:
    """Evaluates every prompt as "system part, then the rest" and keeps the first part.

    Installed as the model's ``generate`` (llama-cpp-python's chat completion
    formats the messages, tokenises the prompt and calls ``generate`` with the
    tokens). Before handing the tokens on, it brings the model into the state of
    exactly the prompt's system part: kept from the previous call when that call
    had the same one, else evaluated now from an empty state. ``generate`` then
    finds that state as a cached prefix and evaluates only the rest. A prompt whose
    system part cannot be located (no system message, a chat format that drops it,
    or one too short) is evaluated from an empty state in one go — again the same
    procedure whatever ran before.

    The split point is where the system text ends inside the prompt tokens: the
    system text's own tokens (minus a couple at each end, whose tokenisation can
    depend on the neighbouring template text) are searched for in the prompt, so
    the split depends only on the request.
    """

    def __init__(self, llama: Any) -> None:
        self._llama = llama
        self._generate = llama.generate
        self.system_text: str | None = None
        """The system message of the call in progress (set by the provider per call)."""
        self._prefix: list[int] | None = None
        """The tokens whose state the model holds (positions 0..len-1), if any."""
        self.reused_tokens = 0
        """Prompt tokens the last call did not evaluate again (for tests and benchmarks)."""

    def __call__(self, tokens: Any, *args: Any, **kwargs: Any) -> Any:
        tokens = list(tokens)
        self._prepare(tokens)
        return self._generate(tokens, *args, **kwargs)

    def split_point(self, tokens: list[int]) -> int:
        """Number of leading prompt tokens that make up the system part (0: none found)."""
        text = self.system_text
        if not text:
            return 0
        own = self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        needle = own[_EDGE_TOKENS:-_EDGE_TOKENS] if len(own) > 2 * _EDGE_TOKENS else []
        if len(needle) < _MIN_PREFIX_TOKENS:
            return 0
        first = needle[0]
        width = len(needle)
        for start, token in enumerate(tokens):
            if token == first and tokens[start:start + width] == needle:
                end = start + width
                return end if end < len(tokens) else 0
        return 0

    def _prepare(self, tokens: list[int]) -> None:
        llama = self._llama
        split = self.split_point(tokens)
        prefix = tokens[:split]
        if split and self._prefix == prefix and llama.n_tokens >= split:
            # Drop whatever followed the system part last time; keep the part itself.
            llama._ctx.kv_cache_seq_rm(-1, split, -1)
            llama.n_tokens = split
            self.reused_tokens = split
            return
        llama.reset()
        self._prefix = None
        self.reused_tokens = 0
        if split:
            llama.eval(prefix)
            self._prefix = prefix

    def drop_prefix(self) -> None:
        """Keep no prefix: the model state is now another user's (the likelihood scorer's)."""
        self._prefix = None

    def forget(self) -> None:
        """Empty the model state (after a failed call, whose state is unknown)."""
        self._llama.reset()
        self._prefix = None
