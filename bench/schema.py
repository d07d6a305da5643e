"""The shapes of the benchmark's files, as published JSON Schemas, and the one reader that checks them.

``schemas/`` holds a JSON Schema (draft 2020-12) of each file the benchmark reads: a suite version
(``suite.schema.json``), a report (``report.schema.json``) and an exploitability report
(``exploit.schema.json``). Outside tools may validate against them with any JSON Schema library;
this package checks them itself with ``check``, an interpreter of the subset of keywords they use
(``KEYWORDS``), so the published schema is exactly what is enforced and no dependency is needed. It
is stricter than JSON Schema in two ways: a number must be finite (JSON has no NaN or Infinity,
which Python's parser lets through) and an integer must be written as one (``3``, not ``3.0``).

``read_json(path, what, schema)`` reads a file, parses it and checks it: anything wrong (a missing
or unreadable file, text that is not JSON, nesting too deep for the parser, a field of the wrong
type or range) is one ``BenchError`` line naming the file and the field.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path
from typing import Any

SCHEMAS_DIR = Path(__file__).parent / "schemas"
"""The published schemas, one file each: ``suite``, ``report``, ``exploit``."""
KEYWORDS = frozenset(
    "$schema $id $defs $ref title description type const enum minimum maximum minLength maxLength pattern "
    "items minItems maxItems uniqueItems properties required additionalProperties propertyNames minProperties "
    "anyOf".split()
)
"""The JSON Schema keywords ``check`` implements; the schemas use no others (tests/bench/test_bench.py checks)."""
_TYPES = {"object": "an object", "array": "a list", "string": "a string", "integer": "an integer"}
_TYPES |= {"number": "a number", "boolean": "true or false", "null": "null"}


class BenchError(ValueError):
    """A benchmark problem, said in one line: a bad version, track, candidate, report or agent."""


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """The published schema ``name`` (``suite``, ``report`` or ``exploit``)."""
    return json.loads((SCHEMAS_DIR / f"{name}.schema.json").read_text())


def read_json(path: str | Path, what: str, schema_name: str | None = None) -> Any:
    """The JSON value of the file at ``path``, checked against schema ``schema_name`` if given;
    ``BenchError`` naming ``what`` (e.g. "the report"), the file and the field otherwise."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise BenchError(f"cannot read {what} {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise BenchError(f"{what} {path} is not usable JSON: nested too deeply") from None
    except ValueError as error:
        raise BenchError(f"{what} {path} is not JSON: {str(error)[:80]}") from None
    if schema_name is not None:
        validate(value, schema_name, f"{what} {path}")
    return value


def validate(value: Any, schema_name: str, where: str) -> None:
    """``BenchError`` ``where: FIELD: what is wrong`` if ``value`` does not fit schema ``schema_name``."""
    root = schema(schema_name)
    problem = check(value, root, root)
    if problem is not None:
        raise BenchError(f"{where}: {problem}")


def check(value: Any, node: dict[str, Any], root: dict[str, Any], path: str = "") -> str | None:
    """The first way ``value`` (at ``path``) does not fit the schema ``node`` (of ``root``, which
    holds the ``$defs``), as ``FIELD: what is wrong``; None if it fits. The depth it descends is the
    schema's, never the value's: a deeply nested value is refused where the schema stops it."""
    here = path or "the top level"
    if "$ref" in node:
        node = _resolve(root, node["$ref"]) | {k: v for k, v in node.items() if k != "$ref"}
    if "type" in node:
        types = node["type"] if isinstance(node["type"], list) else [node["type"]]
        if not any(_is(value, t) for t in types):
            return f"{here}: must be {' or '.join(_TYPES[t] for t in types)}, got {_show(value)}"
    if "const" in node and not _same(value, node["const"]):
        return f"{here}: must be {_show(node['const'])}, got {_show(value)}"
    if "enum" in node and not any(_same(value, option) for option in node["enum"]):
        return f"{here}: must be one of {', '.join(map(_show, node['enum']))}, got {_show(value)}"
    if _is(value, "number"):
        low, high = node.get("minimum"), node.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            allowed = f">= {low}" if high is None else f"<= {high}" if low is None else f"in {low}..{high}"
            return f"{here}: must be {allowed}, got {_show(value)}"
    if isinstance(value, str):
        if not node.get("minLength", 0) <= len(value) <= node.get("maxLength", math.inf):
            return f"{here}: must be {node.get('minLength', 0)} to {node.get('maxLength', 'any number of')} characters"
        if "pattern" in node and not re.search(node["pattern"], value):
            return f"{here}: must be {node.get('title', 'of the form ' + node['pattern'])}, got {_show(value)}"
    if isinstance(value, list):
        problem = _check_list(value, node, root, path, here)
        if problem is not None:
            return problem
    if isinstance(value, dict):
        problem = _check_object(value, node, root, path, here)
        if problem is not None:
            return problem
    if "anyOf" in node and all(check(value, option, root, path) is not None for option in node["anyOf"]):
        return f"{here}: must be {node.get('title', 'of one of the allowed forms')}"
    return None


def _check_list(value: list[Any], node: dict[str, Any], root: dict[str, Any], path: str, here: str) -> str | None:
    if not node.get("minItems", 0) <= len(value) <= node.get("maxItems", math.inf):
        return f"{here}: must hold {node.get('minItems', 0)} to {node.get('maxItems', 'any number of')} items"
    if node.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
        return f"{here}: must not repeat an item"
    if "items" in node:
        for i, item in enumerate(value):
            if (problem := check(item, node["items"], root, f"{path}[{i}]")) is not None:
                return problem
    return None


def _check_object(
    value: dict[str, Any], node: dict[str, Any], root: dict[str, Any], path: str, here: str
) -> str | None:
    missing = [key for key in node.get("required", []) if key not in value]
    if missing:
        return f"{_join(path, missing[0])}: missing"
    if len(value) < node.get("minProperties", 0):
        return f"{here}: must hold at least {node['minProperties']} entries"
    properties, extra = node.get("properties", {}), node.get("additionalProperties", True)
    for key, item in value.items():
        where = _join(path, key)
        if "propertyNames" in node and (problem := check(key, node["propertyNames"], root, where)) is not None:
            return problem
        if key in properties:
            problem = check(item, properties[key], root, where)
        elif extra is False:
            return f"{where}: unknown field (the fields are {', '.join(properties)})"
        elif isinstance(extra, dict):
            problem = check(item, extra, root, where)
        else:
            problem = None
        if problem is not None:
            return problem
    return None


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return _is(value, "integer") or (isinstance(value, float) and math.isfinite(value))
    python = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}[kind]
    return isinstance(value, python)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    return type(a) is type(b) and a == b


def _join(path: str, key: str) -> str:
    key = key if len(key) <= 40 else key[:37] + "..."
    return f"{path}.{key}" if path and re.fullmatch(r"[\w.+-]+", key) else f"{path}[{json.dumps(key)}]" if path else key


def _show(value: Any) -> str:
    """A short JSON-like rendering of a value for an error line."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
