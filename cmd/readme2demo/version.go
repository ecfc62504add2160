package main

import "runtime/debug"

// buildVersion is set at link time for releases:
//
//	go build -ldflags "-X main.buildVersion=v1.2.3" ./cmd/readme2demo
var buildVersion string

// version is what --version prints: buildVersion when set, else the module
// version go install recorded (v1.2.3, or (devel) for a local build), with
// the VCS revision when the build recorded one.
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" && v == "(devel)" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev + dirty + ")"
	}
	return v
}
