package vllmsim

import (
	"fmt"
	"net/http"

	"github.com/llmslo/llmslo/vllmsim/wire"
)

// Error body shapes (Config.ErrorFormat): vLLM's flat error object up to
// 0.10.0, OpenAI's {"error": …} envelope from 0.10.1; package wire renders
// both.
const (
	ErrorFormatOpenAI = wire.FormatOpenAI // vLLM ≥ 0.10.1; the default
	ErrorFormatLegacy = wire.FormatLegacy // vLLM ≤ 0.10.0, for testing clients against older servers
)

// writeError answers with status and an error body in the server's
// format.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	wire.WriteError(w, s.Config.ErrorFormat, status, msg, "")
}

// checkErrorFormat validates Config.ErrorFormat, filling the default.
func (c *Config) checkErrorFormat() error {
	return chooseOne(&c.ErrorFormat, "--error-format", ErrorFormatOpenAI, ErrorFormatLegacy)
}

// chooseOne checks a setting of two values, the first its default when
// empty, and names the flag when it is neither.
func chooseOne(v *string, flag, def, other string) error {
	switch *v {
	case "":
		*v = def
	case def, other:
	default:
		return fmt.Errorf("vllmsim: %s must be %s or %s, got %q", flag, def, other, *v)
	}
	return nil
}

func init() {
	serveFlags["error-format"] = stringFlag(func(c *Config) *string { return &c.ErrorFormat })
}
