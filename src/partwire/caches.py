"""What partwire remembers between calls, and the one way to empty it: ``clear()``.

An agent or a gateway sends the same things again and again: a conversation's tools, settings and
reasoning signatures with every request, its whole history every turn. partwire remembers what
it made of such values (a tool definition read from its JSON, a signature checked, a setting
converted, a text's token count) and hands back the same result the next time it meets them;
it also remembers what it works out once about its own classes and data (a model's fields, an
adapter's option types, a model's prices for the day). Every one of these memos is bounded, and
none changes a result: only what a call costs.

You never need to clear them for correctness. Call :func:`clear` to:

- **give the memory back**, in a long-running process that has finished with a workload (the
  largest memo is the token counts of estimated texts, which keeps up to 32 million characters
  of text alive; a tokenizer, once loaded, holds its vocabulary);
- **measure a first meeting** in a benchmark that repeats the same requests: call
  ``clear(values_only=True)`` before each pass, and each pass meets every request for the first
  time, as a gateway already running meets new traffic (the memos still serve repeats within
  the pass, as they would within one conversation). What partwire worked out about its own
  classes and data is kept, as a running gateway has it: a plain ``clear()`` would also time
  working it out again, which only a process's first requests pay.
"""

from __future__ import annotations

from partwire._memo import forget

__all__ = ["clear"]


def clear(*, values_only: bool = False) -> None:
    """Empty every memo and cache partwire keeps (never needed for correctness).

    For giving the memory back, or, with ``values_only``, for measuring a first meeting with
    each request in a benchmark that repeats them: then only the memos of values met are
    emptied (tools read, settings converted, signatures checked, texts counted), and what
    partwire worked out about its own classes and data (a model class's fields, an options
    type's defaults, a tokenizer, a vendored schema) is kept. Call it between conversions, not
    while another thread is in the middle of one. The next calls give the same results as
    before, at first-meeting cost.
    """
    forget(values_only=values_only)
