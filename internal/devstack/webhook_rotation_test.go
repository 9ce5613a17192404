package devstack_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sesame-mail/sesame/internal/webhook"
)

// The owner rotates an endpoint's secret; the next delivery, through the
// whole pipeline, carries a v1 for the new and for the old secret, and a
// receiver holding either one verifies it.
func TestPipelineWebhookSecretRotation(t *testing.T) {
	p := startPipeline(t)
	ctx := t.Context()
	s := newSendWS(t, p.env, defaultSender())
	rcv := startReceiver(t)
	hooks := &webhook.Service{Endpoints: p.store.Webhooks, Attempts: p.store.Webhooks}
	ep, err := hooks.Add(ctx, webhook.EndpointRequest{WorkspaceID: s.id, URL: rcv.url, Events: []string{"email.delivered"}, AllowInsecureHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	oldSecret := ep.Secret
	newSecret, err := hooks.RotateSecret(ctx, s.id, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if newSecret == oldSecret {
		t.Fatal("the rotation kept the secret")
	}

	p.send(t, s.key, msg("rotated", nil))
	p.drain(t, 1) // Delivery
	if n, err := p.webhooks.PollOnce(ctx); err != nil || n != 1 {
		t.Fatalf("webhooks queue gave %d jobs (err %v), want 1", n, err)
	}
	got := rcv.received()
	if len(got) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(got))
	}
	header, body := got[0].header.Get(webhook.HeaderSignature), got[0].body
	if strings.Count(header, "t=") != 1 || strings.Count(header, "v1=") != 2 {
		t.Errorf("signature %q, want one t and two v1 entries", header)
	}
	for name, secret := range map[string]string{"new": newSecret, "old": oldSecret} {
		if err := webhook.Verify(secret, header, body, time.Now(), 0); err != nil {
			t.Errorf("webhook.Verify with the %s secret: %v", name, err)
		}
		verifySignature(t, secret, header, body, time.Now())
	}
	if err := webhook.Verify(webhook.NewSecret(), header, body, time.Now(), 0); err == nil {
		t.Error("a third secret verifies the delivery")
	}
}
