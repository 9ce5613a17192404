package compose_test

import (
	"errors"
	"net/mail"
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/compose"
	"github.com/sesame-mail/sesame/internal/compose/raw"
)

func TestParseAddress(t *testing.T) {
	ok := map[string]mail.Address{
		"r@example.org":                                              {Address: "r@example.org"},
		"<r@example.org>":                                            {Address: "r@example.org"},
		" Ann  Lee <ann@example.org> ":                               {Name: "Ann Lee", Address: "ann@example.org"},
		`"Lee, Ann" <ann@example.org>`:                               {Name: "Lee, Ann", Address: "ann@example.org"},
		"=?UTF-8?Q?Ren=C3=A9?= <r@x.io>":                             {Name: "René", Address: "r@x.io"},
		strings.Repeat("a", 64) + "@example.org":                     {Address: strings.Repeat("a", 64) + "@example.org"},
		`"` + strings.Repeat("é", 256) + `" <r@example.org>`:         {Name: strings.Repeat("é", 256), Address: "r@example.org"},
		"a@" + strings.Repeat("d", 240) + ".example":                 {Address: "a@" + strings.Repeat("d", 240) + ".example"},
		`"hello@demo.sesame.test" <a@beta.test>`:                     {Name: "hello@demo.sesame.test", Address: "a@beta.test"}, // ParseSender's to refuse
		"=?UTF-8?B?aGVsbG9AZGVtby5zZXNhbWUudGVzdA==?= <a@beta.test>": {Name: "hello@demo.sesame.test", Address: "a@beta.test"},
	}
	for in, want := range ok {
		got, err := compose.ParseAddress(in)
		if err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	refused := map[string]string{ // input: part of the message
		"":                                       "cannot parse",
		"r@example.org,":                         "cannot parse",
		",r@example.org":                         "cannot parse",
		"<r@example.org>,":                       "cannot parse",
		"r@example.org,,":                        "cannot parse",
		"a@x.com, b@y.com":                       "2 addresses",
		"nope":                                   "cannot parse",
		"r@localhost":                            "no domain",
		"a@b.test\r\nBcc: x@evil.test":           "line breaks",
		"=?UTF-8?Q?A=0D=0AB?= <a@b.test>":        "control characters",
		"=?UTF-8?Q?A=00B?= <a@b.test>":           "control characters",
		strings.Repeat("a", 65) + "@example.org": "longer than 64",
		"a@" + strings.Repeat("d", 250) + ".test":            "longer than 254",
		`"` + strings.Repeat("n", 257) + `" <r@example.org>`: "longer than 256",
		`"=?UTF-8?B?UGF5UGFs?=" <a@b.test>`:                  "=?",
	}
	for in, part := range refused {
		_, err := compose.ParseAddress(in)
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("ParseAddress(%q) = %v, want an error saying %q", in, err, part)
		}
	}
}

func TestCheckSenderName(t *testing.T) {
	cases := map[string]string{ // the sender: what the refusal shows, "" when accepted
		"Acme <hello@acme.test>":                                   "",
		`"hello@acme.test" <hello@acme.test>`:                      "",
		`"Acme (billing@eu.acme.test)" <hello@acme.test>`:          "",
		`"Mail @acme and a@b" <hello@acme.test>`:                   "",
		`"hello@demo.sesame.test" <a@beta.test>`:                   "hello@demo.sesame.test",
		`"Support <help@bank.example>" <a@beta.test>`:              "help@bank.example",
		`"x@beta.test.evil.test" <a@beta.test>`:                    "x@beta.test.evil.test",
		`"x@acme.test" <a@mail.acme.test>`:                         "x@acme.test",
		`"Bank: HELP@Bank.Example." <a@beta.test>`:                 "HELP@bank.example",
		"=?UTF-8?Q?help=EF=BC=A0bank=2Eexample?= <a@beta.test>":    "help@bank.example", // fullwidth at sign
		"=?UTF-8?Q?help=E2=80=8B=40bank=2Eexample?= <a@beta.test>": "help@bank.example", // zero-width space
	}
	for in, shows := range cases {
		_, err := compose.ParseSender(in)
		switch {
		case shows == "" && err != nil:
			t.Errorf("%s refused: %v", in, err)
		case shows != "" && (!errors.Is(err, compose.ErrForeignName) || !strings.Contains(err.Error(), "it shows "+shows) ||
			!strings.Contains(err.Error(), "another domain than the sender's")):
			t.Errorf("%s: %v, want a refusal showing %s", in, err, shows)
		}
	}
}

// Build reads every address with ParseAddress: what validation refused it
// refuses, what it accepted it writes as read.
func TestBuildReadsAddressesAsParseAddress(t *testing.T) {
	for _, bad := range []string{"r@example.org,", ",r@example.org", "<r@example.org>,", "", "r@localhost"} {
		m := baseMessage()
		m.ReplyTo = []string{"ok@example.test", bad}
		if _, err := raw.Build(m); !errors.Is(err, compose.ErrInvalid) {
			t.Errorf("reply-to %q: err = %v, want ErrInvalid", bad, err)
		}
		m = baseMessage()
		m.To = bad
		if _, err := raw.Build(m); !errors.Is(err, compose.ErrInvalid) {
			t.Errorf("to %q: err = %v, want ErrInvalid", bad, err)
		}
	}
	m := baseMessage()
	m.From.Name = "hello@demo.sesame.test"
	if _, err := raw.Build(m); !errors.Is(err, compose.ErrInvalid) {
		t.Errorf("from showing another domain's address: err = %v, want ErrInvalid", err)
	}

	m = baseMessage()
	m.To = " Bob  Example <bob@example.test>"
	m.ReplyTo = []string{`"Lee, Ann" <ann@example.test>`, "=?UTF-8?Q?Ren=C3=A9?= <r@x.io>"}
	msg, _ := parse(t, build(t, m))
	for header, want := range map[string][]mail.Address{
		"To":       {{Name: "Bob Example", Address: "bob@example.test"}},
		"Reply-To": {{Name: "Lee, Ann", Address: "ann@example.test"}, {Name: "René", Address: "r@x.io"}},
	} {
		got, err := msg.Header.AddressList(header)
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s = %v (%v), want %v", header, got, err, want)
		}
		for i := range want {
			if *got[i] != want[i] {
				t.Errorf("%s[%d] = %+v, want %+v", header, i, *got[i], want[i])
			}
		}
	}
}
