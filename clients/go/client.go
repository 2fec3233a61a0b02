package till

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ErrInvalidConfig is wrapped by the error every call returns when NewClient was given an unusable
// configuration (an empty key, a base URL that is not http(s), …).
var ErrInvalidConfig = errors.New("till: invalid client configuration")

// Client calls the Till API with one secret key. It is safe for concurrent use; make one and share it.
type Client struct {
	// Sessions lists payment sessions.
	Sessions *SessionService
	// Records reads payment records with their refunds.
	Records *RecordService
	// Refunds reads refunds.
	Refunds *RefundService
	// WebhookEndpoints manages where Till sends signed webhooks.
	WebhookEndpoints *WebhookEndpointService
	// Events lists and redelivers webhook events.
	Events *EventService
	// PaymentLinks manages payment links: pages that make a session for each buyer.
	PaymentLinks *PaymentLinkService
	// TestHelpers drive sessions and refunds without a customer, with a test key only.
	TestHelpers *TestHelpers

	apiKey        string
	baseURL       string
	timeout       time.Duration
	httpClient    *http.Client
	maxRetries    int
	retryBase     time.Duration
	retryMax      time.Duration
	maxRetryAfter time.Duration
	err           error
	sleepHook     func(time.Duration) // tests record the waits here instead of waiting
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets where your Till is served, without /api/v1 (default http://localhost:8080; an
// empty string keeps the default, so an unset environment variable can be passed as it is).
func WithBaseURL(baseURL string) Option {
	return func(c *Client) {
		if baseURL != "" {
			c.baseURL = baseURL
		}
	}
}

// WithTimeout bounds each attempt, reading the answer included (default 30 s). The context passed
// to a call bounds the whole call, retries included.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithHTTPClient sends the requests through hc (a proxy, custom TLS, a test transport). Its own
// Timeout, if set, applies on top of WithTimeout, and its redirect policy replaces the default one,
// which follows no redirect.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithMaxRetries sets the retries after the first attempt, for network errors, timeouts, 409, 429
// and 5xx (default 2; 0 turns retries off).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = n } }

// WithRetryBackoff sets the first wait between retries, doubled per retry with jitter, and its cap
// (default 500 ms and 8 s).
func WithRetryBackoff(first, max time.Duration) Option {
	return func(c *Client) { c.retryBase, c.retryMax = first, max }
}

// WithMaxRetryAfter sets the longest Retry-After the client waits for; a longer one is returned as
// the error instead (default 60 s).
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxRetryAfter = d } }

// NewClient makes a client for apiKey, a secret key (sk_test_… or sk_live_…): the key picks the
// mode. An unusable configuration is reported, wrapping ErrInvalidConfig, by every call.
func NewClient(apiKey string, opts ...Option) *Client {
	c := &Client{
		apiKey:        apiKey,
		baseURL:       "http://localhost:8080",
		timeout:       30 * time.Second,
		httpClient:    &http.Client{CheckRedirect: noRedirects},
		maxRetries:    2,
		retryBase:     500 * time.Millisecond,
		retryMax:      8 * time.Second,
		maxRetryAfter: 60 * time.Second,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	c.baseURL = strings.TrimRight(c.baseURL, "/")
	c.err = c.check()
	c.Sessions = &SessionService{c}
	c.Records = &RecordService{c}
	c.Refunds = &RefundService{c}
	c.WebhookEndpoints = &WebhookEndpointService{c}
	c.Events = &EventService{c}
	c.PaymentLinks = &PaymentLinkService{c}
	c.TestHelpers = &TestHelpers{Sessions: &TestSessionService{c}, Refunds: &TestRefundService{c}}
	return c
}

// noRedirects keeps a redirect as the answer: following one would turn a POST into a GET (a
// refund into a read) or send the key to another host.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (c *Client) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
	}
	if c.apiKey == "" {
		return bad("the API key is required (sk_test_… or sk_live_…)")
	}
	if u, err := url.Parse(c.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("the base URL must be an http(s) address such as https://pay.example.com, got %q", c.baseURL)
	}
	if c.timeout <= 0 {
		return bad("the timeout must be positive, got %v", c.timeout)
	}
	if c.httpClient == nil {
		return bad("WithHTTPClient(nil)")
	}
	if c.maxRetries < 0 || c.retryBase <= 0 || c.retryMax < c.retryBase || c.maxRetryAfter < 0 {
		return bad("retries: max %d, backoff %v to %v, max Retry-After %v", c.maxRetries, c.retryBase, c.retryMax, c.maxRetryAfter)
	}
	return nil
}

// pathTo builds an API path, escaping the ids; an empty id is refused before any request (it
// would address another endpoint).
func pathTo(format string, ids ...string) (string, error) {
	escaped := make([]any, len(ids))
	for i, id := range ids {
		if id == "" {
			return "", fmt.Errorf("till: %s: the id must not be empty", strings.Replace(format, "%s", "{id}", 1))
		}
		escaped[i] = url.PathEscape(id)
	}
	return fmt.Sprintf(format, escaped...), nil
}

// send builds the path, sends the call and decodes the answer into a new T.
func send[T any](ctx context.Context, c *Client, method, format string, ids []string, body any, key string, query url.Values) (*T, error) {
	path, err := pathTo(format, ids...)
	if err != nil {
		return nil, err
	}
	var out T
	if err := c.do(ctx, call{method: method, path: path, body: body, idempotencyKey: key, query: query}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateCheckout creates a payment session (POST /api/v1/checkout); redirect the customer to its URL.
func (c *Client) CreateCheckout(ctx context.Context, params *CheckoutParams) (*Session, error) {
	if params == nil {
		return nil, errors.New("till: CreateCheckout: params are required (Amount and Currency)")
	}
	return send[Session](ctx, c, http.MethodPost, "/api/v1/checkout", nil, params, params.IdempotencyKey, nil)
}

// GetSession reads a session (GET /api/v1/sessions/{id}), with its Record once paid.
func (c *Client) GetSession(ctx context.Context, id string) (*Session, error) {
	return send[Session](ctx, c, http.MethodGet, "/api/v1/sessions/%s", []string{id}, nil, "", nil)
}

// Refund refunds a payment record (POST /api/v1/refunds), partly (Amount) or fully (Amount nil),
// and answers the record with the new refund in its Refund field.
func (c *Client) Refund(ctx context.Context, params *RefundParams) (*PaymentRecord, error) {
	if params == nil {
		return nil, errors.New("till: Refund: params are required (RecordID)")
	}
	return send[PaymentRecord](ctx, c, http.MethodPost, "/api/v1/refunds", nil, params, params.IdempotencyKey, nil)
}
