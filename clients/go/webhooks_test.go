package till

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The shared vectors: the same file the JavaScript and Python clients test against.
type vector struct {
	Name             string  `json:"name"`
	BodyBase64       string  `json:"bodyBase64"`
	Secret           string  `json:"secret"`
	Header           string  `json:"header"`
	ToleranceSeconds *int    `json:"toleranceSeconds"`
	Now              *int64  `json:"now"`
	Valid            bool    `json:"valid"`
	ConstructEvent   string  `json:"constructEvent"`
	EventID          *string `json:"eventId"`
}

func loadVectors(t *testing.T) (int, []vector) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "webhook-signatures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		DefaultToleranceSeconds int      `json:"defaultToleranceSeconds"`
		Vectors                 []vector `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	return file.DefaultToleranceSeconds, file.Vectors
}

func TestSharedVectors(t *testing.T) {
	defaultTolerance, vectors := loadVectors(t)
	if time.Duration(defaultTolerance)*time.Second != DefaultTolerance {
		t.Fatalf("the vectors' default tolerance is %d s, DefaultTolerance is %v", defaultTolerance, DefaultTolerance)
	}
	if len(vectors) < 20 {
		t.Fatalf("only %d vectors", len(vectors))
	}
	for _, v := range vectors {
		v := v
		t.Run(v.Name, func(t *testing.T) {
			body, err := base64.StdEncoding.DecodeString(v.BodyBase64)
			if err != nil {
				t.Fatal(err)
			}
			if got := VerifyWebhookSignature(body, v.Header, v.Secret); got != v.Valid {
				t.Fatalf("VerifyWebhookSignature = %v, want %v", got, v.Valid)
			}
			now := time.Now()
			if v.Now != nil {
				now = time.Unix(*v.Now, 0)
			}
			var tolerance time.Duration // 0: the default
			if v.ToleranceSeconds != nil {
				tolerance = time.Duration(*v.ToleranceSeconds) * time.Second
			}
			event, err := constructEventAt(body, v.Header, v.Secret, tolerance, now)
			if v.ConstructEvent == "ok" {
				if err != nil {
					t.Fatalf("ConstructEvent: %v", err)
				}
				if v.EventID == nil || event.ID != *v.EventID {
					t.Fatalf("event id %q, want %v", event.ID, v.EventID)
				}
				return
			}
			var we *WebhookError
			if !errors.As(err, &we) || string(we.Reason) != v.ConstructEvent {
				t.Fatalf("ConstructEvent error %v, want reason %q", err, v.ConstructEvent)
			}
		})
	}
}

const testSecret = "whsec_0123456789abcdefghijklmnopqrstuv"

func sign(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

func testEvent(createdAt time.Time) []byte {
	return []byte(`{"id":"evt_1","type":"payment.succeeded","createdAt":"` + createdAt.UTC().Format("2006-01-02T15:04:05.000Z") +
		`","mode":"test","data":{"sessionId":"sess_1","status":"paid","amount":9900,"currency":"CNY","metadata":{"note":"谢谢"},"recordId":"rec_1"}}`)
}

func TestConstructEventMessagesNameTheMistake(t *testing.T) {
	body := testEvent(time.Now())
	header := sign(body, testSecret)

	var reencoded map[string]any
	if err := json.Unmarshal(body, &reencoded); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(reencoded)
	_, err := ConstructEvent(again, header, testSecret, 0)
	var we *WebhookError
	if !errors.As(err, &we) || we.Reason != WebhookSignature || !strings.Contains(we.Message, "decoded and encoded again") {
		t.Fatalf("a re-encoded body: %v", err)
	}
	if _, err := ConstructEvent(body, "", testSecret, 0); err == nil || !strings.Contains(err.Error(), "no signature found") {
		t.Fatalf("no header: %v", err)
	}
	if _, err := ConstructEvent(body, header, "", 0); !errors.Is(err, ErrNoWebhookSecret) {
		t.Fatalf("empty secret: %v", err)
	}
	if VerifyWebhookSignature(body, header, "") {
		t.Fatal("an empty secret verified")
	}
	if !VerifyWebhookSignature(body, strings.Repeat("0", 64)+","+header, testSecret) {
		t.Fatal("a second signature after a stale one")
	}
}

func TestConstructEventTolerance(t *testing.T) {
	created := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	body := testEvent(created)
	header := sign(body, testSecret)
	at := func(d time.Duration, tolerance time.Duration) error {
		_, err := constructEventAt(body, header, testSecret, tolerance, created.Add(d))
		return err
	}
	if err := at(300*time.Second, 0); err != nil {
		t.Fatalf("at the default tolerance: %v", err)
	}
	if err := at(300*time.Second+time.Millisecond, 0); err == nil || !strings.Contains(err.Error(), "301 s ago, outside the tolerance of 5m0s") {
		t.Fatalf("just past it: %v", err)
	}
	if err := at(-301*time.Second, 0); err == nil || !strings.Contains(err.Error(), "in the future") {
		t.Fatalf("in the future: %v", err)
	}
	if err := at(24*time.Hour, -1); err != nil {
		t.Fatalf("a negative tolerance turns the check off: %v", err)
	}
	if err := at(2*time.Hour, 3*time.Hour); err != nil {
		t.Fatalf("a longer tolerance: %v", err)
	}
}

func TestEventDataDecodes(t *testing.T) {
	body := testEvent(time.Now())
	event, err := ConstructEvent(body, sign(body, testSecret), testSecret, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := event.SessionData()
	if err != nil {
		t.Fatal(err)
	}
	if event.Type != EventPaymentSucceeded || data.Amount != 9900 || data.Currency != CNY || data.Metadata["note"] != "谢谢" || data.RecordID != "rec_1" {
		t.Fatalf("%+v %+v", event, data)
	}
}
