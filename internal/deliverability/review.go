package deliverability

import (
	"strings"

	"github.com/sesame-mail/sesame/internal/review"
)

// reviewRules names the problems the security review (internal/review)
// reports, by its reason, with the rule and message of each here: the
// markup and link rules are the review's own, so an email this check
// passes is not held for them.
var reviewRules = map[string]struct {
	id      ID
	message string
}{
	"contains script":                              {Script, "The HTML contains <script>: mail clients never run it and filters treat it as an attack."},
	"contains a form":                              {Form, "The HTML contains a <form>: many clients disable forms, and filters treat one as phishing."},
	"asks for a password":                          {PasswordField, "The HTML has a password field: asking for credentials in an email is phishing's mark."},
	"contains a javascript: URL":                   {JavascriptURL, "The HTML holds a javascript: URL: clients never run it and filters treat it as an attack."},
	"a link shows one address and goes to another": {DeceptiveLink, "A link's text shows one address and its target goes to another domain: the mark of phishing."},
	"links to a bare IP address":                   {IPLink, "A link goes to a bare IP address instead of a domain: filters treat it as a sign of spam or malware."},
	"uses a URL shortener":                         {URLShortener, "A link goes through a public URL shortener: spammers share these domains, so their reputation is poor and they hide the target."},
}

// checkMarkup applies the security review's layout and link checks. A
// reason this package does not know is still reported, as SecurityReview.
func checkMarkup(body string, found map[ID]string) {
	var unknown []string
	for _, reason := range review.CheckMarkup(body).Reasons {
		if r, ok := reviewRules[reason]; ok {
			found[r.id] = r.message
		} else {
			unknown = append(unknown, reason)
		}
	}
	if len(unknown) > 0 {
		found[SecurityReview] = "The security review would hold this email: " + strings.Join(unknown, "; ") + "."
	}
}
