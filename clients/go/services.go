package till

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// WebhookEndpointService manages webhook endpoints (/api/v1/webhook_endpoints), for the key's mode.
type WebhookEndpointService struct{ c *Client }

// Create registers an endpoint. The answer carries its signing secret (Secret, whsec_…), shown only
// here: store it.
func (s *WebhookEndpointService) Create(ctx context.Context, params *WebhookEndpointParams) (*WebhookEndpoint, error) {
	if params == nil {
		return nil, errors.New("till: WebhookEndpoints.Create: params are required (URL)")
	}
	return send[WebhookEndpoint](ctx, s.c, http.MethodPost, "/api/v1/webhook_endpoints", nil, params, params.IdempotencyKey, nil)
}

// List walks every endpoint of the key's mode.
func (s *WebhookEndpointService) List(ctx context.Context) *Iter[WebhookEndpoint] {
	return list(ctx, s.c, "/api/v1/webhook_endpoints", url.Values{}, func(e WebhookEndpoint) string { return e.ID })
}

// Get reads one endpoint (without its secret).
func (s *WebhookEndpointService) Get(ctx context.Context, id string) (*WebhookEndpoint, error) {
	return send[WebhookEndpoint](ctx, s.c, http.MethodGet, "/api/v1/webhook_endpoints/%s", []string{id}, nil, "", nil)
}

// Update changes the fields set in params.
func (s *WebhookEndpointService) Update(ctx context.Context, id string, params *WebhookEndpointUpdateParams) (*WebhookEndpoint, error) {
	if params == nil {
		params = &WebhookEndpointUpdateParams{}
	}
	return send[WebhookEndpoint](ctx, s.c, http.MethodPatch, "/api/v1/webhook_endpoints/%s", []string{id}, params, "", nil)
}

// Delete removes an endpoint; nothing more is sent to it.
func (s *WebhookEndpointService) Delete(ctx context.Context, id string) (*DeletedWebhookEndpoint, error) {
	return send[DeletedWebhookEndpoint](ctx, s.c, http.MethodDelete, "/api/v1/webhook_endpoints/%s", []string{id}, nil, "", nil)
}

// RotateSecret makes a new signing secret (in the answer's Secret). For 24 hours the old one keeps
// signing beside it, and the X-Service-Signature header carries both (and the signatures of secrets
// replaced before it, each within its own 24 hours).
func (s *WebhookEndpointService) RotateSecret(ctx context.Context, id string, params *Params) (*WebhookEndpoint, error) {
	return send[WebhookEndpoint](ctx, s.c, http.MethodPost, "/api/v1/webhook_endpoints/%s/rotate_secret", []string{id}, nil, keyOf(params), nil)
}

// ExpirePreviousSecrets stops the secrets replaced by rotations from signing, now (a leaked one):
// only the current secret signs from the next delivery on.
func (s *WebhookEndpointService) ExpirePreviousSecrets(ctx context.Context, id string, params *Params) (*WebhookEndpoint, error) {
	return send[WebhookEndpoint](ctx, s.c, http.MethodPost, "/api/v1/webhook_endpoints/%s/expire_previous_secrets", []string{id}, nil, keyOf(params), nil)
}

// EventService reads webhook events (/api/v1/events), newest first, and sends them again.
type EventService struct{ c *Client }

// List walks the events of the key's mode, newest first; params may be nil.
func (s *EventService) List(ctx context.Context, params *EventListParams) *Iter[Event] {
	return list(ctx, s.c, "/api/v1/events", params.query(), func(e Event) string { return e.ID })
}

// Get reads one event with its delivery to each endpoint and every attempt.
func (s *EventService) Get(ctx context.Context, id string) (*EventWithDeliveries, error) {
	return send[EventWithDeliveries](ctx, s.c, http.MethodGet, "/api/v1/events/%s", []string{id}, nil, "", nil)
}

// Redeliver sends an event again now, with its original body; params may be nil.
func (s *EventService) Redeliver(ctx context.Context, id string, params *RedeliverParams) (*Redelivery, error) {
	if params == nil {
		params = &RedeliverParams{}
	}
	return send[Redelivery](ctx, s.c, http.MethodPost, "/api/v1/events/%s/redeliver", []string{id}, params, params.IdempotencyKey, nil)
}

// TestHelpers drive sessions and refunds without a customer. Test mode only: a live key gets
// ErrNotFound. Each sends the same webhooks a real payment would.
type TestHelpers struct {
	Sessions *TestSessionService
	Refunds  *TestRefundService
}

// TestSessionService settles test sessions (/api/v1/test_helpers/sessions/{id}/…).
type TestSessionService struct{ c *Client }

// Pay pays the session through the mock provider; params (may be nil) choose how its refunds behave.
func (s *TestSessionService) Pay(ctx context.Context, id string, params *PayParams) (*Session, error) {
	if params == nil {
		params = &PayParams{}
	}
	return send[Session](ctx, s.c, http.MethodPost, "/api/v1/test_helpers/sessions/%s/pay", []string{id}, params, params.IdempotencyKey, nil)
}

// Fail makes the payment fail.
func (s *TestSessionService) Fail(ctx context.Context, id string, params *Params) (*Session, error) {
	return s.settle(ctx, id, "fail", params)
}

// Cancel cancels the session, as a customer who gives up.
func (s *TestSessionService) Cancel(ctx context.Context, id string, params *Params) (*Session, error) {
	return s.settle(ctx, id, "cancel", params)
}

// Expire expires the session now.
func (s *TestSessionService) Expire(ctx context.Context, id string, params *Params) (*Session, error) {
	return s.settle(ctx, id, "expire", params)
}

func (s *TestSessionService) settle(ctx context.Context, id, how string, params *Params) (*Session, error) {
	return send[Session](ctx, s.c, http.MethodPost, "/api/v1/test_helpers/sessions/%s/"+how, []string{id}, nil, keyOf(params), nil)
}

// TestRefundService settles pending test refunds (a session paid with RefundBehaviorPending).
type TestRefundService struct{ c *Client }

// Succeed settles a pending refund as succeeded; the answer is the record with the refund.
func (s *TestRefundService) Succeed(ctx context.Context, id string, params *Params) (*PaymentRecord, error) {
	return send[PaymentRecord](ctx, s.c, http.MethodPost, "/api/v1/test_helpers/refunds/%s/succeed", []string{id}, nil, keyOf(params), nil)
}

// Fail settles a pending refund as failed.
func (s *TestRefundService) Fail(ctx context.Context, id string, params *Params) (*PaymentRecord, error) {
	return send[PaymentRecord](ctx, s.c, http.MethodPost, "/api/v1/test_helpers/refunds/%s/fail", []string{id}, nil, keyOf(params), nil)
}

// SessionService lists payment sessions (GET /api/v1/sessions); Client.GetSession reads one.
type SessionService struct{ c *Client }

// List walks the sessions of the key's mode, newest first; params may be nil.
func (s *SessionService) List(ctx context.Context, params *SessionListParams) *Iter[Session] {
	return list(ctx, s.c, "/api/v1/sessions", params.query(), func(x Session) string { return x.ID })
}

// Cancel makes an open session canceled, its provider order closed first (POST /api/v1/sessions/{id}/cancel);
// a session that is not open is an *Error with Code CodeSessionTerminal. params may be nil.
func (s *SessionService) Cancel(ctx context.Context, id string, params *Params) (*Session, error) {
	return send[Session](ctx, s.c, http.MethodPost, "/api/v1/sessions/%s/cancel", []string{id}, nil, keyOf(params), nil)
}

// Expire makes an open session expired now, its provider order closed first (POST /api/v1/sessions/{id}/expire);
// a session that is not open is an *Error with Code CodeSessionTerminal. params may be nil.
func (s *SessionService) Expire(ctx context.Context, id string, params *Params) (*Session, error) {
	return send[Session](ctx, s.c, http.MethodPost, "/api/v1/sessions/%s/expire", []string{id}, nil, keyOf(params), nil)
}

// RecordService reads payment records (/api/v1/records), each with all its refunds.
type RecordService struct{ c *Client }

// Get reads one record (rec_…) with its refunds.
func (s *RecordService) Get(ctx context.Context, id string) (*PaymentRecord, error) {
	return send[PaymentRecord](ctx, s.c, http.MethodGet, "/api/v1/records/%s", []string{id}, nil, "", nil)
}

// List walks the records of the key's mode, newest first; params may be nil.
func (s *RecordService) List(ctx context.Context, params *RecordListParams) *Iter[PaymentRecord] {
	return list(ctx, s.c, "/api/v1/records", params.query(), func(x PaymentRecord) string { return x.ID })
}

// RefundService reads refunds (/api/v1/refunds); Client.Refund makes one.
type RefundService struct{ c *Client }

// Get reads one refund (ref_…).
func (s *RefundService) Get(ctx context.Context, id string) (*Refund, error) {
	return send[Refund](ctx, s.c, http.MethodGet, "/api/v1/refunds/%s", []string{id}, nil, "", nil)
}

// List walks the refunds of the key's mode, newest first; params may be nil.
func (s *RefundService) List(ctx context.Context, params *RefundListParams) *Iter[Refund] {
	return list(ctx, s.c, "/api/v1/refunds", params.query(), func(x Refund) string { return x.ID })
}
