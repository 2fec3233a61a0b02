package till

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// PaymentLink is a page (URL) that makes a fresh session for each buyer.
type PaymentLink struct {
	ID     string `json:"id"` // plink_…
	URL    string `json:"url"`
	Active bool   `json:"active"`
	// Amount is the fixed amount; nil when the buyer enters one between MinAmount and MaxAmount.
	Amount      *int64            `json:"amount"`
	MinAmount   *int64            `json:"minAmount"`
	MaxAmount   *int64            `json:"maxAmount"`
	Currency    Currency          `json:"currency"`
	Description *string           `json:"description"`
	Metadata    map[string]string `json:"metadata"`
	// ProviderHints is provider id → configuration label (live mode), as a session's.
	ProviderHints map[string]string `json:"providerHints"`
	ExpiresAt     *time.Time        `json:"expiresAt"`
	MaxPayments   *int64            `json:"maxPayments"`
	// PaidCount is how many of its sessions are paid.
	PaidCount int64     `json:"paidCount"`
	Mode      Mode      `json:"mode"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// PaymentLinkParams is the body of PaymentLinks.Create: Amount, or MinAmount and MaxAmount.
type PaymentLinkParams struct {
	Params
	Amount        *int64            `json:"amount,omitempty"`
	MinAmount     *int64            `json:"minAmount,omitempty"`
	MaxAmount     *int64            `json:"maxAmount,omitempty"`
	Currency      Currency          `json:"currency"`
	Description   string            `json:"description,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	ProviderHints map[string]string `json:"providerHints,omitempty"`
	// ExpiresAt is an RFC 3339 time with a zone (time.Now().Add(…).Format(time.RFC3339)).
	ExpiresAt   string `json:"expiresAt,omitempty"`
	MaxPayments *int64 `json:"maxPayments,omitempty"`
	// Active defaults to true; Bool(false) creates it deactivated.
	Active *bool `json:"active,omitempty"`
}

// PaymentLinkUpdateParams is the body of PaymentLinks.Update: unset fields stay as they are.
type PaymentLinkUpdateParams struct {
	Params
	Description *string           `json:"description,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	// ExpiresAt is an RFC 3339 time with a zone.
	ExpiresAt   string `json:"expiresAt,omitempty"`
	MaxPayments *int64 `json:"maxPayments,omitempty"`
	// Active: Bool(false) deactivates the link, Bool(true) activates it again.
	Active *bool `json:"active,omitempty"`
}

// PaymentLinkService manages payment links (/api/v1/payment_links), for the key's mode.
type PaymentLinkService struct{ c *Client }

// Create makes a payment link; share its URL.
func (s *PaymentLinkService) Create(ctx context.Context, params *PaymentLinkParams) (*PaymentLink, error) {
	if params == nil {
		return nil, errors.New("till: PaymentLinks.Create: params are required (Currency, and Amount or MinAmount and MaxAmount)")
	}
	return send[PaymentLink](ctx, s.c, http.MethodPost, "/api/v1/payment_links", nil, params, params.IdempotencyKey, nil)
}

// Get reads one link (plink_…).
func (s *PaymentLinkService) Get(ctx context.Context, id string) (*PaymentLink, error) {
	return send[PaymentLink](ctx, s.c, http.MethodGet, "/api/v1/payment_links/%s", []string{id}, nil, "", nil)
}

// List walks the links of the key's mode, newest first; params may be nil.
func (s *PaymentLinkService) List(ctx context.Context, params *ListParams) *Iter[PaymentLink] {
	return list(ctx, s.c, "/api/v1/payment_links", params.query(), func(x PaymentLink) string { return x.ID })
}

// Update changes the given fields; Active: Bool(false) deactivates the link.
func (s *PaymentLinkService) Update(ctx context.Context, id string, params *PaymentLinkUpdateParams) (*PaymentLink, error) {
	if params == nil {
		params = &PaymentLinkUpdateParams{}
	}
	return send[PaymentLink](ctx, s.c, http.MethodPost, "/api/v1/payment_links/%s", []string{id}, params, params.IdempotencyKey, nil)
}
