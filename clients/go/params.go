package till

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Params is embedded in the parameters of every POST, and is what the POSTs without other
// parameters take.
type Params struct {
	// IdempotencyKey is sent as the Idempotency-Key header instead of a generated one, and reused on
	// every retry. Derive it from your own data (e.g. "refund-" + orderID) to make a call safe across
	// your own restarts too; Till keeps keys 24 hours.
	IdempotencyKey string `json:"-"`
}

func keyOf(p *Params) string {
	if p == nil {
		return ""
	}
	return p.IdempotencyKey
}

// CheckoutParams is the body of CreateCheckout.
type CheckoutParams struct {
	Params
	// Amount in the currency's minor unit: 9900 CNY is ¥99.00, 1500 JPY is ¥1,500.
	Amount   int64    `json:"amount"`
	Currency Currency `json:"currency"`
	// Description, at most 200 characters, shown on the checkout page.
	Description string `json:"description,omitempty"`
	// Metadata comes back on every webhook of the session: at most 50 keys.
	Metadata map[string]string `json:"metadata,omitempty"`
	// SuccessURL is where the customer returns after paying, with session_id, record_id and
	// paid_confirmed in the query. Without it, the customer ends on Till's receipt page.
	SuccessURL string `json:"successUrl,omitempty"`
	// CancelURL is where a customer who did not pay (canceled, failed, expired) goes back to, with
	// session_id in the query; the same rules as SuccessURL. Without it, the checkout page links to
	// SuccessURL's site, or to the support page set in the console's Settings.
	CancelURL string `json:"cancelUrl,omitempty"`
	// ExpiresInSeconds is 60 to 86400 (default 3600).
	ExpiresInSeconds int `json:"expiresInSeconds,omitempty"`
	// Locale is the language of the session's checkout, relay and receipt pages; empty lets the
	// customer's browser (Accept-Language) decide. The customer's own pick in the page's language
	// switch still wins.
	Locale Locale `json:"locale,omitempty"`
	// CustomerEmail is the buyer's address: Till emails the receipt there once the session is paid,
	// and a short notice when a refund succeeds.
	CustomerEmail string `json:"customerEmail,omitempty"`
	// ProviderHints maps a provider id to one of your configuration labels, in live mode.
	ProviderHints map[string]string `json:"providerHints,omitempty"`
	// Extra fields are merged into the JSON body, for fields this version does not know yet. A key
	// naming a field above (its JSON name, e.g. "providerHints") is sent when that field is unset,
	// and refused when the field is set to a different value.
	Extra map[string]any `json:"-"`
}

// checkoutFields maps the JSON name of each CheckoutParams field to its Go name.
var checkoutFields = jsonNames(reflect.TypeOf(CheckoutParams{}))

// MarshalJSON merges Extra into the body.
func (p CheckoutParams) MarshalJSON() ([]byte, error) {
	type plain CheckoutParams // without this method
	known, err := json.Marshal(plain(p))
	if err != nil || len(p.Extra) == 0 {
		return known, err
	}
	var merged map[string]any
	if err := json.Unmarshal(known, &merged); err != nil {
		return nil, err
	}
	for k, v := range p.Extra {
		// A field is set when it is in the body (not left out by omitempty) and not its zero value.
		typed, inBody := merged[k]
		if field, isField := checkoutFields[k]; isField && inBody && !reflect.ValueOf(p).FieldByName(field).IsZero() {
			extra, err := canonical(v)
			if err != nil {
				return nil, fmt.Errorf("till: CheckoutParams.Extra[%q]: %w", k, err)
			}
			if !reflect.DeepEqual(typed, extra) {
				return nil, fmt.Errorf("till: CheckoutParams.%s and Extra[%q] differ: set one of them", field, k)
			}
		}
		merged[k] = v
	}
	return json.Marshal(merged)
}

// jsonNames maps the JSON name of each field of a struct type to the field's Go name.
func jsonNames(t reflect.Type) map[string]string {
	names := map[string]string{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names[name] = f.Name
		}
	}
	return names
}

// canonical is v as it reads back from its JSON, to compare it with a decoded body's values.
func canonical(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(data, &out)
}

// RefundParams is the body of Refund.
type RefundParams struct {
	Params
	// RecordID is the payment record's id (rec_…), from Session.Record.ID.
	RecordID string `json:"recordId"`
	// Amount to refund in minor units; nil refunds everything still refundable. Int64(1000) makes one.
	Amount *int64 `json:"amount,omitempty"`
	// Reason, at most 80 characters.
	Reason string `json:"reason,omitempty"`
}

// Int64 returns a pointer to v, for RefundParams.Amount.
func Int64(v int64) *int64 { return &v }

// PayParams is the body of TestHelpers.Sessions.Pay.
type PayParams struct {
	Params
	// RefundBehavior chooses how this payment's refunds behave (default: they succeed at once).
	RefundBehavior RefundBehavior `json:"refundBehavior,omitempty"`
	// Dispute, when set, has the customer's bank dispute the payment after it is paid: "open" sends
	// payment.disputed; "won" or "lost" closes it too (payment.dispute_closed).
	Dispute TestDispute `json:"dispute,omitempty"`
}

// WebhookEndpointParams is the body of WebhookEndpoints.Create.
type WebhookEndpointParams struct {
	Params
	// URL is an absolute http(s) URL; https in live mode.
	URL string `json:"url"`
	// Events are the event types to send; nil sends every type.
	Events []EventType `json:"events,omitempty"`
	// Enabled defaults to true; Bool(false) creates it disabled.
	Enabled *bool `json:"enabled,omitempty"`
}

// WebhookEndpointUpdateParams is the body of WebhookEndpoints.Update: unset fields stay as they are.
type WebhookEndpointUpdateParams struct {
	URL     string      `json:"url,omitempty"`
	Events  []EventType `json:"events,omitempty"`
	Enabled *bool       `json:"enabled,omitempty"`
	// AllEvents sends every event type to the endpoint again (events: null); Events must then be nil.
	AllEvents bool `json:"-"`
}

// MarshalJSON sends "events": null for AllEvents.
func (p WebhookEndpointUpdateParams) MarshalJSON() ([]byte, error) {
	type plain WebhookEndpointUpdateParams
	if !p.AllEvents {
		return json.Marshal(plain(p))
	}
	if p.Events != nil {
		return nil, fmt.Errorf("till: WebhookEndpointUpdateParams: set Events or AllEvents, not both")
	}
	return json.Marshal(struct {
		plain
		Events []EventType `json:"events"`
	}{plain: plain(p)})
}

// Bool returns a pointer to v, for the Enabled fields.
func Bool(v bool) *bool { return &v }

// RedeliverParams is the body of Events.Redeliver.
type RedeliverParams struct {
	Params
	// EndpointID sends the event to this endpoint only; empty: every enabled endpoint that takes it.
	EndpointID string `json:"endpointId,omitempty"`
}

// ListParams pages through a list, newest first.
type ListParams struct {
	// Limit is the page size, 1 to 100 (default 10); the iterator fetches pages until the end.
	Limit int
	// StartingAfter starts after this id (the last one you have seen).
	StartingAfter string
}

func (p *ListParams) query() url.Values {
	if p == nil {
		return url.Values{}
	}
	limit := ""
	if p.Limit != 0 {
		limit = strconv.Itoa(p.Limit)
	}
	return set(url.Values{}, "limit", limit, "starting_after", p.StartingAfter)
}

// EventListParams filters Events.List.
type EventListParams struct {
	ListParams
	// Type lists only events of this type.
	Type EventType
}

func (p *EventListParams) query() url.Values {
	if p == nil {
		return url.Values{}
	}
	return set(p.ListParams.query(), "type", string(p.Type))
}

// CreatedRange limits a list to objects created in [CreatedGTE, CreatedLT); a zero time leaves that
// side open.
type CreatedRange struct {
	CreatedGTE time.Time // created at or after
	CreatedLT  time.Time // created before
}

func (r CreatedRange) addTo(q url.Values) url.Values {
	return set(q, "created_gte", timeParam(r.CreatedGTE), "created_lt", timeParam(r.CreatedLT))
}

func timeParam(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// set adds each key-value pair whose value is not empty to q.
func set(q url.Values, pairs ...string) url.Values {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	return q
}

// SessionListParams filters Sessions.List.
type SessionListParams struct {
	ListParams
	CreatedRange
	// Status as the session reads: an open session past its expiresAt is expired.
	Status SessionStatus
	// Metadata lists the sessions whose metadata holds every one of these pairs.
	Metadata map[string]string
}

func (p *SessionListParams) query() url.Values {
	if p == nil {
		return url.Values{}
	}
	q := set(p.CreatedRange.addTo(p.ListParams.query()), "status", string(p.Status))
	for k, v := range p.Metadata {
		q.Set("metadata["+k+"]", v)
	}
	return q
}

// RecordListParams filters Records.List.
type RecordListParams struct {
	ListParams
	CreatedRange
	// SessionID lists the record of this session (at most one).
	SessionID string
	Status    RecordStatus
}

func (p *RecordListParams) query() url.Values {
	if p == nil {
		return url.Values{}
	}
	return set(p.CreatedRange.addTo(p.ListParams.query()), "session_id", p.SessionID, "status", string(p.Status))
}

// RefundListParams filters Refunds.List.
type RefundListParams struct {
	ListParams
	CreatedRange
	// RecordID lists the refunds of this record.
	RecordID string
}

func (p *RefundListParams) query() url.Values {
	if p == nil {
		return url.Values{}
	}
	return set(p.CreatedRange.addTo(p.ListParams.query()), "record_id", p.RecordID)
}
