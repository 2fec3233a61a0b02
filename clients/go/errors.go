package till

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sentinels for errors.Is: an *Error matches the one for its status.
var (
	// ErrInvalidRequest is 400: the request was refused as it stands (a field, "amount exceeds
	// refundable", a session that is already paid, …).
	ErrInvalidRequest = errors.New("till: invalid request")
	// ErrAuthentication is 401: the API key is missing, invalid or revoked.
	ErrAuthentication = errors.New("till: authentication failed")
	// ErrNotFound is 404: no such object for this key (another merchant's objects, and the other
	// mode's, are not found either).
	ErrNotFound = errors.New("till: not found")
	// ErrConflict is 409: a request with the same Idempotency-Key was still in progress, after the retries.
	ErrConflict = errors.New("till: idempotency key in use")
	// ErrRateLimit is 429: too many requests for this key, after the retries.
	ErrRateLimit = errors.New("till: rate limited")
)

var sentinelByStatus = map[int]error{
	http.StatusBadRequest:      ErrInvalidRequest,
	http.StatusUnauthorized:    ErrAuthentication,
	http.StatusNotFound:        ErrNotFound,
	http.StatusConflict:        ErrConflict,
	http.StatusTooManyRequests: ErrRateLimit,
}

// ErrorCode is the stable code of an error body: branch on it rather than on the message. A code
// this version does not know yet still arrives in Error.Code; treat it by its status.
type ErrorCode string

// The codes Till answers, with their HTTP status.
const (
	CodeInvalidField               ErrorCode = "invalid_field"                // 400: a field, query parameter or header is missing or invalid; Param names it
	CodeUnknownField               ErrorCode = "unknown_field"                // 400: a field this operation does not take; Param names it
	CodeInvalidJSON                ErrorCode = "invalid_json"                 // 400
	CodeBodyTooDeep                ErrorCode = "body_too_deep"                // 400: the JSON body is nested more than 32 levels deep
	CodeAmountExceedsRefundable    ErrorCode = "amount_exceeds_refundable"    // 400: more than what remains refundable; Refundable says how much does
	CodeAlreadyRefunded            ErrorCode = "already_refunded"             // 400: the record is refunded in full (Refundable is 0)
	CodePartialRefundUnsupported   ErrorCode = "partial_refund_unsupported"   // 400: the provider refunds only the whole remaining amount: omit Amount
	CodeSessionTerminal            ErrorCode = "session_terminal"             // 400: the session is already paid, refunded, failed, canceled or expired
	CodeRefundNotPending           ErrorCode = "refund_not_pending"           // 400: the refund is already settled
	CodeProviderUnavailable        ErrorCode = "provider_unavailable"         // 400: no provider can take this session (ProviderHints, configurations)
	CodeIdempotencyMismatch        ErrorCode = "idempotency_mismatch"         // 400: the Idempotency-Key was used before with a different request
	CodeAlreadyExists              ErrorCode = "already_exists"               // 400
	CodeLimitReached               ErrorCode = "limit_reached"                // 400: a per-merchant limit (webhook endpoints per mode, previous secrets signing)
	CodeWebhookEndpointUnavailable ErrorCode = "webhook_endpoint_unavailable" // 400
	CodeInvalidRequest             ErrorCode = "invalid_request"              // 400
	CodeMissingAPIKey              ErrorCode = "missing_api_key"              // 401
	CodeInvalidAPIKey              ErrorCode = "invalid_api_key"              // 401
	CodeTestModeOnly               ErrorCode = "test_mode_only"               // 404: test helpers called with a live key
	CodeNotFound                   ErrorCode = "not_found"                    // 404
	CodeMethodNotAllowed           ErrorCode = "method_not_allowed"           // 405
	CodeIdempotencyInFlight        ErrorCode = "idempotency_in_flight"        // 409: the same Idempotency-Key is still being processed (retried)
	CodeEmailInUse                 ErrorCode = "email_in_use"                 // 409: the admin API's merchant email is another merchant's login
	CodeConflict                   ErrorCode = "conflict"                     // 409
	CodeBodyTooLarge               ErrorCode = "body_too_large"               // 413
	CodeHeadersTooLarge            ErrorCode = "headers_too_large"            // 431: the request line and headers are over 16 KiB
	CodeUnsupportedMediaType       ErrorCode = "unsupported_media_type"       // 415
	CodeRateLimited                ErrorCode = "rate_limited"                 // 429
	CodeInternalError              ErrorCode = "internal_error"               // 500: retry with the same Idempotency-Key
	CodeServiceUnavailable         ErrorCode = "service_unavailable"          // 503: Till cannot reach its database; retry later
)

// Error is an answer from Till with a status of 400 or more, or a redirect (which is not followed).
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Body is the answer as received, e.g. {"error":"amount exceeds refundable","refundable":500}.
	Body []byte
	// Message is the body's "error" field ("HTTP <status>" when the body has none).
	Message string
	// Code is the body's stable "code" (CodeAmountExceedsRefundable, …): branch on it, not on Message.
	Code ErrorCode
	// Param names the request field at fault, for a field error, when Till sends it.
	Param string
	// Refundable is what is still refundable (minor units), on "amount exceeds refundable".
	Refundable *int64
	// RequestID is the Request-Id header: quote it when asking for help.
	RequestID string
	// RetryAfter is the wait the Retry-After header asked for (zero when absent).
	RetryAfter time.Duration
	// Header holds the answer's headers.
	Header http.Header
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "till: %d %s", e.StatusCode, e.Message)
	if e.Code != "" {
		fmt.Fprintf(&b, " (code %s)", e.Code)
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [request %s]", e.RequestID)
	}
	return b.String()
}

// Is reports whether target is the sentinel for e's status (ErrNotFound for 404, …).
func (e *Error) Is(target error) bool {
	s, ok := sentinelByStatus[e.StatusCode]
	return ok && s == target
}

// errorBody is what Till's error bodies carry (types_test.go compares it with the document).
type errorBody struct {
	Error      *string    `json:"error"`
	Code       *ErrorCode `json:"code"`
	Param      *string    `json:"param"`
	Refundable *int64     `json:"refundable"`
}

func newError(status int, body []byte, header http.Header, now time.Time) *Error {
	e := &Error{StatusCode: status, Body: body, Header: header, RequestID: header.Get("Request-Id")}
	var parsed errorBody
	// A body that is not JSON (a proxy's HTML page) still gives a status and the raw bytes.
	if json.Unmarshal(body, &parsed) == nil {
		if parsed.Error != nil {
			e.Message = *parsed.Error
		}
		if parsed.Code != nil {
			e.Code = *parsed.Code
		}
		if parsed.Param != nil {
			e.Param = *parsed.Param
		}
		e.Refundable = parsed.Refundable
	}
	if e.Message == "" {
		e.Message = "HTTP " + strconv.Itoa(status)
		if location := header.Get("Location"); status >= 300 && status < 400 && location != "" {
			e.Message += " redirect to " + location + ": set WithBaseURL to the address Till answers on itself"
		}
	}
	if wait, ok := parseRetryAfter(header.Get("Retry-After"), now); ok {
		e.RetryAfter = wait
	}
	return e
}

// ConnectionError means no answer arrived: a network failure or a timeout, after the retries. The
// request may or may not have run; calling again with the same IdempotencyKey is safe.
type ConnectionError struct {
	// Method and Path name the call, e.g. "POST" and "/api/v1/refunds".
	Method, Path string
	// Attempts is how many times the request was sent.
	Attempts int
	// Timeout is true when the last attempt ran out of the client's per-attempt timeout.
	Timeout bool
	// Err is the last underlying error.
	Err error
}

func (e *ConnectionError) Error() string {
	attempts := "1 attempt"
	if e.Attempts != 1 {
		attempts = strconv.Itoa(e.Attempts) + " attempts"
	}
	if e.Timeout {
		return fmt.Sprintf("till: %s %s timed out (%s)", e.Method, e.Path, attempts)
	}
	return fmt.Sprintf("till: %s %s failed: %v (%s)", e.Method, e.Path, e.Err, attempts)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// parseRetryAfter reads Retry-After as delta-seconds or an HTTP date.
func parseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 31); err == nil {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		if d := at.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}
