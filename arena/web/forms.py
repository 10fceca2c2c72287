"""Forms in the browser on the API's own path: the same input serializer, rate limit and
service as the endpoint, and the API's error codes turned into messages next to the field
they concern.

A web form view calls ``submit``: it counts the write against the API's rate for the scope
(``arena.api.throttling.check_write_rate``: one budget for both), validates the posted fields
with the endpoint's input serializer, calls the service, and returns its result, or a
``FormErrors`` built from the error exactly as the API would have described it
(``arena.api.errors.describe``): ``invalid`` keeps its per-field messages, and every other
code goes to the field a ``FieldMap`` names for it (or to the top of the form). The page is
answered with the API's status code for that error (400, 403, 409, 413, 429...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework import serializers
from rest_framework.exceptions import APIException

from arena.api.errors import describe
from arena.api.throttling import check_write_rate

T = TypeVar("T")

#: Where the message of an error code goes: a field name, or a tuple of candidate fields, of
#: which the one whose submitted value is the engine named by the error's
#: ``details["engine"]`` (any case) is chosen (else the first). Codes not mapped go on top of
#: the form.
FieldMap = Mapping[str, str | tuple[str, ...]]

#: The key of messages about the whole form (Django's name for it).
FORM = "__all__"


@dataclass
class FormErrors:
    """Messages by field (``FORM`` for the whole form), the API's ``code`` and HTTP
    ``status`` of the first error."""

    code: str
    status: int
    fields: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name: str, message: str) -> None:
        self.fields.setdefault(name, []).append(message)

    @property
    def form(self) -> list[str]:
        return self.fields.get(FORM, [])

    def all_messages(self) -> list[str]:
        """Every message, those of a field prefixed by its name (for a form without inputs
        of its own to put them by)."""
        return [
            text if name == FORM else f"{name}: {text}"
            for name, texts in self.fields.items()
            for text in texts
        ]


def submit(
    request: HttpRequest,
    *,
    scope: str | None,
    serializer: type[serializers.Serializer[Any]],
    data: Mapping[str, Any],
    call: Callable[[dict[str, Any]], T],
    fields: FieldMap,
) -> T | FormErrors:
    """Validate ``data`` with ``serializer`` and run ``call(validated_data)``, as the API
    endpoint does, after counting the write against the rate ``scope`` (None: not limited).

    Returns ``call``'s result, or ``FormErrors`` for any ``APIException`` raised on the way
    (throttled, invalid, or an ``ApiError`` of the service). Anything else propagates (a bug
    is a 500, as in the API).
    """
    try:
        if scope is not None:
            check_write_rate(request, scope)
        checked = serializer(data=data)
        checked.is_valid(raise_exception=True)
        return call(dict(checked.validated_data))
    except APIException as exc:
        return form_errors(exc, data, fields)


def form_errors(exc: APIException, data: Mapping[str, Any], fields: FieldMap) -> FormErrors:
    """The messages of an API error placed on the form (see the module docstring)."""
    code, message, details = describe(exc)
    errors = FormErrors(code=code, status=exc.status_code)
    if code == "invalid":
        for name, messages in details.items():
            target = name if name in data or name in fields.values() else FORM
            for text in _messages(messages):
                errors.add(
                    target,
                    text if target != FORM or name == "non_field_errors" else f"{name}: {text}",
                )
        return errors
    if code == "throttled":
        wait = details.get("retry_after_seconds")
        errors.add(
            FORM,
            f"Too many of these requests for now; try again in {_duration(wait)}."
            if wait
            else message,
        )
        return errors
    errors.add(_field_for(code, details, data, fields), message)
    return errors


def _field_for(
    code: str, details: Mapping[str, Any], data: Mapping[str, Any], fields: FieldMap
) -> str:
    target = fields.get(code)
    if target is None:
        return FORM
    if isinstance(target, str):
        return target
    named = str(details.get("engine", "")).lower()
    for candidate in target:
        if named and str(data.get(candidate, "")).lower() == named:
            return candidate
    return target[0]


def _messages(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [f"{key}: {text}" for key, item in value.items() for text in _messages(item)]
    if isinstance(value, list):
        return [text for item in value for text in _messages(item)]
    return [str(value)]


def _duration(seconds: Any) -> str:
    seconds = int(seconds)
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"


@dataclass(frozen=True)
class Field:
    """One input of a web form, as ``web/_field.html`` draws it: a ``<label>`` tied to the
    input, the help text and the error messages tied to it by ``aria-describedby``, and
    ``aria-invalid`` when it has errors. ``kind`` is an HTML input type, ``select`` (with
    ``choices``: ``(value, label)``), ``checkbox`` or ``textarea``."""

    name: str
    label: str
    kind: str = "text"
    help: str = ""
    choices: Sequence[tuple[str, str]] = ()
    required: bool = False
    autocomplete: str = ""
    value: Any = ""
    errors: tuple[str, ...] = ()

    @property
    def described_by(self) -> str:
        """The ids of the help text and the errors, for ``aria-describedby``."""
        ids = [f"f-{self.name}-help"] if self.help else []
        return " ".join([*ids, *([f"f-{self.name}-errors"] if self.errors else [])])

    @property
    def checked(self) -> bool:
        return str(self.value).lower() in ("true", "on", "1", "yes")


def bind(
    fields: Sequence[Field], values: Mapping[str, Any], errors: FormErrors | None = None
) -> list[Field]:
    """``fields`` with the submitted (or initial) ``values`` and their error messages. A
    file or password input is never filled in again."""
    messages = errors.fields if errors is not None else {}
    bound = []
    for f in fields:
        value = "" if f.kind in ("file", "password") else values.get(f.name, f.value)
        bound.append(
            replace(f, value="" if value is None else value, errors=tuple(messages.get(f.name, ())))
        )
    return bound


def form_page(
    request: HttpRequest,
    template: str,
    fields: Any,
    values: Any,
    errors: FormErrors | None,
    **context: Any,
) -> HttpResponse:
    """A form page answered with the API's status for ``errors`` (200 without)."""
    form_messages = list(errors.form) if errors else []
    if errors and not form_messages:
        # Screen readers hear the alert on top; the messages themselves sit by their fields.
        form_messages = ["Please correct the fields marked below."]
    return render(
        request,
        template,
        {
            "fields": bind(fields, values, errors),
            "form_errors": form_messages,
            **context,
        },
        status=errors.status if errors else 200,
    )
