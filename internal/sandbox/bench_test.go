package sandbox_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// BenchmarkSandboxOverhead measures the sandbox's own cost — sweep, create,
// start, copy the sample repository and a prompt in, exec `true`, copy the
// transcript and stderr out, remove — against `docker run --rm IMAGE true`
// on the same image, and reports the ratio.
//
//	go test ./internal/sandbox -run '^$' -bench SandboxOverhead -benchtime 10x
func BenchmarkSandboxOverhead(b *testing.B) {
	cli, img := sandboxtest.Docker(b)
	s := spec(img, "echo '{}' > "+transcript+"; : > "+stderrPath)
	s.RepoDir = "../../testdata/sample-repo"
	s.Files = []sandbox.File{{Path: "/readme2demo/prompt.md", Data: []byte("follow the README\n")}}
	var box, plain time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := sandbox.Run(context.Background(), cli, s)
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			b.Fatalf("sandbox run: %v %+v", err, res)
		}
		box += time.Since(t0)
		t0 = time.Now()
		if out, err := exec.Command("docker", "run", "--rm", img, "true").CombinedOutput(); err != nil {
			b.Fatalf("docker run: %v: %s", err, out)
		}
		plain += time.Since(t0)
	}
	b.ReportMetric(float64(box.Milliseconds())/float64(b.N), "sandbox-ms/op")
	b.ReportMetric(float64(plain.Milliseconds())/float64(b.N), "docker-run-ms/op")
	b.ReportMetric(float64(box)/float64(plain), "ratio")
}
