package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// verifySignature checks a Sesame webhook's X-Service-Signature header
// against the raw request body: v1 is the hex HMAC-SHA256 of "<t>.<body>",
// keyed by the endpoint's whole signing secret (whsec_… as shown).
func verifySignature(secret, header string, body []byte, now time.Time) error {
	var t string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		key, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch key {
		case "t":
			t = value
		case "v1":
			if sig, err := hex.DecodeString(value); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	sent, err := strconv.ParseInt(t, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("malformed X-Service-Signature")
	}
	if age := now.Sub(time.Unix(sent, 0)); age > 5*time.Minute || age < -5*time.Minute {
		return errors.New("signature too old or from the future")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range sigs {
		if hmac.Equal(sig, want) { // constant time
			return nil
		}
	}
	return errors.New("signature does not match")
}

// Event is the body of every webhook request.
type Event struct {
	ID        string          `json:"id"` // evt_…, the same on every retry
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"` // the email, or null
}

// webhookHandler verifies each request, then hands the event to handle.
// An error from handle answers 500, so Sesame delivers the event again.
//
//	http.Handle("/hooks/sesame", webhookHandler(os.Getenv("SESAME_WEBHOOK_SECRET"), handle))
func webhookHandler(secret string, handle func(Event) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read the body", http.StatusBadRequest)
			return
		}
		// The raw bytes first: parsing and re-encoding would change them.
		if err := verifySignature(secret, r.Header.Get("X-Service-Signature"), body, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var ev Event
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(w, "not an event", http.StatusBadRequest)
			return
		}
		// Delivery is at least once: handle should skip an ev.ID it has seen.
		if err := handle(ev); err != nil {
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent) // any 2xx within 10 s acknowledges
	})
}
