package till

import (
	"encoding/json"
	"time"
)

// These types are written once, by hand, and types_test.go checks each against the service's
// OpenAPI document (clients/openapi.json): every property present with its JSON name, a compatible
// Go type, and every enum's values. A generator would have to invent names for the document's
// inline schemas and could not choose between string and *string, time.Time and *time.Time.

// Currency is an ISO 4217 code. Amounts are integers in the currency's minor unit.
type Currency string

// The currencies Till accepts.
const (
	CNY Currency = "CNY" // 9900 is ¥99.00
	USD Currency = "USD" // 1999 is $19.99
	EUR Currency = "EUR"
	HKD Currency = "HKD"
	JPY Currency = "JPY" // no minor unit: 1500 is ¥1,500
)

// Locale is a language of Till's hosted pages.
type Locale string

// The languages Till's pages speak.
const (
	LocaleEnglish            Locale = "en"
	LocaleSimplifiedChinese  Locale = "zh-CN"
	LocaleTraditionalChinese Locale = "zh-HK" // Hong Kong, Taiwan and Macao readers
	LocaleJapanese           Locale = "ja"
)

// Mode is test or live; the API key used decides it.
type Mode string

// The two modes.
const (
	ModeTest Mode = "test"
	ModeLive Mode = "live"
)

// SessionStatus is where a payment session stands.
type SessionStatus string

// Session states. Paid, Refunded, Failed, Canceled and Expired are final for payment: a session is
// single-use, so to collect again, create a new one.
const (
	SessionPending    SessionStatus = "pending"
	SessionProcessing SessionStatus = "processing"
	SessionPaid       SessionStatus = "paid"
	SessionRefunded   SessionStatus = "refunded"
	SessionFailed     SessionStatus = "failed"
	SessionCanceled   SessionStatus = "canceled"
	SessionExpired    SessionStatus = "expired"
)

// RecordStatus is where a payment record stands.
type RecordStatus string

// Payment record states.
const (
	RecordPaid              RecordStatus = "paid"
	RecordPartiallyRefunded RecordStatus = "partially_refunded"
	RecordRefunded          RecordStatus = "refunded"
	// RecordRefunding: a refund is pending at the provider; a refund.succeeded or refund.failed
	// webhook follows.
	RecordRefunding RecordStatus = "refunding"
)

// RefundStatus is a refund's outcome.
type RefundStatus string

// Refund outcomes. A failed refund is an answer, not an error: the record is unchanged.
const (
	RefundSucceeded RefundStatus = "succeeded"
	RefundPending   RefundStatus = "pending"
	RefundFailed    RefundStatus = "failed"
)

// RefundBehavior chooses, in test mode, how the refunds of a session paid with the test helper behave.
type RefundBehavior string

// Refund behaviours of the mock provider.
const (
	RefundBehaviorSucceed RefundBehavior = "succeed"
	RefundBehaviorPending RefundBehavior = "pending"
	RefundBehaviorFail    RefundBehavior = "fail"
)

// TestDispute chooses, in test mode, what the dispute of a session paid with the test helper does.
type TestDispute string

// Test disputes of the mock provider.
const (
	TestDisputeOpen TestDispute = "open"
	TestDisputeWon  TestDispute = "won"
	TestDisputeLost TestDispute = "lost"
)

// EventType names a webhook event.
type EventType string

// The event types.
const (
	EventPaymentSucceeded EventType = "payment.succeeded"
	EventPaymentFailed    EventType = "payment.failed"
	EventSessionCanceled  EventType = "session.canceled"
	EventSessionExpired   EventType = "session.expired"
	EventRefundPending    EventType = "refund.pending"
	EventRefundSucceeded  EventType = "refund.succeeded"
	EventRefundFailed     EventType = "refund.failed"
	// EventReconciliationMismatchesFound: a provider's day reconciled against its statement with
	// mismatches; its data names the report (reportId, provider, providerConfigId, date, counts), not a session.
	EventReconciliationMismatchesFound EventType = "reconciliation.mismatches_found"
	// EventPaymentDisputed and EventPaymentDisputeClosed: a chargeback opened on a payment, and its
	// outcome; decode with DisputeData. Till never answers a dispute: do so at the provider before DueBy.
	EventPaymentDisputed      EventType = "payment.disputed"
	EventPaymentDisputeClosed EventType = "payment.dispute_closed"
)

// DeliveryStatus is where one event's delivery to one endpoint stands.
type DeliveryStatus string

// Delivery states.
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
	DeliveryCanceled  DeliveryStatus = "canceled"
)

// Session is a payment session. CreateCheckout answers it without ChosenProvider and Record;
// GetSession adds ChosenProvider, and Record once paid.
type Session struct {
	ID        string        `json:"id"` // sess_…
	Status    SessionStatus `json:"status"`
	URL       string        `json:"url"` // Till's hosted checkout page: redirect the customer here
	Amount    int64         `json:"amount"`
	Currency  Currency      `json:"currency"`
	ExpiresAt time.Time     `json:"expiresAt"`
	CreatedAt time.Time     `json:"createdAt"`
	Mode      Mode          `json:"mode"`
	// Description and Metadata are as given at creation (Metadata is empty when none was).
	Description string            `json:"description,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	// Locale is the language given at creation; empty when the customer's browser decides.
	Locale Locale `json:"locale,omitempty"`
	// CustomerEmail is where the receipt goes, as given at creation; empty when none was.
	CustomerEmail string `json:"customerEmail,omitempty"`
	// ChosenProvider is the provider id ("mock" in test mode); empty until one is chosen.
	ChosenProvider string `json:"chosenProvider,omitempty"`
	// Record is the payment, present once the session is paid (and after a refund).
	Record *RecordSummary `json:"record,omitempty"`
	// PaymentLinkID is the payment link whose page made the session; empty for one made by the API.
	PaymentLinkID string `json:"paymentLinkId,omitempty"`
}

// RecordSummary is the payment record as a session shows it; Records.Get reads it whole.
type RecordSummary struct {
	ID             string       `json:"id"` // rec_…: what Refund takes
	Provider       string       `json:"provider"`
	ProviderRef    string       `json:"providerRef"`
	Amount         int64        `json:"amount"`
	RefundedAmount int64        `json:"refundedAmount"` // the total of succeeded refunds
	Status         RecordStatus `json:"status"`
	PaidAt         time.Time    `json:"paidAt"`
	// Charged is what the customer was charged when the provider converted the listed amount
	// (WeChat Pay Global charges CNY); nil otherwise. Amount stays the amount of record.
	Charged *Charged `json:"charged,omitempty"`
}

// Charged is what the customer paid in another currency than the listed one, as the provider reported it.
type Charged struct {
	Amount   int64  `json:"amount"`         // minor units of Currency (CNY fen)
	Currency string `json:"currency"`       // the currency the customer paid in, e.g. CNY
	Rate     string `json:"rate,omitempty"` // units of Currency per major unit of the listed currency, e.g. "0.92"
}

// PaymentRecord is a payment: Refund answers it with the refund just made (in Refund), Records.Get
// and Records.List with all its refunds (in Refunds).
type PaymentRecord struct {
	ID             string       `json:"id"` // rec_…
	SessionID      string       `json:"sessionId"`
	Provider       string       `json:"provider"`
	ProviderRef    string       `json:"providerRef"`
	Amount         int64        `json:"amount"`
	RefundedAmount int64        `json:"refundedAmount"` // the total of succeeded refunds
	Currency       Currency     `json:"currency"`
	Status         RecordStatus `json:"status"`
	Mode           Mode         `json:"mode"`
	PaidAt         time.Time    `json:"paidAt"`
	CreatedAt      time.Time    `json:"createdAt"`
	// Charged: as in RecordSummary.
	Charged *Charged `json:"charged,omitempty"`
	// Refund is the refund the call made (Refund, and the refund test helpers).
	Refund *Refund `json:"refund,omitempty"`
	// Refunds are every refund of the record, newest first (Records.Get and Records.List).
	Refunds []Refund `json:"refunds,omitempty"`
}

// Refund is one refund of a payment record.
type Refund struct {
	ID          string       `json:"id"` // ref_…
	Amount      int64        `json:"amount"`
	Status      RefundStatus `json:"status"`
	ProviderRef string       `json:"providerRef"` // empty when the provider gave none
	Reason      string       `json:"reason"`
	CreatedAt   time.Time    `json:"createdAt"`
	// RecordID is the refunded record's (Refunds.Get, Refunds.List and Records.Get).
	RecordID string `json:"recordId,omitempty"`
}

// WebhookEndpoint is where Till sends signed webhooks, for one mode.
type WebhookEndpoint struct {
	ID   string `json:"id"` // we_…
	URL  string `json:"url"`
	Mode Mode   `json:"mode"`
	// Events are the event types it takes; nil means every type.
	Events  []EventType `json:"events"`
	Enabled bool        `json:"enabled"`
	// PreviousSecretExpiresAt is when the secret replaced by the last rotation stops signing.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt"`
	CreatedAt               time.Time  `json:"createdAt"`
	UpdatedAt               time.Time  `json:"updatedAt"`
	// Secret (whsec_…) is in the answers of Create and RotateSecret only: store it then.
	Secret string `json:"secret,omitempty"`
	// Health is how deliveries to it have gone, kept by Till with every attempt.
	Health EndpointHealth `json:"health"`
}

// EndpointHealth is an endpoint's recent deliveries: the share of the last 24 hours' attempts that
// were delivered, the last success and failure, and whether Till disabled it for failing.
type EndpointHealth struct {
	RecentAttempts int `json:"recentAttempts"`
	// RecentSuccessRate is from 0 to 1, to 4 decimals; nil without attempts in the last 24 hours.
	RecentSuccessRate *float64   `json:"recentSuccessRate"`
	LastSuccessAt     *time.Time `json:"lastSuccessAt"`
	LastFailureAt     *time.Time `json:"lastFailureAt"`
	// LastFailureReason is "HTTP <status>", or what went wrong when no answer came.
	LastFailureReason *string `json:"lastFailureReason"`
	// FailingSince is the first failed attempt after the last success; nil while the last one succeeded.
	FailingSince         *time.Time `json:"failingSince"`
	FailuresSinceSuccess int        `json:"failuresSinceSuccess"`
	// DisabledForFailingAt is when Till disabled the endpoint because every attempt failed for 3 days
	// (and at least 10 attempts); nil once it is enabled again.
	DisabledForFailingAt *time.Time `json:"disabledForFailingAt"`
}

// DeletedWebhookEndpoint answers WebhookEndpoints.Delete.
type DeletedWebhookEndpoint struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// Event is a webhook event, exactly as a delivery carries it. Dedupe on ID: delivery is at least
// once, in no guaranteed order.
type Event struct {
	ID        string    `json:"id"` // evt_…
	Type      EventType `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Mode      Mode      `json:"mode"`
	// Data is the event's object: decode it with SessionData, RefundData or DisputeData, by Type.
	Data json.RawMessage `json:"data"`
}

// SessionEventData is the data of payment.* and session.* events.
type SessionEventData struct {
	SessionID string        `json:"sessionId"`
	Status    SessionStatus `json:"status"`
	Amount    int64         `json:"amount"`
	Currency  Currency      `json:"currency"`
	// Metadata is what was given when the session was created.
	Metadata map[string]string `json:"metadata"`
	// RecordID, Provider, ProviderRef and PaidAt are set once paid.
	RecordID    string     `json:"recordId,omitempty"`
	Provider    string     `json:"provider,omitempty"`
	ProviderRef string     `json:"providerRef,omitempty"`
	PaidAt      *time.Time `json:"paidAt,omitempty"`
}

// RefundEventData is the data of refund.* events.
type RefundEventData struct {
	RefundID  string `json:"refundId"`
	RecordID  string `json:"recordId"`
	SessionID string `json:"sessionId"`
	// Amount is this refund's; RefundedAmount is the record's total of succeeded refunds.
	Amount         int64             `json:"amount"`
	RefundedAmount int64             `json:"refundedAmount"`
	RecordStatus   RecordStatus      `json:"recordStatus"`
	Currency       Currency          `json:"currency"`
	Status         RefundStatus      `json:"status"`
	Reason         string            `json:"reason"`
	Metadata       map[string]string `json:"metadata"`
}

// DisputeEventData is the data of payment.disputed and payment.dispute_closed: the dispute as the
// provider last showed it.
type DisputeEventData struct {
	DisputeID string `json:"disputeId"` // dsp_…
	RecordID  string `json:"recordId"`
	SessionID string `json:"sessionId"`
	Provider  string `json:"provider"`
	// ProviderDisputeRef is the provider's id for the dispute (Stripe: dp_…): find it there to answer.
	ProviderDisputeRef string `json:"providerDisputeRef"`
	// Amount is the disputed amount (minor units), which may be less than PaymentAmount.
	Amount        int64    `json:"amount"`
	Currency      Currency `json:"currency"`
	PaymentAmount int64    `json:"paymentAmount"`
	Reason        *string  `json:"reason"`
	// Status is the provider's: needs_response, under_review, … while open; won, lost, warning_closed, prevented once closed.
	Status string `json:"status"`
	// Outcome is nil while the dispute is open.
	Outcome  *string           `json:"outcome"`
	DueBy    *time.Time        `json:"dueBy"`
	ClosedAt *time.Time        `json:"closedAt"`
	Metadata map[string]string `json:"metadata"`
}

// DisputeData decodes Data of a payment.disputed or payment.dispute_closed event.
func (e *Event) DisputeData() (*DisputeEventData, error) {
	var d DisputeEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// SessionData decodes Data of a payment.* or session.* event.
func (e *Event) SessionData() (*SessionEventData, error) {
	var d SessionEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// RefundData decodes Data of a refund.* event.
func (e *Event) RefundData() (*RefundEventData, error) {
	var d RefundEventData
	if err := json.Unmarshal(e.Data, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// EventWithDeliveries is an event with its delivery to each endpoint, as Events.Get answers it.
type EventWithDeliveries struct {
	Event
	Deliveries []Delivery `json:"deliveries"`
}

// Delivery is one event's delivery to one endpoint, with every attempt.
type Delivery struct {
	EndpointID    string            `json:"endpointId"`
	URL           string            `json:"url"`
	Status        DeliveryStatus    `json:"status"`
	NextAttemptAt *time.Time        `json:"nextAttemptAt"`
	DeliveredAt   *time.Time        `json:"deliveredAt"`
	Attempts      []DeliveryAttempt `json:"attempts"`
}

// DeliveryAttempt is one try at a delivery.
type DeliveryAttempt struct {
	AttemptedAt time.Time `json:"attemptedAt"`
	// StatusCode is nil when no answer came (refused, timed out, reset).
	StatusCode *int `json:"statusCode"`
	LatencyMs  int  `json:"latencyMs"`
	// ResponseBody is the first KiB of the answer.
	ResponseBody *string `json:"responseBody"`
	Error        *string `json:"error"`
}

// Redelivery answers Events.Redeliver: the deliveries scheduled now.
type Redelivery struct {
	ID        string              `json:"id"`
	Scheduled []ScheduledDelivery `json:"scheduled"`
}

// ScheduledDelivery is one endpoint an event will be sent to again.
type ScheduledDelivery struct {
	EndpointID    string    `json:"endpointId"`
	URL           string    `json:"url"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
}
