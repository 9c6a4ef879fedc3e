package load

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// URLTarget is a server that is already running, at URL (http or https;
// a trailing /v1 is dropped). Start asks its GET /v1/models, so a wrong
// URL or key fails before the first step. It cannot be restarted with
// other flags.
type URLTarget struct {
	URL    string
	Model  string // empty: the first model the server lists
	APIKey string // sent as a bearer token; never shown
}

// Start checks that the server answers and names its model.
func (t URLTarget) Start(ctx context.Context) (*Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(t.URL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("target %q is not an http(s) URL", redactURL(t.URL))
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	e := &Endpoint{Kind: KindURL, URL: u.String(), Model: strings.TrimSpace(t.Model), APIKey: t.APIKey}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := e.checkHealth(hctx); err != nil {
		return nil, err
	}
	return e, nil
}
