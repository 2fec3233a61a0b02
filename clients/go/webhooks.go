package till

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Webhook verification, after the other Till libraries: no network I/O, verify first and parse
// after, every signature in the header compared in constant time. X-Service-Signature is the
// lowercase hex HMAC-SHA256 of the raw body bytes keyed with the endpoint secret (whsec_…); after a
// rotation it holds two, comma-separated. The contract is testdata/webhook-signatures.json at the
// repository root, shared with the JavaScript and Python clients.

// SignatureHeader is the header that carries the signatures.
const SignatureHeader = "X-Service-Signature"

// DefaultTolerance is how far an event's createdAt may be from now, either way, when
// ConstructEvent is given a tolerance of 0.
const DefaultTolerance = 300 * time.Second

// WebhookFailure says why ConstructEvent refused a delivery.
type WebhookFailure string

// The reasons.
const (
	// WebhookSignature: no signature in the header matches the body and secret.
	WebhookSignature WebhookFailure = "signature"
	// WebhookTolerance: the event's createdAt is outside the tolerance (a replayed old delivery).
	WebhookTolerance WebhookFailure = "tolerance"
	// WebhookPayload: correctly signed, but not an event with a createdAt.
	WebhookPayload WebhookFailure = "payload"
)

// WebhookError is ConstructEvent's refusal: answer the delivery with 400.
type WebhookError struct {
	Reason  WebhookFailure
	Message string
}

func (e *WebhookError) Error() string { return "till: webhook " + string(e.Reason) + ": " + e.Message }

// ErrNoWebhookSecret is returned by ConstructEvent for an empty secret: a configuration mistake,
// not a forged delivery.
var ErrNoWebhookSecret = errors.New("till: the webhook secret is empty: pass the endpoint's signing secret (whsec_…)")

const (
	noSignature = "no signature found in the X-Service-Signature header value; pass " +
		`r.Header.Get("X-Service-Signature") as received`
	mismatch = "no signature in the X-Service-Signature header matches this body and secret. The usual cause: " +
		"the body was decoded and encoded again (json.Unmarshal then json.Marshal, or a framework that binds " +
		"JSON); any change of whitespace, key order or escaping changes the bytes. Pass the raw request body " +
		"exactly as read (io.ReadAll(r.Body)). Otherwise check the secret: each endpoint, and each mode, has " +
		"its own whsec_… secret"
)

// VerifyWebhookSignature reports whether one of the header's signatures is the HMAC-SHA256 of
// rawBody under secret. Every signature is compared, in constant time. An empty secret never verifies.
func VerifyWebhookSignature(rawBody []byte, signatureHeader, secret string) bool {
	if secret == "" {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	matched := 0
	// No early exit: the time taken does not depend on which signature, if any, matched.
	for _, candidate := range signaturesIn(signatureHeader) {
		matched |= boolToInt(hmac.Equal(candidate, expected))
	}
	return matched != 0
}

// ConstructEvent verifies the signature over rawBody (the request body exactly as received), parses
// the event, and checks that its createdAt is within tolerance of now, either way: 0 means
// DefaultTolerance (300 s), a negative tolerance turns the check off. It returns a *WebhookError
// when the delivery must be refused. Till signs every delivery attempt (retries and redeliveries
// too) with the time of signing as createdAt, so a late retry still passes; a captured body
// replayed later does not. Delivery is at least once: dedupe on Event.ID.
func ConstructEvent(rawBody []byte, signatureHeader, secret string, tolerance time.Duration) (*Event, error) {
	return constructEventAt(rawBody, signatureHeader, secret, tolerance, time.Now())
}

func constructEventAt(rawBody []byte, signatureHeader, secret string, tolerance time.Duration, now time.Time) (*Event, error) {
	if secret == "" {
		return nil, ErrNoWebhookSecret
	}
	if !VerifyWebhookSignature(rawBody, signatureHeader, secret) {
		msg := mismatch
		if len(signaturesIn(signatureHeader)) == 0 {
			msg = noSignature
		}
		return nil, &WebhookError{Reason: WebhookSignature, Message: msg}
	}
	var event Event
	if err := json.Unmarshal(rawBody, &event); err != nil || event.CreatedAt.IsZero() {
		return nil, &WebhookError{Reason: WebhookPayload, Message: "the body is correctly signed but is not an event with a createdAt timestamp"}
	}
	if tolerance == 0 {
		tolerance = DefaultTolerance
	}
	age := now.Sub(event.CreatedAt)
	if tolerance > 0 && (age > tolerance || age < -tolerance) {
		when := fmt.Sprintf("%d s ago", ceilSeconds(age))
		if age < 0 {
			when = fmt.Sprintf("%d s in the future", ceilSeconds(-age))
		}
		return nil, &WebhookError{Reason: WebhookTolerance, Message: fmt.Sprintf(
			"the event was created %s, outside the tolerance of %v. A replayed old delivery is refused this way; "+
				"if your clock is wrong, fix it; to accept older retried deliveries, raise the tolerance and dedupe on the event ID",
			when, tolerance)}
	}
	return &event, nil
}

// signaturesIn is every well-formed entry (64 hex digits, either case) of a comma-separated header;
// anything else is ignored.
func signaturesIn(header string) [][]byte {
	var out [][]byte
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if len(part) != 2*sha256.Size {
			continue
		}
		if b, err := hex.DecodeString(part); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ceilSeconds(d time.Duration) int64 { return int64(math.Ceil(d.Seconds())) }
