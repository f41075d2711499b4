"""Field docstrings, read from the source on demand, for the published JSON Schema.

The models do not let pydantic read attribute docstrings at import (it parses every class's
source, a fifth of the import time); the schema export, which runs rarely, reads them here.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

__all__ = ["add_field_descriptions", "field_docstrings"]


def field_docstrings(cls: type) -> dict[str, str]:
    """``{field: docstring}`` for the attribute docstrings written in ``cls``'s own body."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    statements = body.body
    for stmt, following in itertools.pairwise(statements):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[stmt.target.id] = inspect.cleandoc(following.value.value)
    return docs


def _model_classes(root: Iterable[type[BaseModel]]) -> dict[str, type[BaseModel]]:
    seen: dict[str, type[BaseModel]] = {}
    stack = list(root)
    while stack:
        cls = stack.pop()
        if cls.__name__ in seen:
            continue
        seen[cls.__name__] = cls
        stack.extend(c for c in cls.__subclasses__() if issubclass(c, BaseModel))
    return seen


def add_field_descriptions(schema: dict[str, Any], roots: Iterable[type[BaseModel]]) -> dict[str, Any]:
    """Fill a ``description`` into every ``$defs`` property that lacks one, from field docstrings.

    A definition is matched to its class by title (pydantic titles definitions by class name);
    a field documented on a base class (``id``, ``provider_data``) is found through the MRO.
    """
    classes = _model_classes(roots)
    for name, definition in schema.get("$defs", {}).items():
        cls = classes.get(definition.get("title", name))
        if cls is None:
            continue
        docs: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            if isinstance(klass, type) and issubclass(klass, BaseModel) and klass is not BaseModel:
                docs.update(field_docstrings(klass))
        for field, prop in definition.get("properties", {}).items():
            if field in docs and "description" not in prop:
                prop["description"] = docs[field]
    return schema
