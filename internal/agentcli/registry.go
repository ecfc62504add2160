package agentcli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Default registry roots.
const (
	DefaultNPMRegistry = "https://registry.npmjs.org/"
	DefaultPyPI        = "https://pypi.org/"
)

// Registries finds the newest published version of a CLI through the
// registries' metadata APIs: the npm registry's package document
// (GET <registry>/<package>, "dist-tags".latest) and PyPI's JSON API
// (GET <pypi>/pypi/<package>/json, info.version).
type Registries struct {
	NPM  string       // registry root; "" means DefaultNPMRegistry
	PyPI string       // PyPI root; "" means DefaultPyPI
	HTTP *http.Client // nil means a client with a 30 s timeout
}

// RegistriesFromEnv takes the npm registry from npm_config_registry (what
// npm itself honours; NPM_CONFIG_REGISTRY too) and PyPI's root from
// R2D_PYPI_URL.
func RegistriesFromEnv(getenv func(string) string) Registries {
	return Registries{NPM: cmp.Or(getenv("npm_config_registry"), getenv("NPM_CONFIG_REGISTRY")), PyPI: getenv("R2D_PYPI_URL")}
}

// Latest returns the newest published version of c's package.
func (r Registries) Latest(ctx context.Context, c CLI) (string, error) {
	hc := r.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	// Scoped names are one path segment: @scope%2fname, as npm sends them.
	u := root(r.NPM, DefaultNPMRegistry) + strings.Replace(url.PathEscape(c.Package), "%2F", "%2f", 1)
	if c.Registry == PyPI {
		u = root(r.PyPI, DefaultPyPI) + "pypi/" + url.PathEscape(c.Package) + "/json"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("resolve latest %s: %w", c.Package, err)
	}
	// The abbreviated npm document is all that is needed (and much smaller).
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8")
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("resolve latest %s: %w", c.Package, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return "", fmt.Errorf("resolve latest %s: read %s: %w", c.Package, u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("resolve latest %s: %s answered %s", c.Package, u, resp.Status)
	}
	var doc struct {
		DistTags map[string]string `json:"dist-tags"` // npm
		Info     struct {
			Version string `json:"version"`
		} `json:"info"` // PyPI
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("resolve latest %s: decode %s: %w", c.Package, u, err)
	}
	v := doc.DistTags["latest"]
	if c.Registry == PyPI {
		v = doc.Info.Version
	}
	if !ValidVersion(v) {
		return "", fmt.Errorf("resolve latest %s: %s names %q as the latest version, not a version like 1.2.3", c.Package, u, clip(v, 80))
	}
	return v, nil
}

func root(u, def string) string {
	u = cmp.Or(u, def)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
