"""Writes src/till_payments/_generated.py from the service's OpenAPI document (clients/openapi.json, made by
`npm run clients:gen` at the repository root): a typed class per response object, a Literal per
enum, and the client's methods, sync and async, with keyword arguments taken from each request
schema. Run: `python scripts/gen_models.py` (or `--check`: exit 1 when the committed file is stale).

Written here because no generator gives what the library promises with httpx as the only runtime
dependency: snake_case attributes over the wire JSON kept as received (so `to_dict()` is exact),
aware datetimes, and no model runtime such as pydantic. The document's schemas are inline, so the
tables below name them (by where they first occur) and name each operation's method; a schema
nobody named stops the generation, which keeps new endpoints a deliberate choice.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
OPENAPI = ROOT.parent / "openapi.json"
OUTPUT = ROOT / "src" / "till_payments" / "_generated.py"

Schema = Dict[str, Any]


@dataclass(frozen=True)
class Op:
    verb: str
    path: str
    owner: str
    """"" for a method of the client itself, else its resource attribute ("webhook_endpoints", "test_helpers.sessions")."""
    name: str
    doc: str
    ids: Tuple[str, ...] = ()
    """Python names of the path's `{...}` placeholders, in order."""
    positional: Tuple[str, ...] = ()
    """Body fields (wire names) taken positionally after the ids."""
    extra: bool = False
    """`**extra`: more body fields, sent as given."""


OPERATIONS: List[Op] = [
    Op("POST", "/api/v1/checkout", "", "create_checkout",
       "Creates a payment session; send the customer to its `url`. Arguments left as None are not sent; "
       "`extra` keys go into the body unchanged; one naming an argument (providerHints) is sent when the "
       "argument is None, and refused when the two differ.", extra=True),
    Op("GET", "/api/v1/sessions/{id}", "", "get_session", "The session, with `record` once paid.", ids=("session_id",)),
    Op("POST", "/api/v1/refunds", "", "refund",
       "Refunds a payment record: `amount` (minor units) for part of it, None for everything still refundable.",
       positional=("recordId",)),
    Op("GET", "/api/v1/sessions", "sessions", "list",
       "One page of sessions, newest first, filtered by status, creation time and metadata values "
       "(`metadata={\"order\": \"A-1\"}`); `starting_after` a session id to go on."),
    Op("GET", "/api/v1/sessions/{id}", "sessions", "retrieve", "The session, with `record` once paid (as get_session).",
       ids=("session_id",)),
    Op("POST", "/api/v1/sessions/{id}/cancel", "sessions", "cancel",
       "An open session becomes `canceled`, its provider order closed first; a session not open raises "
       "InvalidRequestError `session_terminal`.", ids=("session_id",)),
    Op("POST", "/api/v1/sessions/{id}/expire", "sessions", "expire",
       "An open session becomes `expired` now, its provider order closed first; a session not open raises "
       "InvalidRequestError `session_terminal`.", ids=("session_id",)),
    Op("GET", "/api/v1/records", "records", "list",
       "One page of payment records, newest first, each with its refunds; `starting_after` a record id to go on."),
    Op("GET", "/api/v1/records/{id}", "records", "retrieve", "A payment record with its refunds.", ids=("record_id",)),
    Op("GET", "/api/v1/refunds", "refunds", "list",
       "One page of refunds, newest first (`record_id` for one record's); `starting_after` a refund id to go on."),
    Op("GET", "/api/v1/refunds/{id}", "refunds", "retrieve", "One refund.", ids=("refund_id",)),
    Op("POST", "/api/v1/test_helpers/sessions/{id}/pay", "test_helpers.sessions", "pay",
       "Pays through the mock provider; `refund_behavior` picks how its refunds will behave.", ids=("session_id",)),
    Op("POST", "/api/v1/test_helpers/sessions/{id}/fail", "test_helpers.sessions", "fail", "The payment fails.", ids=("session_id",)),
    Op("POST", "/api/v1/test_helpers/sessions/{id}/cancel", "test_helpers.sessions", "cancel", "The customer cancels.", ids=("session_id",)),
    Op("POST", "/api/v1/test_helpers/sessions/{id}/expire", "test_helpers.sessions", "expire", "The session expires now.", ids=("session_id",)),
    Op("POST", "/api/v1/test_helpers/refunds/{id}/succeed", "test_helpers.refunds", "succeed",
       "Settles a pending refund (paid with refund_behavior='pending') as succeeded.", ids=("refund_id",)),
    Op("POST", "/api/v1/test_helpers/refunds/{id}/fail", "test_helpers.refunds", "fail", "Settles a pending refund as failed.", ids=("refund_id",)),
    Op("POST", "/api/v1/webhook_endpoints", "webhook_endpoints", "create",
       "Registers an endpoint. The answer carries its signing secret, shown only here: store it. "
       "`events=None` (or not given) means every event type."),
    Op("GET", "/api/v1/webhook_endpoints", "webhook_endpoints", "list", "The endpoints of the key's mode."),
    Op("GET", "/api/v1/webhook_endpoints/{id}", "webhook_endpoints", "retrieve", "One endpoint.", ids=("endpoint_id",)),
    Op("PATCH", "/api/v1/webhook_endpoints/{id}", "webhook_endpoints", "update",
       "Changes the given fields only; `events=None` means every event type.", ids=("endpoint_id",)),
    Op("DELETE", "/api/v1/webhook_endpoints/{id}", "webhook_endpoints", "delete", "Deletes the endpoint.", ids=("endpoint_id",)),
    Op("POST", "/api/v1/webhook_endpoints/{id}/rotate_secret", "webhook_endpoints", "rotate_secret",
       "A new secret; the old one keeps signing beside it for 24 h (the header then carries both), "
       "as do secrets replaced before it within their own 24 h.", ids=("endpoint_id",)),
    Op("POST", "/api/v1/webhook_endpoints/{id}/expire_previous_secrets", "webhook_endpoints", "expire_previous_secrets",
       "The secrets replaced by rotations stop signing now (a leaked one); only the current one signs.", ids=("endpoint_id",)),
    Op("GET", "/api/v1/events", "events", "list", "One page of events, newest first; `starting_after` an event id to go on."),
    Op("GET", "/api/v1/events/{id}", "events", "retrieve", "The event with its deliveries and every attempt.", ids=("event_id",)),
    Op("POST", "/api/v1/events/{id}/redeliver", "events", "redeliver",
       "Sends the event again now, to every endpoint or to `endpoint_id`.", ids=("event_id",)),
    Op("POST", "/api/v1/payment_links", "payment_links", "create",
       "Creates a payment link: `amount`, or `min_amount` and `max_amount` for an amount the buyer enters; share its `url`."),
    Op("GET", "/api/v1/payment_links", "payment_links", "list", "One page of payment links, newest first; `starting_after` a link id to go on."),
    Op("GET", "/api/v1/payment_links/{id}", "payment_links", "retrieve", "One payment link.", ids=("link_id",)),
    Op("POST", "/api/v1/payment_links/{id}", "payment_links", "update",
       "Changes the given fields only (None clears an optional one when sent explicitly); `active=False` deactivates the link.", ids=("link_id",)),
]

RESOURCE_DOCS = {
    "sessions": "Payment sessions: read one, or list them newest first.",
    "records": "Payment records (one per paid session), each with its refunds.",
    "refunds": "Refunds: read one, or list them newest first (make one with `Till.refund`).",
    "webhook_endpoints": "Where Till sends signed webhooks, per mode (the key's).",
    "events": "Events, newest first, with their deliveries; redeliver sends one again now.",
    "payment_links": "Payment links: pages that make a fresh session for each buyer; create, read, list, update or deactivate.",
    "test_helpers": "Test mode only (a live key gets NotFoundError): drive sessions and refunds without a customer.",
    "test_helpers.sessions": "Pay, fail, cancel or expire a test session, with the webhooks a real one sends.",
    "test_helpers.refunds": "Settle a pending test refund.",
}

# Object schemas by where they first occur: "VERB path" then the property path. Structurally equal
# schemas share the first name (the test helpers answer a Session, as GET /sessions/{id} does).
NAMES: Dict[str, Tuple[str, str]] = {
    "POST /api/v1/checkout": ("CreatedSession", "A session as created: no chosen_provider, no record yet."),
    "GET /api/v1/sessions/{id}": ("Session", "A payment session; `record` once paid."),
    "GET /api/v1/sessions/{id} .record": ("SessionRecord", "The payment record of a paid session."),
    "GET /api/v1/sessions/{id} .record.charged": ("Charged", "What the customer was charged when the provider converted the listed amount "
                                                  "(WeChat Pay Global charges CNY); the record's own amount stays the amount of record."),
    "POST /api/v1/refunds": ("RecordWithRefund", "The payment record after a refund, with the refund this call created."),
    "POST /api/v1/refunds .refund": ("RecordRefund", "The refund a refund call made, inside the record it answers with: "
                                     "`status` succeeded, pending (settled later) or failed."),
    "GET /api/v1/sessions": ("SessionList", "A page of sessions, newest first; `has_more` when older ones follow."),
    "GET /api/v1/records": ("PaymentRecordList", "A page of payment records, newest first; `has_more` when older ones follow."),
    "GET /api/v1/records .data[]": ("PaymentRecord", "A payment record (one per paid session), with its refunds."),
    "GET /api/v1/records .data[].refunds[]": ("Refund", "A refund: `status` succeeded, pending (settled later) or failed."),
    "GET /api/v1/refunds": ("RefundList", "A page of refunds, newest first; `has_more` when older ones follow."),
    "POST /api/v1/webhook_endpoints": ("WebhookEndpointWithSecret", "An endpoint with its signing secret (whsec_...): only create and rotate_secret answer it."),
    "GET /api/v1/webhook_endpoints": ("WebhookEndpointList", "Every endpoint of the key's mode."),
    "GET /api/v1/webhook_endpoints .data[]": ("WebhookEndpoint", "Where Till sends signed webhooks."),
    "POST /api/v1/webhook_endpoints .health": ("EndpointHealth", "How deliveries to an endpoint have gone: the last 24 hours' success rate, "
                                               "the last success and failure, and whether Till disabled it for failing."),
    "DELETE /api/v1/webhook_endpoints/{id}": ("DeletedWebhookEndpoint", "The answer to a delete."),
    "GET /api/v1/events": ("EventList", "A page of events, newest first; `has_more` when older ones follow."),
    "GET /api/v1/events .data[]": ("Event", "An event: exactly the body a webhook delivery carries. Dedupe on `id` (delivery is at least once)."),
    "GET /api/v1/events/{id}": ("EventWithDeliveries", "An event with its deliveries and every attempt."),
    "GET /api/v1/events/{id} .deliveries[]": ("Delivery", "The delivery of an event to one endpoint."),
    "GET /api/v1/events/{id} .deliveries[].attempts[]": ("DeliveryAttempt", "One attempt of a delivery."),
    "POST /api/v1/events/{id}/redeliver": ("Redelivery", "The deliveries a redeliver scheduled."),
    "POST /api/v1/events/{id}/redeliver .scheduled[]": ("ScheduledDelivery", "A delivery scheduled by redeliver."),
    "POST /api/v1/payment_links": ("PaymentLink", "A payment link: a page (`url`) that makes a fresh session for each buyer."),
    "GET /api/v1/payment_links": ("PaymentLinkList", "A page of payment links, newest first; `has_more` when older ones follow."),
}

ENUM_NAMES: Dict[Tuple[str, ...], str] = {
    ("CNY", "USD", "EUR", "HKD", "JPY"): "Currency",
    ("test", "live"): "Mode",
    ("pending", "processing", "paid", "refunded", "failed", "canceled", "expired"): "SessionStatus",
    ("paid", "partially_refunded", "refunded", "refunding"): "RecordStatus",
    ("succeeded", "pending", "failed"): "RefundStatus",
    ("payment.succeeded", "payment.failed", "session.canceled", "session.expired",
     "refund.pending", "refund.succeeded", "refund.failed", "reconciliation.mismatches_found",
     "payment.disputed", "payment.dispute_closed"): "EventType",
    ("succeed", "pending", "fail"): "RefundBehavior",
    ("pending", "delivered", "failed", "canceled"): "DeliveryStatus",
}

# The document describes an event's `data` only as an object; its shapes per type are these (the
# same as @till-payments/node's SessionEventData and RefundEventData). Once the document types `data`,
# take them from there.
_STR = {"type": "string"}
_META = {"type": "object", "additionalProperties": {"type": "string"}}
EVENT_DATA: Dict[str, Tuple[Schema, str]] = {
    "SessionEventData": ({
        "type": "object",
        "required": ["sessionId", "status", "amount", "currency", "metadata"],
        "properties": {
            "sessionId": _STR, "status": {"$enum": "SessionStatus"}, "amount": {"type": "integer"},
            "currency": {"$enum": "Currency"}, "metadata": _META,
            "recordId": _STR, "provider": _STR, "providerRef": _STR, "paidAt": {"type": "string", "format": "date-time"},
        },
    }, "`data` of payment.* and session.* events; record_id, provider, provider_ref and paid_at once paid."),
    "RefundEventData": ({
        "type": "object",
        "required": ["refundId", "recordId", "sessionId", "amount", "refundedAmount", "recordStatus", "currency", "status", "reason", "metadata"],
        "properties": {
            "refundId": _STR, "recordId": _STR, "sessionId": _STR, "amount": {"type": "integer"},
            "refundedAmount": {"type": "integer"}, "recordStatus": {"$enum": "RecordStatus"}, "currency": {"$enum": "Currency"},
            "status": {"$enum": "RefundStatus"}, "reason": {"anyOf": [_STR, {"type": "null"}]}, "metadata": _META,
        },
    }, "`data` of refund.* events: `amount` is this refund's, `refunded_amount` the record's total."),
    "ReconciliationEventData": ({
        "type": "object",
        "required": ["reportId", "provider", "providerConfigId", "date", "counts", "openMismatches", "newMismatches", "totalsDiffer"],
        "properties": {
            "reportId": _STR, "provider": _STR, "providerConfigId": _STR, "date": _STR,
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "openMismatches": {"type": "integer"}, "newMismatches": {"type": "integer"},
            "totalsDiffer": {"type": "array", "items": _STR},
        },
    }, "`data` of reconciliation.mismatches_found: a provider's day reconciled with mismatches (`date` is the provider's day)."),
    "DisputeEventData": ({
        "type": "object",
        "required": ["disputeId", "recordId", "sessionId", "provider", "providerDisputeRef", "amount", "currency", "paymentAmount",
                     "reason", "status", "outcome", "dueBy", "closedAt", "metadata"],
        "properties": {
            "disputeId": _STR, "recordId": _STR, "sessionId": _STR, "provider": _STR, "providerDisputeRef": _STR,
            "amount": {"type": "integer"}, "currency": {"$enum": "Currency"}, "paymentAmount": {"type": "integer"},
            "reason": {"anyOf": [_STR, {"type": "null"}]}, "status": _STR, "outcome": {"anyOf": [_STR, {"type": "null"}]},
            "dueBy": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
            "closedAt": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}, "metadata": _META,
        },
    }, "`data` of payment.disputed and payment.dispute_closed: a chargeback as the provider last showed it; answer it there before `due_by`."),
}


def snake(name: str) -> str:
    out = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return out + "_" if keyword.iskeyword(out) else out


def shape(schema: Schema) -> str:
    """A schema's structure, without its prose: equal shapes are one class."""
    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in sorted(v.items()) if k not in ("description", "title", "examples")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return json.dumps(strip(schema), sort_keys=True)


def is_model(schema: Schema) -> bool:
    return schema.get("type") == "object" and bool(schema.get("properties"))


@dataclass
class Model:
    name: str
    doc: str
    schema: Schema
    fields: List[Tuple[str, str, str, str, bool]] = field(default_factory=lambda: [])
    """(wire name, python name, annotation, read expression, required)."""


class Generator:
    def __init__(self, doc: Schema) -> None:
        self.doc = doc
        self.models: Dict[str, Model] = {}
        self.by_shape: Dict[str, str] = {}
        self.enums: Dict[str, Tuple[str, ...]] = {}
        self.used_names: set[str] = set()

    # --- types -------------------------------------------------------------------------------

    def enum(self, values: Tuple[Any, ...]) -> str:
        name = ENUM_NAMES.get(tuple(values))
        literal = "Literal[" + ", ".join(json.dumps(v) if not isinstance(v, bool) else repr(v) for v in values) + "]"
        if name is None:
            return literal
        self.enums[name] = values
        return name

    def annotation(self, schema: Schema, where: str) -> Tuple[str, str]:
        """(the Python type, the kind: 'plain' | 'datetime' | 'model:Name' | 'list:<kind>' | 'copy')."""
        if "$enum" in schema:
            name = schema["$enum"]
            values = next(k for k, v in ENUM_NAMES.items() if v == name)
            self.enums[name] = values
            return name, "plain"
        if "anyOf" in schema:
            options = [s for s in schema["anyOf"] if s.get("type") != "null"]
            if len(options) == 1 and len(options) < len(schema["anyOf"]):
                inner, inner_kind = self.annotation(options[0], where)
                return f"Optional[{inner}]", "optional:" + inner_kind
            raise SystemExit(f"{where}: anyOf other than X | null is not supported")
        if "enum" in schema:
            return self.enum(tuple(schema["enum"])), "plain"
        kind = schema.get("type")
        if kind == "string":
            return ("datetime", "datetime") if schema.get("format") == "date-time" else ("str", "plain")
        if kind == "integer":
            return "int", "plain"
        if kind == "number":
            return "float", "plain"
        if kind == "boolean":
            return "bool", "plain"
        if kind == "array":
            inner, inner_kind = self.annotation(schema["items"], where + "[]")
            return f"List[{inner}]", "list:" + inner_kind
        if kind == "object":
            if is_model(schema):
                name = self.model(schema, where)
                return name, "model:" + name
            extra = schema.get("additionalProperties")
            value = self.annotation(extra, where + ".*")[0] if isinstance(extra, dict) else "Any"
            return f"Dict[str, {value}]", "copy"
        raise SystemExit(f"{where}: unsupported schema {json.dumps(schema)[:120]}")

    def model(self, schema: Schema, where: str, name_doc: Optional[Tuple[str, str]] = None) -> str:
        key = shape(schema)
        if key in self.by_shape:
            return self.by_shape[key]
        named = name_doc or NAMES.get(where)
        if named is None:
            raise SystemExit(f"an unnamed object schema at {where!r}: name it in NAMES in {Path(__file__).name}")
        name, doc = named
        if name in self.used_names:
            raise SystemExit(f"{name} names two different schemas (the second at {where!r})")
        self.used_names.add(name)
        self.by_shape[key] = name
        model = Model(name, doc, schema)
        self.models[name] = model
        required = set(schema.get("required", []))
        for wire, prop in schema["properties"].items():
            python = snake(wire)
            if wire == "data" and name in ("Event", "EventWithDeliveries"):
                ann, kind = "EventData", "eventdata"
            else:
                ann, kind = self.annotation(prop, f"{where} .{wire}" if " ." not in where else f"{where}.{wire}")
            is_required = wire in required
            if not is_required and not ann.startswith("Optional["):
                ann = f"Optional[{ann}]"
                kind = "optional:" + kind
            model.fields.append((wire, python, ann, read_expression(kind, wire, is_required, ann), is_required))
        return name

    def result(self, op: Op) -> str:
        responses = self.doc["paths"][op.path][op.verb.lower()]["responses"]
        code = next(c for c in ("200", "201", "202") if c in responses)
        schema = responses[code]["content"]["application/json"]["schema"]
        return self.model(schema, f"{op.verb} {op.path}")

    # --- operations ----------------------------------------------------------------------------

    def operation(self, op: Op) -> Schema:
        operation: Schema = self.doc["paths"][op.path][op.verb.lower()]
        return operation

    def params(self, op: Op) -> Tuple[List[str], List[str], str, Optional[str]]:
        """(signature parts, body/query entries, the request keyword for them, the nullable fields)."""
        operation = self.operation(op)
        parts = [f"{i}: str" for i in op.ids]
        entries: List[str] = []
        nullable: List[str] = []
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is not None:
            props, required, target = body.get("properties", {}), set(body.get("required", [])), "body"
        else:
            query = [p for p in operation.get("parameters", []) if p["in"] == "query"]
            props = {p["name"]: p["schema"] for p in query}
            required = {p["name"] for p in query if p.get("required")}
            target = "query"
        keyword_parts: List[str] = []
        for wire in op.positional:
            parts.append(f"{snake(wire)}: {self.annotation(props[wire], op.path + ' ' + wire)[0]}")
            entries.append(f"{json.dumps(wire)}: {snake(wire)}")
        for wire, prop in props.items():
            if wire in op.positional:
                continue
            ann = self.annotation(prop, f"{op.verb} {op.path} {target} {wire}")[0]
            if ann == "datetime":
                ann = "Union[datetime, str]"
            python = snake(wire)
            if wire in required:
                keyword_parts.append(f"{python}: {ann}")
            elif ann.startswith("Optional["):
                # null is a value here (events=None: every type), so "not given" needs its own marker.
                keyword_parts.append(f"{python}: Union[{ann[9:-1]}, None, NotGiven] = NOT_GIVEN")
                nullable.append(wire)
            else:
                keyword_parts.append(f"{python}: Optional[{ann}] = None")
            entries.append(f"{json.dumps(wire)}: {python}")
        if op.verb == "POST":
            keyword_parts.append("idempotency_key: Optional[str] = None")
        keyword_parts += ["timeout_ms: Optional[int] = None", "max_retries: Optional[int] = None"]
        if op.extra:
            keyword_parts.append("**extra: Any")
        sig = parts + (["*"] + keyword_parts if keyword_parts else [])
        return sig, entries, target if (entries or op.extra or body is not None) else "", ", ".join(json.dumps(n) for n in nullable) or None

    def method(self, op: Op, is_async: bool) -> List[str]:
        result = self.result(op)
        sig, entries, target, nullable = self.params(op)
        out = []
        prefix = "async def" if is_async else "def"
        out.append(f"    {prefix} {op.name}(")
        out.append("        self,")
        out += [f"        {p}," for p in sig]
        out.append(f"    ) -> {result}:")
        out.append(f'        """{op.verb} {op.path}: {op.doc}"""')
        path_expr = json.dumps(op.path) if not op.ids else f"path_with({json.dumps(op.path)}, {', '.join(op.ids)})"
        args = [json.dumps(op.verb), path_expr]
        if target:
            fields = "{" + ", ".join(entries) + "}"
            if target == "body":
                extra = ", extra" if op.extra else ", None"
                args.append(f"body=body_of({fields}{extra}, ({nullable},))" if nullable else f"body=body_of({fields}{extra})")
            else:
                args.append(f"query={fields}")
        if op.verb == "POST":
            args.append("idempotency_key=idempotency_key")
        args += ["timeout_ms=timeout_ms", "max_retries=max_retries"]
        await_ = "await " if is_async else ""
        out.append(f"        return {result}(")
        out.append(f"            {await_}self._sender.request(")
        out += [f"                {a}," for a in args]
        out.append("            )")
        out.append("        )")
        iterate = self.iterate(op, result, is_async)
        if iterate:
            out.append("")
            out += iterate
        return out

    def iterate(self, op: Op, result: str, is_async: bool) -> List[str]:
        """For a list answer ({data: [...]}, with hasMore when paged): a method that yields every item."""
        model = self.models[result]
        fields = {f[0]: f for f in model.fields}
        if "data" not in fields or not fields["data"][2].startswith("List["):
            return []
        item = fields["data"][2][5:-1]
        sig, _entries, _target, _nullable = self.params(op)
        paged = "hasMore" in fields and any(s.startswith("starting_after:") for s in sig)
        names = [s.split(":")[0].lstrip("*") for s in sig if s not in ("*",) and not s.startswith("**")]
        names = [n for n in names if n not in ("starting_after", "timeout_ms", "max_retries")]
        call = ", ".join(f"{n}={n}" for n in names + ["timeout_ms", "max_retries"])
        iterator = "AsyncIterator" if is_async else "Iterator"
        helper = "aiterate_pages" if is_async else "iterate_pages"
        doc = ("Every item from `starting_after` on, fetching the next page as the loop reaches it."
               if paged else "Every item of the list.")
        out = [f"    def iterate_{op.name}(" if op.name != "list" else "    def iterate(", "        self,"]
        out += [f"        {p}," for p in sig]
        out.append(f"    ) -> {iterator}[{item}]:")
        out.append(f'        """{op.verb} {op.path}: {doc}"""')
        if paged:
            out.append(f"        return {helper}(lambda cursor: self.{op.name}({call}, starting_after=cursor), starting_after)")
        else:
            out.append(f"        return {helper}(lambda cursor: self.{op.name}({call}), None)")
        return out

    # --- output ---------------------------------------------------------------------------------

    def render(self) -> str:
        for name, (schema, doc) in EVENT_DATA.items():
            self.model(schema, name, (name, doc))
        for op in OPERATIONS:
            self.result(op)
            self.params(op)
        covered = {(op.verb, op.path) for op in OPERATIONS}
        for path, ops in self.doc["paths"].items():
            for verb in ops:
                if path.startswith("/api/v1/") and path != "/api/v1/openapi.json" and (verb.upper(), path) not in covered:
                    raise SystemExit(f"{verb.upper()} {path} has no method: add it to OPERATIONS in {Path(__file__).name}")

        lines = [
            "# Generated by clients/python/scripts/gen_models.py from clients/openapi.json. Do not edit:",
            "# run `python scripts/gen_models.py` in clients/python (tests/test_generated.py checks it is current).",
            '"""Types and methods from the service\'s OpenAPI document. Every amount is an integer in the',
            "currency's minor unit: 9900 CNY is 99.00 yuan, 1500 JPY is 1,500 yen (never multiplied by 100).",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "from datetime import datetime",
            "from typing import Any, AsyncIterator, Dict, Iterator, List, Literal, Optional, Union, cast",
            "",
            "from ._model import TillObject, parse_datetime, parse_optional_datetime",
            "from ._operations import NOT_GIVEN, NotGiven, aiterate_pages, body_of, copied, iterate_pages, model_list, optional_model",
            "from ._request import AsyncSender, SyncSender, path_with",
            "",
        ]
        # The codes an error body's `code` may hold today (TillError.code stays a str: newer services add codes).
        codes = self.doc.get("components", {}).get("schemas", {}).get("Error", {}).get("properties", {}).get("code", {}).get("enum")
        if codes:
            self.enums["ErrorCode"] = tuple(codes)
        exported = sorted([*self.enums, *self.models, "EventData"])
        lines.append("__all__ = [")
        lines += [f"    {json.dumps(n)}," for n in exported]
        lines.append("]")
        lines.append("")
        for name, values in sorted(self.enums.items()):
            lines.append(f"{name} = Literal[{', '.join(json.dumps(v) for v in values)}]")
        lines.append("")
        lines.append("")
        for model in self.models.values():
            lines += self.render_model(model)
        lines.append('EventData = Union["SessionEventData", "RefundEventData", "ReconciliationEventData", "DisputeEventData"]')
        lines.append('"""An event\'s `data`: RefundEventData for refund.* events, ReconciliationEventData for reconciliation.*, DisputeEventData for payment.dispute*, SessionEventData for the others."""')
        lines.append("")
        lines.append("")
        lines.append("def event_data(event_type: str, data: Dict[str, Any]) -> EventData:")
        lines.append('    if event_type.startswith("refund."):')
        lines.append('        return RefundEventData(data)')
        lines.append('    if event_type.startswith("reconciliation."):')
        lines.append('        return ReconciliationEventData(data)')
        lines.append('    if event_type.startswith("payment.dispute"):')
        lines.append('        return DisputeEventData(data)')
        lines.append('    return SessionEventData(data)')
        lines.append("")
        lines.append("")
        for is_async in (False, True):
            lines += self.render_resources(is_async)
        return "\n".join(lines).rstrip() + "\n"

    def render_model(self, model: Model) -> List[str]:
        out = [f"class {model.name}(TillObject):", f'    """{model.doc}"""', "", "    __slots__ = ()", ""]
        for wire, python, ann, expr, _required in model.fields:
            out.append("    @property")
            out.append(f"    def {python}(self) -> {ann}:")
            description = doc_of(model.schema["properties"][wire], ann)
            if description:
                out.append(f"        {json.dumps(description, ensure_ascii=False)}")
            out.append(f"        return {expr}")
            out.append("")
        return out + [""]

    def render_resources(self, is_async: bool) -> List[str]:
        prefix = "Async" if is_async else ""
        sender = "AsyncSender" if is_async else "SyncSender"
        owners: Dict[str, List[Op]] = {}
        for op in OPERATIONS:
            owners.setdefault(op.owner, []).append(op)
        # Parents: "test_helpers" holds "test_helpers.sessions" and "test_helpers.refunds".
        for owner in list(owners):
            parts = owner.split(".")
            for i in range(1, len(parts)):
                owners.setdefault(".".join(parts[:i]), [])
        out: List[str] = []

        def class_name(owner: str) -> str:
            return prefix + ("".join(p.title().replace("_", "") for p in owner.replace(".", "_").split("_")) if owner else "Till") + ("Resource" if owner else "Base")

        for owner in sorted(owners, key=lambda o: (-o.count("."), o)):
            children = sorted(o for o in owners if o.startswith(owner + ".") if o.count(".") == owner.count(".") + 1) if owner else sorted(o for o in owners if o and "." not in o)
            doc = RESOURCE_DOCS.get(owner, "The methods of the client itself, and its resources.")
            out.append(f"class {class_name(owner)}:")
            out.append(f'    """{doc}"""')
            out.append("")
            out.append(f"    def __init__(self, sender: {sender}) -> None:")
            out.append("        self._sender = sender")
            for child in children:
                attr = child.split(".")[-1]
                out.append(f"        self.{attr} = {class_name(child)}(sender)")
                out.append(f'        """{RESOURCE_DOCS.get(child, "")}"""')
            for op in owners[owner]:
                out.append("")
                out += self.method(op, is_async)
            out += ["", ""]
        return out


def doc_of(schema: Schema, ann: str) -> Optional[str]:
    """The schema's description for the property's docstring, without what only the wire format needs
    (the timestamp format, once it is a datetime) or references to documents outside the repository."""
    text = schema.get("description")
    if not isinstance(text, str) or ("datetime" in ann and "ISO 8601" in text) or ".md" in text:
        return None
    return re.sub(r"\s*\(spec [0-9.]+\)", "", text)


def read_expression(kind: str, wire: str, required: bool, ann: str) -> str:
    raw = f'self._data[{json.dumps(wire)}]' if required else f'self._data.get({json.dumps(wire)})'
    expr = convert(kind, raw)
    # A wire value is Any: say what it is (plain values and copies are returned as they are).
    return f"cast({json.dumps(ann)}, {expr})" if expr == raw or "copied(" in expr else expr


def convert(kind: str, raw: str) -> str:
    if kind == "plain":
        return raw
    if kind == "copy":
        return f"copied({raw})"
    if kind == "datetime":
        return f"parse_datetime({raw})"
    if kind == "eventdata":
        return f'event_data(self._data["type"], {raw})'
    if kind.startswith("model:"):
        return f"{kind[6:]}({raw})"
    if kind.startswith("list:"):
        inner = kind[5:]
        if inner == "plain":
            return f"copied({raw})"
        if inner.startswith("model:"):
            return f"model_list({inner[6:]}, {raw})"
        return f"[{convert(inner, 'item')} for item in {raw}]"
    if kind.startswith("optional:"):
        inner = kind[9:]
        if inner == "plain":
            return raw
        if inner.startswith("model:"):
            return f"optional_model({inner[6:]}, {raw})"
        if inner == "datetime":
            return f"parse_optional_datetime({raw})"
        return f"None if {raw} is None else {convert(inner, raw)}"
    raise SystemExit(f"unknown kind {kind}")


def generate(openapi: Path = OPENAPI) -> str:
    return Generator(json.loads(openapi.read_text("utf-8"))).render()


def main(argv: List[str]) -> int:
    text = generate()
    if "--check" in argv:
        if OUTPUT.read_text("utf-8") != text:
            print(f"{OUTPUT} is stale: run python scripts/gen_models.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, "utf-8")
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
