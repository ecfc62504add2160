package main

import "runtime/debug"

// buildVersion is set at link time for releases:
//
//	go build -ldflags "-X main.buildVersion=v1.2.3" ./cmd/readme2demo
var buildVersion string

// version is what --version prints: buildVersion, else the version the Go
// toolchain stamped (the tag or pseudo-version of the module or checkout,
// or "(devel)").
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
