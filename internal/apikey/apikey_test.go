package apikey_test

import (
	"strings"
	"testing"

	"github.com/sesame-mail/sesame/internal/apikey"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func TestGenerate(t *testing.T) {
	cases := map[string]struct {
		env    apikey.Environment
		prefix string
	}{
		"live": {env: apikey.Live, prefix: "ps_live_"},
		"test": {env: apikey.Test, prefix: "ps_test_"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			seen := map[string]bool{}
			for range 200 {
				key := apikey.Generate(tc.env)
				secret, ok := strings.CutPrefix(key, tc.prefix)
				if !ok {
					t.Fatalf("key %q lacks prefix %s", key, tc.prefix)
				}
				if len(secret) != 40 {
					t.Fatalf("key %q has a %d-character secret, want 40", key, len(secret))
				}
				if i := strings.IndexFunc(secret, func(r rune) bool { return !strings.ContainsRune(base62, r) }); i >= 0 {
					t.Fatalf("key %q has non-base62 %q", key, secret[i])
				}
				if env, ok := apikey.Parse(key); !ok || env != tc.env {
					t.Fatalf("Parse(%q) = %q, %v; want %q, true", key, env, ok, tc.env)
				}
				if seen[key] {
					t.Fatalf("key %q generated twice", key)
				}
				seen[key] = true
			}
		})
	}
}

// TestGenerateUsesWholeAlphabet guards against a biased or truncated
// alphabet: across many keys every base62 character shows up.
func TestGenerateUsesWholeAlphabet(t *testing.T) {
	var all strings.Builder
	for range 100 { // 4,000 characters; a missing one is ~e^-64 likely
		all.WriteString(apikey.Generate(apikey.Live)[len("ps_live_"):])
	}
	for _, c := range base62 {
		if !strings.ContainsRune(all.String(), c) {
			t.Errorf("character %q never generated", c)
		}
	}
}

func TestParse(t *testing.T) {
	secret := strings.Repeat("aZ09", 10) // 40 base62 characters
	cases := map[string]struct {
		key     string
		wantEnv apikey.Environment
		wantOK  bool
	}{
		"live":                {key: "ps_live_" + secret, wantEnv: apikey.Live, wantOK: true},
		"test":                {key: "ps_test_" + secret, wantEnv: apikey.Test, wantOK: true},
		"all of base62":       {key: "ps_live_" + base62[:40], wantEnv: apikey.Live, wantOK: true},
		"rest of base62":      {key: "ps_live_" + base62[22:], wantEnv: apikey.Live, wantOK: true},
		"empty":               {key: ""},
		"prefix only":         {key: "ps_live_"},
		"sk_live_ prefix":     {key: "sk_live_" + secret},
		"ps_prod_ prefix":     {key: "ps_prod_" + secret},
		"prefix in capitals":  {key: "PS_LIVE_" + secret},
		"no prefix":           {key: secret},
		"prefix without _":    {key: "ps_live" + secret},
		"39 characters":       {key: "ps_live_" + secret[:39]},
		"41 characters":       {key: "ps_live_" + secret + "a"},
		"hyphen":              {key: "ps_live_" + secret[:39] + "-"},
		"underscore":          {key: "ps_live_" + secret[:39] + "_"},
		"plus":                {key: "ps_test_+" + secret[1:]},
		"slash":               {key: "ps_test_/" + secret[1:]},
		"equals padding":      {key: "ps_live_" + secret[:39] + "="},
		"space inside":        {key: "ps_live_" + secret[:20] + " " + secret[21:]},
		"leading space":       {key: " ps_live_" + secret},
		"trailing newline":    {key: "ps_live_" + secret[:39] + "\n"},
		"non-ASCII, 40 bytes": {key: "ps_live_" + secret[:38] + "é"},
		"NUL byte":            {key: "ps_live_" + secret[:39] + "\x00"},
		"both prefixes":       {key: "ps_live_ps_test_" + secret[:32]},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env, ok := apikey.Parse(tc.key)
			if ok != tc.wantOK || env != tc.wantEnv {
				t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.key, env, ok, tc.wantEnv, tc.wantOK)
			}
		})
	}
}

func TestHash(t *testing.T) {
	cases := map[string]struct {
		key  string
		want string
	}{
		// SHA-256 test vectors (FIPS 180-2).
		"empty": {key: "", want: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		"abc":   {key: "abc", want: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := apikey.Hash(tc.key); got != tc.want {
				t.Errorf("Hash(%q) = %s, want %s", tc.key, got, tc.want)
			}
		})
	}

	key := apikey.Generate(apikey.Live)
	h := apikey.Hash(key)
	if h != apikey.Hash(key) {
		t.Error("Hash is not stable")
	}
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		t.Errorf("Hash = %q, want 64 lowercase hex digits", h)
	}
	if strings.Contains(h, key[len("ps_live_"):][:8]) {
		t.Errorf("Hash %q contains the key", h)
	}
	if apikey.Hash(apikey.Generate(apikey.Live)) == h {
		t.Error("two keys share a hash")
	}
	// The prefix is part of what is hashed: the same secret in the other
	// environment is another key.
	if apikey.Hash("ps_test_"+key[len("ps_live_"):]) == h {
		t.Error("live and test keys with one secret share a hash")
	}
}

func TestHint(t *testing.T) {
	key := apikey.Generate(apikey.Live)
	hint := apikey.Hint(key)
	if hint != key[:12]+"…" {
		t.Errorf("Hint = %q, want the prefix, 4 characters and an ellipsis, no more", hint)
	}
}

func TestEnvironment(t *testing.T) {
	cases := map[string]struct {
		env        apikey.Environment
		wantValid  bool
		wantPrefix string
	}{
		"live":  {env: apikey.Live, wantValid: true, wantPrefix: "ps_live_"},
		"test":  {env: apikey.Test, wantValid: true, wantPrefix: "ps_test_"},
		"empty": {env: ""},
		"prod":  {env: "prod"},
		"LIVE":  {env: "LIVE"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.env.Valid(); got != tc.wantValid {
				t.Errorf("Valid() = %v, want %v", got, tc.wantValid)
			}
			if tc.wantValid && tc.env.Prefix() != tc.wantPrefix {
				t.Errorf("Prefix() = %q, want %q", tc.env.Prefix(), tc.wantPrefix)
			}
		})
	}
}
