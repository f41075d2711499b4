"""A griffe extension for the API reference: each adapter's public functions, read from the
functions themselves.

An adapter's ``to_wire``, ``from_wire``, ``from_wire_request``, ``stream``, ``astream`` and
``estimate_input_tokens`` are made by the adapters' kernel (``partwire/adapters/_surface.py``)
and bound in the adapter's module (``to_wire = _SURFACE.to_wire``). Read from the source, such a
binding is an attribute without a docstring; the functions carry their adapter's module, name,
signature and docstring at run time. This replaces each binding with the function as griffe
inspects it, so its page shows the signature and the docstring, as for any function.
``mkdocs.yml`` loads it.
"""

from __future__ import annotations

from typing import Any

import griffe

__all__ = ["KernelSurface"]

_BOUND = "_SURFACE."  # how an adapter module binds what the kernel made


class KernelSurface(griffe.Extension):
    """Replaces the kernel-made functions' bindings with the functions, inspected."""

    def on_module_members(self, *, mod: griffe.Module, agent: Any, **kwargs: Any) -> None:
        """Once a module's members are read: its bindings of kernel-made functions, if any."""
        bound = [name for name, member in mod.members.items()
                 if isinstance(member, griffe.Attribute) and str(member.value).startswith(_BOUND)]
        if not bound:
            return
        inspected = griffe.inspect(mod.path, extensions=agent.extensions,
                                   docstring_parser=agent.docstring_parser,
                                   docstring_options=agent.docstring_options)
        for name in bound:
            function = inspected.members[name]
            if not isinstance(function, griffe.Function):
                raise TypeError(f"{mod.path}.{name} is bound from the kernel but is not a function")
            mod.set_member(name, function)
