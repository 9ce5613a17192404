package email

// The Email object's source says what made the email: a key's API call,
// an OAuth connection's (its application named), a campaign or an
// automation. Rows stored before it are read from their type: only the
// API made transactional email then.

// Origin is the source field's type.
type Origin string

const (
	OriginAPI        Origin = "api"
	OriginConnection Origin = "connection"
	OriginCampaign   Origin = "campaign"
	OriginAutomation Origin = "automation"
)

// SourceView is the Email object's source.
type SourceView struct {
	Type Origin `json:"type"`
	// Connection is set when Type is connection.
	Connection *ConnectionView `json:"connection,omitempty"`
}

// ConnectionView names the connection that sent an email: the grant the
// dashboard lists and revokes, and its application.
type ConnectionView struct {
	ID         string `json:"id"`
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
}

// SourceOf is e's source.
func SourceOf(e Email) SourceView {
	switch {
	case e.Type == TypeCampaign:
		return SourceView{Type: OriginCampaign}
	case e.Type == TypeAutomation:
		return SourceView{Type: OriginAutomation}
	case e.Connection != nil:
		c := e.Connection
		return SourceView{Type: OriginConnection, Connection: &ConnectionView{ID: c.GrantID, ClientID: c.ClientID, ClientName: c.ClientName}}
	}
	return SourceView{Type: OriginAPI}
}
