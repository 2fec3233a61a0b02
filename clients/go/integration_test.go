package till_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	till "github.com/till-payments/till/clients/go"
)

// A real Till for the integration tests: scripts/serve-for-clients.ts (the app on a fresh database
// cloned from the test template in TEST_DATABASE_URL, with its webhook worker), started once here
// and stopped by closing its stdin.
type realTill struct {
	BaseURL    string `json:"baseUrl"`
	TestKey    string `json:"testKey"`
	LiveKey    string `json:"liveKey"`
	AdminToken string `json:"adminToken"`
}

var server *realTill

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if os.Getenv("TEST_DATABASE_URL") == "" {
		fmt.Fprintln(os.Stderr, "TEST_DATABASE_URL is not set: the integration tests against a real Till are skipped "+
			"(scripts/go-client.sh sets it up; so does npm test)")
		return m.Run()
	}
	stop, err := startTill()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting a real Till with scripts/serve-for-clients.ts:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

func startTill() (stop func(), err error) {
	cmd := exec.Command("npx", "tsx", "scripts/serve-for-clients.ts")
	cmd.Dir = filepath.Join("..", "..") // the repository root
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		stdin.Close() // it stops, and drops its database, when its stdin closes
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	ready := make(chan error, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			var t realTill
			if json.Unmarshal(lines.Bytes(), &t) == nil && t.BaseURL != "" {
				server = &t
				ready <- nil
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- errors.New("it exited before printing its address")
	}()
	select {
	case err = <-ready:
	case <-time.After(120 * time.Second):
		err = errors.New("no address after 120 s")
	}
	if err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

func requireTill(t *testing.T) (*till.Client, context.Context) {
	t.Helper()
	if server == nil {
		t.Skip("TEST_DATABASE_URL is not set: no real Till to test against")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return till.NewClient(server.TestKey, till.WithBaseURL(server.BaseURL), till.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond)), ctx
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationCreatePayReadRefund(t *testing.T) {
	client, ctx := requireTill(t)
	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{
		Amount: 9900, Currency: till.CNY, Description: "Order A-1", Metadata: map[string]string{"order": "A-1"},
		// Sent in the body; test mode ignores it and uses the mock provider.
		ProviderHints: map[string]string{"wechat": "shop-2"},
	})
	ok(t, err)
	if !regexp.MustCompile(`^sess_[0-9A-Za-z]{24}$`).MatchString(created.ID) || created.Status != till.SessionPending ||
		created.URL != server.BaseURL+"/c/"+created.ID || created.Amount != 9900 || created.Mode != till.ModeTest ||
		time.Until(created.ExpiresAt) < 50*time.Minute {
		t.Fatalf("created %+v", created)
	}

	pending, err := client.GetSession(ctx, created.ID)
	ok(t, err)
	if pending.Status != till.SessionPending || pending.ChosenProvider != "mock" || pending.Record != nil {
		t.Fatalf("pending %+v", pending)
	}

	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	ok(t, err)
	if paid.Status != till.SessionPaid {
		t.Fatalf("paid %+v", paid)
	}
	session, err := client.GetSession(ctx, created.ID)
	ok(t, err)
	if session.Status != till.SessionPaid || session.Record == nil || !strings.HasPrefix(session.Record.ID, "rec_") ||
		session.Record.Amount != 9900 || session.Record.Provider != "mock" || session.Record.PaidAt.IsZero() {
		t.Fatalf("read %+v %+v", session, session.Record)
	}

	partial, err := client.Refund(ctx, &till.RefundParams{RecordID: session.Record.ID, Amount: till.Int64(1000), Reason: "damaged"})
	ok(t, err)
	if partial.Status != till.RecordPartiallyRefunded || partial.RefundedAmount != 1000 || partial.Refund == nil ||
		partial.Refund.Amount != 1000 || partial.Refund.Status != till.RefundSucceeded || partial.Refund.Reason != "damaged" ||
		!strings.HasPrefix(partial.Refund.ID, "ref_") || partial.SessionID != created.ID || partial.Currency != till.CNY {
		t.Fatalf("partial %+v %+v", partial, partial.Refund)
	}

	rest, err := client.Refund(ctx, &till.RefundParams{RecordID: session.Record.ID})
	ok(t, err)
	if rest.Status != till.RecordRefunded || rest.Refund.Amount != 8900 || rest.RefundedAmount != 9900 {
		t.Fatalf("rest %+v %+v", rest, rest.Refund)
	}
	if s, err := client.GetSession(ctx, created.ID); err != nil || s.Status != till.SessionRefunded {
		t.Fatalf("after the full refund the session is %s", s.Status)
	}
}

func TestIntegrationJPYIsWholeYen(t *testing.T) {
	client, ctx := requireTill(t)
	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 1500, Currency: till.JPY})
	ok(t, err)
	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	ok(t, err)
	if paid.Amount != 1500 || paid.Record == nil || paid.Record.Amount != 1500 {
		t.Fatalf("%+v", paid)
	}
}

// providerHints sent as an extra field, as the interface specification says, reaches Till: a live
// key with no configuration labelled shop-2 is refused naming that hint.
func TestIntegrationProviderHintsAsAnExtraField(t *testing.T) {
	_, ctx := requireTill(t)
	live := till.NewClient(server.LiveKey, till.WithBaseURL(server.BaseURL))
	_, err := live.CreateCheckout(ctx, &till.CheckoutParams{Amount: 9900, Currency: till.CNY,
		Extra: map[string]any{"providerHints": map[string]string{"wechat": "shop-2"}}})
	var e *till.Error
	if !errors.As(err, &e) || e.Code != till.CodeProviderUnavailable || e.Message != "provider wechat/shop-2 not available: invalid_label" {
		t.Fatalf("a live checkout hinting wechat/shop-2: %v", err)
	}
}

func TestIntegrationAPendingRefundSettlesThroughTheTestHelper(t *testing.T) {
	client, ctx := requireTill(t)
	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 5000, Currency: till.USD})
	ok(t, err)
	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, &till.PayParams{RefundBehavior: till.RefundBehaviorPending})
	ok(t, err)
	refunding, err := client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID})
	ok(t, err)
	if refunding.Refund.Status != till.RefundPending || refunding.Status != till.RecordRefunding {
		t.Fatalf("%+v %+v", refunding, refunding.Refund)
	}
	settled, err := client.TestHelpers.Refunds.Succeed(ctx, refunding.Refund.ID, nil)
	ok(t, err)
	if settled.Status != till.RecordRefunded || settled.RefundedAmount != 5000 {
		t.Fatalf("%+v", settled)
	}
}

func TestIntegrationErrors(t *testing.T) {
	client, ctx := requireTill(t)
	var e *till.Error

	_, err := client.GetSession(ctx, "sess_doesnotexist000000000000")
	if !errors.Is(err, till.ErrNotFound) || !errors.As(err, &e) || e.StatusCode != 404 || e.Message != "Not found" ||
		e.Code != till.CodeNotFound || !strings.HasPrefix(e.RequestID, "req_") {
		t.Fatalf("404: %v", err)
	}

	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 1000, Currency: till.CNY})
	ok(t, err)
	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	ok(t, err)
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID, Amount: till.Int64(400)})
	ok(t, err)
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID, Amount: till.Int64(601)})
	if !errors.Is(err, till.ErrInvalidRequest) || !errors.As(err, &e) || e.StatusCode != 400 ||
		e.Message != "amount exceeds refundable" || e.Code != till.CodeAmountExceedsRefundable || e.Refundable == nil || *e.Refundable != 600 {
		t.Fatalf("400 amount exceeds refundable: %v", err)
	}
	var body map[string]any
	if json.Unmarshal(e.Body, &body) != nil || body["error"] != "amount exceeds refundable" || body["refundable"] != float64(600) {
		t.Fatalf("body %s", e.Body)
	}

	_, err = client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 0, Currency: till.CNY})
	if !errors.As(err, &e) || e.StatusCode != 400 || !strings.HasPrefix(e.Message, "amount: ") || e.Code != till.CodeInvalidField || e.Param != "amount" {
		t.Fatalf("a field error: %v", err)
	}

	_, err = client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	if !errors.As(err, &e) || e.Message != "session is paid" || e.Code != till.CodeSessionTerminal {
		t.Fatalf("a final session: %v", err)
	}

	badKey := till.NewClient("sk_test_"+strings.Repeat("x", 32), till.WithBaseURL(server.BaseURL))
	_, err = badKey.GetSession(ctx, created.ID)
	if !errors.Is(err, till.ErrAuthentication) || !errors.As(err, &e) || e.StatusCode != 401 || e.Code != till.CodeInvalidAPIKey {
		t.Fatalf("401: %v", err)
	}

	// The other mode's key sees nothing: test helpers do not exist for a live key.
	live := till.NewClient(server.LiveKey, till.WithBaseURL(server.BaseURL))
	if _, err := live.TestHelpers.Sessions.Pay(ctx, created.ID, nil); !errors.Is(err, till.ErrNotFound) || !errors.As(err, &e) || e.Code != till.CodeTestModeOnly {
		t.Fatalf("a live key: %v", err)
	}
	if _, err := live.GetSession(ctx, created.ID); !errors.Is(err, till.ErrNotFound) {
		t.Fatalf("a live key reading a test session: %v", err)
	}

	// Everything refunded: nothing is left, and the code says so.
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID})
	ok(t, err)
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID})
	if !errors.Is(err, till.ErrInvalidRequest) || !errors.As(err, &e) || e.Code != till.CodeAlreadyRefunded || e.Refundable == nil || *e.Refundable != 0 {
		t.Fatalf("a refunded record: %v", err)
	}
	// An unknown field is refused, naming it.
	_, err = client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 100, Currency: till.USD, Extra: map[string]any{"amonut": 100}})
	if !errors.As(err, &e) || e.Code != till.CodeUnknownField || e.Param != "amonut" {
		t.Fatalf("an unknown field: %v", err)
	}
}

// proxy forwards to Till; fault(n) may answer instead (a status) or lose Till's answer on the way back.
type proxied struct {
	key, replayed string
	status        int
}

func faultyProxy(t *testing.T, fault func(n int) (status int, dropAnswer bool)) (string, func() []proxied) {
	var mu sync.Mutex
	var seen []proxied
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(count.Add(1))
		status, drop := fault(n)
		if status != 0 {
			mu.Lock()
			seen = append(seen, proxied{key: r.Header.Get("Idempotency-Key"), status: status})
			mu.Unlock()
			w.Header().Set("Connection", "close")
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"error":"injected"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, server.BaseURL+r.URL.RequestURI(), bytes.NewReader(body))
		req.Header = r.Header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("proxy: %v", err)
			return
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		mu.Lock()
		seen = append(seen, proxied{key: r.Header.Get("Idempotency-Key"), replayed: res.Header.Get("Idempotent-Replayed"), status: res.StatusCode})
		mu.Unlock()
		if drop {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL, func() []proxied {
		mu.Lock()
		defer mu.Unlock()
		return append([]proxied(nil), seen...)
	}
}

func TestIntegrationARefundWhoseAnswerIsLostRefundsOnce(t *testing.T) {
	client, ctx := requireTill(t)
	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 2000, Currency: till.HKD})
	ok(t, err)
	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	ok(t, err)
	recordID := paid.Record.ID

	proxyURL, seen := faultyProxy(t, func(n int) (int, bool) { return 0, n == 1 })
	viaProxy := till.NewClient(server.TestKey, till.WithBaseURL(proxyURL), till.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))
	result, err := viaProxy.Refund(ctx, &till.RefundParams{RecordID: recordID, Amount: till.Int64(700)})
	ok(t, err)

	s := seen()
	if len(s) != 2 || s[0].key != s[1].key || s[0].replayed != "" || s[1].replayed != "true" {
		t.Fatalf("%+v: want the same key twice, the second answer replayed by Till", s)
	}
	if result.RefundedAmount != 700 || result.Refund.Amount != 700 {
		t.Fatalf("%+v", result)
	}
	// Refunded once: 1300 is still refundable, not 600.
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: recordID, Amount: till.Int64(1301)})
	var e *till.Error
	if !errors.As(err, &e) || e.Refundable == nil || *e.Refundable != 1300 {
		t.Fatalf("%v", err)
	}
}

func TestIntegrationACheckoutThrough429And503AndALostAnswerMakesOneSession(t *testing.T) {
	client, ctx := requireTill(t)
	proxyURL, seen := faultyProxy(t, func(n int) (int, bool) {
		switch n {
		case 1:
			return http.StatusTooManyRequests, false
		case 2:
			return http.StatusServiceUnavailable, false
		case 3:
			return 0, true // Till makes the session; its answer is lost
		}
		return 0, false
	})
	viaProxy := till.NewClient(server.TestKey, till.WithBaseURL(proxyURL), till.WithMaxRetries(3), till.WithRetryBackoff(5*time.Millisecond, 50*time.Millisecond))
	key := fmt.Sprintf("order-%d-checkout", time.Now().UnixNano())
	created, err := viaProxy.CreateCheckout(ctx, &till.CheckoutParams{Amount: 300, Currency: till.EUR, Params: till.Params{IdempotencyKey: key}})
	ok(t, err)
	got := []string{}
	for _, s := range seen() {
		if s.key != key {
			t.Fatalf("a retry sent the key %q", s.key)
		}
		got = append(got, fmt.Sprintf("%d%s", s.status, s.replayed))
	}
	if strings.Join(got, " ") != "429 503 200 200true" {
		t.Fatalf("%v", got)
	}
	again, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 300, Currency: till.EUR, Params: till.Params{IdempotencyKey: key}})
	ok(t, err)
	if again.ID != created.ID {
		t.Fatalf("two sessions: %s and %s", created.ID, again.ID)
	}
}

// receiver is a merchant's webhook handler, written as the README's: the raw body, ConstructEvent,
// 2xx only when verified.
type delivery struct {
	event  *till.Event
	body   []byte
	header string
}

func receiver(t *testing.T, secret func() string) (string, chan delivery) {
	got := make(chan delivery, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		header := r.Header.Get(till.SignatureHeader)
		event, err := till.ConstructEvent(body, header, secret(), 0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- delivery{event, body, header}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/till/webhooks", got
}

// next waits for the delivery of an event about id (other tests' events may arrive too).
func next(t *testing.T, got chan delivery, eventType till.EventType, about string) delivery {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case d := <-got:
			if d.event.Type == eventType && bytes.Contains(d.event.Data, []byte(`"`+about+`"`)) {
				return d
			}
		case <-timeout:
			t.Fatalf("no %s event about %s within 30 s", eventType, about)
		}
	}
}

func TestIntegrationAWebhookIsReceivedAndVerified(t *testing.T) {
	client, ctx := requireTill(t)
	var secret atomic.Value
	secret.Store("")
	url, got := receiver(t, func() string { return secret.Load().(string) })

	endpoint, err := client.WebhookEndpoints.Create(ctx, &till.WebhookEndpointParams{URL: url})
	ok(t, err)
	secret.Store(endpoint.Secret)
	if !regexp.MustCompile(`^whsec_[0-9A-Za-z]{32}$`).MatchString(endpoint.Secret) || endpoint.Events != nil || !endpoint.Enabled {
		t.Fatalf("%+v", endpoint)
	}
	listed := false
	for it := client.WebhookEndpoints.List(ctx); it.Next(); {
		listed = listed || it.Current().ID == endpoint.ID
		if it.Current().Secret != "" {
			t.Fatal("a listed endpoint shows its secret")
		}
	}
	if !listed {
		t.Fatal("the endpoint is not listed")
	}

	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 9900, Currency: till.CNY, Metadata: map[string]string{"order": "A-1", "note": "谢谢 🧾"}})
	ok(t, err)
	paid, err := client.TestHelpers.Sessions.Pay(ctx, created.ID, nil)
	ok(t, err)
	first := next(t, got, till.EventPaymentSucceeded, created.ID)
	data, err := first.event.SessionData()
	if err != nil || data.SessionID != created.ID || data.RecordID != paid.Record.ID || data.Amount != 9900 ||
		data.Metadata["note"] != "谢谢 🧾" || data.Metadata["order"] != "A-1" || data.Status != till.SessionPaid {
		t.Fatalf("%+v %v", data, err)
	}

	found := false
	it := client.Events.List(ctx, &till.EventListParams{Type: till.EventPaymentSucceeded, ListParams: till.ListParams{Limit: 2}})
	for it.Next() && !found {
		found = it.Current().ID == first.event.ID
	}
	if !found || it.Err() != nil {
		t.Fatalf("the event is not listed: %v", it.Err())
	}
	// Till marks the delivery once the receiver's 200 is in: wait for that, within a deadline.
	var detail *till.EventWithDeliveries
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		detail, err = client.Events.Get(ctx, first.event.ID)
		ok(t, err)
		if len(detail.Deliveries) == 1 && detail.Deliveries[0].Status == till.DeliveryDelivered || time.Now().After(deadline) {
			break
		}
	}
	if len(detail.Deliveries) != 1 || detail.Deliveries[0].EndpointID != endpoint.ID || detail.Deliveries[0].Status != till.DeliveryDelivered ||
		len(detail.Deliveries[0].Attempts) != 1 || *detail.Deliveries[0].Attempts[0].StatusCode != 200 {
		t.Fatalf("%+v", detail.Deliveries)
	}

	// Rotation: both secrets sign for 24 h, so receivers still holding the old one keep working.
	oldSecret := endpoint.Secret
	rotated, err := client.WebhookEndpoints.RotateSecret(ctx, endpoint.ID, nil)
	ok(t, err)
	if rotated.Secret == oldSecret || rotated.PreviousSecretExpiresAt == nil {
		t.Fatalf("%+v", rotated)
	}
	secret.Store(rotated.Secret)
	_, err = client.Refund(ctx, &till.RefundParams{RecordID: paid.Record.ID, Amount: till.Int64(1000), Reason: "破损"})
	ok(t, err)
	second := next(t, got, till.EventRefundSucceeded, paid.Record.ID)
	if strings.Count(second.header, ",") != 1 {
		t.Fatalf("header %q: want two signatures", second.header)
	}
	for _, s := range []string{rotated.Secret, oldSecret} {
		if e, err := till.ConstructEvent(second.body, second.header, s, 0); err != nil || e.ID != second.event.ID {
			t.Fatalf("with either secret: %v", err)
		}
	}
	refundData, err := second.event.RefundData()
	if err != nil || refundData.Amount != 1000 || refundData.RefundedAmount != 1000 || refundData.Reason != "破损" || refundData.RecordStatus != till.RecordPartiallyRefunded {
		t.Fatalf("%+v %v", refundData, err)
	}
	var we *till.WebhookError
	if _, err := till.ConstructEvent(second.body, second.header, "whsec_"+strings.Repeat("x", 32), 0); !errors.As(err, &we) || we.Reason != till.WebhookSignature {
		t.Fatalf("another secret: %v", err)
	}
	// The classic mistake: the decoded and re-encoded body no longer verifies.
	var decoded map[string]any
	_ = json.Unmarshal(second.body, &decoded)
	reencoded, _ := json.Marshal(decoded)
	if till.VerifyWebhookSignature(reencoded, second.header, rotated.Secret) {
		t.Fatal("a re-encoded body verified")
	}

	redelivered, err := client.Events.Redeliver(ctx, first.event.ID, nil)
	ok(t, err)
	if len(redelivered.Scheduled) != 1 || redelivered.Scheduled[0].EndpointID != endpoint.ID {
		t.Fatalf("%+v", redelivered)
	}
	// The same event, signed again now: each attempt carries the time it was signed as createdAt,
	// so it passes the receiver's tolerance however late it comes.
	again := next(t, got, till.EventPaymentSucceeded, created.ID)
	if again.event.ID != first.event.ID || !bytes.Equal(again.event.Data, first.event.Data) || again.event.CreatedAt.Before(first.event.CreatedAt) {
		t.Fatalf("the redelivery:\n%s\nthe first delivery:\n%s", again.body, first.body)
	}

	updated, err := client.WebhookEndpoints.Update(ctx, endpoint.ID, &till.WebhookEndpointUpdateParams{Events: []till.EventType{till.EventRefundSucceeded}})
	ok(t, err)
	if len(updated.Events) != 1 || updated.Events[0] != till.EventRefundSucceeded {
		t.Fatalf("%+v", updated)
	}
	everything, err := client.WebhookEndpoints.Update(ctx, endpoint.ID, &till.WebhookEndpointUpdateParams{AllEvents: true, Enabled: till.Bool(false)})
	ok(t, err)
	if everything.Events != nil || everything.Enabled {
		t.Fatalf("%+v", everything)
	}
	if d, err := client.WebhookEndpoints.Delete(ctx, endpoint.ID); err != nil || d.ID != endpoint.ID || !d.Deleted {
		t.Fatalf("%+v", d)
	}
	if _, err := client.WebhookEndpoints.Get(ctx, endpoint.ID); !errors.Is(err, till.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestIntegrationListsAndReads(t *testing.T) {
	client, ctx := requireTill(t)
	run := fmt.Sprintf("run-%d", time.Now().UnixNano()) // this test's sessions only
	var ids []string
	for i := 0; i < 3; i++ {
		s, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 2000, Currency: till.USD, Description: fmt.Sprintf("Order %d", i),
			Metadata: map[string]string{"run": run, "order": fmt.Sprint(i)}})
		ok(t, err)
		ids = append(ids, s.ID)
	}
	start := time.Now()
	paid, err := client.TestHelpers.Sessions.Pay(ctx, ids[1], nil)
	ok(t, err)
	recordID := paid.Record.ID

	collect := func(it *till.Iter[till.Session]) (got []string) {
		t.Helper()
		for it.Next() {
			got = append(got, it.Current().ID)
		}
		ok(t, it.Err())
		return got
	}
	// Two pages of two: newest first.
	all := collect(client.Sessions.List(ctx, &till.SessionListParams{ListParams: till.ListParams{Limit: 2}, Metadata: map[string]string{"run": run}}))
	if strings.Join(all, ",") != strings.Join([]string{ids[2], ids[1], ids[0]}, ",") {
		t.Fatalf("listed %v, created %v", all, ids)
	}
	it := client.Sessions.List(ctx, &till.SessionListParams{Status: till.SessionPaid, Metadata: map[string]string{"run": run, "order": "1"}})
	if !it.Next() || it.Current().ID != ids[1] || it.Current().Description != "Order 1" || it.Current().Metadata["run"] != run ||
		it.Current().Record == nil || it.Current().Record.ID != recordID || it.Next() {
		t.Fatalf("the paid session: %+v %v", it.Current(), it.Err())
	}
	if got := collect(client.Sessions.List(ctx, &till.SessionListParams{CreatedRange: till.CreatedRange{CreatedGTE: start.Add(time.Second)},
		Metadata: map[string]string{"run": run}})); len(got) != 0 {
		t.Fatalf("created after the sessions: %v", got)
	}

	first, err := client.Refund(ctx, &till.RefundParams{RecordID: recordID, Amount: till.Int64(500), Reason: "damaged"})
	ok(t, err)
	second, err := client.Refund(ctx, &till.RefundParams{RecordID: recordID, Amount: till.Int64(300)})
	ok(t, err)

	record, err := client.Records.Get(ctx, recordID)
	ok(t, err)
	if record.SessionID != ids[1] || record.RefundedAmount != 800 || record.Status != till.RecordPartiallyRefunded || len(record.Refunds) != 2 ||
		record.Refunds[0].ID != second.Refund.ID || record.Refunds[1].ID != first.Refund.ID || record.Refunds[1].Reason != "damaged" ||
		record.Refunds[0].RecordID != recordID {
		t.Fatalf("%+v", record)
	}
	if s, err := client.GetSession(ctx, ids[1]); err != nil || s.Record.RefundedAmount != 800 || s.Metadata["order"] != "1" {
		t.Fatalf("the session's record: %+v %v", s, err)
	}
	records := client.Records.List(ctx, &till.RecordListParams{SessionID: ids[1]})
	if !records.Next() || records.Current().ID != recordID || len(records.Current().Refunds) != 2 || records.Next() || records.Err() != nil {
		t.Fatalf("records of the session: %+v %v", records.Current(), records.Err())
	}
	refund, err := client.Refunds.Get(ctx, first.Refund.ID)
	ok(t, err)
	if refund.Amount != 500 || refund.Reason != "damaged" || refund.RecordID != recordID || refund.Status != till.RefundSucceeded {
		t.Fatalf("%+v", refund)
	}
	var refunds []int64
	for it := client.Refunds.List(ctx, &till.RefundListParams{RecordID: recordID, ListParams: till.ListParams{Limit: 1}}); it.Next(); {
		refunds = append(refunds, it.Current().Amount)
	}
	if fmt.Sprint(refunds) != "[300 500]" {
		t.Fatalf("refunds of the record, newest first: %v", refunds)
	}

	if _, err := client.Records.Get(ctx, "rec_doesnotexist0000000000000"); !errors.Is(err, till.ErrNotFound) {
		t.Fatalf("%v", err)
	}
	live := till.NewClient(server.LiveKey, till.WithBaseURL(server.BaseURL))
	if _, err := live.Refunds.Get(ctx, first.Refund.ID); !errors.Is(err, till.ErrNotFound) {
		t.Fatalf("a live key reading a test refund: %v", err)
	}
	if got := collect(live.Sessions.List(ctx, &till.SessionListParams{Metadata: map[string]string{"run": run}})); len(got) != 0 {
		t.Fatalf("a live key lists test sessions: %v", got)
	}
}

func TestIntegrationCancelAndExpire(t *testing.T) {
	client, ctx := requireTill(t)
	var e *till.Error
	created, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 1000, Currency: till.CNY})
	ok(t, err)
	canceled, err := client.Sessions.Cancel(ctx, created.ID, nil)
	ok(t, err)
	if canceled.ID != created.ID || canceled.Status != till.SessionCanceled {
		t.Fatalf("canceled: %+v", canceled)
	}
	_, err = client.Sessions.Expire(ctx, created.ID, nil)
	if !errors.Is(err, till.ErrInvalidRequest) || !errors.As(err, &e) || e.Message != "session is canceled" || e.Code != till.CodeSessionTerminal {
		t.Fatalf("a closed session: %v", err)
	}

	other, err := client.CreateCheckout(ctx, &till.CheckoutParams{Amount: 1000, Currency: till.CNY})
	ok(t, err)
	key := &till.Params{IdempotencyKey: "expire-" + other.ID}
	expired, err := client.Sessions.Expire(ctx, other.ID, key)
	ok(t, err)
	// The same key answers the same again, though the session is no longer open.
	again, err := client.Sessions.Expire(ctx, other.ID, key)
	ok(t, err)
	if expired.Status != till.SessionExpired || again.Status != till.SessionExpired || !again.ExpiresAt.Equal(expired.ExpiresAt) {
		t.Fatalf("expired: %+v, again: %+v", expired, again)
	}
	if _, err := client.Sessions.Cancel(ctx, other.ID, nil); !errors.As(err, &e) || e.Code != till.CodeSessionTerminal {
		t.Fatalf("a closed session: %v", err)
	}
}
