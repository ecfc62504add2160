// Package fakeengine holds a test, and nothing else: it registers a fake
// engine from its test file alone, and checks the engine's spec reaches
// every package that needs a fact about an engine (agent CLI, drift
// scenarios, devcontainer image, transcript parsing, a whole run on
// sandboxtest.FakeDocker, the Action's input validation) without any of
// them naming it. Adding an engine touches its
// own file and fixtures only; this test fails when a package keeps a table
// of engines of its own again.
package fakeengine
