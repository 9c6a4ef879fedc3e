package serve

import (
	"errors"
	"sort"
	"strings"
)

// redacted replaces a secret's value wherever it would be shown.
const redacted = "[REDACTED]"

// secretNameParts mark an environment variable as a credential.
var secretNameParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "CREDENTIAL", "PRIVATE_KEY"}

// IsSecretName reports whether an environment variable's value must never be
// shown.
func IsSecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, p := range secretNameParts {
		if strings.Contains(upper, p) {
			return true
		}
	}
	return false
}

// Redactor removes known secret values from text.
type Redactor struct {
	secrets []string // longest first, so that a secret containing another is replaced whole
}

// secretFlags take a credential as their value on vLLM's command line.
var secretFlags = []string{"--api-key"}

// NewRedactor collects the values of the credential-like variables of env
// and of the credential flags of cmd.
func NewRedactor(env map[string]string, cmd []string) *Redactor {
	r := &Redactor{}
	for k, v := range env {
		if v != "" && IsSecretName(k) {
			r.secrets = append(r.secrets, v)
		}
	}
	for i, a := range cmd {
		for _, f := range secretFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok && v != "" {
				r.secrets = append(r.secrets, v)
			}
			if a == f && i+1 < len(cmd) && cmd[i+1] != "" {
				r.secrets = append(r.secrets, cmd[i+1])
			}
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// String returns s with every secret replaced by [REDACTED].
func (r *Redactor) String(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
	}
	return s
}

// leaks reports whether s contains a secret.
func (r *Redactor) leaks(s string) bool {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			return true
		}
	}
	return false
}

// Error returns err with its text redacted. It keeps err in the chain (for
// errors.Is and errors.As) only when no error in the chain shows a secret;
// otherwise the chain is cut, so that no unwrapping can reveal one.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	if !r.chainLeaks(err) {
		return err
	}
	return errors.New(r.String(err.Error()))
}

func (r *Redactor) chainLeaks(err error) bool {
	if err == nil {
		return false
	}
	if r.leaks(err.Error()) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return r.chainLeaks(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if r.chainLeaks(e) {
				return true
			}
		}
	}
	return false
}
