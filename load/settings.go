package load

import (
	"errors"
	"strings"
)

// SettingError is a Plan setting that validation refused. Plan validation
// is the one place a setting is checked; each face (the llmslo command,
// slotest) only calls the field what its user knows it as: a flag, an
// option (NameSettings).
type SettingError struct {
	// Field is the Plan field refused, e.g. "Rates" or "CancelAfter".
	Field string
	// Value is the refused value as text; empty when what is wrong is a
	// missing partner, not the value.
	Value string
	// Problem says why, naming any other Plan field as {Field}, so that a
	// face's names replace those too.
	Problem string
}

// Error is the message in the Plan's own words.
func (e *SettingError) Error() string { return e.Named(nil) }

// Named is the message with every Plan field called what name returns for
// it; a nil name, or one that returns "", keeps the field's own name.
func (e *SettingError) Named(name func(field string) string) string {
	call := func(field string) string {
		if name != nil {
			if n := name(field); n != "" {
				return n
			}
		}
		return field
	}
	problem := e.Problem
	for {
		open := strings.Index(problem, "{")
		end := strings.Index(problem[open+1:], "}")
		if open < 0 || end < 0 {
			break
		}
		field := problem[open+1 : open+1+end]
		problem = problem[:open] + call(field) + problem[open+2+end:]
	}
	if e.Value == "" {
		return call(e.Field) + " " + problem
	}
	return call(e.Field) + " " + e.Value + ": " + problem
}

// NameSettings returns err with a SettingError's fields called by names
// (Plan field to the face's flag or option, e.g. "Rates" to "--rates");
// fields names lacks keep their own name, and any other error is returned
// as it is. The result still unwraps to the SettingError.
func NameSettings(err error, names map[string]string) error {
	var se *SettingError
	if !errors.As(err, &se) {
		return err
	}
	return &namedSetting{msg: se.Named(func(f string) string { return names[f] }), err: se}
}

type namedSetting struct {
	msg string
	err *SettingError
}

func (n *namedSetting) Error() string { return n.msg }
func (n *namedSetting) Unwrap() error { return n.err }

// Validate checks the plan as Open will, before anything starts: every
// setting, and that it has a target and a fixture. A refused setting is a
// *SettingError.
func (p Plan) Validate() error { return p.validate() }
