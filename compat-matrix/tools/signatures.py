"""The keyword arguments a module's public callables take, read from its source with Python's own
parser: for name_history.py's `--keywords` table, which dates `X() got an unexpected keyword
argument 'k'` as name-history.txt dates a missing name.

A callable is a public top-level function, or a public method (or `__init__`, `__call__`,
`__new__`) of a public top-level class, under the qualified name Python's messages print
(`SFTTrainer.__init__`, `vgg19`). It takes a keyword where a parameter of that name can be passed
by keyword (positional-only ones cannot); one with `**kwargs` may take any other, so its absence
is not known there. Nor is it under a decorator that may wrap the callable in another signature
(`@deprecate_kwarg("tokenizer", new_name="processing_class")` takes the old keyword its function
no longer names): only decorators known to keep the signature leave a refusal known. A dataclass
without its own `__init__` takes its `init` fields and those of the dataclasses it derives from;
where a base is not a dataclass this release defines where the module imports it from (another
distribution's, or not a dataclass), the fields it brings are not known.

A refusal the table records is one explain states as fact, so every doubt reads as "not known".
"""

import ast

# Dunders a message names as the callable refused: a constructor, a call, an allocation.
CALLED_DUNDERS = ("__init__", "__call__", "__new__")


def is_public(name):
    return not name.startswith("_") or name in CALLED_DUNDERS


# Decorators that leave the signature as written: binding, overloads, caching and gradient modes
# (which wrap with functools.wraps and pass every argument through), and those that only set a
# docstring. Any other may take keywords the function does not name.
SIGNATURE_KEEPING = {
    "staticmethod",
    "classmethod",
    "overload",
    "abstractmethod",
    "wraps",
    "no_grad",
    "inference_mode",
    "enable_grad",
    "lru_cache",
    "cache",
    "final",
    "override",
    "contextmanager",
    "no_type_check",
    "unused",
    "ignore",
    "export",
    "add_start_docstrings",
    "add_start_docstrings_to_model_forward",
    "add_end_docstrings",
    "replace_return_docstrings",
    "add_code_sample_docstrings",
}


def parameters(function, method=False):
    """(names that can be passed by keyword, whether another keyword may be taken: `**kwargs`, or a
    decorator that may wrap the function). A method's first parameter (`self`, `cls`) is bound by
    the call, not passed, unless it is a staticmethod."""
    arguments = function.args
    decorators = set(decorator_names(function))
    positional = arguments.posonlyargs + arguments.args
    bound = 1 if method and positional and "staticmethod" not in decorators else 0
    names = {argument.arg for argument in positional[bound:] if argument not in arguments.posonlyargs}
    names |= {argument.arg for argument in arguments.kwonlyargs}
    return names, arguments.kwarg is not None or not decorators <= SIGNATURE_KEEPING


def decorator_name(decorator):
    """A decorator's last dotted part, called or not: `dataclass`, `property`, `setter`; None for
    another expression."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr
    return getattr(target, "id", None) if isinstance(target, ast.Name) else None


def decorator_names(node):
    """The names of a definition's decorators ([`decorator_name`])."""
    return [name for name in map(decorator_name, node.decorator_list) if name is not None]


def nested(body):
    """Statements of a body, those under if/try/with included (version-dependent definitions)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.With)):
            yield from nested(statement.body)
            yield from nested(getattr(statement, "orelse", []))
        elif isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
            yield from nested(statement.body)
            for handler in statement.handlers:
                yield from nested(handler.body)
            yield from nested(statement.orelse)
            yield from nested(statement.finalbody)


def merge(signatures, qualname, signature):
    """Two definitions of one name (under if/else, or `@overload`s): what either takes."""
    if qualname in signatures:
        names, open_ended = signatures[qualname]
        signatures[qualname] = (names | signature[0], open_ended or signature[1])
    else:
        signatures[qualname] = signature


def dataclass_call(node):
    """The `@dataclass` decorator of a class (`dataclass`, `dataclasses.dataclass`, with or without
    arguments), or None."""
    return next((decorator for decorator in node.decorator_list if decorator_name(decorator) == "dataclass"), None)


def passes_false(call, keyword):
    """Whether a call passes `keyword=False` (`dataclass(init=False)`, `field(init=False)`)."""
    return isinstance(call, ast.Call) and any(
        argument.arg == keyword and isinstance(argument.value, ast.Constant) and argument.value.value is False
        for argument in call.keywords
    )


def init_fields(node):
    """The fields a dataclass's generated `__init__` takes: annotated class attributes, without
    class variables, the `KW_ONLY` marker and `field(init=False)`."""
    fields = set()
    for member in nested(node.body):
        if isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
            annotation = ast.unparse(member.annotation)
            if "ClassVar" in annotation or annotation.endswith("KW_ONLY") or passes_false(member.value, "init"):
                continue
            fields.add(member.target.id)
    return fields


def absolute(module, is_package, statement):
    """The module a `from ... import` names, relative imports resolved against `module`."""
    if not statement.level:
        return statement.module or ""
    base = (module if is_package else module.rpartition(".")[0]).split(".")
    base = base[: len(base) - (statement.level - 1)] if statement.level > 1 else base
    return ".".join(base + ([statement.module] if statement.module else []))


def read(text, module, is_package):
    """({qualname: (keywords, open_ended)}, {class: (fields, bases)} of its dataclasses without
    their own `__init__`, each base as (the module that defines or exports it, its name) or None
    where the source does not say) of one module's source; None where it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    imported = {}
    for statement in nested(tree.body):
        if isinstance(statement, ast.ImportFrom):
            source = absolute(module, is_package, statement)
            for alias in statement.names:
                imported[alias.asname or alias.name] = (source, alias.name)
    defined = {statement.name for statement in nested(tree.body) if isinstance(statement, ast.ClassDef)}

    def base_of(base):
        if isinstance(base, ast.Name) and base.id == "object":
            return "object"
        if isinstance(base, ast.Name) and base.id in defined:
            return (module, base.id)
        if isinstance(base, ast.Name) and base.id in imported:
            return imported[base.id]
        # `pkg.Base`, `Generic[T]`, a call: not read here.
        return None

    signatures, dataclasses = {}, {}
    for statement in nested(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_public(statement.name):
            merge(signatures, statement.name, parameters(statement))
        elif isinstance(statement, ast.ClassDef) and not statement.name.startswith("_"):
            has_init = False
            for member in nested(statement.body):
                if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) or not is_public(member.name):
                    continue
                if {"property", "setter", "getter", "deleter", "cached_property"} & set(decorator_names(member)):
                    continue
                has_init = has_init or member.name == "__init__"
                merge(signatures, f"{statement.name}.{member.name}", parameters(member, method=True))
            decorator = dataclass_call(statement)
            if decorator is not None and not has_init and not passes_false(decorator, "init"):
                dataclasses[statement.name] = (init_fields(statement), [base_of(base) for base in statement.bases])
    return signatures, dataclasses


def resolve_dataclasses(modules):
    """Adds `Class.__init__` to each module's signatures for its dataclasses: their fields and
    those of their base dataclasses, found where the module imports them from (or, where that is
    a package that re-exports them, in the one module under it that defines a dataclass of that
    name); a base not found leaves the constructor open-ended. `modules`: {module: (signatures,
    dataclasses)}."""

    def definition(where, name):
        found = modules.get(where)
        if found is not None and name in found[1]:
            return (where, name)
        under = [each for each, (_, dataclasses) in modules.items() if each.startswith(where + ".") and name in dataclasses]
        return (under[0], name) if len(under) == 1 else None

    def fields_of(key, seen):
        fields, bases = modules[key[0]][1][key[1]]
        fields, open_ended = set(fields), False
        for base in bases:
            if base == "object":
                continue
            found = definition(*base) if base is not None else None
            if found is None or found in seen:
                open_ended = True
                continue
            base_fields, base_open = fields_of(found, seen | {key})
            fields |= base_fields
            open_ended = open_ended or base_open
        return fields, open_ended

    for module, (signatures, dataclasses) in modules.items():
        for name in dataclasses:
            merge(signatures, f"{name}.__init__", fields_of((module, name), frozenset()))
