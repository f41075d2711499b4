"""A griffe extension for the API reference: each adapter's public functions, read from the
functions themselves.

An adapter's ``to_wire``, ``from_wire``, ``from_wire_request``, ``stream``, ``astream`` and
``estimate_input_tokens`` are made by the adapters' kernel (``partwire/adapters/_surface.py``)
and bound in the adapter's module (``to_wire, from_wire, ... = _SURFACE``). Read from the source,
such a binding is no member at all (griffe reads no tuple assignment); the functions carry their
adapter's module, name, signature and docstring at run time. This sets each of them as the
function griffe inspects, so its page shows the signature and the docstring, as for any function.
``mkdocs.yml`` loads it.
"""

from __future__ import annotations

from typing import Any

import griffe

__all__ = ["KernelSurface"]

_BOUND = "_SURFACE"  # what an adapter module names what surface() made for it
_MADE = ("to_wire", "from_wire", "from_wire_request", "stream", "astream", "estimate_input_tokens")


class KernelSurface(griffe.Extension):
    """Sets each adapter module's kernel-made functions as griffe inspects them."""

    def on_module_members(self, *, mod: griffe.Module, agent: Any, **kwargs: Any) -> None:
        """Once a module's members are read: its kernel-made functions, if it has any."""
        made = mod.members.get(_BOUND)
        # Inspected (at run time), the module has them as functions already: nothing to set.
        if not (isinstance(made, griffe.Attribute) and str(made.value).startswith("surface(")) \
                or _MADE[0] in mod.members:
            return
        inspected = griffe.inspect(mod.path, extensions=agent.extensions,
                                   docstring_parser=agent.docstring_parser,
                                   docstring_options=agent.docstring_options)
        for name in _MADE:
            function = inspected.members[name]
            if not isinstance(function, griffe.Function):
                raise TypeError(f"{mod.path}.{name} is bound from the kernel but is not a function")
            mod.set_member(name, function)
