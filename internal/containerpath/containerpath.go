// Package containerpath is the one home of the fixed paths inside a
// sandbox container: the engines (engines/base.go) and the sandbox
// (its working directory, the strict profile's writable places) both read
// them from here, and a test finds any other Go file spelling them.
package containerpath

const (
	// Workspace is where the repository under test is copied, and the
	// run's working directory.
	Workspace = "/workspace"
	// RunDir holds the run's own files (the prompt, the transcript, the
	// runner's records).
	RunDir = "/readme2demo"
	// AgentHome is the home of the image's non-root "agent" user.
	AgentHome = "/home/agent"
)
