package devstack_test

import (
	"net/http"
	"testing"

	"github.com/sesame-mail/sesame/internal/workspace"
)

func TestSendTracking(t *testing.T) {
	t.Parallel()
	e := startDev(t)
	yes := true
	essential := "essential"
	cases := map[string]struct {
		settings workspace.Settings
		tracking string
		set      string
		mode     string
	}{
		"default is full":                {workspace.Settings{}, "", "full-set", "full"},
		"essential requested":            {workspace.Settings{}, "essential", "essential-set", "essential"},
		"full requested":                 {workspace.Settings{}, "full", "full-set", "full"},
		"off, provisioned":               {workspace.Settings{TrackingOffProvisioned: &yes}, "off", "off-set", "off"},
		"workspace default essential":    {workspace.Settings{DefaultTracking: &essential}, "", "essential-set", "essential"},
		"request overrides the default":  {workspace.Settings{DefaultTracking: &essential}, "full", "full-set", "full"},
		"provisioned, but not requested": {workspace.Settings{TrackingOffProvisioned: &yes}, "", "full-set", "full"},
	}
	for name, tc := range cases {
		s := newSendWS(t, e, defaultSender())
		if tc.settings != (workspace.Settings{}) {
			s.update(t, e, tc.settings)
		}
		t.Run(name, func(t *testing.T) {
			req := msg("track", map[string]any{"tracking": tc.tracking})
			if tc.tracking == "" {
				delete(req, "tracking")
			}
			b := e.postTo(t, e.url, s.key, "/api/v1/send", req).sent(t, http.StatusOK)
			b.want(t, true, "sent")
			if d := e.emailData(t, s.key, b.ID); d["open_tracking_mode"] != tc.mode {
				t.Errorf("open_tracking_mode = %v, want %s", d["open_tracking_mode"], tc.mode)
			}
			sends := e.ses.sendsTo(req["to"].(string))
			if len(sends) != 1 || sends[0].ConfigurationSet != tc.set {
				t.Fatalf("SES sends %+v, want one with configuration set %s", sends, tc.set)
			}
			if sends[0].Tags["email_id"] != b.ID || sends[0].Tags["workspace_id"] != s.id {
				t.Errorf("tags = %v", sends[0].Tags)
			}
		})
	}
}
