package identity

import (
	"context"

	"github.com/sesame-mail/sesame/internal/ident"
)

// DomainKeeper keeps a workspace's sending domains and the claims that give
// each domain to one workspace.
type DomainKeeper interface {
	// CanAddDomain says why the workspace cannot add the domain, if it
	// cannot: absent workspace, domain added already, or claimed by another.
	CanAddDomain(ctx context.Context, workspaceID, name string) error
	AddDomain(ctx context.Context, workspaceID, name string, records []DNSRecord) (Domain, error)
	SetDomainStatus(ctx context.Context, workspaceID, name string, status DomainStatus, records []DNSRecord) (Domain, error)
	ListDomains(ctx context.Context, workspaceID, after string, limit int) ([]Domain, string, bool, error)
}

// Identities is SES's side of a domain (ses.Client).
type Identities interface {
	// CreateDomain makes the domain an identity with Easy DKIM and returns
	// the DNS records to publish; for an existing identity, its records.
	CreateDomain(ctx context.Context, domain, configurationSet string) ([]DNSRecord, error)
	DomainStatus(ctx context.Context, domain string) (ProviderStatus, error)
}

// Domains adds a workspace's sending domains as SES identities and keeps
// their verification in step with SES.
type Domains struct {
	Store      DomainKeeper
	Identities Identities
}

// DomainRequest asks for a sending domain.
type DomainRequest struct {
	WorkspaceID string
	Name        string
	// ConfigurationSet is the identity's default SES configuration set;
	// empty for none.
	ConfigurationSet string
}

// DomainCheck is a domain after its verification was read from SES.
type DomainCheck struct {
	Domain Domain
	// DKIMStatus is SES's word: PENDING, SUCCESS, FAILED, TEMPORARY_FAILURE
	// or NOT_STARTED.
	DKIMStatus string
}

// domainsPage is how many domains one read lists.
const domainsPage = 100

// Add creates the domain's SES identity and records the domain as pending,
// with the DNS records the owner publishes. A domain the workspace cannot
// have is refused before SES is touched: SES identities belong to the
// whole AWS account, so a domain belongs to one workspace.
func (d *Domains) Add(ctx context.Context, req DomainRequest) (Domain, error) {
	if err := ident.RequireWorkspace(req.WorkspaceID); err != nil {
		return Domain{}, err
	}
	if err := d.Store.CanAddDomain(ctx, req.WorkspaceID, req.Name); err != nil {
		return Domain{}, err
	}
	records, err := d.Identities.CreateDomain(ctx, req.Name, req.ConfigurationSet)
	if err != nil {
		return Domain{}, err
	}
	return d.Store.AddDomain(ctx, req.WorkspaceID, req.Name, records)
}

// Status reads the domain's verification from SES and records it: verified
// puts the domain among those the workspace sends from, and a DKIM failure
// takes it out again.
func (d *Domains) Status(ctx context.Context, workspaceID, name string) (DomainCheck, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return DomainCheck{}, err
	}
	st, err := d.Identities.DomainStatus(ctx, name)
	if err != nil {
		return DomainCheck{}, err
	}
	dom, err := d.Store.SetDomainStatus(ctx, workspaceID, name, domainState(st), st.Records)
	if err != nil {
		return DomainCheck{}, err
	}
	return DomainCheck{Domain: dom, DKIMStatus: st.DKIMStatus}, nil
}

// domainState is what SES's answer means for sending from the domain.
func domainState(st ProviderStatus) DomainStatus {
	switch {
	case st.Verified:
		return DomainVerified
	case st.DKIMStatus == "FAILED" || st.DKIMStatus == "TEMPORARY_FAILURE":
		return DomainFailed
	}
	return DomainPending
}

// List returns the workspace's domains, newest first.
func (d *Domains) List(ctx context.Context, workspaceID string) ([]Domain, error) {
	if err := ident.RequireWorkspace(workspaceID); err != nil {
		return nil, err
	}
	all := []Domain{}
	for after, more := "", true; more; {
		var page []Domain
		var err error
		page, after, more, err = d.Store.ListDomains(ctx, workspaceID, after, domainsPage)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
	}
	return all, nil
}
