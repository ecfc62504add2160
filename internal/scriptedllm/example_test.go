package scriptedllm_test

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// A scenario answers main-conversation requests turn by turn: each carries one more exchange
// than the last and gets the next turn, then FinalText; a retried request (the same
// conversation again) gets the same answer again. Side requests (no tools) get a short answer
// without consuming a turn. Point ANTHROPIC_BASE_URL at srv.URL() to drive a CLI.
func ExampleStart() {
	sc := scriptedllm.Scenario{Name: "demo", Turns: []scriptedllm.Turn{
		scriptedllm.Run("Building.", scriptedllm.Bash("make")),
	}, FinalText: "SUCCESS"}
	srv, err := scriptedllm.Start("127.0.0.1:0", sc)
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	for _, body := range []string{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"quota"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"follow the README"}],"tools":[{"name":"Bash"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"follow the README"}],"tools":[{"name":"Bash"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"follow the README"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_mock_t01_c01","name":"Bash","input":{"command":"make"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_mock_t01_c01","content":"ok"}]}],"tools":[{"name":"Bash"}]}`,
	} {
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
	}
	for _, r := range srv.Requests() {
		fmt.Println(r.Path, r.Kind, r.Turn, r.Repeat)
	}
	// Output:
	// /v1/messages side -1 false
	// /v1/messages turn 0 false
	// /v1/messages turn 0 true
	// /v1/messages final -1 false
}
