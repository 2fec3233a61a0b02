package till

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// The Go types are written by hand; this compares them with the service's OpenAPI document
// (clients/openapi.json, which `npm run clients:gen` regenerates): every operation of the document
// has a method here that calls it, and the method's parameters and answer have every property of
// the document's schemas, with the same JSON name and a compatible type, and nothing more.

type operation struct {
	method, path string
	body         any        // the request body's Go type (nil: none)
	result       any        // the 2xx answer's Go type
	query        url.Values // every query parameter the params type can send
	extra        []string   // Go fields this answer does not carry (the type serves several operations)
	invoke       func(ctx context.Context, c *Client) error
}

func ignore[T any](_ T, err error) error { return err }

func drain[T any](it *Iter[T]) error {
	for it.Next() {
	}
	return it.Err()
}

var operations = []operation{
	{method: "POST", path: "/api/v1/checkout", body: CheckoutParams{}, result: Session{}, extra: []string{"chosenProvider", "record", "paymentLinkId"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.CreateCheckout(ctx, &CheckoutParams{})) }},
	{method: "GET", path: "/api/v1/sessions", result: page[Session]{},
		query: (&SessionListParams{ListParams: ListParams{Limit: 1, StartingAfter: "x"}, CreatedRange: CreatedRange{time.Now(), time.Now()},
			Status: SessionPaid, Metadata: map[string]string{"order": "A-1"}}).query(),
		invoke: func(ctx context.Context, c *Client) error { return drain(c.Sessions.List(ctx, nil)) }},
	{method: "GET", path: "/api/v1/records/{id}", result: PaymentRecord{}, extra: []string{"refund"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Records.Get(ctx, "ID")) }},
	{method: "GET", path: "/api/v1/records", result: page[PaymentRecord]{}, extra: []string{"refund"},
		query: (&RecordListParams{ListParams: ListParams{Limit: 1, StartingAfter: "x"}, CreatedRange: CreatedRange{time.Now(), time.Now()},
			Status: RecordPaid, SessionID: "sess_1"}).query(),
		invoke: func(ctx context.Context, c *Client) error { return drain(c.Records.List(ctx, nil)) }},
	{method: "GET", path: "/api/v1/refunds/{id}", result: Refund{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Refunds.Get(ctx, "ID")) }},
	{method: "GET", path: "/api/v1/refunds", result: page[Refund]{},
		query: (&RefundListParams{ListParams: ListParams{Limit: 1, StartingAfter: "x"}, CreatedRange: CreatedRange{time.Now(), time.Now()},
			RecordID: "rec_1"}).query(),
		invoke: func(ctx context.Context, c *Client) error { return drain(c.Refunds.List(ctx, nil)) }},
	{method: "GET", path: "/api/v1/sessions/{id}", result: Session{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.GetSession(ctx, "ID")) }},
	{method: "POST", path: "/api/v1/sessions/{id}/cancel", result: Session{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Sessions.Cancel(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/sessions/{id}/expire", result: Session{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Sessions.Expire(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/refunds", body: RefundParams{}, result: PaymentRecord{}, extra: []string{"refunds", "recordId"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Refund(ctx, &RefundParams{})) }},
	{method: "POST", path: "/api/v1/test_helpers/sessions/{id}/pay", body: PayParams{}, result: Session{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.TestHelpers.Sessions.Pay(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/test_helpers/sessions/{id}/fail", result: Session{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.TestHelpers.Sessions.Fail(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/test_helpers/sessions/{id}/cancel", result: Session{},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.TestHelpers.Sessions.Cancel(ctx, "ID", nil))
		}},
	{method: "POST", path: "/api/v1/test_helpers/sessions/{id}/expire", result: Session{},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.TestHelpers.Sessions.Expire(ctx, "ID", nil))
		}},
	{method: "POST", path: "/api/v1/test_helpers/refunds/{id}/succeed", result: PaymentRecord{}, extra: []string{"refunds", "recordId"},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.TestHelpers.Refunds.Succeed(ctx, "ID", nil))
		}},
	{method: "POST", path: "/api/v1/test_helpers/refunds/{id}/fail", result: PaymentRecord{}, extra: []string{"refunds", "recordId"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.TestHelpers.Refunds.Fail(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/webhook_endpoints", body: WebhookEndpointParams{}, result: WebhookEndpoint{},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.WebhookEndpoints.Create(ctx, &WebhookEndpointParams{}))
		}},
	{method: "GET", path: "/api/v1/webhook_endpoints", result: page[WebhookEndpoint]{}, extra: []string{"hasMore", "secret"},
		invoke: func(ctx context.Context, c *Client) error { return drain(c.WebhookEndpoints.List(ctx)) }},
	{method: "GET", path: "/api/v1/webhook_endpoints/{id}", result: WebhookEndpoint{}, extra: []string{"secret"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.WebhookEndpoints.Get(ctx, "ID")) }},
	{method: "PATCH", path: "/api/v1/webhook_endpoints/{id}", body: WebhookEndpointUpdateParams{}, result: WebhookEndpoint{}, extra: []string{"secret"},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.WebhookEndpoints.Update(ctx, "ID", nil)) }},
	{method: "DELETE", path: "/api/v1/webhook_endpoints/{id}", result: DeletedWebhookEndpoint{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.WebhookEndpoints.Delete(ctx, "ID")) }},
	{method: "POST", path: "/api/v1/webhook_endpoints/{id}/rotate_secret", result: WebhookEndpoint{},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.WebhookEndpoints.RotateSecret(ctx, "ID", nil))
		}},
	{method: "POST", path: "/api/v1/webhook_endpoints/{id}/expire_previous_secrets", result: WebhookEndpoint{}, extra: []string{"secret"},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.WebhookEndpoints.ExpirePreviousSecrets(ctx, "ID", nil))
		}},
	{method: "GET", path: "/api/v1/events", result: page[Event]{},
		query:  (&EventListParams{ListParams: ListParams{Limit: 1, StartingAfter: "x"}, Type: EventPaymentFailed}).query(),
		invoke: func(ctx context.Context, c *Client) error { return drain(c.Events.List(ctx, nil)) }},
	{method: "GET", path: "/api/v1/events/{id}", result: EventWithDeliveries{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Events.Get(ctx, "ID")) }},
	{method: "POST", path: "/api/v1/events/{id}/redeliver", body: RedeliverParams{}, result: Redelivery{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.Events.Redeliver(ctx, "ID", nil)) }},
	{method: "POST", path: "/api/v1/payment_links", body: PaymentLinkParams{}, result: PaymentLink{},
		invoke: func(ctx context.Context, c *Client) error {
			return ignore(c.PaymentLinks.Create(ctx, &PaymentLinkParams{}))
		}},
	{method: "GET", path: "/api/v1/payment_links", result: page[PaymentLink]{},
		query:  (&ListParams{Limit: 1, StartingAfter: "x"}).query(),
		invoke: func(ctx context.Context, c *Client) error { return drain(c.PaymentLinks.List(ctx, nil)) }},
	{method: "GET", path: "/api/v1/payment_links/{id}", result: PaymentLink{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.PaymentLinks.Get(ctx, "ID")) }},
	{method: "POST", path: "/api/v1/payment_links/{id}", body: PaymentLinkUpdateParams{}, result: PaymentLink{},
		invoke: func(ctx context.Context, c *Client) error { return ignore(c.PaymentLinks.Update(ctx, "ID", nil)) }},
}

// The values of each enum type, compared with the document's enums.
var enums = map[reflect.Type][]string{
	reflect.TypeOf(Currency("")):       strs(CNY, USD, EUR, HKD, JPY),
	reflect.TypeOf(Mode("")):           strs(ModeTest, ModeLive),
	reflect.TypeOf(Locale("")):         strs(LocaleEnglish, LocaleSimplifiedChinese, LocaleTraditionalChinese, LocaleJapanese),
	reflect.TypeOf(SessionStatus("")):  strs(SessionPending, SessionProcessing, SessionPaid, SessionRefunded, SessionFailed, SessionCanceled, SessionExpired),
	reflect.TypeOf(RecordStatus("")):   strs(RecordPaid, RecordPartiallyRefunded, RecordRefunded, RecordRefunding),
	reflect.TypeOf(RefundStatus("")):   strs(RefundSucceeded, RefundPending, RefundFailed),
	reflect.TypeOf(RefundBehavior("")): strs(RefundBehaviorSucceed, RefundBehaviorPending, RefundBehaviorFail),
	reflect.TypeOf(TestDispute("")):    strs(TestDisputeOpen, TestDisputeWon, TestDisputeLost),
	reflect.TypeOf(EventType("")): strs(EventPaymentSucceeded, EventPaymentFailed, EventSessionCanceled, EventSessionExpired,
		EventRefundPending, EventRefundSucceeded, EventRefundFailed, EventReconciliationMismatchesFound, EventPaymentDisputed, EventPaymentDisputeClosed),
	reflect.TypeOf(ErrorCode("")):      strs(CodeInvalidField, CodeUnknownField, CodeInvalidJSON, CodeBodyTooDeep, CodeAmountExceedsRefundable, CodeAlreadyRefunded, CodePartialRefundUnsupported, CodeSessionTerminal, CodeRefundNotPending, CodeProviderUnavailable, CodeIdempotencyMismatch, CodeAlreadyExists, CodeLimitReached, CodeWebhookEndpointUnavailable, CodeInvalidRequest, CodeMissingAPIKey, CodeInvalidAPIKey, CodeTestModeOnly, CodeNotFound, CodeMethodNotAllowed, CodeIdempotencyInFlight, CodeEmailInUse, CodeConflict, CodeBodyTooLarge, CodeHeadersTooLarge, CodeUnsupportedMediaType, CodeRateLimited, CodeInternalError, CodeServiceUnavailable),
	reflect.TypeOf(DeliveryStatus("")): strs(DeliveryPending, DeliveryDelivered, DeliveryFailed, DeliveryCanceled),
}

func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	sort.Strings(out)
	return out
}

type schema = map[string]any

func loadDocument(t *testing.T) schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc schema
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestEveryOperationOfTheDocumentHasAMethod(t *testing.T) {
	doc := loadDocument(t)
	inDoc := map[string]bool{}
	for path, ops := range doc["paths"].(schema) {
		for method := range ops.(schema) {
			inDoc[strings.ToUpper(method)+" "+path] = true
		}
	}
	inGo := map[string]bool{}
	for _, op := range operations {
		inGo[op.method+" "+op.path] = true
	}
	for k := range inDoc {
		if !inGo[k] {
			t.Errorf("the API has %s; the Go client has no method for it (add it and a line to operations)", k)
		}
	}
	for k := range inGo {
		if !inDoc[k] {
			t.Errorf("the Go client calls %s, which the API does not have", k)
		}
	}
}

func TestEachMethodCallsItsOperation(t *testing.T) {
	fs := newFaultServer(t, func(s seen, _ int) answer { return answer{status: 200, body: `{"data":[]}`} })
	c, _ := fast(fs.URL)
	for i, op := range operations {
		if err := op.invoke(context.Background(), c); err != nil {
			t.Fatalf("%s %s: %v", op.method, op.path, err)
		}
		got := fs.seen()[i]
		u, _ := url.Parse(got.URL)
		if got.Method != op.method || strings.ReplaceAll(u.Path, "/ID", "/{id}") != op.path {
			t.Errorf("the method for %s %s sent %s %s", op.method, op.path, got.Method, u.Path)
		}
	}
}

func TestTypesMatchTheDocument(t *testing.T) {
	doc := loadDocument(t)
	for _, op := range operations {
		o := doc["paths"].(schema)[op.path].(schema)[strings.ToLower(op.method)].(schema)
		where := op.method + " " + op.path
		extra := map[string]bool{}
		for _, e := range op.extra {
			extra[e] = true
		}
		if op.body != nil {
			body := dig(o, "requestBody", "content", "application/json", "schema")
			if body == nil {
				t.Errorf("%s: the API takes no body, the Go method sends %T", where, op.body)
			} else {
				compare(t, where+" body", body, reflect.TypeOf(op.body), true, nil)
			}
		} else if dig(o, "requestBody") != nil {
			t.Errorf("%s: the API takes a body; the Go method sends none", where)
		}
		var result schema
		for status, r := range o["responses"].(schema) {
			if strings.HasPrefix(status, "2") {
				result = dig(r.(schema), "content", "application/json", "schema")
			}
		}
		compare(t, where+" answer", result, reflect.TypeOf(op.result), false, extra)

		want := []string{}
		if params, ok := o["parameters"].([]any); ok {
			for _, p := range params {
				if p.(schema)["in"] == "query" {
					want = append(want, p.(schema)["name"].(string))
				}
			}
		}
		got := []string{}
		for k := range op.query {
			if name, _, deep := strings.Cut(k, "["); deep { // metadata[key]: OpenAPI's deepObject
				k = name
			}
			got = append(got, k)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, ",") != strings.Join(got, ",") {
			t.Errorf("%s: query parameters %v in the API, %v in Go", where, want, got)
		}
	}
}

func TestTheErrorBodyMatchesTheDocument(t *testing.T) {
	doc := loadDocument(t)
	compare(t, "components.schemas.Error", dig(doc, "components", "schemas", "Error"), reflect.TypeOf(errorBody{}), false,
		map[string]bool{"refundable": true}) // on the refund errors only
}

func dig(s schema, keys ...string) schema {
	for _, k := range keys {
		next, ok := s[k].(schema)
		if !ok {
			return nil
		}
		s = next
	}
	return s
}

type goField struct {
	typ       reflect.Type
	omitempty bool
}

// jsonFields are the fields encoding/json sees, embedded structs' included.
func jsonFields(t reflect.Type) map[string]goField {
	out := map[string]goField{}
	for _, f := range reflect.VisibleFields(t) {
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" || !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		out[name] = goField{typ: f.Type, omitempty: strings.Contains(opts, "omitempty")}
	}
	return out
}

var (
	timeType = reflect.TypeOf(time.Time{})
	rawType  = reflect.TypeOf(json.RawMessage{})
)

// compare checks that Go type typ can carry schema s (request: encodes it as the API wants).
func compare(t *testing.T, where string, s schema, typ reflect.Type, request bool, extra map[string]bool) {
	t.Helper()
	if s == nil {
		t.Errorf("%s: no schema", where)
		return
	}
	if any, ok := s["anyOf"].([]any); ok { // [X, null]: nullable X
		var other schema
		for _, alt := range any {
			if alt.(schema)["type"] != "null" {
				other = alt.(schema)
			}
		}
		s = other
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	fail := func(format string, args ...any) { t.Errorf("%s: %s", where, fmt.Sprintf(format, args...)) }
	if values, ok := s["enum"].([]any); ok && s["type"] != "boolean" {
		want := []string{}
		for _, v := range values {
			want = append(want, fmt.Sprint(v))
		}
		sort.Strings(want)
		got, known := enums[typ]
		if !known {
			fail("the enum %v is a plain %v in Go: give it a named type with constants", want, typ)
		} else if strings.Join(got, ",") != strings.Join(want, ",") {
			fail("%v has the values %v, the API %v", typ, got, want)
		}
		return
	}
	switch s["type"] {
	case "integer":
		if k := typ.Kind(); k != reflect.Int && k != reflect.Int64 {
			fail("integer as %v", typ)
		}
	case "number":
		if typ.Kind() != reflect.Float64 {
			fail("number as %v", typ)
		}
	case "boolean":
		if typ.Kind() != reflect.Bool {
			fail("boolean as %v", typ)
		}
	case "string":
		if s["format"] == "date-time" && !request {
			if typ != timeType {
				fail("date-time as %v", typ)
			}
		} else if typ.Kind() != reflect.String {
			fail("string as %v", typ)
		}
	case "array":
		if typ.Kind() != reflect.Slice || typ == rawType {
			fail("array as %v", typ)
			return
		}
		compare(t, where+"[]", s["items"].(schema), typ.Elem(), request, extra)
	case "object":
		props, _ := s["properties"].(schema)
		if len(props) == 0 {
			switch ap := s["additionalProperties"].(type) {
			case schema:
				if typ.Kind() != reflect.Map || typ.Key().Kind() != reflect.String {
					fail("a map as %v", typ)
					return
				}
				compare(t, where+"{}", ap, typ.Elem(), request, extra)
			default:
				if typ != rawType && typ != reflect.TypeOf(map[string]any{}) {
					fail("a free-form object as %v", typ)
				}
			}
			return
		}
		if typ.Kind() != reflect.Struct {
			fail("an object as %v", typ)
			return
		}
		fields := jsonFields(typ)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				required[r.(string)] = true
			}
		}
		for name, p := range props {
			f, ok := fields[name]
			if !ok {
				fail("%v has no field for %q", typ, name)
				continue
			}
			if request {
				// A required field is always sent; an optional one only when set.
				if required[name] && (f.omitempty || f.typ.Kind() == reflect.Pointer) {
					fail("%v.%s is required but can be left out", typ, name)
				}
				if !required[name] && !f.omitempty {
					fail("%v.%s is optional but always sent", typ, name)
				}
			}
			compare(t, where+"."+name, p.(schema), f.typ, request, extra)
		}
		for name := range fields {
			if _, ok := props[name]; !ok && !extra[name] {
				fail("%v.%s is not in the API", typ, name)
			}
		}
	default:
		fail("schema %v", s)
	}
}
