package till

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand"
	"net/http"
	"net/url"
	"runtime"
	"time"
)

// Version is this library's version, sent in the User-Agent header.
const Version = "0.1.0"

var userAgent = "till-go/" + Version + " " + runtime.Version()

// A call: method, path (ids already escaped), query, JSON body for POST and PATCH.
type call struct {
	method, path   string
	query          url.Values
	body           any
	idempotencyKey string
}

func retryable(status int) bool {
	return status == http.StatusConflict || status == http.StatusTooManyRequests || status >= 500
}

// do sends c, retrying (with the same Idempotency-Key) after no answer, 409, 429 and 5xx, and
// decodes a 2xx answer into out.
func (cl *Client) do(ctx context.Context, c call, out any) error {
	if cl.err != nil {
		return cl.err
	}
	if ctx == nil {
		return errors.New("till: nil context: pass context.Background() or a request's context")
	}
	var payload []byte
	if c.method == http.MethodPost || c.method == http.MethodPatch {
		body := c.body
		if body == nil {
			body = struct{}{}
		}
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	if c.method == http.MethodPost && c.idempotencyKey == "" {
		// Chosen once per call, so every retry below carries the same key.
		key, err := newIdempotencyKey()
		if err != nil {
			return err
		}
		c.idempotencyKey = key
	}
	target := cl.baseURL + c.path
	if len(c.query) > 0 {
		target += "?" + c.query.Encode()
	}

	for attempt := 0; ; attempt++ {
		status, header, body, timedOut, err := cl.attempt(ctx, c, target, payload)
		if err != nil {
			// An answer that arrived is kept even if the context ends now; without one, the
			// caller's cancellation or deadline is the reason, not the network.
			if ctx.Err() != nil {
				return fmt.Errorf("till: %s %s: %w", c.method, c.path, ctx.Err())
			}
			if attempt < cl.maxRetries {
				if err := cl.sleep(ctx, cl.backoff(attempt)); err != nil {
					return fmt.Errorf("till: %s %s: %w", c.method, c.path, err)
				}
				continue
			}
			return &ConnectionError{Method: c.method, Path: c.path, Attempts: attempt + 1, Timeout: timedOut, Err: err}
		}
		if status >= 200 && status < 300 {
			if out == nil || len(body) == 0 {
				return nil
			}
			if err := json.Unmarshal(body, out); err != nil {
				return fmt.Errorf("till: %s %s: the answer is not the expected JSON: %w", c.method, c.path, err)
			}
			return nil
		}
		wait, hasWait := parseRetryAfter(header.Get("Retry-After"), time.Now())
		if attempt < cl.maxRetries && retryable(status) && (!hasWait || wait <= cl.maxRetryAfter) {
			if !hasWait {
				wait = cl.backoff(attempt)
			}
			if err := cl.sleep(ctx, wait); err != nil {
				return fmt.Errorf("till: %s %s: %w", c.method, c.path, err)
			}
			continue
		}
		return newError(status, body, header, time.Now())
	}
}

// attempt sends the request once; the per-attempt timeout also bounds reading the body, so a server
// that stalls mid-answer times out too.
func (cl *Client) attempt(ctx context.Context, c call, target string, payload []byte) (int, http.Header, []byte, bool, error) {
	actx, cancel := context.WithTimeout(ctx, cl.timeout)
	defer cancel()
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(actx, c.method, target, body)
	if err != nil {
		return 0, nil, nil, false, err
	}
	req.Header.Set("Authorization", "Bearer "+cl.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", c.idempotencyKey)
	}
	res, err := cl.httpClient.Do(req)
	if err == nil {
		var data []byte
		data, err = io.ReadAll(res.Body)
		res.Body.Close()
		if err == nil {
			return res.StatusCode, res.Header, data, false, nil
		}
	}
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	return 0, nil, nil, timedOut, err
}

// backoff is exponential with jitter (half to full), which spreads the retries of many clients
// that failed together.
func (cl *Client) backoff(attempt int) time.Duration {
	ceiling := cl.retryBase << uint(attempt)
	if ceiling > cl.retryMax || ceiling <= 0 {
		ceiling = cl.retryMax
	}
	return time.Duration(float64(ceiling) * (0.5 + mathrand.Float64()/2))
}

// sleep waits d, or returns the context's error as soon as it is done.
func (cl *Client) sleep(ctx context.Context, d time.Duration) error {
	if cl.sleepHook != nil {
		cl.sleepHook(d)
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newIdempotencyKey is a random (version 4) UUID.
func newIdempotencyKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("till: generating an idempotency key: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], nil
}
