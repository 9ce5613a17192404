package review

import (
	"math/bits"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	base := `<html><body><h1 class="t">Hi Ann</h1><p>Your order #123 ships today.</p><a href="https://shop.example/o/123">Track</a></body></html>`
	cases := map[string]struct {
		other string
		same  bool
	}{
		"different text and values": {`<html><body><h1 class="x">Hi Bob</h1><p>Your order #999 ships soon.</p><a href="https://shop.example/o/999">Follow</a></body></html>`, true},
		"attribute order":           {`<html><body><h1 class="t">Hi Ann</h1><p>Your order #123 ships today.</p><a href="https://shop.example/o/123">Track</a></body></html>`, true},
		"extra element":             {`<html><body><h1 class="t">Hi Ann</h1><p>Your order</p><img src="x"><a href="y">Track</a></body></html>`, false},
		"extra attribute":           {`<html><body><h1 class="t" id="a">Hi Ann</h1><p>x</p><a href="y">Track</a></body></html>`, false},
		"plain text only":           {`Hello there`, false},
	}
	want := Fingerprint(base)
	if len(want) != 64 {
		t.Fatalf("fingerprint %q is not hex SHA-256", want)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Fingerprint(tc.other) == want; got != tc.same {
				t.Errorf("same = %v, want %v", got, tc.same)
			}
		})
	}
}

// The fingerprint of a layout never changes: stored template verdicts are
// keyed by it.
func TestFingerprintIsStable(t *testing.T) {
	body := `<html><body><h1 class="t" id="x" data-b="1">Hi</h1><p>x<br/></p><a href="y" B="2">z</a></body></html>`
	if got, want := Fingerprint(body), "b2c26341b319f2300b9fa0c6270c587710934aec238570da092f928ea84c259b"; got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
	raw, err := os.ReadFile("../bench/testdata/newsletter-10k.html")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Fingerprint(string(raw)), "b682dbcdb0368f92edc3f04df9f96749ae17eca57cc8892cd49bbf606652f0f9"; got != want {
		t.Errorf("Fingerprint of the newsletter = %s, want %s", got, want)
	}
}

// A domain owns a brand only by its registrable name (the label left of
// the public suffix); names and brands own it by whole words, as before.
func TestOwnsBrand(t *testing.T) {
	cases := []struct {
		own   string
		brand string
		owns  bool
	}{
		{"netflix.com", "netflix", true},
		{"mail.netflix.com", "netflix", true},
		{"netflix.co.uk", "netflix", true},
		{"Netflix.COM.", "netflix", true},
		{"bankofamerica.com", "bank of america", true},
		{"bank-of-america.com", "bank of america", true},
		{"paypal.example", "paypal", true},
		{"netflix-payments-update.com", "netflix", false},
		{"netflixhelp.net", "netflix", false},
		{"secure-paypal.example", "paypal", false},
		{"netflix.evil.com", "netflix", false},
		{"paypal.co.uk.evil.io", "paypal", false},
		{"co.uk", "netflix", false},
		{"pineapple.shop", "apple", false},
		// Names and configured brands keep the word rule.
		{"Netflix", "netflix", true},
		{"Netflix Payments", "netflix", true},
		{"PayPal Holdings", "paypal", true},
		{"PayPalooza Events", "paypal", false},
	}
	for _, tc := range cases {
		if got := ownsBrand([]string{tc.own}, tc.brand); got != tc.owns {
			t.Errorf("ownsBrand(%q, %q) = %v, want %v", tc.own, tc.brand, got, tc.owns)
		}
	}
}

func TestForeignBrands(t *testing.T) {
	cases := map[string]struct {
		subject, body string
		own           []string
		want          []string
	}{
		"none":                     {"Your receipt", "<p>Thanks for shopping at Acme</p>", []string{"Acme"}, nil},
		"paypal in subject":        {"Your PayPal account is locked", "<p>x</p>", []string{"Acme"}, []string{"paypal"}},
		"brand in text":            {"Hello", "<p>Sign in to Microsoft now</p>", []string{"Acme"}, []string{"microsoft"}},
		"own brand":                {"PayPal receipt", "<p>x</p>", []string{"PayPal Holdings"}, nil},
		"own domain":               {"Your Netflix plan", "<p>x</p>", []string{"netflix.com"}, nil},
		"own subdomain":            {"Your Stripe receipt", "<p>x</p>", []string{"mail.stripe.com"}, nil},
		"own domain, words joined": {"Bank of America alert", "<p>x</p>", []string{"bankofamerica.com"}, nil},
		// Owning is by whole words and domain labels, not by containing.
		"domain containing a brand":     {"Apple ID locked", "<p>x</p>", []string{"pineapple.shop"}, []string{"apple"}},
		"label containing a brand":      {"UPS: parcel waiting", "<p>x</p>", []string{"groupsoft.io"}, []string{"ups"}},
		"brand as one word of a domain": {"Your Netflix membership is on hold", "<p>x</p>", []string{"netflix-payments-update.com"}, []string{"netflix"}},
		"name containing a brand":       {"Your PayPal receipt", "<p>x</p>", []string{"PayPalooza Events"}, []string{"paypal"}},
		"brand only in attribute":       {"Hi", `<a href="https://apple.com">link</a>`, []string{"Acme"}, nil},
		"brand only in script":          {"Hi", `<script>var google = 1</script>`, []string{"Acme"}, nil},
		"word inside another word":      {"Pineapple news", "<p>Snapple</p>", []string{"Acme"}, nil},
		// Shown whole, however the markup or invisible characters split it.
		"split by an element":  {"Hi", "<p>Pay<span></span>Pal</p>", nil, []string{"paypal"}},
		"split by inline tags": {"Hi", "<p>Micro<b>soft</b></p>", nil, []string{"microsoft"}},
		"split by a comment":   {"Hi", "<p>Net<!-- x -->flix</p>", nil, []string{"netflix"}},
		"soft hyphen":          {"Hi", "<p>Pay&shy;Pal</p>", nil, []string{"paypal"}},
		"zero-width space":     {"Pay\u200bPal login", "<p>x</p>", nil, []string{"paypal"}},
		"spaces doubled":       {"Bank  of  America alert", "<p>x</p>", nil, []string{"bank of america"}},
		"line break in HTML":   {"Hi", "<p>Wells\n  Fargo</p>", nil, []string{"wells fargo"}},
		"non-breaking space":   {"Hi", "<p>Wells&nbsp;Fargo</p>", nil, []string{"wells fargo"}},
		"brands in two blocks": {"Hi", "<p>Hello</p><p>PayPal</p>", nil, []string{"paypal"}},
		// A mentioned brand (a word, a carrier, a product) is foreign only
		// where the email claims it.
		"apple id, apple-security":  {"Apple ID locked", "<p>Verify at apple-security.example now</p>", nil, []string{"apple"}},
		"lower-case apple id":       {"Hi", "<p>your apple id was used</p>", nil, []string{"apple"}},
		"your amazon order":         {"Your Amazon order is on hold", "<p>x</p>", nil, []string{"amazon"}},
		"sign in to steam":          {"Hi", "<p>Sign in to Steam to keep your games</p>", nil, []string{"steam"}},
		"log into outlook":          {"Hi", "<p>Log into Outlook today</p>", nil, []string{"outlook"}},
		"carrier speaking":          {"USPS: delivery failed", "<p>x</p>", nil, []string{"usps"}},
		"carrier colon after space": {"Hi", "<p>DHL : pay the customs fee</p>", nil, []string{"dhl"}},
		"dear customer":             {"Hi", "<p>Dear Chase customer,</p>", nil, []string{"chase"}},
		"security team":             {"Hi", "<p>The Amazon Security Team</p>", nil, []string{"amazon"}},
		"claim split by a tag":      {"Hi", "<p>your<b></b>Apple<i></i>ID</p>", nil, []string{"apple"}},
		"claim split inside brand":  {"Hi", "<p>Ste<b></b>am account</p>", nil, []string{"steam"}},
		"subject opens with it":     {"Amazon order 1234", "<p>x</p>", nil, []string{"amazon"}},
		"text opens with it":        {"Hi", "<section><p>DHL parcel waiting</p></section>", nil, []string{"dhl"}},
		"a red apple":               {"Decaf", "<p>It tastes of red apple and brown sugar.</p>", nil, nil},
		"shipped by usps":           {"Your order has shipped", "<p>Carrier: USPS Ground Advantage. Shipped by USPS.</p>", nil, nil},
		"steam deck":                {"New sign-in to your account", "<p>A new device: <b>Steam Deck, Helsinki</b></p>", nil, nil},
		"steam deck support":        {"Patch 2.4", "<p>Adds controller support on the Steam Deck.</p>", nil, nil},
		"follow us":                 {"Hi", "<p>Follow us on Instagram and LinkedIn. Find us on Google Maps.</p>", nil, nil},
		"sign in with google":       {"Hi", "<p>Sign in with Google or Apple</p>", nil, nil},
		"word then sentence":        {"Hi", "<p>We ship with UPS. Account settings are below.</p>", nil, nil},
		"brand in next block":       {"Hi", "<p>Your order</p><p>FedEx</p>", nil, nil},
		"strict brand still bare":   {"Hi", "<p>Pay with PayPal or Apple Pay</p>", nil, []string{"paypal"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := readPage(tc.body, true).foreignBrands(tc.subject, tc.own)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// Every mentioned brand is one of the impersonated list: one that is not
// would never be named, claimed or not.
func TestMentionedAreImpersonated(t *testing.T) {
	for _, b := range mentioned {
		if !slices.Contains(impersonated, b) {
			t.Errorf("mentioned brand %q is not in impersonated", b)
		}
	}
	if got := bits.OnesCount64(uint64(brands().mentioned)); got != len(mentioned) {
		t.Errorf("%d brands in the mentioned set, want %d", got, len(mentioned))
	}
}

func TestCheck(t *testing.T) {
	own := []string{"Acme", "acme.example"}
	cases := map[string]struct {
		subject, body string
		cleared       bool
		reason        string
	}{
		"clean receipt":    {"Receipt", `<p>Thanks</p><a href="https://acme.example/r/1">acme.example/r/1</a>`, true, ""},
		"foreign brand":    {"Verify your PayPal", `<p>x</p>`, false, "brand"},
		"form":             {"Hi", `<form action="https://x.example"><input name="a"></form>`, false, "form"},
		"password input":   {"Hi", `<input type="password">`, false, "password"},
		"script":           {"Hi", `<script>alert(1)</script>`, false, "script"},
		"javascript url":   {"Hi", `<a href="javascript:alert(1)">x</a>`, false, "javascript"},
		"deceptive link":   {"Hi", `<a href="https://evil.example/login">https://acme.example/login</a>`, false, "shows one address"},
		"subdomain link":   {"Hi", `<a href="https://mail.acme.example/x">acme.example</a>`, true, ""},
		"ip link":          {"Hi", `<a href="http://203.0.113.9/x">here</a>`, false, "IP"},
		"shortener":        {"Hi", `<a href="https://bit.ly/abc">here</a>`, false, "shortener"},
		"plain link words": {"Hi", `<a href="https://acme.example/x">Open your account</a>`, true, ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v := Check(tc.subject, tc.body, own)
			if v.Cleared != tc.cleared {
				t.Fatalf("cleared = %v (%v), want %v", v.Cleared, v.Reasons, tc.cleared)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(v.Reasons, ";"), tc.reason) {
				t.Errorf("reasons %v do not mention %q", v.Reasons, tc.reason)
			}
		})
	}
}

// FuzzNamedBrands holds the one-pass scanner to what a case-insensitive
// `\b<brand>\b` regular expression per brand finds.
func FuzzNamedBrands(f *testing.F) {
	for _, seed := range []string{"Your PayPal account", "Bank of America", "bank  of america", "wells_fargo",
		"office 365!", "ups-dhl", "Pineapple", "icloud.com", "é Apple é", "AMAZON\nprime"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := namedBrands([]byte(text))
		for i, b := range impersonated {
			want := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(b) + `\b`).MatchString(text)
			if got.has(i) != want {
				t.Errorf("%q: brand %q named = %v, the regexp says %v", text, b, got.has(i), want)
			}
		}
	})
}

// FuzzDomainLike holds the hand-written address test to the regular
// expression it replaces.
func FuzzDomainLike(f *testing.F) {
	for _, seed := range []string{"acme.example", "https://acme.example/login", "HTTP://A.B.co/x y", "a..b", ".com", "a.b",
		"acme.example/path\v", "xn--d1a.example", "httpſ://acme.example", "acme.\u212aom", "https://", "a-b.c-d.ef/", "acme.example "} {
		f.Add(seed)
	}
	re := regexp.MustCompile(`(?i)^(https?://)?([a-z0-9-]+\.)+[a-z]{2,}(/\S*)?$`)
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := domainLike(text), re.MatchString(text); got != want {
			t.Errorf("domainLike(%q) = %v, the regexp says %v", text, got, want)
		}
	})
}

func TestIsWordByte(t *testing.T) {
	for c := range 256 {
		want := c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if got := isWordByte(byte(c)); got != want {
			t.Errorf("isWordByte(%q) = %v", rune(c), got)
		}
	}
}

// Findings are Check's reasons one by one: each link problem with its
// link, the brands named, and the same distinct reasons as Check.
func TestFindings(t *testing.T) {
	body := `<p>Your Netflix plan</p><a href="https://bit.ly/a">one</a><a href="https://bit.ly/b">two</a>` +
		`<a href="http://192.0.2.7/x">www.bank.example</a><script></script>`
	got := Findings("PayPal receipt", body, []string{"Acme"})
	want := []Finding{
		{Reason: ReasonForeignBrand, Brands: []string{"paypal", "netflix"}},
		{Reason: ReasonScript},
		{Reason: ReasonShortener, Link: "https://bit.ly/a"},
		{Reason: ReasonShortener, Link: "https://bit.ly/b"},
		{Reason: ReasonIPLink, Link: "http://192.0.2.7/x"},
		{Reason: ReasonDeceptiveLink, Link: "http://192.0.2.7/x"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Findings = %+v\nwant %+v", got, want)
	}
	if r, v := reasonsOf(got), Check("PayPal receipt", body, []string{"Acme"}).Reasons; !reflect.DeepEqual(r, v) {
		t.Errorf("distinct reasons %q, Check's %q", r, v)
	}
}

// reasonsOf is the distinct reasons of fs, in order, as Check words them.
func reasonsOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		r := f.Reason
		if r == ReasonForeignBrand {
			r += ": " + strings.Join(f.Brands, ", ")
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
