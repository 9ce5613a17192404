package deliverability

import (
	"net/url"
	"strings"

	"github.com/sesame-mail/sesame/internal/review"
)

// reviewRules names the problems the security review (internal/review)
// reports, by its reason, with the rule and message of each here: the
// brand, markup and link rules are the review's own, called through the
// same code as /send's, so an email this check passes is not held for
// them.
var reviewRules = map[string]struct {
	id      ID
	message string
}{
	review.ReasonForeignBrand:  {ForeignBrand, "The email names a brand the workspace does not own, so /send would hold it for review: "},
	review.ReasonScript:        {Script, "The HTML contains <script>: mail clients never run it and filters treat it as an attack."},
	review.ReasonForm:          {Form, "The HTML contains a <form>: many clients disable forms, and filters treat one as phishing."},
	review.ReasonPassword:      {PasswordField, "The HTML has a password field: asking for credentials in an email is phishing's mark."},
	review.ReasonJavascriptURL: {JavascriptURL, "The HTML holds a javascript: URL: clients never run it and filters treat it as an attack."},
	review.ReasonDeceptiveLink: {DeceptiveLink, "A link's text shows one address and its target goes to another domain: the mark of phishing."},
	review.ReasonIPLink:        {IPLink, "A link goes to a bare IP address instead of a domain: filters treat it as a sign of spam or malware."},
	review.ReasonShortener:     {URLShortener, "A link goes through a public URL shortener: spammers share these domains, so their reputation is poor and they hide the target."},
}

// ReviewRule reports whether id is one of the security review's rules,
// which /send holds email for.
func ReviewRule(id ID) bool {
	if id == SecurityReview {
		return true
	}
	for _, r := range reviewRules {
		if r.id == id {
			return true
		}
	}
	return false
}

// checkReview maps each finding of the security review to the check's,
// leaving out those about Sesame's own links. A reason this package does
// not know is still reported, as SecurityReview.
func checkReview(in Input, found map[ID]string) {
	var unknown []string
	for _, f := range review.Findings(in.Subject, in.HTML, in.OwnBrands) {
		if f.Link != "" && ownLink(f.Link, in.Own) {
			continue
		}
		r, ok := reviewRules[f.Reason]
		switch {
		case !ok:
			unknown = append(unknown, f.Reason)
		case r.id == ForeignBrand:
			found[r.id] = r.message + quoteList(f.Brands) + "."
		default:
			found[r.id] = r.message
		}
	}
	if len(unknown) > 0 {
		found[SecurityReview] = "The security review would hold this email: " + strings.Join(unknown, "; ") + "."
	}
}

// ownLink reports whether href lies under one of the base URLs own: the
// same host and port, and a path at or below the base's. The scheme is
// not compared: http and https of one host are one owner.
func ownLink(href string, own []string) bool {
	if len(own) == 0 {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" {
		return false
	}
	for _, o := range own {
		base, err := url.Parse(o)
		if err != nil || base.Host == "" || !strings.EqualFold(base.Host, u.Host) {
			continue
		}
		prefix := strings.TrimSuffix(base.Path, "/")
		if u.Path == prefix || strings.HasPrefix(u.Path, prefix+"/") || prefix == "" {
			return true
		}
	}
	return false
}
