package email_test

import (
	"reflect"
	"testing"

	"github.com/sesame-mail/sesame/internal/email"
)

// An email's source follows what made it; a connection's names it, and a
// row from before the field reads as the API's.
func TestSourceOf(t *testing.T) {
	conn := &email.Connection{GrantID: "g1", ClientID: "sesame-client-1", ClientName: "Claude"}
	for name, tc := range map[string]struct {
		e    email.Email
		want email.SourceView
	}{
		"a key's send":      {email.Email{Type: email.TypeTransactional}, email.SourceView{Type: email.OriginAPI}},
		"a legacy row":      {email.Email{}, email.SourceView{Type: email.OriginAPI}},
		"a connection's":    {email.Email{Type: email.TypeTransactional, Connection: conn}, email.SourceView{Type: email.OriginConnection, Connection: &email.ConnectionView{ID: "g1", ClientID: "sesame-client-1", ClientName: "Claude"}}},
		"a campaign's":      {email.Email{Type: email.TypeCampaign}, email.SourceView{Type: email.OriginCampaign}},
		"an automation's":   {email.Email{Type: email.TypeAutomation}, email.SourceView{Type: email.OriginAutomation}},
		"campaign wins out": {email.Email{Type: email.TypeCampaign, Connection: conn}, email.SourceView{Type: email.OriginCampaign}},
	} {
		if got := email.SourceOf(tc.e); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", name, got, tc.want)
		}
		if got := tc.e.View().Source; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: View().Source %+v", name, got)
		}
	}
}
